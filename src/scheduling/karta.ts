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
 *   `minGroupCount` = the number of subgroups, over one PodGroupTemplate per subgroup (named after its
 *   component) with gang `minCount` = the subgroup's subtree scale; without subgroups a single
 *   PodGroupTemplate with the root's subtree scale.
 * - topology: a `requiredTopologyLevel` that is a node label key becomes `schedulingConstraints.topology[].key`;
 *   a preferred level has no Workload API counterpart and is reported, not carried.
 *
 * Names: Workload `<object>-<hash of its UID>`, groups `<workload>-<template>[-<keys>]-<hash>` (hashes
 * over the full names, prefixes truncated to fit), as the Job integration names them. Errors are values
 * with the field path of the input that caused them; nothing is emitted when there is an error.
 */
import type { Definition, Karta, PodGroupDefinition, TopologyConstraint as KartaTopology } from "../definition/index.js";
import { compileInterpreter, subtreeScale, type GangGroup, type KartaInterpreter, type PodClassification, type WorkloadView } from "../interpret/index.js";
import { AllMode, BasicPolicy, GangPolicy, SingleMode, fromExistingWorkload, newBuilder, type BuildOptions } from "./builder.js";
import type { SchedulingConfig, WorkloadInput, WorkloadItem } from "./config.js";
import { duplicate, invalid, required, tooMany, type FieldError } from "./fielderrors.js";
import { isDNS1123Label, isDNS1123Subdomain, isLabelKey } from "./formats.js";
import { hasErrors, issueFromDiagnostic, issueFromFieldError, type CompileIssue } from "./karta/issues.js";
import { compositePolicyBlock, disruptionBlock, leafPolicyBlock, validateSchedulingIntent, type SchedulingIntent } from "./karta/options.js";
import { podLabel, podSchedulingPatch, type PodSchedulingPatch } from "./karta/pod-patch.js";
import { generatePodGroupName, generateWorkloadName } from "./naming.js";
import {
  WORKLOAD_MAX_POD_GROUP_TEMPLATES,
  type CompositePodGroup,
  type OwnerReference,
  type PodGroup,
  type Workload,
} from "./types.js";
import { validateCompositePodGroup, validatePodGroup, validateWorkload } from "./validation.js";

/** Field path of a Karta's gang instructions. */
export const GANG_SCHEDULING_PATH = "spec.optimizationInstructions.gangScheduling";

/** What to compile beside the object: the user's intent and the pods. */
export interface KartaCompileOptions extends SchedulingIntent {
  /** The object's pods (core/v1 Pod objects): they form the keyed groups and get patches. */
  pods?: readonly unknown[];
}

/** The objects for one workload instance, or the problems that kept them from being made. */
export interface WorkloadCompilation {
  /** No error among the issues; the objects are complete and pass validation. */
  ok: boolean;
  workload?: Workload;
  /** Parents before children. */
  compositePodGroups: CompositePodGroup[];
  podGroups: PodGroup[];
  podPatches: PodSchedulingPatch[];
  /** Errors, warnings and notices, each with the field path of its input. */
  issues: CompileIssue[];
}

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
}

// ---------------------------------------------------------------- the tree

/** `field.NotFound`. */
function notFound(field: string, value: unknown): FieldError {
  return { type: "NotFound", field, value, detail: "" };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** A template name must be a DNS label; the error names the Karta field it comes from. */
function templateNameErrors(path: string, name: string | undefined): FieldError[] {
  if (name === undefined || name === "") return [required(path, "it names a PodGroupTemplate")];
  return isDNS1123Label(name).map((m) => invalid(path, name, `${m} (it names a PodGroupTemplate)`));
}

/** The component and its descendants, by name. */
function subtreeOf(view: WorkloadView, component: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    out.push(name);
    for (const child of view.definition.byName.get(name)?.children ?? []) walk(child);
  };
  walk(component);
  return out;
}

/**
 * The priority class the pod templates of these components agree on. Several different ones (or some
 * templates with and some without) leave it unset, with a notice.
 */
