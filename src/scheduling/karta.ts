/**
 * The Karta bridge: from a Karta, one workload object (the root custom resource) and optionally its pods,
 * the Workload API objects a controller for that kind would create — the {@link WorkloadItem} tree, the
 * Workload owned by the object, its CompositePodGroups and PodGroups, and per pod the patch that sets
 * `spec.schedulingGroup.podGroupName`.
 *
 * Mapping of the gang instructions:
 * - older `podGroups`: one PodGroupTemplate per pod-group definition, named after it, gang `minCount`
 *   the subtree scale of its member components (the largest when several). Runtime groups are KAI's:
 *   a definition whose members have no `groupByKeyPaths` has one group per object, known without pods;
 *   a keyed definition has one group per distinct key tuple of the pods, all from its one template.
 * - newer `podGroup` with `subGroups`: a CompositePodGroupTemplate named after the podGroup with gang
 *   `minGroupCount` = the subgroups it needs (all, or minSubGroupPath's value), over one PodGroupTemplate
 *   per subgroup of interpret's plan (named after its component, or instance id with `perInstance`) with
 *   gang `minCount` = the pods it holds; without subgroups a single PodGroupTemplate with the root's
 *   subtree scale. With `podGroup.groupByKeyPaths` the runtime groups are per key tuple of the pods: a
 *   CompositePodGroup `<workload>-<template>-<keys>` over `<workload>-<subgroup>-<keys>` PodGroups.
 * - topology: a `requiredTopologyLevel` that is a node label key becomes `schedulingConstraints.topology[].key`;
 *   a preferred level has no Workload API counterpart and is reported, not carried.
 *
 * Names: Workload `<object>-<hash of its UID>`, groups `<workload>-<template>[-<keys>]-<hash>` (hashes
 * over the full names, prefixes truncated to fit), as the Job integration names them. Errors are values
 * with the field path of the input that caused them; nothing is emitted when there is an error.
 */
import type { Definition, Karta } from "../definition/index.js";
import { apiVersionOf, compileInterpreter, subGroupOfPod, type GangGroup, type CompiledInterpreter, type PodClassification, type WorkloadView } from "../interpret/index.js";
import { AllMode, BasicPolicy, GangPolicy, SingleMode, fromExistingWorkload, newBuilder, type BuildOptions } from "./builder.js";
import { invalid, required, type FieldError } from "./fielderrors.js";
import { isDNS1123Subdomain } from "../names/index.js";
import { hasErrors, issueFromDiagnostic, issueFromFieldError, type CompileIssue } from "./karta/issues.js";
import type { WorkloadCompilation } from "./karta/compilation.js";
import { validateSchedulingIntent, type SchedulingIntent } from "./karta/options.js";
import { podLabel, podSchedulingPatch, type PodSchedulingPatch } from "./karta/pod-patch.js";
import { GANG_SCHEDULING_PATH, kartaWorkloadTree, type KartaWorkloadTree } from "./karta/tree.js";
import { groupHierarchy, podGroupAnywhere } from "./hierarchy.js";
import { generatePodGroupName, generateWorkloadName } from "./naming.js";
import { validateWorkloadTree } from "./tree-validation.js";
import { SYSTEM_PRIORITY_CLASS_PREFIX, type CompositePodGroup, type OwnerReference, type PodGroup, type Workload } from "./types.js";
import { validateCompositePodGroup, validatePodGroup, validateWorkload } from "./validation.js";
import { isObject } from "../interpret/plain.js";

export { GANG_SCHEDULING_PATH, kartaWorkloadTree, type KartaWorkloadTree } from "./karta/tree.js";
export type { CompileIssue, CompileInput } from "./karta/issues.js";
export type { SchedulingIntent } from "./karta/options.js";
export { compiledObjects, type WorkloadCompilation } from "./karta/compilation.js";
export type { PodSchedulingPatch } from "./karta/pod-patch.js";
export { compileBatchJob, isBatchJob, type BatchJobCompileOptions } from "./karta/batch-job.js";

/** What to compile beside the object: the user's intent and the pods. */
export interface KartaCompileOptions extends SchedulingIntent {
  /** The object's pods (core/v1 Pod objects): they form the keyed groups and get patches. */
  pods?: readonly unknown[];
  /** Objects between the pods and the object (ReplicaSets, Jobs, StatefulSets...): pods' owner chains are followed through them. */
  owners?: readonly unknown[];
}


