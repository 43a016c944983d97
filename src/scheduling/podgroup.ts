/**
 * Runtime groups from a Workload's templates, as the workloadbuilder's podgroup.go makes them: a PodGroup
 * copies its PodGroupTemplate's scheduling policy, constraints, claims (when any), disruption mode,
 * priority class name and priority (not its preemption policy), points back at the template, and lands
 * in the Workload's namespace; a CompositePodGroup copies the same of its CompositePodGroupTemplate (it
 * has no claims). Every copy is deep, so changing a group never changes the template.
 *
 * Also the two template indexes NewPodGroup and NewCompositePodGroup look names up in: the Workload's
 * top-level PodGroupTemplates only, and every CompositePodGroupTemplate of the tree (pre-order).
 */
import {
  SCHEDULING_V1ALPHA3,
  SCHEDULING_V1BETA1,
  type CompositePodGroup,
  type CompositePodGroupTemplate,
  type ObjectMeta,
  type OwnerReference,
  type PodGroup,
  type PodGroupTemplate,
  type Workload,
} from "./types.js";

/** An owner reference as Go's struct holds it: the four strings always, the two flags when set. */
export function ownerReference(o: OwnerReference): OwnerReference {
  const ref: OwnerReference = { apiVersion: o.apiVersion ?? "", kind: o.kind ?? "", name: o.name ?? "", uid: o.uid ?? "" };
  if (o.controller != null) ref.controller = o.controller;
  if (o.blockOwnerDeletion != null) ref.blockOwnerDeletion = o.blockOwnerDeletion;
  return ref;
}

/** The metadata of a group: its name and the Workload's namespace (Go leaves empty strings out), its owners. */
function groupMetadata(name: string, workload: Workload, owners: readonly OwnerReference[] | undefined): ObjectMeta {
  const meta: ObjectMeta = {};
  if (name !== "") meta.name = name;
  const namespace = workload.metadata?.namespace;
  if (namespace) meta.namespace = namespace;
  if (owners !== undefined && owners.length > 0) meta.ownerReferences = owners.map(ownerReference);
  return meta;
}

function workloadRef(workload: Workload, template: { name: string }) {
  return { workloadName: workload.metadata?.name ?? "", templateName: template.name };
}

/** A present value, deep-copied (absent and null stay absent). */
function copied<T>(v: T | null | undefined): T | undefined {
  return v === undefined || v === null ? undefined : structuredClone(v);
}

/** A runtime PodGroup from a PodGroupTemplate (Go's `newPodGroup`). */
export function podGroupFromTemplate(workload: Workload, tmpl: PodGroupTemplate, name: string, owners: readonly OwnerReference[] | undefined): PodGroup {
  const spec: Record<string, unknown> = { workloadRef: workloadRef(workload, tmpl), schedulingPolicy: copied(tmpl.schedulingPolicy) ?? {} };
  const fields = {
    schedulingConstraints: copied(tmpl.schedulingConstraints),
    resourceClaims: (tmpl.resourceClaims?.length ?? 0) > 0 ? copied(tmpl.resourceClaims) : undefined,
    disruptionMode: copied(tmpl.disruptionMode),
    priorityClassName: tmpl.priorityClassName || undefined,
    priority: copied(tmpl.priority),
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) spec[k] = v;
  return { apiVersion: SCHEDULING_V1BETA1, kind: "PodGroup", metadata: groupMetadata(name, workload, owners), spec: spec as unknown as PodGroup["spec"] };
}

/** A runtime CompositePodGroup from a CompositePodGroupTemplate (Go's `newCompositePodGroup`). */
export function compositePodGroupFromTemplate(workload: Workload, tmpl: CompositePodGroupTemplate, name: string, owners: readonly OwnerReference[] | undefined): CompositePodGroup {
  const spec: Record<string, unknown> = { workloadRef: workloadRef(workload, tmpl), schedulingPolicy: copied(tmpl.schedulingPolicy) ?? {} };
  const fields = {
    schedulingConstraints: copied(tmpl.schedulingConstraints),
    disruptionMode: copied(tmpl.disruptionMode),
    priorityClassName: tmpl.priorityClassName || undefined,
    priority: copied(tmpl.priority),
  };
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) spec[k] = v;
  return {
    apiVersion: SCHEDULING_V1ALPHA3,
    kind: "CompositePodGroup",
    metadata: groupMetadata(name, workload, owners),
    spec: spec as unknown as CompositePodGroup["spec"],
  };
}

/** The Workload's top-level PodGroupTemplates by name (a later one of a repeated name wins), and their names in order. */
export function indexPodGroupTemplates(workload: Workload): { index: Map<string, PodGroupTemplate>; names: string[] } {
  const index = new Map<string, PodGroupTemplate>();
  const names: string[] = [];
  for (const t of workload.spec?.podGroupTemplates ?? []) {
    index.set(t.name, t);
    names.push(t.name);
  }
  return { index, names };
}

/** Every CompositePodGroupTemplate of the Workload's tree by name, in pre-order (a later one of a repeated name wins). */
export function indexCompositePodGroupTemplates(workload: Workload): { index: Map<string, CompositePodGroupTemplate>; names: string[] } {
  const index = new Map<string, CompositePodGroupTemplate>();
  const names: string[] = [];
  const walk = (list: CompositePodGroupTemplate[] | undefined) => {
    for (const t of list ?? []) {
      index.set(t.name, t);
      names.push(t.name);
      walk(t.compositePodGroupTemplates);
    }
  };
  walk(workload.spec?.compositePodGroupTemplates);
  return { index, names };
}