function podTemplatesPriorityClass(view: WorkloadView, components: readonly string[], path: string, issues: CompileIssue[]): string | undefined {
  const seen = new Set<string>();
  for (const c of components) {
    for (const name of subtreeOf(view, c)) {
      for (const inst of view.components.get(name)?.view.instances ?? []) {
        if (!inst.podTemplate) continue;
        const pcn = inst.podTemplate.spec?.priorityClassName;
        seen.add(typeof pcn === "string" ? pcn : "");
      }
    }
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
  const tree: KartaWorkloadTree = { format: "podGroups", roots: [], keyedTemplates: new Set(), definitionIndex: new Map(), subGroupComponents: new Map() };
  if (defs.length > WORKLOAD_MAX_POD_GROUP_TEMPLATES) errs.push(tooMany(where, defs.length, WORKLOAD_MAX_POD_GROUP_TEMPLATES));
  const gang = intent.policy !== "basic";
  defs.forEach((def, i) => {
    const path = `${where}[${i}]`;
    const nameErrs = templateNameErrors(`${path}.name`, def?.name);
    errs.push(...nameErrs);
    if (nameErrs.length === 0 && tree.definitionIndex.has(def.name)) errs.push(duplicate(`${path}.name`, def.name));
    const members = Array.isArray(def?.members) ? def.members : [];
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
  const tree: KartaWorkloadTree = { format: "podGroup", roots: [], keyedTemplates: new Set(), definitionIndex: new Map(), subGroupComponents: new Map() };
  errs.push(...templateNameErrors(`${where}.name`, def.name));
  const subGroups = Array.isArray(def.subGroups) ? def.subGroups : [];
  const root = view.definition.root;
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
  const children: WorkloadItem[] = [];
  const names = new Set<string>([def.name]);
  subGroups.forEach((sg, i) => {
    const path = `${where}.subGroups[${i}]`;
    const name = sg?.componentName;
    const nameErrs = templateNameErrors(`${path}.componentName`, name);
    if (!name) return void errs.push(required(`${path}.componentName`, "subgroup component name cannot be empty"));
    if (!view.definition.byName.has(name)) return void errs.push(notFound(`${path}.componentName`, name));
    if (nameErrs.length > 0) return void errs.push(...nameErrs);
    if (names.has(name)) return void errs.push(duplicate(`${path}.componentName`, name));
    names.add(name);
    const s = subtreeScale(view, name, undefined);
    if (!s.ok) return void errs.push(invalid(path, name, `the subgroup's subtree scale cannot be computed: ${s.error}`));
    if (s.value < 1) {
      return void errs.push(invalid(path, name, `the subgroup's scale is 0: component ${name} must expose a replica scale definition that reads at least 1 replica (it is the subgroup's minCount)`));
    }
    const constraints = topologyConstraints(sg.topology, `${path}.topology`, issues);
    const pcn = podTemplatesPriorityClass(view, [name], path, issues);
    tree.subGroupComponents.set(name, name);
    children.push(makeItem({ name, path, composite: false, count: s.value, constraints, priorityClassName: pcn, topLevel: false }, intent));
  });
  if (errs.length === 0) {
    const constraints = topologyConstraints(def.topology, `${where}.topology`, issues);
    const pcn = podTemplatesPriorityClass(view, subGroups.map((s) => s.componentName), where, issues);
    tree.roots.push(makeItem({ name: def.name, path: where, composite: true, count: subGroups.length, constraints, priorityClassName: pcn, topLevel: true, children }, intent));
  }
  issues.push(...errs.map((e) => issueFromFieldError("definition", e)));
  return tree;
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

// ---------------------------------------------------------------- the objects

/** The root object's identity, and the errors that keep it from owning a Workload. */
function rootIdentity(object: unknown, karta: Karta): { owner?: OwnerReference; namespace?: string; issues: CompileIssue[] } {
  const issues: CompileIssue[] = [];
  const o = isObject(object) ? object : {};
  const meta = isObject(o.metadata) ? o.metadata : {};
  const want = karta?.spec?.structureDefinition?.rootComponent?.kind;
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : want ? (want.group ? `${want.group}/${want.version}` : want.version) : "";
  const kind = typeof o.kind === "string" ? o.kind : (want?.kind ?? "");
  const name = typeof meta.name === "string" ? meta.name : "";
  const uid = typeof meta.uid === "string" ? meta.uid : "";
  if (name === "") issues.push(issueFromFieldError("object", required("metadata.name", "the Workload is named after the object and owned by it")));
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

function isInterpreter(v: Karta | Definition | KartaInterpreter): v is KartaInterpreter {
  return typeof (v as KartaInterpreter).interpret === "function" && typeof (v as KartaInterpreter).workload === "function";
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

/** Keyed groups in natural order (group 2 before group 10). */
const KEY_ORDER = new Intl.Collator("en", { numeric: true });

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
    return KEY_ORDER.compare(a.keys.join("\u0000"), b.keys.join("\u0000"));
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
 * and a patch per pod. `definition` may be an {@link KartaInterpreter} compiled once for many objects.
 * Never throws; when anything is wrong the result has no objects and the issues say why.
 */
export function compileKarta(definition: Karta | Definition | KartaInterpreter, object: unknown, options: KartaCompileOptions = {}): WorkloadCompilation {
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

    // Pods: classified against the definition; the older format's groups formed as KAI forms them.
    const pods = options.pods ?? [];
    const classified = interpreter.classifyPods(view, pods);
    issues.push(...classified.diagnostics.map((d) => issueFromDiagnostic(d)));
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
      issues.push(...builder.validate().map((e) => issueFromFieldError(e.field.startsWith("--") ? "option" : "definition", e)));
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
    if (tree.format === "podGroup") {
      const h = groups.newGroupHierarchy();
      if (!h.ok) return failed([...issues, { severity: "error", input: "definition", path: GANG_SCHEDULING_PATH, message: h.error, code: "build" }]);
      out.compositePodGroups = h.value.compositePodGroups;
      out.podGroups = h.value.podGroups;
      assignNewerFormat(view, tree, out.podGroups, classified.pods, podGroupOf, issues);
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
    out.podPatches = podPatches(pods, classified.pods, podGroupOf, root.namespace, issues);
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

/** Newer format: each classified pod goes to the subgroup whose component is it or an ancestor of it. */
function assignNewerFormat(
  view: WorkloadView,
  tree: KartaWorkloadTree,
  podGroups: PodGroup[],
  classified: readonly PodClassification[],
  podGroupOf: Map<string, string>,
  issues: CompileIssue[],
): void {
  const byTemplate = new Map(podGroups.map((g) => [g.spec.workloadRef?.templateName ?? "", g.metadata.name ?? ""] as const));
  const single = tree.subGroupComponents.size === 0 ? podGroups[0]?.metadata.name : undefined;
  for (const c of classified) {
    if (c.component === undefined) continue;
    if (single !== undefined) {
      podGroupOf.set(c.pod.name, single);
      continue;
    }
    let at: string | undefined = c.component;
    const seen = new Set<string>();
    while (at !== undefined && !tree.subGroupComponents.has(at) && !seen.has(at)) {
      seen.add(at);
      at = view.definition.byName.get(at)?.parent;
    }
    const group = at !== undefined ? byTemplate.get(at) : undefined;
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

/** One patch per grouped pod; pods outside every group, or in another namespace, are reported. */
function podPatches(
  pods: readonly unknown[],
  classified: readonly PodClassification[],
  podGroupOf: Map<string, string>,
  namespace: string | undefined,
  issues: CompileIssue[],
): PodSchedulingPatch[] {
  const out: PodSchedulingPatch[] = [];
  for (const c of classified) {
    const label = podLabel(c.pod);
    if (c.component === undefined) {
      issues.push({ severity: "notice", input: "pod", pod: label, path: "metadata", message: `${c.reason ?? "the pod matches no component"}: no patch`, code: "pod-unmatched" });
      continue;
    }
    const group = podGroupOf.get(c.pod.name);
    if (group === undefined) {
      issues.push({ severity: "warning", input: "pod", pod: label, path: "metadata", message: `the pod (component ${c.component}) is in no group: no patch`, code: "pod-group" });
      continue;
    }
    if (namespace !== undefined && c.pod.namespace !== undefined && c.pod.namespace !== namespace) {
      issues.push({
        severity: "warning",
        input: "pod",
        pod: label,
        path: "metadata.namespace",
        message: `the pod is in namespace ${c.pod.namespace} but its PodGroup ${group} in ${namespace}: a pod can only name a group of its own namespace; no patch`,
        code: "pod-namespace",
      });
      continue;
    }
    const r = podSchedulingPatch(pods[c.index], c.index, group);
    if (r.issue) issues.push(r.issue);
    if (r.patch) out.push(r.patch);
  }
  return out;
}
