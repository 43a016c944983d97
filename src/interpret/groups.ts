/**
 * Gang groups as KAI Scheduler's Karta grouper forms them, in both formats.
 *
 * Older `podGroups`: for each pod, the first member (its own component's mentions first, then its
 * ancestors') whose filters all pass; the group key from the member's groupByKeyPaths (each exactly one
 * non-empty value); name `pg-<rootUID>-<key1>-<key2>`; minMember the subtree scale of the member
 * component (of the pod's instance when the member is the pod's own component).
 * Newer `podGroup`: one group `pg-<rootUID>-<name>` (or one per key tuple with the groupByKeyPaths
 * extension), a subgroup per listed component (per instance with `perInstance`) with minMember the pods it
 * holds (its subtree scale less its nested subgroups'; 0 leaves it out), minSubGroup the number of
 * subgroups (or minSubGroupPath's value), the group's minMember the fewest pods that satisfy it.
 */
import type { Diagnostic, PodGroupComponentsMapping, TopologyConstraint } from "../definition/index.js";
import { handwritten } from "../names/index.js";
import type { GroupCandidate } from "./compile.js";
import { listOf } from "./plain.js";
import { podInstance } from "./pods.js";
import type { GangGroup, GangPlanEntry, GangSubGroup, PodClassification } from "./types.js";
import { subtreeScale, type WorkloadView } from "./workload.js";

/** Kubernetes' IsDNS1123Subdomain, with its messages (the Workload API's own check of names). */
export const dns1123SubdomainErrors: (value: string) => string[] = handwritten.isDNS1123Subdomain;

/** The closest DNS-1123 subdomain: lower case, other characters as '-', alphanumeric ends, at most 253 characters. */
export function dns1123Safe(value: string): string {
  let s = value.toLowerCase().replace(/[^a-z0-9.-]/g, "-");
  s = s.replace(/\.{2,}/g, ".").replace(/-*\.-*/g, ".");
  s = s.slice(0, 253).replace(/^[^a-z0-9]+/, "").replace(/[^a-z0-9]+$/, "");
  return s === "" ? "pg" : s;
}

/** The workload's UID for group names (its name, with a warning, when it has none). */
export function rootUid(view: WorkloadView, diagnostics: Diagnostic[]): string {
  const meta = view.object.metadata as Record<string, unknown> | undefined;
  if (typeof meta?.uid === "string" && meta.uid !== "") return meta.uid;
  const name = typeof meta?.name === "string" ? meta.name : "unnamed";
  diagnostics.push({ severity: "warning", path: "metadata.uid", message: `the object has no metadata.uid: group names use its name '${name}' in its place`, code: "object" });
  return name;
}

function topologyErrors(t: TopologyConstraint): string | undefined {
  if (!t.topologyName) return "topology constraint must include topology name";
  if (!t.preferredTopologyLevel && !t.requiredTopologyLevel) return "topology constraint must include preferred or required topology level";
  return undefined;
}

/** KAI's opt-out: its pod grouper leaves alone a pod with this annotation "true", or one whose owner has it. */
export const SKIP_PODGROUPER_ANNOTATION = "kai.scheduler/skip-podgrouper";

function skipsPodGrouper(object: unknown): boolean {
  const annotations = (object as { metadata?: { annotations?: unknown } } | null)?.metadata?.annotations;
  return typeof annotations === "object" && annotations !== null && (annotations as Record<string, unknown>)[SKIP_PODGROUPER_ANNOTATION] === "true";
}

/**
 * The pods KAI's pod controller hands to its grouper: undefined (no groups at all) when the workload
 * opts out, else those that do not opt out themselves; each left out with a notice. (KAI's own; the
 * Workload API's groups do not read it.)
 */
export function kaiGroupedPods(view: WorkloadView, pods: readonly unknown[], classified: readonly PodClassification[], diagnostics: Diagnostic[]): readonly PodClassification[] | undefined {
  if (!view.definition.karta?.spec?.optimizationInstructions?.gangScheduling) return classified;
  if (skipsPodGrouper(view.object)) {
    diagnostics.push({ severity: "notice", path: `metadata.annotations["${SKIP_PODGROUPER_ANNOTATION}"]`, message: `no gang groups: the workload has ${SKIP_PODGROUPER_ANNOTATION}: "true", so KAI's pod grouper leaves its pods alone`, code: "gang-skip" });
    return undefined;
  }
  return classified.filter((c) => {
    if (!skipsPodGrouper(pods[c.index])) return true;
    diagnostics.push({ severity: "notice", path: "", message: `pod ${c.pod.namespace ? `${c.pod.namespace}/` : ""}${c.pod.name} is not grouped: it has ${SKIP_PODGROUPER_ANNOTATION}: "true", so KAI's pod grouper leaves it alone`, code: "gang-skip" });
    return false;
  });
}