/** The root object's identity, and the errors that keep it from owning a Workload. */
function rootIdentity(object: unknown, karta: Karta): { owner?: OwnerReference; namespace?: string; issues: CompileIssue[] } {
  const issues: CompileIssue[] = [];
  const o = isObject(object) ? object : {};
  const meta = isObject(o.metadata) ? o.metadata : {};
  const want = karta?.spec?.structureDefinition?.rootComponent?.kind;
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : want ? apiVersionOf(want) : "";
  const kind = typeof o.kind === "string" ? o.kind : (want?.kind ?? "");
  const name = typeof meta.name === "string" ? meta.name : "";
  const uid = typeof meta.uid === "string" ? meta.uid : "";
  // A value of another type is invalid, not missing; a name the API server would refuse is the object's
  // error, not one of every object compiled from it.
  for (const field of ["name", "uid"] as const) {
    const v = meta[field];
    if (v !== undefined && v !== null && typeof v !== "string") issues.push(issueFromFieldError("object", invalid(`metadata.${field}`, v, "must be a string")));
  }
  if (hasErrors(issues)) return { issues };
  if (name === "") issues.push(issueFromFieldError("object", required("metadata.name", "the Workload is named after the object and owned by it")));
  for (const e of name === "" ? [] : isDNS1123Subdomain(name)) issues.push(issueFromFieldError("object", invalid("metadata.name", name, e)));
  if (uid === "") {
    issues.push(
      issueFromFieldError("object", required("metadata.uid", "the Workload's name hashes the object's UID and its owner reference needs it (use the object as stored: kubectl get -o yaml)")),
    );
  }
  if (hasErrors(issues)) return { issues };
  const owner: OwnerReference = { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true };
  return typeof meta.namespace === "string" && meta.namespace !== "" ? { owner, namespace: meta.namespace, issues } : { owner, issues };
}

function builderOptions(owner: OwnerReference, namespace: string | undefined): BuildOptions {
  return {
    name: generateWorkloadName(owner.name, owner.uid),
    ...(namespace !== undefined ? { namespace } : {}),
    owner,
    allowedPolicies: [BasicPolicy, GangPolicy],
    allowedDisruptionModes: [SingleMode, AllMode],
  };
}

function isInterpreter(v: Karta | Definition | CompiledInterpreter): v is CompiledInterpreter {
  return typeof (v as CompiledInterpreter).interpret === "function" && typeof (v as CompiledInterpreter).workload === "function";
}

function failed(issues: CompileIssue[]): WorkloadCompilation {
  return { ok: false, compositePodGroups: [], podGroups: [], podPatches: [], issues };
}

/** Validation of every emitted object: anything it finds is a bug of the bridge, reported, never emitted. */
function validateEmitted(workload: Workload, composites: CompositePodGroup[], groups: PodGroup[]): CompileIssue[] {
  const out: CompileIssue[] = [];
  const report = (what: string, errs: FieldError[]): void => {
    for (const e of errs) out.push({ ...issueFromFieldError("definition", e), path: "", message: `the compiled ${what} would be rejected: ${e.field}: ${issueFromFieldError("definition", e).message}`, code: "emitted-invalid" });
  };
  report(`Workload ${workload.metadata.name}`, validateWorkload(workload));
  for (const c of composites) report(`CompositePodGroup ${c.metadata.name}`, validateCompositePodGroup(c));
  for (const g of groups) report(`PodGroup ${g.metadata.name}`, validatePodGroup(g));
  return out;
}

/**
 * Keyed groups in natural order (group 2 before group 10). Made when first needed: ICU's collation data
 * it loads is about 3 MB of a process's resident memory, which a controller whose Kartas have no keyed
 * groups never needs.
 */
let keyOrder: Intl.Collator | undefined;
const compareKeys = (a: string[] | undefined, b: string[] | undefined): number => (keyOrder ??= new Intl.Collator("en", { numeric: true })).compare((a ?? []).join("\u0000"), (b ?? []).join("\u0000"));

/** A runtime group of the older format: its name, template and, from the pods, KAI's minimum. */
interface RuntimeGroup {
  name: string;
  template: string;
  keys: string[];
  minMember?: number;
  /** The distinct minimums its pods' members compute. */
  memberMinimums?: Set<number>;
  pods: string[];
}

/**
 * The runtime groups of the older format: unkeyed templates always, keyed ones from the pods' keys.
 * Each pod goes to the template of its own member's definition: KAI names every unkeyed group
 * `pg-<uid>` and so merges the unkeyed groups of several definitions, which the Workload API keeps apart.
 */
