/**
 * Karta's layer over the workloadbuilder for hierarchies: the Go builder's NewPodGroup finds only the
 * Workload's top-level PodGroupTemplates and leaves parent links to the caller, so a controller of nested
 * groups (JobSet-like trees, the Karta bridge) makes the groups of every template here: a group of any
 * template of the tree, copied exactly as the builder copies one ({@link podGroupFromTemplate}), with
 * `spec.parentCompositePodGroupName` set from its placement, and the groups of a whole instance top-down.
 * Its reference is the API server and the scheduler that accept the groups (test/cluster).
 */
import { fail, ok, type BuildResult, type WorkloadBuilder } from "./builder.js";
import { goQuote, goStringList } from "../gofmt/index.js";
import { generatePodGroupName } from "./naming.js";
import { podGroupFromTemplate } from "./podgroup.js";
import type { CompositePodGroup, CompositePodGroupTemplate, PodGroup, PodGroupTemplate, Workload } from "./types.js";

/** Extra links of a runtime group to its place in a hierarchy. */
export interface GroupPlacement {
  /** Name of the parent CompositePodGroup instance. */
  parentCompositePodGroupName?: string;
}

/** The runtime groups of one Workload instance, parents before children. */
export interface GroupHierarchy {
  compositePodGroups: CompositePodGroup[];
  podGroups: PodGroup[];
}

/** Every template of a Workload by name, leaves and composites apart, in pre-order. */
export function collectTemplates(workload: Workload): {
  leaves: Map<string, PodGroupTemplate>;
  composites: Map<string, CompositePodGroupTemplate>;
} {
  const leaves = new Map<string, PodGroupTemplate>();
  const composites = new Map<string, CompositePodGroupTemplate>();
  for (const t of workload.spec?.podGroupTemplates ?? []) leaves.set(t.name, t);
  const walk = (list: CompositePodGroupTemplate[] | undefined) => {
    for (const c of list ?? []) {
      composites.set(c.name, c);
      for (const t of c.podGroupTemplates ?? []) leaves.set(t.name, t);
      walk(c.compositePodGroupTemplates);
    }
  };
  walk(workload.spec?.compositePodGroupTemplates);
  return { leaves, composites };
}

function placed<G extends PodGroup | CompositePodGroup>(group: G, placement: GroupPlacement): G {
  if (placement.parentCompositePodGroupName === undefined) return group;
  // The parent link comes first, as in the API's spec.
  group.spec = { parentCompositePodGroupName: placement.parentCompositePodGroupName, ...group.spec } as G["spec"];
  return group;
}

/** A PodGroup from any PodGroupTemplate of the builder's Workload (nested ones too), placed under its parent. */
export function podGroupAnywhere(builder: WorkloadBuilder, name: string, templateName: string, placement: GroupPlacement = {}): BuildResult<PodGroup> {
  const wl = builder.resolveWorkload();
  if (!wl.ok) return wl;
  const { leaves } = collectTemplates(wl.value);
  const tmpl = leaves.get(templateName);
  if (tmpl === undefined) return fail(`podGroupTemplate ${goQuote(templateName)} not found anywhere in workload ${goQuote(wl.value.metadata?.name ?? "")} (have ${goStringList([...leaves.keys()])})`);
  return ok(placed(podGroupFromTemplate(wl.value, tmpl, name, builder.owners()), placement));
}

/** A CompositePodGroup from any CompositePodGroupTemplate of the builder's Workload, placed under its parent. */
export function compositePodGroupAnywhere(builder: WorkloadBuilder, name: string, templateName: string, placement: GroupPlacement = {}): BuildResult<CompositePodGroup> {
  const made = builder.newCompositePodGroup(name, templateName);
  return made.ok ? ok(placed(made.value, placement)) : made;
}

/**
 * Every runtime group of one instance of the builder's Workload, top-down as controllers create them:
 * each CompositePodGroup before its children, children linked to their parent instance. `nameFor` names
 * the group of a template (default: {@link generatePodGroupName} of the Workload and template names; pass
 * a suffixing function for several instances).
 */
export function groupHierarchy(builder: WorkloadBuilder, nameFor?: (templateName: string) => string): BuildResult<GroupHierarchy> {
  const wl = builder.resolveWorkload();
  if (!wl.ok) return wl;
  const workloadName = wl.value.metadata?.name ?? "";
  const name = nameFor ?? ((t: string) => generatePodGroupName(workloadName, t));
  const out: GroupHierarchy = { compositePodGroups: [], podGroups: [] };
  const under = (parent: string | undefined): GroupPlacement => (parent === undefined ? {} : { parentCompositePodGroupName: parent });
  const addLeaves = (list: PodGroupTemplate[] | undefined, parent: string | undefined): string | undefined => {
    for (const t of list ?? []) {
      const pg = podGroupAnywhere(builder, name(t.name), t.name, under(parent));
      if (!pg.ok) return pg.error;
      out.podGroups.push(pg.value);
    }
    return undefined;
  };
  const addComposites = (list: CompositePodGroupTemplate[] | undefined, parent: string | undefined): string | undefined => {
    for (const t of list ?? []) {
      const cpg = compositePodGroupAnywhere(builder, name(t.name), t.name, under(parent));
      if (!cpg.ok) return cpg.error;
      out.compositePodGroups.push(cpg.value);
      const self = cpg.value.metadata.name;
      const err = addLeaves(t.podGroupTemplates, self) ?? addComposites(t.compositePodGroupTemplates, self);
      if (err !== undefined) return err;
    }
    return undefined;
  };
  const err = addLeaves(wl.value.spec?.podGroupTemplates, undefined) ?? addComposites(wl.value.spec?.compositePodGroupTemplates, undefined);
  return err === undefined ? ok(out) : fail(err);
}
