/**
 * Pod → component, instance and replica. A pod belongs to the leaf component (one that defines pods)
 * whose type selector matches it; with a single leaf, every pod belongs to it (as in the reference).
 * A pod matching several leaves is reported: selectors of one kind must be mutually exclusive.
 */
import type { Diagnostic } from "../definition/index.js";
import type { CompiledComponent } from "./compile.js";
import type { PodClassification, PodRef } from "./types.js";
import type { WorkloadView } from "./workload.js";
import { isObject } from "./plain.js";

/** The pod's name, namespace and uid (name `pods[i]` when it has none). */
export function podRef(pod: unknown, index: number): PodRef {
  const meta = isObject(pod) && isObject(pod.metadata) ? pod.metadata : {};
  const ref: PodRef = { name: typeof meta.name === "string" ? meta.name : `pods[${index}]` };
  if (typeof meta.namespace === "string") ref.namespace = meta.namespace;
  if (typeof meta.uid === "string") ref.uid = meta.uid;
  return ref;
}

/** Whether a kind (a definition's root kind) is core/v1 Pod. */
export function isPodKind(kind: { group?: string; version?: string; kind?: string } | undefined): boolean {
  return typeof kind === "object" && kind !== null && (kind.group ?? "") === "" && kind.version === "v1" && kind.kind === "Pod";
}

/**
 * Whether two pods are one: by uid when both have one, else by namespace and name (an object written by
 * hand without a name is only itself).
 */
function samePod(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ma = isObject(a) && isObject(a.metadata) ? a.metadata : {};
  const mb = isObject(b) && isObject(b.metadata) ? b.metadata : {};
  if (typeof ma.uid === "string" && ma.uid !== "" && typeof mb.uid === "string" && mb.uid !== "") return ma.uid === mb.uid;
  return typeof ma.name === "string" && ma.name !== "" && ma.name === mb.name && (ma.namespace ?? "") === (mb.namespace ?? "");
}

/**
 * The pods of a workload: the pods given, and, when the workload is itself a pod (the definition's root
 * kind is core/v1 Pod: a bare pod, which KAI's default grouper gangs as its own group of one), the object
 * too, after them, unless it is among them. Every command that shows a workload's pods counts them from
 * this list, so a Pod is 1/1 on its node wherever it is shown.
 */
export function workloadPods(rootKind: { group?: string; version?: string; kind?: string } | undefined, object: unknown, pods: readonly unknown[]): readonly unknown[] {
  if (!isPodKind(rootKind) || !isObject(object) || pods.some((p) => samePod(p, object))) return pods;
  return [...pods, object];
}

/**
 * Whether the pod matches the component's type selector, as the reference's MatchesComponentType: a
 * key that exists (some output not null), or `KEYPATH == "VALUE"` with some output true; the
 * evaluation's error when it fails.
 */
function matchesType(c: CompiledComponent, pod: unknown): boolean | { error: string; path: string } {
  if (!c.hasTypeSelector) return false;
  if (c.typeKey) {
    const test = c.typeEquals ?? c.typeKey;
    const r = test.run(pod);
    if (!r.ok) return { error: r.error, path: c.typeKey.path };
    const wanted = c.typeValue;
    const hit = c.typeEquals ? r.values.some((v) => v === true) : wanted === undefined ? r.values.some((v) => v !== null && v !== undefined) : r.values.some((v) => v === wanted);
    if (!hit) return false;
  }
  if (c.matchLabels) {
    const labels = isObject(pod) && isObject(pod.metadata) && isObject(pod.metadata.labels) ? pod.metadata.labels : {};
    for (const [k, v] of Object.entries(c.matchLabels)) if (labels[k] !== v) return false;
  }
  return true;
}