function olderRuntimeGroups(tree: KartaWorkloadTree, workloadName: string, gangGroups: GangGroup[], issues: CompileIssue[], karta: Karta): RuntimeGroup[] {
  const defs = karta.spec.optimizationInstructions?.gangScheduling?.podGroups ?? [];
  const byName = new Map<string, RuntimeGroup>();
  const add = (g: RuntimeGroup): RuntimeGroup => {
    const had = byName.get(g.name);
    if (had) return had;
    byName.set(g.name, g);
    return g;
  };
  const order: RuntimeGroup[] = [];
  for (const root of tree.roots) {
    if (!tree.keyedTemplates.has(root.name)) order.push(add({ name: generatePodGroupName(workloadName, root.name), template: root.name, keys: [], pods: [] }));
  }
  const keyed: RuntimeGroup[] = [];
  const reported = new Set<string>();
  const names = new Map<string, { name: string; errs: string[] }>();
  for (const g of gangGroups) {
    const keys = g.keys ?? [];
    for (const m of g.members) {
      // The member's own definition: the group's when it lists the member, else the first that does.
      const own = tree.definitionIndex.get(g.definition);
      const listed = (i: number | undefined) => i !== undefined && (defs[i]?.members ?? []).some((x) => x.componentName === m.memberComponent);
      const index = listed(own) ? own! : defs.findIndex((d, i) => tree.definitionIndex.get(d.name) === i && listed(i));
      if (index < 0) continue;
      const template = defs[index]!.name;
      if (tree.excluded.has(template)) continue;
      // Pods of one group share template and keys: name and check each group once.
      const cacheKey = `${index}\u0000${keys.join("\u0000")}`;
      let named = names.get(cacheKey);
      if (named === undefined) {
        const n = keys.length === 0 ? generatePodGroupName(workloadName, template) : generatePodGroupName(workloadName, `${template}-${keys.join("-")}`);
        named = { name: n, errs: isDNS1123Subdomain(n) };
        names.set(cacheKey, named);
      }
      const { name, errs: nameErrs } = named;
      if (nameErrs.length > 0) {
        if (reported.has(name)) continue;
        reported.add(name);
        const j = Math.max(0, (defs[index]?.members ?? []).findIndex((x) => x.componentName === m.memberComponent));
        issues.push({
          severity: "error",
          input: "definition",
          path: `${GANG_SCHEDULING_PATH}.podGroups[${index}].members[${j}].groupByKeyPaths`,
          message: `the group keys [${keys.join(" ")}] of pod ${m.pod} make the PodGroup name ${JSON.stringify(name)}, which is not valid: ${nameErrs.join("; ")}`,
          code: "group-name",
        });
        continue;
      }
      const known = byName.has(name);
      const rg = add({ name, template, keys, pods: [] });
      if (!known) keyed.push(rg);
      rg.minMember = Math.max(rg.minMember ?? 0, m.minMember);
      (rg.memberMinimums ??= new Set()).add(m.minMember);
      rg.pods.push(m.pod);
    }
  }
  keyed.sort((a, b) => {
    const ia = tree.definitionIndex.get(a.template)!;
    const ib = tree.definitionIndex.get(b.template)!;
    if (ia !== ib) return ia - ib;
    return compareKeys(a.keys, b.keys);
  });
  const all = [...order, ...keyed];
  for (const rg of all) {
    if ((rg.memberMinimums?.size ?? 0) > 1) {
      issues.push({
        severity: "warning",
        input: "definition",
        path: `${GANG_SCHEDULING_PATH}.podGroups[${tree.definitionIndex.get(rg.template)}]`,
        message: `group ${rg.name}: its pods' members have different subtree scales (${[...rg.memberMinimums!].sort((a, b) => a - b).join(", ")}): the PodGroup's minCount is the largest`,
        code: "gang-min-member",
      });
    }
  }
  return all;
}

/**
 * Compile one workload instance: the Workload owned by `object`, its CompositePodGroups and PodGroups,
 * and a patch per pod. `definition` may be a {@link CompiledInterpreter} compiled once for many objects.
 * Never throws; when anything is wrong the result has no objects and the issues say why.
 */
