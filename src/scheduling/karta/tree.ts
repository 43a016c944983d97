/**
 * The WorkloadItem tree of a Karta evaluated on one object: older `podGroups` → one PodGroupTemplate per
 * pod-group definition (gang minCount = its members' subtree scale); newer `podGroup` with `subGroups` →
 * a CompositePodGroupTemplate (minGroupCount = the subgroups needed) over one PodGroupTemplate per subgroup
 * (minCount = its subtree scale). The definition's counts, topology and pod templates' priority class are
 * the controller's defaults; the user's intent comes in as building blocks, as the workload builder expects.
 * Problems are field errors at the Karta field that causes them.
 */
import type { Diagnostic, PodGroupDefinition, TopologyConstraint as KartaTopology } from "../../definition/index.js";
import { subGroupPlan, subtreeOf, subtreeScale, type SubGroupPlan, type WorkloadView } from "../../interpret/index.js";
import { listOf } from "../../interpret/plain.js";
import type { SchedulingConfig, WorkloadInput, WorkloadItem } from "../config.js";
import { duplicate, invalid, required, tooMany, type FieldError } from "../fielderrors.js";
import { isDNS1123Label, isLabelKey } from "../../names/index.js";
import { HIGHEST_USER_DEFINABLE_PRIORITY, SYSTEM_PRIORITY_CLASS_PREFIX, WORKLOAD_MAX_POD_GROUP_TEMPLATES } from "../types.js";
import { hasErrors, issueFromDiagnostic, issueFromFieldError, type CompileIssue } from "./issues.js";
import { compositePolicyBlock, disruptionBlock, leafPolicyBlock, type SchedulingIntent } from "./options.js";

/** Field path of a Karta's gang instructions. */
export const GANG_SCHEDULING_PATH = "spec.optimizationInstructions.gangScheduling";

/** The WorkloadItem tree of a Karta for one object, with what the runtime groups need to know. */
export interface KartaWorkloadTree {
  format: "podGroups" | "podGroup";
  /** One root per top-level template: several only with several older pod-group definitions. */
  roots: WorkloadItem[];
  /** Older format: templates whose runtime groups are keyed by pod values (groupByKeyPaths). */
  keyedTemplates: Set<string>;
  /** Older format: template name → index of its pod-group definition. */
  definitionIndex: Map<string, number>;
  /** Newer format: the component of each subgroup template. */
  subGroupComponents: Map<string, string>;
  /** Newer format with subgroups: the plan shared with interpret. */
  plan?: SubGroupPlan;
  /** Newer format: groups keyed by pod values (podGroup.groupByKeyPaths), made from the pods. */
  keyed?: boolean;
  /** Newer format with subgroups emitted as one PodGroup (--group-shape flat): `plan` says which pods are in. */
  flat?: boolean;
  /** Groups left out (their pods run at a system priority): no template, no runtime group. */
  excluded: Set<string>;
}

/** `field.NotFound`. */
function notFound(field: string, value: unknown): FieldError {
  return { type: "NotFound", field, value, detail: "" };
}

/** A template name must be a DNS label; the error names the Karta field it comes from. */
function templateNameErrors(path: string, name: string | undefined): FieldError[] {
  if (name === undefined || name === "") return [required(path, "it names a PodGroupTemplate")];
  return isDNS1123Label(name).map((m) => invalid(path, name, `${m} (it names a PodGroupTemplate)`));
}

/** The pod templates of these components (their subtrees, every instance). */
function* podTemplatesOf(view: WorkloadView, components: readonly string[]): Generator<{ spec?: { priorityClassName?: unknown } }> {
  for (const c of components) {
    for (const name of subtreeOf(view.definition, c)) {
      for (const inst of view.components.get(name)?.view.instances ?? []) if (inst.podTemplate) yield inst.podTemplate;
    }
  }
}

/**
 * The priority class the pod templates of these components agree on. Several different ones (or some
 * templates with and some without) leave it unset, with a notice.
 */
function podTemplatesPriorityClass(view: WorkloadView, components: readonly string[], path: string, issues: CompileIssue[]): string | undefined {
  const seen = new Set<string>();
  for (const t of podTemplatesOf(view, components)) {
    const pcn = t.spec?.priorityClassName;
    seen.add(typeof pcn === "string" ? pcn : "");
  }
  if (seen.size === 1) {
    const only = [...seen][0]!;
    return only === "" ? undefined : only;
  }
  if (seen.size > 1) {
    const names = [...seen].map((s) => (s === "" ? "(none)" : s)).sort();
    issues.push({
      severity: "notice",
      input: "definition",
      path,
      message: `the pod templates of this group use different priority classes (${names.join(", ")}): the template gets none; give --priority-class to set one`,
      code: "priority-class",
    });
  }
  return undefined;
}

