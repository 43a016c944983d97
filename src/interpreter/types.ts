/**
 * The resource interpreter contract shared by every layer (declarative Lua customizations, webhook,
 * thirdparty, native, Karta-derived): Karmada's operation names, its input and result shapes with the
 * JSON field names of `config.karmada.io/v1alpha1` and `work.karmada.io/v1alpha2`, and the
 * `Interpreter` interface a layer implements.
 */

import type { JsonObject, JsonValue } from "../input/index.js";

export type { JsonObject, JsonValue };

/**
 * A Kubernetes object in its unstructured form (`apiVersion`, `kind`, `metadata`, then anything).
 * Kept as plain JSON so that every layer sees exactly what the API server stored.
 */
export type KubeObject = JsonObject;

/** Identifies a resource type: the `apiVersion` (group/version, or version for the core group) and `kind`. */
export interface ResourceKind {
  apiVersion: string;
  kind: string;
}

/**
 * The interpreter operations, spelled as Karmada's `InterpreterOperation` values. `Prune` is listed
 * because Karmada lists it; no layer interprets it today, so `Interpreter` has no method for it.
 * `ReviseComponents` is the ninth operation as proposed in Karmada PRs #7830/#7841 (open, not in a
 * Karmada release): see {@link PROPOSED_OPERATIONS}.
 */
export const OPERATIONS = [
  "InterpretReplica",
  "InterpretComponent",
  "ReviseReplica",
  "ReviseComponents",
  "InterpretStatus",
  "Prune",
  "Retain",
  "AggregateStatus",
  "InterpretHealth",
  "InterpretDependency",
] as const;

/** One interpreter operation. */
export type Operation = (typeof OPERATIONS)[number];

/**
 * Operations that exist only in open Karmada pull requests (ReviseComponents: #7830/#7841, not merged
 * as of Karmada master 2026-08-21). Karta implements them with the PRs' wire format; a released
 * Karmada rejects them in a ResourceInterpreterWebhookConfiguration, so generated configurations
 * leave them out.
 */
export const PROPOSED_OPERATIONS: readonly Operation[] = ["ReviseComponents"];

/**
 * Resolves an operation name case-insensitively (Karmada's `karmadactl interpret --operation` and its
 * test data accept any case). Returns undefined for an unknown name.
 */
export function parseOperation(name: string): Operation | undefined {
  return OPERATION_NAMES.get(name.toLowerCase());
}

const OPERATION_NAMES = new Map<string, Operation>(OPERATIONS.map((op) => [op.toLowerCase(), op]));

/** A resource list: resource name → quantity string (`cpu: "500m"`, `memory: "1Gi"`). */
export type ResourceList = Record<string, string>;

/** Kubernetes `NodeSelectorRequirement` (core/v1). */
export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** Kubernetes `NodeSelectorTerm` (core/v1). */
export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

/** Kubernetes `NodeSelector` (core/v1): the required node affinity. */
export interface NodeSelector {
  nodeSelectorTerms: NodeSelectorTerm[];
}

/** Kubernetes `Toleration` (core/v1). */
export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** `work.karmada.io/v1alpha2` NodeClaim: the node constraints of one replica. */
export interface NodeClaim {
  hardNodeAffinity?: NodeSelector;
  nodeSelector?: Record<string, string>;
  tolerations?: Toleration[];
}

/** `work.karmada.io/v1alpha2` ReplicaRequirements: what each replica needs. */
export interface ReplicaRequirements {
  nodeClaim?: NodeClaim;
  resourceRequest?: ResourceList;
  namespace?: string;
  priorityClassName?: string;
}

/** `work.karmada.io/v1alpha2` ComponentReplicaRequirements: ReplicaRequirements without namespace. */
export interface ComponentReplicaRequirements {
  nodeClaim?: NodeClaim;
  resourceRequest?: ResourceList;
  priorityClassName?: string;
}

/**
 * `work.karmada.io/v1alpha2` Component: one pod template of a multi-component workload
 * (`name` ≤ 32 characters, unique within the workload; `replicas` is an int32).
 */
export interface Component {
  name: string;
  replicas: number;
  replicaRequirements?: ComponentReplicaRequirements;
}

/**
 * `work.karmada.io/v1alpha2` TargetComponent: the replicas of one component assigned to a member
 * cluster (ReviseComponents' input; `name` matches a Component's name, `replicas` is an int32).
 */
export interface TargetComponent {
  name: string;
  replicas: number;
}

/** The name Karmada's documentation uses for a Component in the InterpretComponent result. */
export type ComponentRequirements = Component;

/** `work.karmada.io/v1alpha2` ResourceHealth. */
export type ResourceHealth = "Healthy" | "Unhealthy" | "Unknown";