/** Forms the gang groups of the classified pods. */
export function gangGroups(view: WorkloadView, pods: readonly unknown[], classified: readonly PodClassification[], diagnostics: Diagnostic[]): GangGroup[] {
  const gang = view.definition.karta?.spec?.optimizationInstructions?.gangScheduling;
  if (!gang) return [];
  if (gang.podGroup) return newerGroups(view, gang.podGroup, pods, classified, diagnostics);
  if (!Array.isArray(gang.podGroups) || gang.podGroups.length === 0) return [];
  return olderGroups(view, pods, classified, diagnostics);
}

function olderGroups(view: WorkloadView, pods: readonly unknown[], classified: readonly PodClassification[], diagnostics: Diagnostic[]): GangGroup[] {
  const uid = rootUid(view, diagnostics);
  const groups = new Map<string, GangGroup>();
  const checked = new Map<string, string[]>();
  const scales = new Map<string, ReturnType<typeof subtreeScale>>();
  const where = "spec.optimizationInstructions.gangScheduling.podGroups";
  for (const c of classified) {
    if (c.component === undefined) continue;
    const pod = pods[c.index];
    const podName = c.pod.name;
    const candidates = view.definition.candidates.get(c.component) ?? [];
    let chosen: GroupCandidate | undefined;
    let failed = false;
    for (const cand of candidates) {
      let pass = true;
      for (const f of cand.filters) {
        const r = f.single(pod);
        if (!r.ok) {
          diagnostics.push({ severity: "error", path: f.path, message: `pod ${podName}: failed to evaluate filter "${f.text}": ${r.error}`, code: "gang-filter" });
          failed = true;
          pass = false;
          break;
        }
        if (r.value !== true) {
          pass = false;
          break;
        }
      }
      if (failed) break;
      if (pass) {
        chosen = cand;
        break;
      }
    }
    if (failed) continue;
    if (!chosen) {
      diagnostics.push({ severity: "error", path: where, message: `pod ${c.pod.namespace ?? ""}/${podName} does not match any Karta pod group member definition`, code: "gang-member" });
      continue;
    }
    const memberPath = `${where}[${chosen.groupIndex}].members[${chosen.memberIndex}]`;
    let instance: string | undefined;
    if (chosen.memberComponent === c.component) {
      // The pod's instance counts (KAI: InferPodComponentInstance); a failure was reported with the pod.
      if (c.reason !== undefined) continue;
      instance = c.instance;
    }
    const keys: string[] = [];
    let keyFailed = false;
    for (const k of chosen.keys) {
      const r = k.single(pod);
      if (!r.ok) {
        diagnostics.push({ severity: "error", path: k.path, message: `pod ${podName}: failed to extract group key from path "${k.text}": ${r.error}`, code: "gang-key" });
        keyFailed = true;
        break;
      }
      keys.push(r.text);
    }
    if (keyFailed) continue;
    const rawName = keys.length === 0 ? `pg-${uid}` : `pg-${uid}-${keys.join("-")}`;
    // Pods of one group share the name: validate each name once.
    let errs = checked.get(rawName);
    if (errs === undefined) {
      errs = keys.length > 0 ? dns1123SubdomainErrors(rawName) : [];
      checked.set(rawName, errs);
      if (errs.length > 0) {
        diagnostics.push({
          severity: "warning",
          path: memberPath + ".groupByKeyPaths",
          message: `Karta grouping keys [${keys.join(" ")}] produce invalid Kubernetes PodGroup name "${rawName}": ${errs.join("; ")} (KAI rejects the pod; shown here as "${dns1123Safe(rawName)}")`,
          code: "gang-name",
        });
      }
    }
    const name = errs.length > 0 ? dns1123Safe(rawName) : rawName;
    const scaleKey = instance === undefined ? chosen.memberComponent : `${chosen.memberComponent}\u0000${instance}`;
    let scale = scales.get(scaleKey);
    if (!scale) {
      scale = subtreeScale(view, chosen.memberComponent, instance);
      scales.set(scaleKey, scale);
    }
    if (!scale.ok) {
      diagnostics.push({ severity: "error", path: memberPath, message: `pod ${podName}: ${scale.error}`, code: "gang-scale" });
      continue;
    }
    let group = groups.get(name);
    if (!group) {
      group = { name, format: "podGroups", definition: chosen.group, keys, minMember: scale.value, members: [] };
      groups.set(name, group);
    }
    const member: GangGroup["members"][number] = { pod: podName, component: c.component, memberComponent: chosen.memberComponent, minMember: scale.value };
    if (instance !== undefined) member.instance = instance;
    group.members.push(member);
    group.minMember = Math.max(group.minMember, scale.value);
  }
  for (const g of groups.values()) {
    const values = new Set(g.members.map((m) => m.minMember));
    if (values.size > 1) {
      const parts = [...new Map(g.members.map((m) => [`${m.memberComponent}${m.instance ? "/" + m.instance : ""}`, m.minMember])).entries()].map(([k, v]) => `${k}: ${v}`);
      diagnostics.push({
        severity: "warning",
        path: where,
        message: `group ${g.name}: its pods compute different minMember (${parts.join(", ")}); KAI keeps the value of the pod it reconciles last, shown here is the largest`,
        code: "gang-min-member",
      });
    }
  }
  return [...groups.values()];
}

