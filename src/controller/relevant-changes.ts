/**
 * Which watch updates can change what a reconcile computes. An update that cannot is not queued: a
 * kubelet writing a pod's conditions no Karta reads, an operator reporting its workload's progress in
 * `.status` (often once per pod change) where the expressions a compile evaluates never read it, the Job
 * controller writing the status of a JobSet's Job (a compile reads only the metadata of the objects
 * between a workload and its pods).
 */
import { isDeepStrictEqual } from "node:util";
import type { KubernetesObject } from "./kubernetes-object.js";
import { analyze, documentOf, listExpressions, type Analysis, type Karta, type JqRole } from "../definition/index.js";
import { parseJq } from "../jq/index.js";

/**
 * Whether `o` differs from `old` in nothing but `metadata.resourceVersion`, and, with `status`, `.status`
 * (the objects compared are the cached ones: without managedFields, pods trimmed to what Kartas read).
 */
export function changedOnly(o: KubernetesObject, old: KubernetesObject, status = false): boolean {
  const { metadata, ...rest } = o as KubernetesObject & { status?: unknown };
  const { metadata: oldMetadata, ...oldRest } = old as KubernetesObject & { status?: unknown };
  if (status) {
    delete rest.status;
    delete oldRest.status;
  }
  if (!isDeepStrictEqual(rest, oldRest)) return false;
  const { resourceVersion: _, ...meta } = metadata ?? {};
  const { resourceVersion: __, ...oldMeta } = oldMetadata ?? {};
  return isDeepStrictEqual(meta, oldMeta);
}

/** Roles on the workload a compile never evaluates: the generic status, Karmada's retention and dependencies. */
const NOT_COMPILED: ReadonlySet<JqRole> = new Set(["status", "action", "karmada"]);

/**
 * Whether compiling a workload of this Karta may read its `.status`: an expression the compile evaluates
 * (components, scale, fragments, instance ids) reads under it, uses the whole object (`.`, `has("status")`,
 * `tojson`, `.[]`), or reads what the analysis cannot follow. The compile's own code reads only metadata
 * and what those expressions give.
 */
export function compileReadsStatus(karta: Karta): boolean {
  for (const analysis of analyses(karta, (role) => documentOf(role) === "workload" && !NOT_COMPILED.has(role))) {
    if (analysis.dynamic.length > 0) return true;
    for (const r of [...analysis.reads, ...analysis.consumed]) {
      const top = r.steps[0];
      if (top === undefined || top.type === "iterate" || (top.type === "field" && top.name === "status")) return true;
    }
  }
  return false;
}

/** The analyses of a Karta's expressions of the roles `of` takes (what each reads of its document). */
export function* analyses(karta: Karta, of: (role: JqRole) => boolean): Generator<Analysis> {
  for (const e of listExpressions(karta)) {
    if (!of(e.role)) continue;
    let ast;
    try {
      ast = parseJq(e.text);
    } catch {
      continue; // not a valid expression: the Karta is not Ready, and nothing evaluates it
    }
    yield analyze(ast);
  }
}
