/**
 * Gang groups as KAI Scheduler's Karta grouper forms them, in both formats.
 *
 * Older `podGroups`: for each pod, the first member (its own component's mentions first, then its
 * ancestors') whose filters all pass; the group key from the member's groupByKeyPaths (each exactly one
 * non-empty value); name `pg-<rootUID>-<key1>-<key2>`; minMember the subtree scale of the member
 * component (of the pod's instance when the member is the pod's own component).
 * Newer `podGroup`: one group `pg-<rootUID>-<name>`, one subgroup per listed component with minMember
 * its subtree scale (must be > 0), minSubGroup the number of subgroups, topology carried through.
 */
import type { Diagnostic, PodGroupComponentsMapping, TopologyConstraint } from "../definition/index.js";
import { isDNS1123Subdomain } from "../scheduling/formats.js";
import { subtreeOf, type GroupCandidate } from "./compile.js";
import type { GangGroup, GangPlanEntry, GangSubGroup, PodClassification } from "./types.js";
import { subtreeScale, type WorkloadView } from "./workload.js";

/** Kubernetes' IsDNS1123Subdomain, with its messages (the Workload API's own check of names). */
export const dns1123SubdomainErrors: (value: string) => string[] = isDNS1123Subdomain;

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

/** Forms the gang groups of the classified pods. */
export function gangGroups(view: WorkloadView, pods: readonly unknown[], classified: readonly PodClassification[], diagnostics: Diagnostic[]): GangGroup[] {
  const gang = view.definition.karta?.spec?.optimizationInstructions?.gangScheduling;
  if (!gang) return [];
  if (gang.podGroup) return [newerGroup(view, gang.podGroup, classified, diagnostics)];
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

function newerGroup(view: WorkloadView, def: PodGroupComponentsMapping, classified: readonly PodClassification[], diagnostics: Diagnostic[]): GangGroup {
  const where = "spec.optimizationInstructions.gangScheduling.podGroup";
  const uid = rootUid(view, diagnostics);
  const rawName = `pg-${uid}-${def.name}`;
  const name = dns1123SubdomainErrors(rawName).length === 0 ? rawName : dns1123Safe(rawName);
  if (name !== rawName) {
    diagnostics.push({ severity: "warning", path: `${where}.name`, message: `PodGroup name "${rawName}" is not a DNS-1123 subdomain; shown here as "${name}"`, code: "gang-name" });
  }
  const group: GangGroup = { name, format: "podGroup", definition: def.name, minMember: 0, members: [] };
  if (def.topology) {
    const err = topologyErrors(def.topology);
    if (err) diagnostics.push({ severity: "error", path: `${where}.topology`, message: err, code: "gang-topology" });
    else group.topology = def.topology;
  }
  const subGroups: GangSubGroup[] = [];
  /** Component → the first subgroup whose subtree holds it: its pods' subgroup as members. */
  const subGroupOf = new Map<string, GangSubGroup>();
  (def.subGroups ?? []).forEach((sg, i) => {
    const path = `${where}.subGroups[${i}]`;
    if (!sg.componentName) {
      diagnostics.push({ severity: "error", path, message: "subgroup component name cannot be empty", code: "gang-subgroup" });
      return;
    }
    const comp = view.definition.byName.get(sg.componentName);
    if (!comp) {
      diagnostics.push({ severity: "error", path: `${path}.componentName`, message: `component ${sg.componentName} not found`, code: "gang-subgroup" });
      return;
    }
    const scale = subtreeScale(view, sg.componentName, undefined);
    if (!scale.ok) {
      diagnostics.push({ severity: "error", path, message: scale.error, code: "gang-scale" });
      return;
    }
    if (scale.value === 0) {
      diagnostics.push({ severity: "error", path, message: `component ${sg.componentName} must expose a replica scale definition`, code: "gang-scale" });
      return;
    }
    const sub: GangSubGroup = { name: sg.componentName, component: sg.componentName, minMember: scale.value, pods: [] };
    if (sg.topology) {
      const err = topologyErrors(sg.topology);
      if (err) diagnostics.push({ severity: "error", path: `${path}.topology`, message: err, code: "gang-topology" });
      else sub.topology = sg.topology;
    }
    // The subgroup's pods: those classified into a component of its subtree.
    const subtree = new Set(subtreeOf(view.definition, comp.name));
    for (const c of classified) if (c.component !== undefined && subtree.has(c.component)) sub.pods.push(c.pod.name);
    for (const name of subtree) if (!subGroupOf.has(name)) subGroupOf.set(name, sub);
    subGroups.push(sub);
  });
  if ((def.subGroups ?? []).length > 0) {
    group.subGroups = subGroups;
    group.minSubGroup = subGroups.length;
  } else {
    const root = view.definition.root;
    const scale = root ? subtreeScale(view, root.name, undefined) : { ok: false as const, error: "the definition has no root component" };
    if (scale.ok) group.minMember = scale.value;
    else diagnostics.push({ severity: "error", path: where, message: scale.error, code: "gang-scale" });
  }
  for (const c of classified) {
    if (c.component === undefined) continue;
    const sub = subGroupOf.get(c.component);
    const member: GangGroup["members"][number] = { pod: c.pod.name, component: c.component, memberComponent: sub?.component ?? c.component, minMember: sub?.minMember ?? group.minMember };
    if (c.instance !== undefined) member.instance = c.instance;
    group.members.push(member);
  }
  return group;
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