/** One subgroup of the newer format, as planned from the workload (before any pod). */
export interface SubGroupPlanEntry {
  /** The component's name, or the instance id for a `perInstance` subgroup. */
  name: string;
  component: string;
  instance?: string;
  /** Index in podGroup.subGroups. */
  index: number;
  minMember: number;
  topology?: TopologyConstraint;
}

/** The newer format's subgroups and how many of them the group needs. */
export interface SubGroupPlan {
  entries: SubGroupPlanEntry[];
  /** Subgroups needed: minSubGroupPath's value (capped), else all of them. */
  minSubGroup: number;
  /** Listed component → its index in subGroups (the first listing). */
  listed: Map<string, number>;
  /** A subgroup's scale could not be computed (reported): KAI's Karta grouper fails every pod then. */
  scaleFailed?: boolean;
  /** Component → its entries (one, or one per instance), and each component's nearest listed one (memo). */
  byComponent?: Map<string, SubGroupPlanEntry[]>;
  nearest?: Map<string, string | undefined>;
}

const PODGROUP_PATH = "spec.optimizationInstructions.gangScheduling.podGroup";

/**
 * Whether a component can be split into instances a pod is matched to: it defines pods, has an instance id
 * path and a componentInstanceSelector. (It may have no instance on a given object: a RayCluster with
 * only its head has no worker groups.)
 */
function splitsByInstance(view: WorkloadView, component: string): boolean {
  const c = view.definition.byName.get(component);
  return c !== undefined && c.specKind !== undefined && c.instanceSelector !== undefined && c.instanceId !== undefined;
}

/**
 * The subgroups of the newer format on one workload, shared by `interpret` and `compile` so that both
 * agree. A pod belongs to the subgroup of its nearest listed component (itself or an ancestor); so a
 * subgroup whose component holds other listed components counts only the pods left to it: the subtree
 * scale of its component with theirs cut off. A subgroup whose count is 0 (a PyTorchJob without a Master) is dropped with a
 * notice, as KAI's native groupers drop it, and the group needs the others. Errors are reported.
 */