/**
 * Pods of a system priority class (system-node-critical, system-cluster-critical: the API server's own,
 * valued above 1,000,000,000) can be in no gang: a group's priority may be at most that, and the scheduler
 * refuses every pod of a group whose priority differs from the group's ("all pods in a single pod group
 * should have the same priority"). A group any of whose pod templates uses one is left out, with a notice,
 * and its pods are scheduled one by one. Undefined: none does.
 */
function systemPriorityClass(view: WorkloadView, components: readonly string[], path: string, issues: CompileIssue[]): string | undefined {
  if (components.length === 0) return undefined;
  for (const t of podTemplatesOf(view, components)) {
    const pcn = t.spec?.priorityClassName;
    if (typeof pcn !== "string" || !pcn.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) continue;
    issues.push({
      severity: "notice",
      input: "definition",
      path,
      message: `the pod templates use the system priority class ${pcn}, above the ${HIGHEST_USER_DEFINABLE_PRIORITY} a pod group's priority may be, and the scheduler refuses a pod whose priority is not its group's: no group, the pods are scheduled one by one`,
      code: "priority-class",
    });
    return pcn;
  }
  return undefined;
}

/** A Karta topology as Workload API constraints: the required level, when it names a node label. */
function topologyConstraints(t: KartaTopology | undefined, path: string, issues: CompileIssue[]): SchedulingConfig["constraints"] {
  if (!t) return undefined;
  const note = (severity: "warning" | "notice", field: string, message: string): void =>
    void issues.push({ severity, input: "definition", path: `${path}.${field}`, message, code: "topology" });
  if (t.preferredTopologyLevel) {
    note("notice", "preferredTopologyLevel", `a preferred placement has no Workload API counterpart (schedulingConstraints.topology is a required placement): not carried`);
  }
  const level = t.requiredTopologyLevel;
  if (!level) return undefined;
  const errs = isLabelKey(level);
  if (errs.length > 0) {
    note("warning", "requiredTopologyLevel", `${JSON.stringify(level)} does not name a node label (${errs.join("; ")}): not carried to schedulingConstraints.topology`);
    return undefined;
  }
  return { topology: [{ key: level }] };
}

interface ItemSpec {
  name: string;
  path: string;
  composite: boolean;
  /** Gang count the controller defaults: minCount (leaf) or minGroupCount (composite). */
  count: number;
  constraints: SchedulingConfig["constraints"];
  priorityClassName: string | undefined;
  /** The top-level template takes --topology-key. */
  topLevel: boolean;
  children?: WorkloadItem[];
}

/** A node of the tree: the definition's defaults, the intent as the user's blocks, the count as a callback. */
function makeItem(spec: ItemSpec, intent: SchedulingIntent): WorkloadItem {
  const defaults: SchedulingConfig = { policy: { gang: {} } };
  if (spec.constraints) defaults.constraints = spec.constraints;
  const pcn = intent.priorityClassName ?? spec.priorityClassName;
  if (pcn) defaults.priorityClassName = pcn;
  const input: WorkloadInput = {};
  if (spec.composite) {
    const policy = compositePolicyBlock(intent);
    if (policy) input.policy = { compositePodGroupData: policy };
  } else {
    const policy = leafPolicyBlock(intent);
    if (policy) input.policy = { podGroupData: policy };
  }
  const mode = disruptionBlock(intent);
  if (mode) input.disruptionMode = spec.composite ? { compositePodGroupData: mode } : { podGroupData: mode };
  if (spec.topLevel && intent.topologyKey !== undefined) {
    const block = { topology: [{ key: intent.topologyKey }] };
    input.constraints = spec.composite ? { compositePodGroupData: block } : { podGroupData: block };
  }
  const count = spec.count;
  const item: WorkloadItem = {
    name: spec.name,
    path: spec.path,
    defaultConfig: defaults,
    input,
    // As the Job controller defaults minCount from parallelism: only a gang left without a count.
    callbacks: [
      (cfg) => {
        if (cfg.policy?.gang !== undefined && cfg.policy.gang.minCount === undefined) cfg.policy.gang.minCount = count;
      },
    ],
  };
  if (spec.children) item.children = spec.children;
  return item;
}

/** Subtree scale of an older-format member: per instance (the largest) when the member itself has instances. */
function memberScale(view: WorkloadView, component: string): { ok: true; value: number } | { ok: false; error: string } {
  const e = view.components.get(component);
  if (!e) return { ok: false, error: `component ${component} not found` };
  const ids = e.instanceIds;
  if (e.compiled.specKind !== undefined && e.compiled.instanceId && ids && ids.length > 0) {
    let best = 0;
    for (const id of ids) {
      const s = subtreeScale(view, component, id);
      if (!s.ok) return s;
      best = Math.max(best, s.value);
    }
    return { ok: true, value: best };
  }
  return subtreeScale(view, component, undefined);
}