/** Describes a type selector for messages. */
function describeSelector(c: CompiledComponent): string {
  const parts: string[] = [];
  if (c.typeKey) parts.push(c.typeValue === undefined ? `${c.typeKey.text} exists` : `${c.typeKey.text} == ${JSON.stringify(c.typeValue)}`);
  if (c.matchLabels) parts.push(`labels ${JSON.stringify(c.matchLabels)}`);
  return `${c.name} (${parts.join(" and ")})`;
}

/**
 * The objects between pods and the root (ReplicaSets, Jobs, StatefulSets...), indexed to follow owner
 * references: by uid, and by kind and name for objects written without one.
 */
export interface OwnerIndex {
  byUid: Map<string, Record<string, unknown>>;
  byName: Map<string, Record<string, unknown>>;
}

/** Indexes the objects given with the workload (anything with a kind and a name). */
export function ownerIndex(objects: readonly unknown[] = []): OwnerIndex {
  const index: OwnerIndex = { byUid: new Map(), byName: new Map() };
  for (const o of objects) {
    if (!isObject(o) || typeof o.kind !== "string" || !isObject(o.metadata)) continue;
    if (typeof o.metadata.uid === "string" && o.metadata.uid !== "") index.byUid.set(o.metadata.uid, o);
    if (typeof o.metadata.name === "string") index.byName.set(`${o.kind}/${o.metadata.name}`, o);
  }
  return index;
}

const groupOf = (apiVersion: unknown): string | undefined =>
  typeof apiVersion === "string" ? (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "") : undefined;

function ownerRefsOf(o: unknown): Record<string, unknown>[] {
  const refs = isObject(o) && isObject(o.metadata) && Array.isArray(o.metadata.ownerReferences) ? o.metadata.ownerReferences : [];
  return refs.filter((r): r is Record<string, unknown> => isObject(r));
}

/** Kinds (`group/Kind`) an owner chain may pass through: the child components' and the additional child kinds. */
function chainKinds(view: WorkloadView): Set<string> {
  const out = new Set<string>();
  const structure = view.definition.karta?.spec?.structureDefinition;
  for (const c of view.definition.components) {
    const k = c.definition.kind;
    if (c !== view.definition.root && k?.kind) out.add(`${k.group ?? ""}/${k.kind}`);
  }
  for (const k of structure?.additionalChildKinds ?? []) if (k?.kind) out.add(`${k.group ?? ""}/${k.kind}`);
  return out;
}

/**
 * Why the pod is another workload's, when its owner references say so: it names objects of the root's
 * kind (group and kind; any version) and none is this object, by uid, or by name when either has no uid
 * (an object with neither is not judged). Owners in between (a ReplicaSet, Job or StatefulSet of one of
 * the definition's child kinds, given with the workload) are followed up to the root's kind, so a pod of
 * another workload's Job is told apart too. A chain that leaves the given objects is not judged.
 * Pods read with `kubectl get pods` of a namespace include such pods; KAI never sees them with this object.
 */