export function subGroupPlan(view: WorkloadView, diagnostics: Diagnostic[]): SubGroupPlan {
  const def = view.definition.karta?.spec?.optimizationInstructions?.gangScheduling?.podGroup;
  const list = listOf(def?.subGroups);
  const entries: SubGroupPlanEntry[] = [];
  const listed = new Map<string, number>();
  list.forEach((sg, i) => {
    if (sg?.componentName && view.definition.byName.has(sg.componentName) && !listed.has(sg.componentName)) listed.set(sg.componentName, i);
  });
  /** The listed components nested under `component` with no listed component between (outermost ones). */
  const nestedUnder = (component: string): string[] => {
    const out: string[] = [];
    const walk = (name: string): void => {
      for (const child of view.definition.byName.get(name)?.children ?? []) {
        if (listed.has(child)) out.push(child);
        else walk(child);
      }
    };
    walk(component);
    return out;
  };
  const names = new Set<string>();
  let scaleFailed = false;
  list.forEach((sg, i) => {
    const path = `${PODGROUP_PATH}.subGroups[${i}]`;
    if (!sg?.componentName) {
      diagnostics.push({ severity: "error", path, message: "subgroup component name cannot be empty", code: "gang-subgroup" });
      return;
    }
    const component = sg.componentName;
    if (!view.definition.byName.has(component)) {
      diagnostics.push({ severity: "error", path: `${path}.componentName`, message: `component ${component} not found`, code: "gang-subgroup" });
      return;
    }
    if (listed.get(component) !== i) {
      diagnostics.push({ severity: "error", path: `${path}.componentName`, message: `component ${component} is listed twice`, code: "gang-subgroup" });
      return;
    }
    let topology: TopologyConstraint | undefined;
    if (sg.topology) {
      const err = topologyErrors(sg.topology);
      if (err) diagnostics.push({ severity: "error", path: `${path}.topology`, message: err, code: "gang-topology" });
      else topology = sg.topology;
    }
    const nested = nestedUnder(component);
    const perInstance = sg.perInstance === true;
    if (perInstance && !splitsByInstance(view, component)) {
      diagnostics.push({
        severity: "error",
        path: `${path}.perInstance`,
        message: `component ${component} has no instances to split by (it needs instanceIdPath, a pod spec and a componentInstanceSelector)`,
        code: "gang-subgroup",
      });
      return;
    }
    if (perInstance && nested.length > 0) {
      diagnostics.push({ severity: "error", path: `${path}.perInstance`, message: `a per-instance subgroup cannot hold other subgroups (${nested.join(", ")})`, code: "gang-subgroup" });
      return;
    }
    const ids: (string | undefined)[] = perInstance ? (view.components.get(component)?.instanceIds ?? []).filter((id) => id !== "") : [undefined];
    if (ids.length === 0) {
      diagnostics.push({ severity: "notice", path, message: `subgroup ${component}: component ${component} has no instances on this object: it has no subgroups`, code: "gang-subgroup-empty" });
    }
    for (const id of ids) {
      // The pods left to this subgroup: its subtree without the subgroups nested in it.
      const scale = subtreeScale(view, component, id, new Set(nested));
      if (!scale.ok) {
        diagnostics.push({ severity: "error", path, message: scale.error, code: "gang-scale" });
        scaleFailed = true;
        continue;
      }
      const count = scale.value;
      const name = id ?? component;
      if (count <= 0) {
        const what = nested.length > 0 ? `holds no pods outside the subgroups of ${nested.join(", ")}` : "has a scale of 0";
        diagnostics.push({ severity: "notice", path, message: `subgroup ${name}: component ${component}${id !== undefined ? ` instance ${id}` : ""} ${what}: the subgroup is left out`, code: "gang-subgroup-empty" });
        continue;
      }
      if (names.has(name)) {
        diagnostics.push({ severity: "error", path, message: `subgroup name ${name} is used twice (subgroups are named after their component, or instance id when per instance)`, code: "gang-subgroup" });
        continue;
      }
      names.add(name);
      const entry: SubGroupPlanEntry = { name, component, index: i, minMember: count };
      if (id !== undefined) entry.instance = id;
      if (topology) entry.topology = topology;
      entries.push(entry);
    }
  });
  let minSubGroup = entries.length;
  const e = view.definition.minSubGroup;
  if (e) {
    const r = e.run(view.object);
    if (!r.ok) diagnostics.push({ severity: "error", path: e.path, message: `failed to evaluate minSubGroupPath '${e.text}': ${r.error}`, code: "jq-eval" });
    else {
      const v = r.values.length === 1 ? r.values[0] : r.values.length === 0 ? null : r.values;
      if (v !== null && v !== undefined) {
        if (typeof v !== "number" || !Number.isInteger(v) || v < 1) {
          diagnostics.push({ severity: "error", path: e.path, message: `'${e.text}' must yield one integer of at least 1 (or null for all subgroups), got ${JSON.stringify(v)}${r.values.length === 1 ? e.objectFields(view.object, 1)(0) : ""}`, code: "scale" });
        } else minSubGroup = Math.min(v, entries.length);
      }
    }
  }
  return { entries, minSubGroup, listed, ...(scaleFailed ? { scaleFailed } : {}) };
}