function olderTree(view: WorkloadView, defs: PodGroupDefinition[], intent: SchedulingIntent, issues: CompileIssue[]): KartaWorkloadTree {
  const where = `${GANG_SCHEDULING_PATH}.podGroups`;
  const errs: FieldError[] = [];
  const tree: KartaWorkloadTree = { format: "podGroups", roots: [], keyedTemplates: new Set(), definitionIndex: new Map(), subGroupComponents: new Map(), excluded: new Set() };
  if (defs.length > WORKLOAD_MAX_POD_GROUP_TEMPLATES) errs.push(tooMany(where, defs.length, WORKLOAD_MAX_POD_GROUP_TEMPLATES));
  const gang = intent.policy !== "basic";
  defs.forEach((def, i) => {
    const path = `${where}[${i}]`;
    const nameErrs = templateNameErrors(`${path}.name`, def?.name);
    errs.push(...nameErrs);
    if (nameErrs.length === 0 && tree.definitionIndex.has(def.name)) errs.push(duplicate(`${path}.name`, def.name));
    const members = listOf(def?.members);
    if (members.length === 0) errs.push(required(`${path}.members`, "a pod-group definition needs at least one member component"));
    let count = 0;
    const components: string[] = [];
    members.forEach((m, j) => {
      const mPath = `${path}.members[${j}].componentName`;
      if (!m?.componentName) return void errs.push(required(mPath));
      if (!view.definition.byName.has(m.componentName)) return void errs.push(notFound(mPath, m.componentName));
      const s = memberScale(view, m.componentName);
      if (!s.ok) return void errs.push(invalid(mPath, m.componentName, `its subtree scale cannot be computed: ${s.error}`));
      count = Math.max(count, s.value);
      components.push(m.componentName);
      if ((m.groupByKeyPaths ?? []).length > 0) tree.keyedTemplates.add(def.name);
    });
    if (gang && members.length > 0 && components.length === members.length && count < 1) {
      errs.push(invalid(path, def.name, `the subtree scale of its members (${components.join(", ")}) is 0: a gang needs a minCount of at least 1 (does the definition read the replicas?)`));
    }
    if (nameErrs.length > 0 || tree.definitionIndex.has(def.name)) return;
    tree.definitionIndex.set(def.name, i);
    if (components.length === members.length && systemPriorityClass(view, components, path, issues) !== undefined) {
      tree.excluded.add(def.name);
      return;
    }
    tree.roots.push(
      makeItem(
        { name: def.name, path, composite: false, count, constraints: undefined, priorityClassName: podTemplatesPriorityClass(view, components, path, issues), topLevel: true },
        intent,
      ),
    );
  });
  issues.push(...errs.map((e) => issueFromFieldError("definition", e)));
  return tree;
}

