/** Built-in interpretation of v1 Pod. */
import { podDependencies } from "../../resources/index.js";
import type { AggregatedStatusItem, DependentObjectReference, KubeObject, Outcome, ReplicaResult } from "../types.js";
import {
  type MemberStatusType,
  type Obj,
  asObjectArray,
  clone,
  getField,
  getObject,
  intOr0,
  memberStatusError,
  namespaceOf,
  nativeFail,
  ok,
  stringField,
  typedObjectError,
  typedStringError,
  withAggregatedStatus,
} from "./common.js";
import { normalizeTime } from "./time.js";
import { withTemplateRequirements } from "./workload.js";

/** InterpretReplica: a Pod is one replica, with the requirements of its own spec. */
export function getReplicas(obj: KubeObject): Outcome<ReplicaResult> {
  return withTemplateRequirements(1, { spec: getObject(obj, "spec") ?? {} }, "");
}

/** Sets or removes a string field as Go's omitempty writes it. */
function setString(target: Obj, key: string, value: string): void {
  if (value === "") delete target[key];
  else target[key] = value;
}

/** Copies each observed container's volumeMounts onto the desired container of the same name. */
function retainMounts(desired: Obj[], observed: Obj[]): void {
  for (const oc of observed) {
    const dc = desired.find((c) => c["name"] === oc["name"]);
    if (!dc) continue;
    if (Array.isArray(oc["volumeMounts"]) && oc["volumeMounts"].length > 0) dc["volumeMounts"] = clone(oc["volumeMounts"]);
    else delete dc["volumeMounts"];
  }
}

/**
 * Retain: the member cluster owns nodeName, serviceAccountName and volumes (admission adds token
 * volumes), and each container's volumeMounts.
 */
export function retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
  const out = clone(desired) as Obj;
  const spec: Obj = getObject(out, "spec") ?? {};
  out["spec"] = spec;
  const observedSpec = getObject(observed, "spec") ?? {};
  setString(spec, "nodeName", stringField(observedSpec, "nodeName"));
  setString(spec, "serviceAccountName", stringField(observedSpec, "serviceAccountName"));
  if (Array.isArray(observedSpec["volumes"]) && observedSpec["volumes"].length > 0) spec["volumes"] = clone(observedSpec["volumes"]);
  else delete spec["volumes"];
  retainMounts(asObjectArray(spec["containers"]), asObjectArray(observedSpec["containers"]));
  retainMounts(asObjectArray(spec["initContainers"]), asObjectArray(observedSpec["initContainers"]));
  return ok(out as KubeObject);
}

/** A timestamp as metav1.Time writes it into an unstructured object: null when unset. */
function time(v: unknown): unknown {
  return v === undefined || v === null || v === "" ? null : normalizeTime(v);
}

/** Copies the non-empty string fields Go writes with omitempty. */
function strings(from: Obj, keys: readonly string[], to: Obj): Obj {
  for (const k of keys) if (typeof from[k] === "string" && from[k] !== "") to[k] = from[k];
  return to;
}

/**
 * A ContainerState in its typed form: only waiting, running and terminated, each with its own fields;
 * timestamps always written (null when unset) and the exit code always written.
 */
function containerState(v: unknown): Obj {
  const state = getObject(v) ?? {};
  const out: Obj = {};
  const waiting = getObject(state, "waiting");
  if (waiting) out["waiting"] = strings(waiting, ["reason", "message"], {});
  const running = getObject(state, "running");
  if (running) out["running"] = { startedAt: time(running["startedAt"]) };
  const terminated = getObject(state, "terminated");
  if (terminated) {
    const t: Obj = { exitCode: intOr0(terminated, "exitCode") };
    if (intOr0(terminated, "signal") !== 0) t["signal"] = intOr0(terminated, "signal");
    strings(terminated, ["reason", "message"], t);
    t["startedAt"] = time(terminated["startedAt"]);
    t["finishedAt"] = time(terminated["finishedAt"]);
    out["terminated"] = strings(terminated, ["containerID"], t);
  }
  return out;
}

/**
 * A container status reduced to what Karmada aggregates (readiness and state), as helper.ToUnstructured
 * writes a ContainerStatus: the struct-valued state and lastState are always there, even empty.
 */
function reducedContainerStatus(cs: Obj): Obj {
  return { name: "", state: containerState(cs["state"]), lastState: {}, ready: cs["ready"] === true, restartCount: 0, image: "", imageID: "" };
}

const MEMBER: MemberStatusType = { goType: "v1.PodStatus", ints: {}, strings: { phase: "v1.PodPhase" } };

const PHASE_PRECEDENCE = ["Failed", "Pending", "Running", "Succeeded"];

/**
 * AggregateStatus: the phase by precedence Failed > Pending > Running > Succeeded (a member without a
 * status counts as Pending), and every member's container states and readiness. No status items leave
 * the Pod unchanged.
 */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  if (items.length === 0) return ok(clone(obj));
  const phases = new Set<string>();
  const containerStatuses: Obj[] = [];
  const initContainerStatuses: Obj[] = [];
  for (const item of items) {
    const err = memberStatusError(item.status, MEMBER);
    if (err !== undefined) return nativeFail("AggregateStatus", err);
    const s = getObject(item, "status");
    if (s === undefined) {
      phases.add("Pending");
      continue;
    }
    phases.add(typeof s["phase"] === "string" ? s["phase"] : "");
    for (const cs of asObjectArray(s["containerStatuses"])) containerStatuses.push(reducedContainerStatus(cs));
    for (const cs of asObjectArray(s["initContainerStatuses"])) initContainerStatuses.push(reducedContainerStatus(cs));
  }
  const status: Obj = {};
  const phase = PHASE_PRECEDENCE.find((p) => phases.has(p));
  if (phase !== undefined) status["phase"] = phase;
  if (initContainerStatuses.length > 0) status["initContainerStatuses"] = initContainerStatuses;
  if (containerStatuses.length > 0) status["containerStatuses"] = containerStatuses;
  return withAggregatedStatus(obj, status, false);
}

/** InterpretHealth: Succeeded, or Running with the Ready condition True. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  const status = getObject(obj, "status") ?? {};
  // The typed conversion of the Pod: metadata, then the status fields read here, in Go's order.
  const unconvertible = typedObjectError(obj, [], [["observedGeneration", "int64"]]);
  if (unconvertible) return unconvertible;
  const conditions = Array.isArray(status["conditions"]) ? (status["conditions"] as unknown[]) : [];
  const stringError = [
    typedStringError(status["phase"], "v1.PodPhase"),
    ...conditions.flatMap((c) => [typedStringError(getField(c, "type"), "v1.PodConditionType"), typedStringError(getField(c, "status"), "v1.ConditionStatus")]),
  ].find((e) => e !== undefined);
  if (stringError !== undefined) return nativeFail("InterpretHealth", stringError);
  if (status["phase"] === "Succeeded") return ok(true);
  const ready = asObjectArray(status["conditions"]).find((c) => c["type"] === "Ready");
  return ok(status["phase"] === "Running" && ready !== undefined && ready["status"] === "True");
}

/** InterpretDependency: the Pod's ConfigMaps, Secrets, ServiceAccount and PVCs. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return ok(podDependencies({ spec: getObject(obj, "spec") ?? {} }, namespaceOf(obj)) ?? []);
}
