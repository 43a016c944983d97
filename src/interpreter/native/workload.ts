/** Operations shared by the pod-template workloads (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob). */
import { Quantity } from "../../quantity/index.js";
import { accuratePodRequirements, podDependencies } from "../../resources/index.js";
import type { AggregatedStatusItem, DependentObjectReference, JsonValue, KubeObject, Outcome, ReplicaRequirements, ReplicaResult } from "../types.js";
import {
  type Obj,
  type TypedIntFields,
  clone,
  generation,
  getField,
  getObject,
  intOr0,
  namespaceOf,
  nativeFail,
  ok,
  setField,
  typedInt32,
  typedObjectError,
} from "./common.js";
import { type CountedStatusShape, aggregateCounted, reflectCounted } from "./counted-status.js";
import { nestedInt64 } from "./unstructured.js";

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/** A core/v1 NodeSelectorRequirement as Go marshals it: key and operator always, values when any. */
function typedRequirement(r: unknown): Obj {
  const o = obj(r);
  const out: Obj = { key: str(o["key"]), operator: str(o["operator"]) };
  if (Array.isArray(o["values"]) && o["values"].length > 0) out["values"] = clone(o["values"]);
  return out;
}

/** A core/v1 NodeSelectorTerm as Go marshals it: each list only when non-empty. */
function typedTerm(t: unknown): Obj {
  const o = obj(t);
  const out: Obj = {};
  for (const k of ["matchExpressions", "matchFields"]) {
    if (Array.isArray(o[k]) && o[k].length > 0) out[k] = (o[k] as unknown[]).map(typedRequirement);
  }
  return out;
}

/**
 * The NodeClaim as Go marshals the typed struct Karmada builds: a hard node affinity keeps
 * nodeSelectorTerms even when unset (null, the field has no omitempty), and fields the API does not
 * define are dropped from it and from tolerations.
 */
function typedNodeClaim(claim: Obj): Obj {
  const out: Obj = {};
  if (claim["hardNodeAffinity"] !== undefined) {
    const terms = obj(claim["hardNodeAffinity"])["nodeSelectorTerms"];
    out["hardNodeAffinity"] = { nodeSelectorTerms: Array.isArray(terms) ? terms.map(typedTerm) : null };
  }
  if (claim["nodeSelector"] !== undefined) out["nodeSelector"] = claim["nodeSelector"];
  if (Array.isArray(claim["tolerations"])) {
    out["tolerations"] = claim["tolerations"].map((t: unknown) => {
      const o = obj(t);
      const tol: Obj = {};
      for (const k of ["key", "operator", "value", "effect"]) if (str(o[k]) !== "") tol[k] = o[k];
      if (typeof o["tolerationSeconds"] === "number") tol["tolerationSeconds"] = o["tolerationSeconds"];
      return tol;
    });
  }
  return out;
}

/** The first quantity of a ResourceList that does not parse, in key order (Go ranges over a map). */
function listIssue(list: unknown, path: string): { path: string; message: string } | undefined {
  const o = getObject(list);
  if (o === undefined) return undefined;
  for (const name of Object.keys(o).sort()) {
    const r = Quantity.fromJSON(o[name]);
    if (!r.ok) return { path: /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `${path}.${name}` : `${path}[${JSON.stringify(name)}]`, message: r.error.message };
  }
  return undefined;
}

/** The first unparsable quantity of a container's resources (limits before requests). */
function resourcesIssue(resources: unknown, path: string): { path: string; message: string } | undefined {
  return listIssue(getField(resources, "limits"), `${path}.limits`) ?? listIssue(getField(resources, "requests"), `${path}.requests`);
}

/**
 * The first quantity a typed PodSpec conversion fails on, visiting the spec in Go's field order:
 * volumes (emptyDir size limits, ephemeral claim templates), init, regular and ephemeral containers,
 * overhead, pod-level resources. Unlike the requirement sums, every resource name is parsed, and
 * ephemeral containers too.
 */
function podSpecQuantityIssue(spec: Obj, base: string): { path: string; message: string } | undefined {
  const at = (p: string): string => (base === "" ? p : `${base}.${p}`);
  const volumes = Array.isArray(spec["volumes"]) ? (spec["volumes"] as unknown[]) : [];
  for (const [i, v] of volumes.entries()) {
    const size = getField(v, "emptyDir", "sizeLimit");
    if (size !== undefined && size !== null) {
      const r = Quantity.fromJSON(size);
      if (!r.ok) return { path: at(`volumes[${i}].emptyDir.sizeLimit`), message: r.error.message };
    }
    const claim = resourcesIssue(getField(v, "ephemeral", "volumeClaimTemplate", "spec", "resources"), at(`volumes[${i}].ephemeral.volumeClaimTemplate.spec.resources`));
    if (claim) return claim;
  }
  for (const key of ["initContainers", "containers", "ephemeralContainers"]) {
    const list = Array.isArray(spec[key]) ? (spec[key] as unknown[]) : [];
    for (const [i, c] of list.entries()) {
      const issue = resourcesIssue(getField(c, "resources"), at(`${key}[${i}].resources`));
      if (issue) return issue;
    }
  }
  return listIssue(spec["overhead"], at("overhead")) ?? resourcesIssue(spec["resources"], at("resources"));
}