function newerTree(view: WorkloadView, intent: SchedulingIntent, issues: CompileIssue[]): KartaWorkloadTree {
  const where = `${GANG_SCHEDULING_PATH}.podGroup`;
  const def = view.definition.karta.spec.optimizationInstructions!.gangScheduling!.podGroup!;
  const errs: FieldError[] = [];
  const tree: KartaWorkloadTree = { format: "podGroup", roots: [], keyedTemplates: new Set(), definitionIndex: new Map(), subGroupComponents: new Map(), excluded: new Set() };
  if (view.definition.podGroupKeys.length > 0) tree.keyed = true;
  errs.push(...templateNameErrors(`${where}.name`, def.name));
  const subGroups = listOf(def.subGroups);
  const root = view.definition.root;
  if (errs.length === 0 && root && systemPriorityClass(view, [root.name], where, issues) !== undefined) {
    tree.excluded.add(def.name);
    return tree;
  }
  if (subGroups.length === 0) {
    // One group of the whole workload.
    const s = root ? subtreeScale(view, root.name, undefined) : { ok: false as const, error: "the definition has no root component" };
    if (!s.ok) errs.push(invalid(where, def.name, `the root's subtree scale cannot be computed: ${s.error}`));
    else if (s.value < 1 && intent.policy !== "basic") errs.push(invalid(where, def.name, "the root's subtree scale is 0: a gang needs a minCount of at least 1"));
    if (errs.length === 0) {
      const constraints = topologyConstraints(def.topology, `${where}.topology`, issues);
      const pcn = podTemplatesPriorityClass(view, root ? [root.name] : [], where, issues);
      tree.roots.push(makeItem({ name: def.name, path: where, composite: false, count: s.ok ? s.value : 0, constraints, priorityClassName: pcn, topLevel: true }, intent));
    }
    issues.push(...errs.map((e) => issueFromFieldError("definition", e)));
    return tree;
  }
  if (subGroups.length > WORKLOAD_MAX_POD_GROUP_TEMPLATES) errs.push(tooMany(`${where}.subGroups`, subGroups.length, WORKLOAD_MAX_POD_GROUP_TEMPLATES));
  // The subgroups as interpret plans them: the same membership, counts and dropped empty subgroups.
  const diagnostics: Diagnostic[] = [];
  const plan = subGroupPlan(view, diagnostics);
  issues.push(...diagnostics.map((d) => issueFromDiagnostic(d)));
  const children: WorkloadItem[] = [];
  const names = new Set<string>([def.name]);
  for (const e of plan.entries) {
    const path = `${where}.subGroups[${e.index}]`;
    const nameErrs = templateNameErrors(e.instance !== undefined ? path : `${path}.componentName`, e.name);
    if (nameErrs.length > 0) {
      errs.push(...nameErrs);
      continue;
    }
    if (names.has(e.name)) {
      errs.push(duplicate(`${path}.componentName`, e.name));
      continue;
    }
    names.add(e.name);
    const constraints = topologyConstraints(e.topology, `${path}.topology`, issues);
    const pcn = podTemplatesPriorityClass(view, [e.component], path, issues);
    tree.subGroupComponents.set(e.name, e.component);
    children.push(makeItem({ name: e.name, path, composite: false, count: e.minMember, constraints, priorityClassName: pcn, topLevel: false }, intent));
  }
  if (plan.entries.length === 0 && !hasErrors(issues) && errs.length === 0) errs.push(invalid(`${where}.subGroups`, def.name, "every subgroup has a scale of 0: there is nothing to gang"));
  if (errs.length === 0 && !hasErrors(issues)) {
    const constraints = topologyConstraints(def.topology, `${where}.topology`, issues);
    const pcn = podTemplatesPriorityClass(view, subGroups.map((s) => s.componentName), where, issues);
    if (intent.groupShape === "flat") {
      tree.roots.push(makeItem({ name: def.name, path: where, composite: false, count: flatCount(plan, where, issues), constraints, priorityClassName: pcn, topLevel: true }, intent));
      tree.flat = true;
    } else {
      tree.roots.push(makeItem({ name: def.name, path: where, composite: true, count: plan.minSubGroup, constraints, priorityClassName: pcn, topLevel: true, children }, intent));
    }
    tree.plan = plan;
  }
  issues.push(...errs.map((e) => issueFromFieldError("definition", e)));
  return tree;
}

/**
 * The gang of a composite flattened into one PodGroup (--group-shape flat): the pods of the subgroups it
 * needs. With every subgroup needed that is all their pods; with minSubGroup of them, the fewest pods
 * that could make that many (the smallest subgroups), which a scheduler counting pods cannot tell apart
 * from other mixes: said in a notice, as is a subgroup's topology, which one group cannot carry.
 */
function flatCount(plan: SubGroupPlan, where: string, issues: CompileIssue[]): number {
  const sizes = plan.entries.map((e) => e.minMember).sort((a, b) => a - b);
  const count = sizes.slice(0, plan.minSubGroup).reduce((a, b) => a + b, 0);
  if (plan.minSubGroup < plan.entries.length) {
    issues.push({
      severity: "notice",
      input: "definition",
      path: `${where}.subGroups`,
      message: `flat group: ${plan.minSubGroup} of its ${plan.entries.length} subgroups are needed; one PodGroup waits for ${count} pods (the smallest subgroups' count), whichever subgroups they come from`,
      code: "group-shape",
    });
  }
  for (const e of plan.entries) {
    if (e.topology) {
      issues.push({ severity: "notice", input: "definition", path: `${where}.subGroups[${e.index}].topology`, message: `flat group: subgroup ${e.name}'s topology has no place in one PodGroup: not carried`, code: "group-shape" });
    }
  }
  return count;
}

/**
 * The WorkloadItem tree of a Karta evaluated on one object (see the module comment for the mapping),
 * or the problems of its gang instructions, each at its Karta field.
 */
export function kartaWorkloadTree(view: WorkloadView, intent: SchedulingIntent = {}): { tree?: KartaWorkloadTree; issues: CompileIssue[] } {
  const issues: CompileIssue[] = [];
  const gang = view.definition.karta?.spec?.optimizationInstructions?.gangScheduling;
  const hasOlder = Array.isArray(gang?.podGroups) && gang.podGroups.length > 0;
  if (!gang || (!gang.podGroup && !hasOlder)) {
    issues.push(
      issueFromFieldError(
        "definition",
        required(GANG_SCHEDULING_PATH, "the definition has no gang scheduling instructions (podGroups or podGroup): there is nothing to compile into pod group templates"),
      ),
    );
    return { issues };
  }
  // The newer format wins when both are set, as in KAI.
  const tree = gang.podGroup ? newerTree(view, intent, issues) : olderTree(view, gang.podGroups!, intent, issues);
  return hasErrors(issues) ? { issues } : { tree, issues };
}