export function compileKarta(definition: Karta | Definition | CompiledInterpreter, object: unknown, options: KartaCompileOptions = {}): WorkloadCompilation {
  const issues: CompileIssue[] = validateSchedulingIntent(options);
  const interpreter = isInterpreter(definition) ? definition : compileInterpreter(definition);
  issues.push(...interpreter.diagnostics.filter((d) => d.severity === "error").map((d) => issueFromDiagnostic(d)));
  try {
    const root = rootIdentity(object, interpreter.karta);
    issues.push(...root.issues);
    const w = interpreter.workload(object);
    for (const d of w.diagnostics) issues.push(issueFromDiagnostic(d, d.code === "object-kind" || d.code === "object" ? "object" : "definition"));
    const view = w.view;
    if (!view || !root.owner || hasErrors(issues)) return failed(issues);

    const t = kartaWorkloadTree(view, options);
    issues.push(...t.issues);
    const tree = t.tree;
    if (!tree || hasErrors(issues)) return failed(issues);
    // Every group left out (its pods run at a system priority): nothing to create, no pod to patch.
    if (tree.roots.length === 0) return { ok: true, compositePodGroups: [], podGroups: [], podPatches: [], issues };

    // Pods: classified against the definition; the older format's groups formed as KAI forms them.
    const pods = options.pods ?? [];
    const classified = interpreter.classifyPods(view, pods, options.owners ?? []);
    // A pod whose instance id is unknown is that pod's problem: it is reported with the pod and gets no patch.
    issues.push(...classified.diagnostics.filter((d) => d.code !== "pod-instance").map((d) => issueFromDiagnostic(d)));
    let gangGroups: GangGroup[] = [];
    if (tree.format === "podGroups" && pods.length > 0) {
      const g = interpreter.gangGroups(view, pods, classified.pods);
      gangGroups = g.groups;
      // KAI's group names (and the minimum of groups merged under one name) are not the Workload API's: those warnings do not apply here.
      issues.push(...g.diagnostics.filter((d) => d.code !== "gang-name" && d.code !== "gang-min-member").map((d) => issueFromDiagnostic(d)));
    }

    // The Workload: one builder per top-level template, their templates side by side.
    const opts = builderOptions(root.owner, root.namespace);
    let workload: Workload | undefined;
    for (const item of tree.roots) {
      const builder = newBuilder(item, opts);
      // The builder's checks, then the Workload API's rules on the compiled tree (both at the definition's
      // paths; a field the builder already refused is not reported twice).
      const builderErrs = builder.validate();
      const refused = new Set(builderErrs.map((e) => e.field));
      const treeErrs = validateWorkloadTree(item, opts).filter((e) => !refused.has(e.field));
      for (const e of [...builderErrs, ...treeErrs]) issues.push(issueFromFieldError(e.field.startsWith("--") ? "option" : "definition", e));
      const built = builder.buildWorkload();
      if (!built.ok) {
        issues.push({ severity: "error", input: "definition", path: item.path ?? "", message: built.error, code: "build" });
        continue;
      }
      if (workload === undefined) workload = structuredClone(built.value);
      else workload.spec.podGroupTemplates!.push(...structuredClone(built.value.spec.podGroupTemplates ?? []));
    }
    if (!workload || hasErrors(issues)) return failed(issues);

    const groups = fromExistingWorkload(workload, opts);
    const workloadName = workload.metadata.name ?? "";
    const out: WorkloadCompilation = { ok: true, workload, compositePodGroups: [], podGroups: [], podPatches: [], issues };
    /** Pod name → its leaf PodGroup. */
    const podGroupOf = new Map<string, string>();
    if (tree.format === "podGroup" && tree.keyed) {
      keyedNewerGroups(interpreter, view, tree, groups, workloadName, pods, classified.pods, out, podGroupOf, issues);
    } else if (tree.format === "podGroup") {
      const h = groupHierarchy(groups);
      if (!h.ok) return failed([...issues, { severity: "error", input: "definition", path: GANG_SCHEDULING_PATH, message: h.error, code: "build" }]);
      out.compositePodGroups = h.value.compositePodGroups;
      out.podGroups = h.value.podGroups;
      assignNewerFormat(view, tree, out.podGroups, pods, classified.pods, podGroupOf, issues);
    } else {
      for (const rg of olderRuntimeGroups(tree, workloadName, gangGroups, issues, interpreter.karta)) {
        const pg = groups.newPodGroup(rg.name, rg.template);
        if (!pg.ok) {
          issues.push({ severity: "error", input: "definition", path: GANG_SCHEDULING_PATH, message: pg.error, code: "build" });
          continue;
        }
        setRuntimeMinCount(pg.value, rg, tree, issues);
        out.podGroups.push(pg.value);
        for (const p of rg.pods) podGroupOf.set(p, rg.name);
      }
      for (const name of tree.keyedTemplates) {
        if (out.podGroups.some((g) => g.spec.workloadRef?.templateName === name)) continue;
        issues.push({
          severity: "notice",
          input: "definition",
          path: `${GANG_SCHEDULING_PATH}.podGroups[${tree.definitionIndex.get(name)}]`,
          message:
            pods.length === 0
              ? `the groups of template ${name} are keyed by pod values (groupByKeyPaths): give --pods to create its PodGroups`
              : `no pod falls in template ${name}, whose groups are keyed by pod values (groupByKeyPaths): it has no PodGroups`,
          code: "keyed-groups",
        });
      }
    }
    out.podPatches = podPatches(pods, classified.pods, podGroupOf, issues);
    issues.push(...validateEmitted(workload, out.compositePodGroups, out.podGroups));
    if (hasErrors(issues)) return failed(issues);
    return out;
  } catch (err) {
    // A bug of ours must not crash the caller nor hide what was found.
    issues.push({ severity: "error", input: "definition", path: "", message: `internal error while compiling: ${err instanceof Error ? err.message : String(err)}`, code: "internal" });
    return failed(issues);
  }
}