/** `work.karmada.io/v1alpha2` AggregatedStatusItem: the status one member cluster reported. */
export interface AggregatedStatusItem {
  clusterName: string;
  /** The status reflected by InterpretStatus in that cluster (raw JSON). */
  status?: JsonValue;
  applied?: boolean;
  appliedMessage?: string;
  health?: ResourceHealth;
}

/**
 * Reads one AggregatedStatusItem as Go's encoding/json reads it into work/v1alpha2's type, which is how
 * karmadactl reads `--status-file` and a webhook reads `request.aggregatedStatus`: a missing
 * `clusterName` is "" (Karmada does not require it there), a null field is its zero value, unknown
 * fields are ignored, and a field of the wrong type is an error naming its path. Zero values are left
 * out (`applied: false` as absent), as Karmada marshals the item for a script.
 */
export function decodeStatusItem(value: unknown, path: string): { ok: true; item: AggregatedStatusItem } | { ok: false; message: string } {
  if (value === null || value === undefined) return { ok: true, item: { clusterName: "" } };
  if (typeof value !== "object" || Array.isArray(value)) return { ok: false, message: `${path === "" ? "" : `${path}: `}expected an AggregatedStatusItem object, got ${jsonTypeName(value)}` };
  const v = value as { [k: string]: JsonValue };
  const item: AggregatedStatusItem = { clusterName: "" };
  const at = (name: string): string => (path === "" ? name : `${path}.${name}`);
  const text = (name: string): string | undefined | { error: string } => {
    const x = v[name];
    if (x === undefined || x === null) return undefined;
    return typeof x === "string" ? x : { error: `${at(name)}: expected a string, got ${jsonTypeName(x)}` };
  };
  const cluster = text("clusterName");
  if (typeof cluster === "object") return { ok: false, message: cluster.error };
  if (cluster !== undefined) item.clusterName = cluster;
  if (v.status !== undefined && v.status !== null) item.status = v.status;
  if (v.applied !== undefined && v.applied !== null) {
    if (typeof v.applied !== "boolean") return { ok: false, message: `${at("applied")}: expected a boolean, got ${jsonTypeName(v.applied)}` };
    if (v.applied) item.applied = true;
  }
  const message = text("appliedMessage");
  if (typeof message === "object") return { ok: false, message: message.error };
  if (message) item.appliedMessage = message;
  const health = text("health");
  if (typeof health === "object") return { ok: false, message: health.error };
  if (health) item.health = health as ResourceHealth;
  return { ok: true, item };
}

/** The JSON type of a value as Go's decoder names it in its errors (string, number, bool, array, object, null). */
function jsonTypeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

/** Kubernetes `LabelSelectorRequirement` (meta/v1). */
export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** Kubernetes `LabelSelector` (meta/v1). */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/**
 * `config.karmada.io/v1alpha1` DependentObjectReference: an object that must be propagated with the
 * workload. No namespace means cluster-scoped; `name` wins over `labelSelector`; one of them is required.
 */
export interface DependentObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: LabelSelector;
}

/** The result of InterpretReplica: replicas (int32) and the requirements of each replica. */
export interface ReplicaResult {
  replicas: number;
  replicaRequirements?: ReplicaRequirements;
}

/** A Lua script of one customization rule. */
export interface LuaScriptRule {
  luaScript: string;
}

/**
 * `config.karmada.io/v1alpha1` CustomizationRules: one optional rule per operation. The Lua function
 * each script must define: Retain, GetReplicas, GetComponents, ReviseReplica, ReviseComponents,
 * ReflectStatus, AggregateStatus, InterpretHealth, GetDependencies.
 */
export interface CustomizationRules {
  retention?: LuaScriptRule;
  replicaResource?: LuaScriptRule;
  componentResource?: LuaScriptRule;
  replicaRevision?: LuaScriptRule;
  /** ReviseComponents(desiredObj, components) → object (proposed in Karmada #7830/#7841). */
  componentRevision?: LuaScriptRule;
  statusReflection?: LuaScriptRule;
  statusAggregation?: LuaScriptRule;
  healthInterpretation?: LuaScriptRule;
  dependencyInterpretation?: LuaScriptRule;
}

/** `config.karmada.io/v1alpha1` CustomizationTarget. */
export interface CustomizationTarget {
  apiVersion: string;
  kind: string;
}

/** `config.karmada.io/v1alpha1` ResourceInterpreterCustomization (cluster-scoped, short name `ric`). */
export interface ResourceInterpreterCustomization {
  apiVersion: "config.karmada.io/v1alpha1";
  kind: "ResourceInterpreterCustomization";
  metadata: { name: string; [key: string]: JsonValue };
  spec: {
    target: CustomizationTarget;
    customizations: CustomizationRules;
  };
}

