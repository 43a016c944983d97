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

/** Whether the pod matches the component's type selector; an error is reported and counts as no match. */
function matchesType(c: CompiledComponent, pod: unknown, podName: string, diagnostics: Diagnostic[]): boolean {
  if (!c.hasTypeSelector) return false;
  if (c.typeKey) {
    const r = c.typeKey.run(pod);
    if (!r.ok) {
      diagnostics.push({ severity: "error", path: c.typeKey.path, message: `pod ${podName}: failed to check if pod matches component ${c.name}: ${r.error}`, code: "jq-eval" });
      return false;
    }
    const wanted = c.typeValue;
    const hit = wanted === undefined ? r.values.some((v) => v !== null && v !== undefined) : r.values.some((v) => v === wanted);
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
 * Why the pod is another workload's, when its owner references say so: it names objects of the root's
 * kind (group and kind; any version) and none is this object, by uid, or by name when either has no uid
 * (an object with neither is not judged).
 * Pods read with `kubectl get pods` of a namespace include such pods; KAI never sees them with this object.
 */
function otherWorkload(view: WorkloadView, pod: unknown, podName: string): string | undefined {
  const kind = view.definition.root?.definition.kind;
  const refs = isObject(pod) && isObject(pod.metadata) && Array.isArray(pod.metadata.ownerReferences) ? pod.metadata.ownerReferences : [];
  if (!kind || refs.length === 0) return undefined;
  const meta = isObject(view.object.metadata) ? view.object.metadata : {};
  const uid = typeof meta.uid === "string" && meta.uid !== "" ? meta.uid : undefined;
  const name = typeof meta.name === "string" && meta.name !== "" ? meta.name : undefined;
  // An object written by hand without name or uid: nothing to tell its pods from others'.
  if (uid === undefined && name === undefined) return undefined;
  const group = (apiVersion: unknown): string | undefined => (typeof apiVersion === "string" ? (apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "") : undefined);
  const owners = refs.filter((r): r is Record<string, unknown> => isObject(r) && r.kind === kind.kind && group(r.apiVersion) === (kind.group ?? ""));
  if (owners.length === 0) return undefined;
  const ours = (r: Record<string, unknown>): boolean => (uid !== undefined && typeof r.uid === "string" && r.uid !== "" ? r.uid === uid : r.name === name);
  if (owners.some(ours)) return undefined;
  const other = owners[0]!;
  const otherUid = typeof other.uid === "string" && other.uid !== "" ? ` (uid ${other.uid})` : "";
  return `pod ${podName} belongs to ${kind.kind} ${String(other.name)}${otherUid}, not to this ${kind.kind}${name !== undefined ? ` ${name}` : ""}`;
}

/** Classifies one pod. Problems go to `diagnostics` and the classification says why. */
export function classifyPod(view: WorkloadView, pod: unknown, index: number, diagnostics: Diagnostic[]): PodClassification {
  const ref = podRef(pod, index);
  const out: PodClassification = { pod: ref, index };
  const leaves = view.definition.leaves;
  let component: CompiledComponent | undefined;
  const foreign = otherWorkload(view, pod, ref.name);
  if (foreign !== undefined) {
    out.reason = foreign;
  } else if (leaves.length === 1) {
    component = leaves[0];
  } else if (leaves.length === 0) {
    out.reason = "the definition has no component that defines pods";
  } else {
    const matched = leaves.filter((c) => matchesType(c, pod, ref.name, diagnostics));
    if (matched.length === 1) component = matched[0];
    else if (matched.length === 0) {
      const withSelector = leaves.filter((c) => c.hasTypeSelector);
      out.reason =
        withSelector.length === 0
          ? `no component found for pod ${ref.name}: none of the components ${leaves.map((c) => c.name).join(", ")} has a componentTypeSelector`
          : `no component found for pod ${ref.name}: it matches none of ${withSelector.map(describeSelector).join(", ")}`;
    } else {
      out.matched = matched.map((c) => c.name);
      out.reason = `pod ${ref.name} matches ${matched.length} components (${matched.map(describeSelector).join("; ")}): componentTypeSelectors must be mutually exclusive`;
      diagnostics.push({ severity: "error", path: matched[1]!.path + ".podSelector.componentTypeSelector", message: out.reason, code: "pod-ambiguous" });
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
 * with instance ids and a pod selector have one; the pod's idPath value must be one of the ids.
 */
export function podInstance(view: WorkloadView, component: CompiledComponent, pod: unknown, podName: string): { id?: string; error?: string; path?: string } {
  const e = view.components.get(component.name);
  const ids = e?.instanceIds;
  if (!e || ids === undefined) return { error: `pod ${podName}: the instance ids of component ${component.name} could not be read` };
  if (ids.length === 0 || ids[0] === "" || !component.definition.podSelector) return {};
  if (!component.instanceSelector) return { error: `pod ${podName}: no instance selector provided but instance ids are not empty`, path: component.path };
  const r = component.instanceSelector.single(pod);
  if (!r.ok) return { error: `pod ${podName}: failed to extract instance id from path "${component.instanceSelector.text}": ${r.error}`, path: component.instanceSelector.path };
  if (!ids.includes(r.text)) {
    return { error: `pod ${podName}: could not match instance id "${r.text}". existing instance ids [${ids.join(" ")}]`, path: component.instanceSelector.path };
  }
  return { id: r.text };
}

/** Classifies every pod. */
export function classifyPods(view: WorkloadView, pods: readonly unknown[], diagnostics: Diagnostic[]): PodClassification[] {
  return pods.map((p, i) => classifyPod(view, p, i, diagnostics));
}