/** KAI computes a keyed group's minimum from its pods; the PodGroup's minCount (mutable) follows it. */
function setRuntimeMinCount(pg: PodGroup, rg: RuntimeGroup, tree: KartaWorkloadTree, issues: CompileIssue[]): void {
  const gang = pg.spec.schedulingPolicy.gang;
  if (gang === undefined || rg.minMember === undefined || rg.minMember === gang.minCount) return;
  if (rg.minMember < 1) {
    issues.push({
      severity: "error",
      input: "definition",
      path: `${GANG_SCHEDULING_PATH}.podGroups[${tree.definitionIndex.get(rg.template)}]`,
      message: `group ${rg.name} (keys ${rg.keys.join(" ")}): its pods' member has a subtree scale of 0; a gang needs a minCount of at least 1`,
      code: "gang-scale",
    });
    return;
  }
  gang.minCount = rg.minMember;
}

/** Newer format: each classified pod goes to the subgroup interpret gives it (its nearest listed component's). */
function assignNewerFormat(
  view: WorkloadView,
  tree: KartaWorkloadTree,
  podGroups: PodGroup[],
  pods: readonly unknown[],
  classified: readonly PodClassification[],
  podGroupOf: Map<string, string>,
  issues: CompileIssue[],
): void {
  const byTemplate = new Map(podGroups.map((g) => [g.spec.workloadRef?.templateName ?? "", g.metadata.name ?? ""] as const));
  const single = tree.plan === undefined || tree.flat ? podGroups[0]?.metadata.name : undefined;
  for (const c of classified) {
    if (c.component === undefined || c.reason !== undefined) continue;
    if (tree.plan === undefined && single !== undefined) {
      podGroupOf.set(c.pod.name, single);
      continue;
    }
    const entry = subGroupOfPod(view, tree.plan!, c, pods[c.index]);
    // Flat: the one group holds the pods of every subgroup.
    const group = entry ? (tree.flat ? single : byTemplate.get(entry.name)) : undefined;
    if (group) podGroupOf.set(c.pod.name, group);
    else {
      issues.push({
        severity: "warning",
        input: "definition",
        path: `${GANG_SCHEDULING_PATH}.podGroup.subGroups`,
        message: `pod ${podLabel(c.pod)} (component ${c.component}) is under none of the subgroups: it gets no PodGroup`,
        code: "pod-group",
      });
    }
  }
}

/**
 * Newer format keyed by pod values (podGroup.groupByKeyPaths): per distinct key tuple of the pods, a
 * CompositePodGroup from the podGroup's template over a PodGroup per subgroup (or one PodGroup when
 * there are no subgroups), named `<workload>-<template>-<keys>-<hash>`.
 */