/**
 * The subgroup of a classified pod: that of its nearest listed component (itself or an ancestor), and
 * for a per-instance subgroup the one of the pod's instance of that component. Undefined: none.
 */
export function subGroupOfPod(view: WorkloadView, plan: SubGroupPlan, c: PodClassification, pod: unknown): SubGroupPlanEntry | undefined {
  if (c.component === undefined) return undefined;
  // Memoized per plan: every pod of a component walks the same way (many pods, few components).
  const nearest = (plan.nearest ??= new Map());
  let at: string | undefined;
  if (nearest.has(c.component)) at = nearest.get(c.component);
  else {
    at = c.component;
    const seen = new Set<string>();
    while (at !== undefined && !plan.listed.has(at) && !seen.has(at)) {
      seen.add(at);
      at = view.definition.byName.get(at)?.parent;
    }
    if (at !== undefined && !plan.listed.has(at)) at = undefined;
    nearest.set(c.component, at);
  }
  if (at === undefined) return undefined;
  if (!plan.byComponent) {
    plan.byComponent = new Map();
    for (const e of plan.entries) {
      const list = plan.byComponent.get(e.component);
      if (list) list.push(e);
      else plan.byComponent.set(e.component, [e]);
    }
  }
  const candidates = plan.byComponent.get(at) ?? [];
  if (candidates.length === 0) return undefined;
  if (candidates[0]!.instance === undefined) return candidates[0];
  let instance = at === c.component ? c.instance : undefined;
  if (at !== c.component) {
    const comp = view.definition.byName.get(at);
    if (comp) instance = podInstance(view, comp, pod, c.pod.name).id;
  }
  return instance === undefined ? undefined : candidates.find((e) => e.instance === instance);
}