function otherWorkload(view: WorkloadView, pod: unknown, podName: string, owners: OwnerIndex, kinds: Set<string>): string | undefined {
  const kind = view.definition.root?.definition.kind;
  if (!kind) return undefined;
  const refs0 = ownerRefsOf(pod);
  // A workload that is a pod has itself; another pod no one owns is a workload of its own.
  if (refs0.length === 0 && isPodKind(kind) && !samePod(pod, view.object)) {
    const meta = isObject(view.object.metadata) ? view.object.metadata : {};
    return `pod ${podName} is a Pod of its own (no owner), not this Pod${typeof meta.name === "string" && meta.name !== "" ? ` ${meta.name}` : ""}`;
  }
  // Most pods: no owner, or one the chain cannot follow; decided before anything is allocated.
  if (refs0.length === 0) return undefined;
  const meta = isObject(view.object.metadata) ? view.object.metadata : {};
  const uid = typeof meta.uid === "string" && meta.uid !== "" ? meta.uid : undefined;
  const name = typeof meta.name === "string" && meta.name !== "" ? meta.name : undefined;
  // An object written by hand without name or uid: nothing to tell its pods from others'.
  if (uid === undefined && name === undefined) return undefined;
  const ours = (r: Record<string, unknown>): boolean => (uid !== undefined && typeof r.uid === "string" && r.uid !== "" ? r.uid === uid : r.name === name);
  const via: string[] = [];
  let refs = refs0;
  let seen: Set<unknown> | undefined;
  for (let depth = 0; depth < 16 && refs.length > 0; depth++) {
    const roots = refs.filter((r) => r.kind === kind.kind && groupOf(r.apiVersion) === (kind.group ?? ""));
    if (roots.length > 0) {
      if (roots.some(ours)) return undefined;
      const other = roots[0]!;
      const otherUid = typeof other.uid === "string" && other.uid !== "" ? ` (uid ${other.uid})` : "";
      const through = via.length > 0 ? ` through ${via.join(" and ")}` : "";
      return `pod ${podName} belongs to ${kind.kind} ${String(other.name)}${otherUid}${through}, not to this ${kind.kind}${name !== undefined ? ` ${name}` : ""}`;
    }
    // The controlling owner (KAI follows the first reference), when it is one of the given objects of a child kind.
    const next = refs.find((r) => r.controller === true) ?? refs[0]!;
    if (owners.byUid.size === 0 && owners.byName.size === 0) return undefined;
    if (!kinds.has(`${groupOf(next.apiVersion) ?? ""}/${String(next.kind)}`)) return undefined;
    const owner = (typeof next.uid === "string" && next.uid !== "" ? owners.byUid.get(next.uid) : undefined) ?? owners.byName.get(`${String(next.kind)}/${String(next.name)}`);
    seen ??= new Set();
    if (!owner || seen.has(owner)) return undefined;
    seen.add(owner);
    via.push(`${String(next.kind)} ${String(next.name)}`);
    refs = ownerRefsOf(owner);
  }
  return undefined;
}

/**
 * Why the pod is not this object's when the two are in different namespaces: an owner reference names an
 * object of the pod's own namespace (the garbage collector refuses any other), so no chain from this
 * object reaches it. Either without a namespace (written by hand) is not judged.
 */
function otherNamespace(view: WorkloadView, pod: PodRef): string | undefined {
  const meta = isObject(view.object.metadata) ? view.object.metadata : {};
  const namespace = typeof meta.namespace === "string" && meta.namespace !== "" ? meta.namespace : undefined;
  if (namespace === undefined || pod.namespace === undefined || pod.namespace === "" || pod.namespace === namespace) return undefined;
  const kind = view.definition.root?.definition.kind?.kind ?? "object";
  return `pod ${pod.name} is in namespace ${pod.namespace}, not in the ${kind}'s namespace ${namespace}: owner references do not cross namespaces`;
}

