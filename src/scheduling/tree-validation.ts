/**
 * The Workload API's rules on a controller's tree: what the API server would refuse in the Workload the
 * tree compiles to (on an update, as a replacement of the Workload the old tree compiles to), reported at
 * the items' paths instead of the Workload's. These are the rules the Go workloadbuilder leaves to the API
 * server: template names that are DNS labels, at most 8 templates per list, a tree at most 4 deep, one
 * priority in the whole tree, and the immutability of the stored templates (only a gang's count may
 * change, no template added or removed). Its reference is the real kube-apiserver, fed the same compiled
 * Workloads (test/cluster/validation.test.ts); {@link validateWorkload} is that server's validation.
 *
 * A tree that does not compile has nothing to check here (the builder says why it does not compile);
 * the Workload's own identity (`metadata`) is the caller's, not the tree's, and is left out.
 */
import { blockPath, newBuilder, type BuildOptions } from "./builder.js";
import { isComposite, itemPath, type WorkloadInput, type WorkloadItem } from "./config.js";
import { pathString, type FieldError, type FieldPath } from "./fielderrors.js";
import type { Workload } from "./types.js";
import { validateWorkload } from "./validation.js";

/** Parameters of {@link validateWorkloadTree}: an old root makes it an update. */
export interface TreeValidationInput {
  oldRoot?: WorkloadItem;
}

/** Each template's path in the compiled Workload, with the item it was compiled from. */
function templateItems(workload: Workload, root: WorkloadItem): { path: string; item: WorkloadItem }[] {
  const out: { path: string; item: WorkloadItem }[] = [];
  const visit = (item: WorkloadItem, path: string) => {
    out.push({ path, item });
    const children = item.children ?? [];
    children.filter((c) => !isComposite(c)).forEach((c, i) => visit(c, `${path}.podGroupTemplates[${i}]`));
    children.filter((c) => isComposite(c)).forEach((c, i) => visit(c, `${path}.compositePodGroupTemplates[${i}]`));
  };
  visit(root, workload.spec.compositePodGroupTemplates !== undefined ? "spec.compositePodGroupTemplates[0]" : "spec.podGroupTemplates[0]");
  // Longest first, so a nested template wins over its ancestors.
  return out.sort((a, b) => b.path.length - a.path.length);
}

/** The template fields that are an item's blocks, by the block in the item's input. */
const BLOCKS: Record<string, keyof WorkloadInput> = {
  schedulingPolicy: "policy",
  schedulingConstraints: "constraints",
  disruptionMode: "disruptionMode",
  resourceClaims: "resourceClaims",
};

/**
 * A field of the compiled Workload as a field of the controller's object: a template's block at the
 * item's block path, its name (and the template itself) at the item's path, anything else under the
 * item's path. A field outside every template stays as it is.
 */
export function itemFieldPath(field: string, workload: Workload, root: WorkloadItem): string {
  for (const { path, item } of templateItems(workload, root)) {
    if (field !== path && !field.startsWith(`${path}.`) && !field.startsWith(`${path}[`)) continue;
    const rest = field.slice(path.length);
    if (rest === "" || rest === ".name") return pathString(itemPath(item));
    const m = /^\.([A-Za-z]+)(.*)$/.exec(rest);
    const block = m ? BLOCKS[m[1]!] : undefined;
    const base: FieldPath = block !== undefined ? blockPath(item, item.input?.[block]) : itemPath(item);
    const tail = block !== undefined ? m![2]! : rest;
    if (base === undefined) return tail === "" ? pathString(undefined) : tail.replace(/^\./, "");
    return `${base}${tail}`;
  }
  return field;
}

/** The API server's errors on the Workload `root` compiles to (an update of the one `oldRoot` compiles to), at the items' paths. */
export function validateWorkloadTree(root: WorkloadItem, options: BuildOptions, input: TreeValidationInput = {}): FieldError[] {
  const built = newBuilder(root, options).buildWorkload();
  if (!built.ok) return [];
  const old = input.oldRoot === undefined ? undefined : newBuilder(input.oldRoot, options).buildWorkload();
  const errs = validateWorkload(built.value, old?.ok ? old.value : undefined);
  return errs.filter((e) => e.field !== "metadata" && !e.field.startsWith("metadata.")).map((e) => ({ ...e, field: itemFieldPath(e.field, built.value, root) }));
}