function keyedNewerGroups(
  interpreter: CompiledInterpreter,
  view: WorkloadView,
  tree: KartaWorkloadTree,
  groups: ReturnType<typeof fromExistingWorkload>,
  workloadName: string,
  pods: readonly unknown[],
  classified: readonly PodClassification[],
  out: WorkloadCompilation,
  podGroupOf: Map<string, string>,
  issues: CompileIssue[],
): void {
  const template = tree.roots[0]?.name ?? "";
  const path = `${GANG_SCHEDULING_PATH}.podGroup.groupByKeyPaths`;
  if (pods.length === 0) {
    issues.push({ severity: "notice", input: "definition", path, message: `the groups of template ${template} are keyed by pod values (groupByKeyPaths): give --pods to create them`, code: "keyed-groups" });
    return;
  }
  const g = interpreter.gangGroups(view, pods, classified);
  issues.push(...g.diagnostics.filter((d) => d.code === "gang-key").map((d) => issueFromDiagnostic(d)));
  const sorted = [...g.groups].sort((a, b) => compareKeys(a.keys, b.keys));
  const named = (base: string): string | undefined => {
    const n = generatePodGroupName(workloadName, base);
    const errs = isDNS1123Subdomain(n);
    if (errs.length === 0) return n;
    issues.push({ severity: "error", input: "definition", path, message: `the group keys make the name ${JSON.stringify(n)}, which is not valid: ${errs.join("; ")}`, code: "group-name" });
    return undefined;
  };
  for (const gg of sorted) {
    const suffix = (gg.keys ?? []).join("-");
    const name = named(`${template}-${suffix}`);
    if (name === undefined) continue;
    if (tree.plan === undefined || tree.flat) {
      const pg = groups.newPodGroup(name, template);
      if (!pg.ok) {
        issues.push({ severity: "error", input: "definition", path: GANG_SCHEDULING_PATH, message: pg.error, code: "build" });
        continue;
      }
      out.podGroups.push(pg.value);
      // Flat: the pods of its subgroups, as the composite would hold them.
      for (const p of gg.subGroups && tree.flat ? gg.subGroups.flatMap((sub) => sub.pods) : gg.members.map((m) => m.pod)) podGroupOf.set(p, name);
      continue;
    }
    const cpg = groups.newCompositePodGroup(name, template);
    if (!cpg.ok) {
      issues.push({ severity: "error", input: "definition", path: GANG_SCHEDULING_PATH, message: cpg.error, code: "build" });
      continue;
    }
    out.compositePodGroups.push(cpg.value);
    for (const sub of gg.subGroups ?? []) {
      const subName = named(`${sub.name}-${suffix}`);
      if (subName === undefined) continue;
      const pg = podGroupAnywhere(groups, subName, sub.name, { parentCompositePodGroupName: name });
      if (!pg.ok) {
        issues.push({ severity: "error", input: "definition", path: GANG_SCHEDULING_PATH, message: pg.error, code: "build" });
        continue;
      }
      out.podGroups.push(pg.value);
      for (const p of sub.pods) podGroupOf.set(p, subName);
    }
  }
}

/** One patch per grouped pod; pods outside every group (of another namespace among them) are reported. */
function podPatches(
  pods: readonly unknown[],
  classified: readonly PodClassification[],
  podGroupOf: Map<string, string>,
  issues: CompileIssue[],
): PodSchedulingPatch[] {
  const out: PodSchedulingPatch[] = [];
  for (const c of classified) {
    const label = podLabel(c.pod);
    if (c.component === undefined) {
      issues.push({ severity: "notice", input: "pod", pod: label, path: "metadata", message: `${c.reason ?? "the pod matches no component"}: no patch`, code: "pod-unmatched" });
      continue;
    }
    if (c.reason !== undefined) {
      issues.push({ severity: "warning", input: "pod", pod: label, path: "metadata", message: `${c.reason}: no patch (the other pods are compiled)`, code: "pod-instance" });
      continue;
    }
    const group = podGroupOf.get(c.pod.name);
    if (group === undefined) {
      issues.push({ severity: "warning", input: "pod", pod: label, path: "metadata", message: `the pod (component ${c.component}) is in no group: no patch`, code: "pod-group" });
      continue;
    }
    const pcn = (pods[c.index] as { spec?: { priorityClassName?: unknown } } | undefined)?.spec?.priorityClassName;
    if (typeof pcn === "string" && pcn.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
      // Its template does not say so (a webhook set it): the scheduler would refuse it in any group.
      issues.push({ severity: "notice", input: "pod", pod: label, path: "spec.priorityClassName", message: `the pod runs at the system priority class ${pcn}, which no pod group can have: no patch`, code: "priority-class" });
      continue;
    }
    const r = podSchedulingPatch(pods[c.index], c.index, group);
    if (r.issue) issues.push(r.issue);
    if (r.patch) out.push(r.patch);
  }
  return out;
}