/** A failed interpretation, as a value. */
export interface InterpreterError {
  /** The operation that failed. */
  operation: Operation;
  /** What went wrong (Karmada's wording where it has one, e.g. `not found function GetReplicas`). */
  message: string;
  /** Where in the input or the customization the problem lies, when known (e.g. `spec.customizations.replicaResource`). */
  path?: string;
  /** Which layer produced the error (e.g. `declarative`, `native`), when known. */
  layer?: string;
}

/** The outcome of one operation: a value, or an error value. Never thrown. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: InterpreterError };

/** A result that may be immediate (Lua, native) or asynchronous (webhook). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * One interpreter layer. The framework asks `supports(kind, op)` and calls the method of the highest
 * layer that answers true; a layer is only called for the operations it supports. Every method
 * returns an `Outcome` and never throws; inputs are not modified (methods returning objects return
 * new ones).
 */
export interface Interpreter {
  /** Whether this layer interprets `op` for objects of this kind. */
  supports(kind: ResourceKind, op: Operation): boolean;
  /** InterpretReplica: the desired replicas and the requirements of each replica. */
  interpretReplica(object: KubeObject): MaybePromise<Outcome<ReplicaResult>>;
  /** InterpretComponent: the components of a multi-template workload (null: Go's nil slice, a script's `nil`). */
  interpretComponent(object: KubeObject): MaybePromise<Outcome<Component[] | null>>;
  /** ReviseReplica: the object with its replicas set to `replicas`. */
  reviseReplica(object: KubeObject, replicas: number): MaybePromise<Outcome<KubeObject>>;
  /** ReviseComponents: the object with each listed component's replicas set as assigned. */
  reviseComponents(object: KubeObject, components: TargetComponent[]): MaybePromise<Outcome<KubeObject>>;
  /** Retain: the desired object with the fields the member cluster owns taken from the observed one. */
  retain(desired: KubeObject, observed: KubeObject): MaybePromise<Outcome<KubeObject>>;
  /**
   * AggregateStatus: the object with its status aggregated from the member clusters' reports. `items`
   * undefined is Go's nil slice (no report at all), which a script can tell from an empty list.
   */
  aggregateStatus(object: KubeObject, items: AggregatedStatusItem[] | undefined): MaybePromise<Outcome<KubeObject>>;
  /** InterpretStatus: the status to report from a member cluster (undefined when there is none). */
  interpretStatus(object: KubeObject): MaybePromise<Outcome<JsonValue | undefined>>;
  /** InterpretHealth: whether the object is healthy in its member cluster. */
  interpretHealth(object: KubeObject): MaybePromise<Outcome<boolean>>;
  /**
   * InterpretDependency: the objects to propagate with this one (null: Go's nil slice, which Karmada's
   * native helpers return when they find none and karmadactl prints as `null`).
   */
  interpretDependency(object: KubeObject): MaybePromise<Outcome<DependentObjectReference[] | null>>;
}

/** Go's int32(float64) conversion as amd64 performs it: how a Lua number becomes a typed int32 result. */
export function goInt32(n: number): number {
  if (!Number.isFinite(n)) return -2147483648;
  const t = Math.trunc(n);
  return t >= -2147483648 && t <= 2147483647 ? t : -2147483648;
}

/** Builds a successful outcome. */
export function ok<T>(value: T): Outcome<T> {
  return { ok: true, value };
}

/** Builds a failed outcome. */
export function fail<T>(operation: Operation, message: string, path?: string, layer?: string): Outcome<T> {
  const error: InterpreterError = { operation, message };
  if (path !== undefined) error.path = path;
  if (layer !== undefined) error.layer = layer;
  return { ok: false, error };
}

/** The apiVersion and kind of an object ("" for a field that is missing or not a string). */
export function kindOf(object: KubeObject): ResourceKind {
  return {
    apiVersion: typeof object.apiVersion === "string" ? object.apiVersion : "",
    kind: typeof object.kind === "string" ? object.kind : "",
  };
}

/** The group and version of an apiVersion ("apps/v1" → apps, v1; "v1" → "", v1). */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/** Karmada's default interpreter's message when nothing interprets `op` for this kind (GVK as Go prints it). */
export function notFoundMessage(op: Operation, kind: ResourceKind): string {
  if (op === "InterpretDependency") return `default interpreter for operation ${op} not found`;
  const { group, version } = splitApiVersion(kind.apiVersion);
  return `default ${op} interpreter for ${JSON.stringify(`${group}/${version}, Kind=${kind.kind}`)} not found`;
}

/** `layer.supports(kind, op)`, a layer whose `supports` throws counting as not implementing `op`. */
export function supportsSafely(layer: Pick<Interpreter, "supports">, kind: ResourceKind, op: Operation): boolean {
  try {
    return layer.supports(kind, op);
  } catch {
    return false;
  }
}