/**
 * InterpretReplica's result: `replicas` with the requirements of one replica of the pod template
 * (helper.GenerateReplicaRequirements). Karmada converts the object to its typed form first, so a
 * quantity that does not parse is an error; `prefix` is the template's field path, for the message.
 */
export function withTemplateRequirements(replicas: number, template: unknown, prefix: string): Outcome<ReplicaResult> {
  // Only the template's spec counts: the typed PodTemplateSpec has nothing else a replica needs.
  const spec = getObject(template, "spec") ?? {};
  const issue = podSpecQuantityIssue(spec, "spec");
  if (issue !== undefined) return nativeFail("InterpretReplica", issue.message, [prefix, issue.path].filter((p) => p !== "").join("."));
  const { value } = accuratePodRequirements({ spec });
  const result: ReplicaResult = { replicas };
  if (value !== undefined) {
    const requirements = value as ReplicaRequirements;
    if (requirements.nodeClaim !== undefined) requirements.nodeClaim = typedNodeClaim(requirements.nodeClaim as Obj) as ReplicaRequirements["nodeClaim"];
    result.replicaRequirements = requirements;
  }
  return ok(result);
}

/** InterpretReplica for `spec.replicas` workloads: the replicas (0 when unset) and the template's requirements. */
export function replicasAndTemplate(obj: KubeObject): Outcome<ReplicaResult> {
  const r = typedInt32(obj, "spec", "replicas");
  if ("error" in r) return nativeFail("InterpretReplica", r.error, "spec.replicas");
  return withTemplateRequirements(r.value, getObject(obj, "spec", "template"), "spec.template");
}

/**
 * Karmada's ApplyReplica: sets `spec.<field>` only when the field is already there. It reads the field
 * with NestedInt64, so a field that is present but null (or not an integer) is an error.
 */
export function applyReplica(obj: KubeObject, replicas: number, field: string): Outcome<KubeObject> {
  const r = nestedInt64(obj, "spec", field);
  if ("error" in r) return nativeFail("ReviseReplica", r.error, `spec.${field}`);
  const out = clone(obj);
  if (r.found) setField(out, replicas, "spec", field);
  return ok(out);
}

/** Dependencies of a pod template in the object's namespace (the native layer verifies every kind's list). */
export function templateDependencies(obj: KubeObject, template: unknown): Outcome<DependentObjectReference[]> {
  // GetPodFromTemplate copies the template's spec; nothing beside it is read.
  return ok(podDependencies({ spec: getObject(template, "spec") ?? {} }, namespaceOf(obj)) ?? []);
}

/** InterpretDependency through `spec.template`. */
export function specTemplateDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return templateDependencies(obj, getObject(obj, "spec", "template"));
}

/** AggregateStatus and InterpretStatus for a workload whose status is a set of counters. */
export function countedStatus(shape: CountedStatusShape): {
  aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject>;
  reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined>;
} {
  return {
    aggregateStatus: (obj, items) => aggregateCounted(shape, obj, items),
    reflectStatus: (obj) => reflectCounted(shape, obj),
  };
}

/**
 * What Deployment, ReplicaSet and StatefulSet share: `spec.replicas` with the template's requirements
 * (InterpretReplica, ReviseReplica) and counted status (AggregateStatus, InterpretStatus).
 */
export function replicatedWorkload(shape: CountedStatusShape): ReturnType<typeof countedStatus> & {
  getReplicas(obj: KubeObject): Outcome<ReplicaResult>;
  reviseReplica(obj: KubeObject, replicas: number): Outcome<KubeObject>;
} {
  return {
    ...countedStatus(shape),
    getReplicas: replicasAndTemplate,
    reviseReplica: (obj, replicas) => applyReplica(obj, replicas, "replicas"),
  };
}

/** InterpretHealth of Deployment and StatefulSet: latest generation observed, all replicas updated, all updated ones available. */
export function rolledOut(statusFields: TypedIntFields): (obj: KubeObject) => Outcome<boolean> {
  return (obj) => typedObjectError(obj, [["replicas", "int32"]], statusFields, "InterpretHealth") ?? rolledOutTyped(obj);
}

function rolledOutTyped(obj: KubeObject): Outcome<boolean> {
  if (intOr0(obj, "status", "observedGeneration") !== generation(obj)) return ok(false);
  const replicas = getField(obj, "spec", "replicas");
  if (typeof replicas === "number" && intOr0(obj, "status", "updatedReplicas") < replicas) return ok(false);
  return ok(intOr0(obj, "status", "availableReplicas") >= intOr0(obj, "status", "updatedReplicas"));
}