/** Classifies one pod. Problems go to `diagnostics` and the classification says why. */
export function classifyPod(view: WorkloadView, pod: unknown, index: number, diagnostics: Diagnostic[], owners: OwnerIndex = ownerIndex(), kinds: Set<string> = chainKinds(view)): PodClassification {
  const ref = podRef(pod, index);
  const out: PodClassification = { pod: ref, index };
  const leaves = view.definition.leaves;
  let component: CompiledComponent | undefined;
  const foreign = otherNamespace(view, ref) ?? otherWorkload(view, pod, ref.name, owners, kinds);
  if (foreign !== undefined) {
    out.reason = foreign;
  } else if (leaves.length === 1) {
    component = leaves[0];
  } else if (leaves.length === 0) {
    out.reason = "the definition has no component that defines pods";
  } else {
    // The reference's InferPodComponent: the leaves in order, root first; the first that matches is the
    // pod's, and a selector that fails on the pod fails the pod (KAI then groups it nowhere).
    for (const c of leaves) {
      const m = matchesType(c, pod);
      if (m === false) continue;
      if (m !== true) {
        out.reason = `pod ${ref.name}: failed to check if pod matches component ${c.name}: ${m.error}`;
        diagnostics.push({ severity: "error", path: m.path, message: out.reason, code: "jq-eval" });
        break;
      }
      component = c;
      break;
    }
    if (component) {
      // Selectors should be mutually exclusive: a pod that later leaves match too is said (their errors are not the pod's).
      const also = leaves.slice(leaves.indexOf(component) + 1).filter((c) => matchesType(c, pod) === true);
      if (also.length > 0) {
        const matched = [component, ...also];
        out.matched = matched.map((c) => c.name);
        diagnostics.push({
          severity: "warning",
          path: also[0]!.path + ".podSelector.componentTypeSelector",
          message: `pod ${ref.name} matches ${matched.length} components (${matched.map(describeSelector).join("; ")}): it is taken for the first, ${component.name}, as upstream Karta and KAI take it; componentTypeSelectors should be mutually exclusive`,
          code: "pod-ambiguous",
        });
      }
    } else if (out.reason === undefined) {
      const withSelector = leaves.filter((c) => c.hasTypeSelector);
      out.reason =
        withSelector.length === 0
          ? `no component found for pod ${ref.name}: none of the components ${leaves.map((c) => c.name).join(", ")} has a componentTypeSelector`
          : `no component found for pod ${ref.name}: it matches none of ${withSelector.map(describeSelector).join(", ")}`;
    }
  }
  if (!component) return out;
  out.component = component.name;

  const instance = podInstance(view, component, pod, ref.name);
  if (instance.error) {
    out.reason = instance.error;
    diagnostics.push({ severity: "error", path: instance.path ?? component.path, message: instance.error, code: "pod-instance" });
  } else if (instance.id !== undefined) out.instance = instance.id;

  // The replica key comes from the nearest replicaSelector up the tree.
  for (let c: CompiledComponent | undefined = component, n = 0; c && n < 100; c = c.parent !== undefined ? view.definition.byName.get(c.parent) : undefined, n++) {
    if (!c.replicaSelector) continue;
    const r = c.replicaSelector.single(pod);
    if (r.ok) out.replica = r.text;
    break;
  }
  return out;
}

/**
 * The pod's instance of its component (the reference's InferPodComponentInstance): only components
 * with instance ids and a pod selector have one; the pod's idPath value must be one of the ids
 * (`notFound`: it is not, the reference's InstanceNotFoundError).
 */
export function podInstance(view: WorkloadView, component: CompiledComponent, pod: unknown, podName: string): { id?: string; error?: string; path?: string; notFound?: true } {
  const e = view.components.get(component.name);
  const ids = e?.instanceIds;
  if (!e || ids === undefined) return { error: `pod ${podName}: the instance ids of component ${component.name} could not be read` };
  if (ids.length === 0 || ids[0] === "" || !component.definition.podSelector) return {};
  if (!component.instanceSelector) return { error: `pod ${podName}: no instance selector provided but instance ids are not empty`, path: component.path };
  const r = component.instanceSelector.single(pod);
  if (!r.ok) return { error: `pod ${podName}: failed to extract instance id from path "${component.instanceSelector.text}": ${r.error}`, path: component.instanceSelector.path };
  if (!ids.includes(r.text)) {
    return { error: `pod ${podName}: could not match instance id "${r.text}". existing instance ids [${ids.join(" ")}]`, path: component.instanceSelector.path, notFound: true };
  }
  return { id: r.text };
}

/** Classifies every pod; `owners` are the objects between the pods and the root, to follow owner chains. */
export function classifyPods(view: WorkloadView, pods: readonly unknown[], diagnostics: Diagnostic[], owners: readonly unknown[] = []): PodClassification[] {
  const index = ownerIndex(owners);
  const kinds = chainKinds(view);
  return pods.map((p, i) => classifyPod(view, p, i, diagnostics, index, kinds));
}
