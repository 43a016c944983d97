/**
 * Karta's own interpreter for OpenKruise SidecarSet (apps.kruise.io/v1alpha1). A SidecarSet is not a
 * workload: it injects containers into other workloads' pods that match its selector, so it has no pods,
 * no replicas and no gang of its own, and a Karta (a workload model) does not fit it. What Karmada needs:
 * - InterpretReplica: 0 (the sidecars run in other workloads' pods, which those workloads schedule);
 * - InterpretStatus / AggregateStatus: the matched, updated and ready pod counters, summed over members
 *   (the aggregated object carries only the status: only its status is written back);
 * - InterpretHealth: healthy once every matched pod runs the current sidecars (or none match);
 * - Retain: nothing is owned by member clusters;
 * - InterpretDependency: the ConfigMaps and Secrets the sidecar containers and volumes name.
 */
import { podDependencies } from "../../resources/index.js";
import { sortDependencies } from "../dependencies.js";
import {
  fail,
  kindOf,
  ok,
  type AggregatedStatusItem,
  type Component,
  type DependentObjectReference,
  type Interpreter,
  type JsonValue,
  type KubeObject,
  type Operation,
  type Outcome,
  type ReplicaResult,
  type ResourceKind,
} from "../types.js";

const KIND: ResourceKind = { apiVersion: "apps.kruise.io/v1alpha1", kind: "SidecarSet" };
const OPERATIONS: readonly Operation[] = ["InterpretReplica", "InterpretStatus", "AggregateStatus", "InterpretHealth", "Retain", "InterpretDependency"];
const COUNTERS = ["matchedPods", "updatedPods", "readyPods"] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function count(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : 0;
}

/** The SidecarSet interpreter. */
export class SidecarSetInterpreter implements Interpreter {
  /** The kind interpreted, with its operations. */
  get kinds(): { kind: ResourceKind; operations: Operation[] }[] {
    return [{ kind: KIND, operations: [...OPERATIONS] }];
  }

  supports(kind: ResourceKind, op: Operation): boolean {
    return kind.apiVersion === KIND.apiVersion && kind.kind === KIND.kind && OPERATIONS.includes(op);
  }

  private unsupported<T>(obj: KubeObject, op: Operation): Outcome<T> {
    const k = kindOf(obj);
    return fail(op, `the thirdparty layer does not interpret ${op} for ${k.kind} ${k.apiVersion}`, undefined, "thirdparty");
  }

  interpretReplica(_object: KubeObject): Outcome<ReplicaResult> {
    void _object;
    return ok({ replicas: 0 });
  }

  interpretComponent(object: KubeObject): Outcome<Component[]> {
    return this.unsupported(object, "InterpretComponent");
  }

  reviseReplica(object: KubeObject, _replicas: number): Outcome<KubeObject> {
    void _replicas;
    return this.unsupported(object, "ReviseReplica");
  }

  reviseComponents(object: KubeObject): Outcome<KubeObject> {
    return this.unsupported(object, "ReviseComponents");
  }

  retain(desired: KubeObject, _observed: KubeObject): Outcome<KubeObject> {
    void _observed;
    return ok(JSON.parse(JSON.stringify(desired)) as KubeObject);
  }

  interpretStatus(object: KubeObject): Outcome<JsonValue | undefined> {
    if (!isObject(object.status)) return ok({});
    const status = object.status;
    return ok(Object.fromEntries(COUNTERS.map((c) => [c, count(status[c])])));
  }

  aggregateStatus(object: KubeObject, items: AggregatedStatusItem[] | undefined): Outcome<KubeObject> {
    const status: Record<string, number> = Object.fromEntries(COUNTERS.map((c) => [c, 0]));
    for (const item of items ?? []) {
      const s = isObject(item.status) ? item.status : {};
      for (const c of COUNTERS) status[c]! += count(s[c]);
    }
    const result: KubeObject = { apiVersion: KIND.apiVersion, kind: KIND.kind, status };
    if (object.metadata !== undefined) result.metadata = JSON.parse(JSON.stringify(object.metadata)) as JsonValue;
    return ok(result);
  }

  interpretHealth(object: KubeObject): Outcome<boolean> {
    if (!isObject(object.status)) return ok(false);
    const matched = count(object.status.matchedPods);
    return ok(matched === 0 || count(object.status.updatedPods) === matched);
  }

  interpretDependency(object: KubeObject): Outcome<DependentObjectReference[]> {
    const spec = isObject(object.spec) ? object.spec : {};
    const meta = isObject(object.metadata) ? object.metadata : {};
    const namespace = typeof meta.namespace === "string" ? meta.namespace : "";
    // The sidecars' references, as a pod carrying them would have.
    const pod = { spec: { containers: spec.containers ?? [], initContainers: spec.initContainers ?? [], volumes: spec.volumes ?? [] } };
    const refs = (podDependencies(pod, namespace) ?? []).filter((r) => r.kind === "ConfigMap" || r.kind === "Secret");
    return ok(sortDependencies(refs.map((r) => ({ ...r }) as DependentObjectReference)));
  }
}