function newerGroups(view: WorkloadView, def: PodGroupComponentsMapping, pods: readonly unknown[], classified: readonly PodClassification[], diagnostics: Diagnostic[]): GangGroup[] {
  const where = PODGROUP_PATH;
  const uid = rootUid(view, diagnostics);
  let topology: TopologyConstraint | undefined;
  if (def.topology) {
    const err = topologyErrors(def.topology);
    if (err) diagnostics.push({ severity: "error", path: `${where}.topology`, message: err, code: "gang-topology" });
    else topology = def.topology;
  }
  const withSubGroups = (def.subGroups ?? []).length > 0;
  const plan: SubGroupPlan = withSubGroups ? subGroupPlan(view, diagnostics) : { entries: [], minSubGroup: 0, listed: new Map() };
  let rootMin = 0;
  if (!withSubGroups) {
    const root = view.definition.root;
    const scale = root ? subtreeScale(view, root.name, undefined) : { ok: false as const, error: "the definition has no root component" };
    if (scale.ok) rootMin = scale.value;
    else {
      // KAI's Karta grouper fails every pod of the workload: no PodGroup.
      diagnostics.push({ severity: "error", path: where, message: scale.error, code: "gang-scale" });
      return [];
    }
  } else if (plan.scaleFailed) {
    return [];
  } else if (plan.entries.length === 0 && !diagnostics.some((d) => d.severity === "error")) {
    diagnostics.push({ severity: "error", path: `${where}.subGroups`, message: "every subgroup has a scale of 0: the group has nothing to gang", code: "gang-scale" });
  } else {
    // The fewest pods that satisfy the group: its smallest minSubGroup subgroups, full.
    rootMin = plan.entries
      .map((e) => e.minMember)
      .sort((a, b) => a - b)
      .slice(0, plan.minSubGroup)
      .reduce((a, b) => a + b, 0);
  }
  const keyed = view.definition.podGroupKeys.length > 0;
  const groups = new Map<string, GangGroup>();
  /** Raw name → group: the pods of one group share it, so each name is checked once. */
  const byRawName = new Map<string, GangGroup>();
  const base = `pg-${uid}-${def.name}`;
  const subIndex = new Map<GangGroup, Map<string, GangSubGroup>>();
  const newGroup = (keys: string[]): GangGroup => {
    let rawName = base;
    for (const k of keys) rawName += "-" + k;
    const known = byRawName.get(rawName);
    if (known) return known;
    const name = dns1123SubdomainErrors(rawName).length === 0 ? rawName : dns1123Safe(rawName);
    let g = groups.get(name);
    if (g) {
      byRawName.set(rawName, g);
      return g;
    }
    if (name !== rawName) {
      diagnostics.push({ severity: "warning", path: keyed ? `${where}.groupByKeyPaths` : `${where}.name`, message: `PodGroup name "${rawName}" is not a DNS-1123 subdomain; shown here as "${name}"`, code: "gang-name" });
    }
    g = { name, format: "podGroup", definition: def.name, minMember: rootMin, members: [] };
    if (keyed) g.keys = keys;
    if (topology) g.topology = topology;
    if (withSubGroups) {
      g.subGroups = plan.entries.map((e) => {
        const sub: GangSubGroup = { name: e.name, component: e.component, minMember: e.minMember, pods: [] };
        if (e.instance !== undefined) sub.instance = e.instance;
        if (e.topology) sub.topology = e.topology;
        return sub;
      });
      g.minSubGroup = plan.minSubGroup;
    }
    groups.set(name, g);
    byRawName.set(rawName, g);
    subIndex.set(g, new Map((g.subGroups ?? []).map((x) => [x.name, x])));
    return g;
  };
  if (!keyed) newGroup([]);
  for (const c of classified) {
    // A pod whose instance cannot be told was reported with the pod; KAI does not group it.
    if (c.component === undefined || c.reason !== undefined) continue;
    const pod = pods[c.index];
    let group: GangGroup | undefined;
    if (keyed) {
      const keys: string[] = [];
      for (const k of view.definition.podGroupKeys) {
        const r = k.single(pod);
        if (!r.ok) {
          diagnostics.push({ severity: "error", path: k.path, message: `pod ${c.pod.name}: failed to extract group key from path "${k.text}": ${r.error}`, code: "gang-key" });
          break;
        }
        keys.push(r.text);
      }
      if (keys.length !== view.definition.podGroupKeys.length) continue;
      group = newGroup(keys);
    } else group = byRawName.values().next().value!;
    const entry = withSubGroups ? subGroupOfPod(view, plan, c, pod) : undefined;
    const sub = entry ? subIndex.get(group)?.get(entry.name) : undefined;
    if (sub) sub.pods.push(c.pod.name);
    const member: GangGroup["members"][number] = { pod: c.pod.name, component: c.component, memberComponent: entry?.component ?? c.component, minMember: entry?.minMember ?? group.minMember };
    if (c.instance !== undefined) member.instance = c.instance;
    if (withSubGroups && !entry) {
      diagnostics.push({ severity: "warning", path: `${where}.subGroups`, message: `pod ${c.pod.name} (component ${c.component}) is under none of the subgroups`, code: "gang-subgroup" });
    }
    group.members.push(member);
  }
  return [...groups.values()];
}

/**
 * The older format's plan: each member's minMember (per instance for members with instances), as KAI
 * will compute it for that member's pods. Errors (a scale that cannot be read) are reported.
 */
export function gangPlan(view: WorkloadView, diagnostics: Diagnostic[]): GangPlanEntry[] {
  const gang = view.definition.karta?.spec?.optimizationInstructions?.gangScheduling;
  if (!gang || gang.podGroup || !Array.isArray(gang.podGroups)) return [];
  const out: GangPlanEntry[] = [];
  gang.podGroups.forEach((g, gi) => {
    (g?.members ?? []).forEach((m, mi) => {
      const e = view.components.get(m.componentName);
      if (!e) return;
      const base = { definition: g.name, memberComponent: m.componentName, groupByKeyPaths: [...(m.groupByKeyPaths ?? [])], filters: [...(m.filters ?? [])] };
      // KAI counts one instance when the member is the pod's own component and it has instances.
      const ids = e.compiled.specKind !== undefined && e.compiled.instanceId && e.compiled.definition.podSelector ? (e.instanceIds ?? []) : [undefined];
      for (const id of ids) {
        const scale = subtreeScale(view, m.componentName, id);
        if (!scale.ok) {
          diagnostics.push({ severity: "error", path: `spec.optimizationInstructions.gangScheduling.podGroups[${gi}].members[${mi}]`, message: scale.error, code: "gang-scale" });
          continue;
        }
        out.push({ ...base, ...(id !== undefined ? { instance: id } : {}), minMember: scale.value });
      }
    });
  });
  return out;
}
