/**
 * Karta's own interpreters for workloads whose scheduling needs come from the operator's settings
 * rather than from pod templates, or that Karmada sees as one replica count over several pod
 * templates. Their Kartas answer every other operation and leave these to this layer with
 * `spec.karmada.deferOperations`:
 * - Flink's FlinkDeployment: JobManager and TaskManager CPU and memory are Flink settings
 *   (`spec.jobManager.resource`, `spec.taskManager.resource`) the operator turns into container
 *   resources; node placement comes from the shared `spec.podTemplate`. Karmada schedules it as one
 *   count (JobManagers + TaskManagers) with the larger request of the two.
 * - KubeRay's RayService: one head plus the worker groups' replicas, with the largest CPU and memory
 *   request of any group; a new total is spread over the worker groups in proportion to their sizes.
 * - The Spark operator's SparkApplication: driver and executor requests are Spark settings (cores,
 *   JVM memory plus Spark's memory overhead, GPUs), not pod template resources.
 */
import { Quantity } from "../../quantity/index.js";
import { accuratePodRequirements } from "../../resources/index.js";
import { assignmentByName } from "../components.js";
import {
  fail,
  kindOf,
  ok,
  type AggregatedStatusItem,
  type Component,
  type ComponentReplicaRequirements,
  type DependentObjectReference,
  type Interpreter,
  type JsonValue,
  type KubeObject,
  type Operation,
  type Outcome,
  type ReplicaRequirements,
  type ReplicaResult,
  type ResourceKind,
  type TargetComponent,
} from "../types.js";

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function at(obj: unknown, ...keys: string[]): unknown {
  let cur = obj;
  for (const k of keys) {
    if (!isObject(cur)) return undefined;
    cur = cur[k];
  }
  return cur;
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** A count given as a number or as its decimal text ("3"); undefined otherwise. */
function count(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return undefined;
}

/** A resource setting as a quantity string (Flink writes CPU as a number: 0.5 cores). */
function quantityText(v: unknown): string | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "string" && v.trim() !== "") return v.trim();
  return undefined;
}

/** The larger of two quantity strings (the first on a tie or when one does not parse). */
function larger(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const qa = Quantity.parse(a);
  const qb = Quantity.parse(b);
  if (!qa.ok || !qb.ok) return qa.ok ? a : b;
  return qb.quantity.cmp(qa.quantity) > 0 ? b : a;
}

/** Base: every operation unsupported unless a kind's interpreter says otherwise. */
abstract class SettingsInterpreter implements Interpreter {
  protected abstract readonly kind: ResourceKind;
  protected abstract readonly operations: readonly Operation[];

  get kinds(): { kind: ResourceKind; operations: Operation[] }[] {
    return [{ kind: this.kind, operations: [...this.operations] }];
  }

  supports(kind: ResourceKind, op: Operation): boolean {
    return kind.apiVersion === this.kind.apiVersion && kind.kind === this.kind.kind && this.operations.includes(op);
  }

  protected unsupported<T>(obj: KubeObject, op: Operation): Outcome<T> {
    const k = kindOf(obj);
    return fail(op, `the thirdparty layer does not interpret ${op} for ${k.kind} ${k.apiVersion}`, undefined, "thirdparty");
  }

  interpretReplica(object: KubeObject): Outcome<ReplicaResult> {
    return this.unsupported(object, "InterpretReplica");
  }
  interpretComponent(object: KubeObject): Outcome<Component[]> {
    return this.unsupported(object, "InterpretComponent");
  }
  reviseReplica(object: KubeObject, _replicas: number): Outcome<KubeObject> {
    void _replicas;
    return this.unsupported(object, "ReviseReplica");
  }
  reviseComponents(object: KubeObject, _components: TargetComponent[]): Outcome<KubeObject> {
    void _components;
    return this.unsupported(object, "ReviseComponents");
  }
  retain(desired: KubeObject, _observed: KubeObject): Outcome<KubeObject> {
    void _observed;
    return this.unsupported(desired, "Retain");
  }
  aggregateStatus(object: KubeObject, _items: AggregatedStatusItem[] | undefined): Outcome<KubeObject> {
    void _items;
    return this.unsupported(object, "AggregateStatus");
  }
  interpretStatus(object: KubeObject): Outcome<JsonValue | undefined> {
    return this.unsupported(object, "InterpretStatus");
  }
  interpretHealth(object: KubeObject): Outcome<boolean> {
    return this.unsupported(object, "InterpretHealth");
  }
  interpretDependency(object: KubeObject): Outcome<DependentObjectReference[]> {
    return this.unsupported(object, "InterpretDependency");
  }
}

/** Node placement and priority of a pod spec, added to `out` where the spec says them. */
function placement(podSpec: unknown, out: ComponentReplicaRequirements): void {
  if (!isObject(podSpec)) return;
  const nodeSelector = podSpec.nodeSelector;
  const tolerations = podSpec.tolerations;
  if (nodeSelector != null || tolerations != null) {
    out.nodeClaim = {};
    if (isObject(nodeSelector)) out.nodeClaim.nodeSelector = clone(nodeSelector) as Record<string, string>;
    if (Array.isArray(tolerations)) out.nodeClaim.tolerations = clone(tolerations) as never;
  }
  if (typeof podSpec.priorityClassName === "string" && podSpec.priorityClassName !== "") out.priorityClassName = podSpec.priorityClassName;
}

function namespaceOf(obj: KubeObject): string | undefined {
  const ns = at(obj, "metadata", "namespace");
  return typeof ns === "string" && ns !== "" ? ns : undefined;
}

/** Flink's FlinkDeployment: requests from the Flink resource settings. */
export class FlinkDeploymentInterpreter extends SettingsInterpreter {
  protected readonly kind: ResourceKind = { apiVersion: "flink.apache.org/v1beta1", kind: "FlinkDeployment" };
  protected readonly operations: readonly Operation[] = ["InterpretReplica", "InterpretComponent", "ReviseComponents"];

  /** JobManagers: `spec.jobManager.replicas`, default 1. */
  private jobManagers(obj: KubeObject): number {
    return count(at(obj, "spec", "jobManager", "replicas")) ?? 1;
  }

  /** TaskManagers: `spec.taskManager.replicas`, else enough to run the job's parallelism with the configured slots each, else 1. */
  private taskManagers(obj: KubeObject): number {
    const set = count(at(obj, "spec", "taskManager", "replicas"));
    if (set !== undefined) return set;
    const parallelism = count(at(obj, "spec", "job", "parallelism"));
    const slots = count(at(obj, "spec", "flinkConfiguration", "taskmanager.numberOfTaskSlots"));
    return parallelism !== undefined && slots !== undefined && slots !== 0 ? Math.ceil(parallelism / slots) : 1;
  }

  private resource(obj: KubeObject, role: "jobManager" | "taskManager"): { cpu?: string; memory?: string } {
    return { cpu: quantityText(at(obj, "spec", role, "resource", "cpu")), memory: quantityText(at(obj, "spec", role, "resource", "memory")) };
  }

  override interpretComponent(object: KubeObject): Outcome<Component[]> {
    const podSpec = at(object, "spec", "podTemplate", "spec");
    const component = (name: string, replicas: number, role: "jobManager" | "taskManager"): Component => {
      const { cpu, memory } = this.resource(object, role);
      const req: ComponentReplicaRequirements = { resourceRequest: {} };
      if (cpu !== undefined) req.resourceRequest!.cpu = cpu;
      if (memory !== undefined) req.resourceRequest!.memory = memory;
      placement(podSpec, req);
      return { name, replicas, replicaRequirements: req };
    };
    return ok([component("jobmanager", this.jobManagers(object), "jobManager"), component("taskmanager", this.taskManagers(object), "taskManager")]);
  }

  /** ReviseComponents: `jobmanager` → spec.jobManager.replicas, `taskmanager` → spec.taskManager.replicas (both required). */
  override reviseComponents(object: KubeObject, components: TargetComponent[]): Outcome<KubeObject> {
    const a = assignmentByName(components, ["jobmanager", "taskmanager"]);
    if (!a.ok) return fail("ReviseComponents", a.error, undefined, "thirdparty");
    const result = clone(object) as Json;
    const spec = isObject(result.spec) ? result.spec : (result.spec = {});
    for (const [role, name] of [["jobManager", "jobmanager"], ["taskManager", "taskmanager"]] as const) {
      const part = isObject(spec[role]) ? (spec[role] as Json) : (spec[role] = {} as Json);
      part.replicas = a.replicas.get(name)!;
    }
    return ok(result as KubeObject);
  }

  override interpretReplica(object: KubeObject): Outcome<ReplicaResult> {
    const jm = this.resource(object, "jobManager");
    const tm = this.resource(object, "taskManager");
    const req: ReplicaRequirements = { resourceRequest: {} };
    const cpu = larger(tm.cpu, jm.cpu);
    const memory = larger(jm.memory, tm.memory);
    if (cpu !== undefined) req.resourceRequest!.cpu = cpu;
    if (memory !== undefined) req.resourceRequest!.memory = memory;
    placement(at(object, "spec", "podTemplate", "spec"), req);
    const ns = namespaceOf(object);
    if (ns !== undefined) req.namespace = ns;
    return ok({ replicas: this.jobManagers(object) + this.taskManagers(object), replicaRequirements: req });
  }
}

/** KubeRay's RayService: one head and the worker groups as one count. */
export class RayServiceInterpreter extends SettingsInterpreter {
  protected readonly kind: ResourceKind = { apiVersion: "ray.io/v1", kind: "RayService" };
  protected readonly operations: readonly Operation[] = ["InterpretReplica", "ReviseReplica"];

  override interpretReplica(object: KubeObject): Outcome<ReplicaResult> {
    const cluster = at(object, "spec", "rayClusterConfig");
    const head = at(cluster, "headGroupSpec", "template");
    // KubeRay requires a head template: without one there is nothing to schedule.
    if (!isObject(head)) return ok({ replicas: 0 });
    const groups = at(cluster, "workerGroupSpecs");
    const workers = Array.isArray(groups) ? groups.filter(isObject) : [];
    const replicas = 1 + workers.reduce((n, g) => n + (count(g.replicas) ?? 0), 0);
    const req = accuratePodRequirements(head).value;
    if (req === undefined) return ok({ replicas });
    // The largest CPU and memory request of the head and any worker group (the head's on a tie).
    let cpu = req.resourceRequest?.cpu as string | undefined;
    let memory = req.resourceRequest?.memory as string | undefined;
    for (const g of workers) {
      const r = isObject(g.template) ? accuratePodRequirements(g.template).value?.resourceRequest : undefined;
      cpu = larger(cpu, r?.cpu as string | undefined);
      memory = larger(memory, r?.memory as string | undefined);
    }
    const out: ReplicaRequirements = clone(req) as ReplicaRequirements;
    if (cpu !== undefined || memory !== undefined) {
      out.resourceRequest = { ...(out.resourceRequest ?? {}) };
      if (cpu !== undefined) out.resourceRequest.cpu = cpu;
      if (memory !== undefined) out.resourceRequest.memory = memory;
    }
    return ok({ replicas, replicaRequirements: out });
  }

  override reviseReplica(object: KubeObject, replicas: number): Outcome<KubeObject> {
    const result = clone(object);
    const groups = at(result, "spec", "rayClusterConfig", "workerGroupSpecs");
    if (!Array.isArray(groups) || groups.length === 0) return ok(result);
    const list = groups.filter(isObject);
    // The head is always one replica; the workers take the rest.
    const workers = Math.max(0, replicas - 1);
    const current = list.map((g) => count(g.replicas) ?? 0);
    const total = current.reduce((a, b) => a + b, 0);
    let given = 0;
    list.forEach((g, i) => {
      let n: number;
      if (i === list.length - 1) n = workers - given;
      else if (total === 0) n = Math.floor(workers / list.length) + (i < workers % list.length ? 1 : 0);
      else n = Math.floor((workers * current[i]!) / total + 0.5);
      g.replicas = n;
      given += n;
    });
    return ok(result);
  }
}

/** Binary units of a JVM memory setting, smallest first, with their size in bytes. */
const JVM_UNITS: readonly { unit: string; bytes: number; suffixes: string[] }[] = [
  { unit: "", bytes: 1, suffixes: ["b"] },
  { unit: "Ki", bytes: 1024, suffixes: ["k", "kb"] },
  { unit: "Mi", bytes: 1024 ** 2, suffixes: ["m", "mb", ""] },
  { unit: "Gi", bytes: 1024 ** 3, suffixes: ["g", "gb"] },
  { unit: "Ti", bytes: 1024 ** 4, suffixes: ["t", "tb"] },
  { unit: "Pi", bytes: 1024 ** 5, suffixes: ["p", "pb"] },
];

/** A JVM memory setting ("1g", "512m"; no suffix: MiB, as Spark reads driver and executor memory) as a value and a unit index. */
function jvmMemory(v: unknown): { value: number; unit: number } | undefined {
  const m = /^(\d+(?:\.\d+)?)([a-z]*)$/.exec(String(v ?? "").trim().toLowerCase());
  if (!m) return undefined;
  const unit = JVM_UNITS.findIndex((u) => u.suffixes.includes(m[2]!));
  return unit < 0 ? undefined : { value: Number(m[1]), unit };
}

/** A value in a smaller (or equal) unit. */
function inUnit(x: { value: number; unit: number }, unit: number): number {
  return (x.value * JVM_UNITS[x.unit]!.bytes) / JVM_UNITS[unit]!.bytes;
}

/** Spark's overhead when none is set: the factor of the memory, at least 384 MiB. */
const MIN_OVERHEAD = { value: 384, unit: 2 };

/**
 * The memory a Spark driver or executor pod requests: the JVM memory plus the overhead (the set
 * `memoryOverhead`, else the factor of the memory with Spark's 384 MiB floor), in the smaller unit of the
 * two so that the sum stays exact.
 */
function sparkMemory(memory: unknown, overhead: unknown, factor: number): string | undefined {
  const mem = jvmMemory(memory ?? "1g");
  if (!mem) return undefined;
  let over: { value: number; unit: number } | undefined;
  if (overhead !== undefined && overhead !== null) over = jvmMemory(overhead);
  if (!over) {
    const unit = Math.min(mem.unit, MIN_OVERHEAD.unit);
    over = { value: Math.max(mem.value * factor * (JVM_UNITS[mem.unit]!.bytes / JVM_UNITS[unit]!.bytes), inUnit(MIN_OVERHEAD, unit)), unit };
  }
  const unit = Math.min(mem.unit, over.unit);
  const total = inUnit(mem, unit) + inUnit(over, unit);
  // Six decimals at most: a factor of 0.4 gives 409.6 MiB, not a float's tail.
  return `${Number(total.toFixed(6))}${JVM_UNITS[unit]!.unit}`;
}

/** The Spark operator's SparkApplication: driver and executor requests from the Spark settings. */
export class SparkApplicationInterpreter extends SettingsInterpreter {
  protected readonly kind: ResourceKind = { apiVersion: "sparkoperator.k8s.io/v1beta2", kind: "SparkApplication" };
  protected readonly operations: readonly Operation[] = ["InterpretComponent", "ReviseComponents"];

  /**
   * ReviseComponents: `driver` must stay 1 (a SparkApplication has one driver); `executor` →
   * spec.executor.instances, and with dynamic allocation also its initialExecutors (a minExecutors
   * above the assignment is an error: Spark would start more executors than assigned).
   */
  override reviseComponents(object: KubeObject, components: TargetComponent[]): Outcome<KubeObject> {
    const op: Operation = "ReviseComponents";
    const a = assignmentByName(components, ["driver", "executor"]);
    if (!a.ok) return fail(op, a.error, undefined, "thirdparty");
    if (a.replicas.get("driver") !== 1) return fail(op, `component "driver": a SparkApplication has exactly one driver, got ${a.replicas.get("driver")} replicas`, undefined, "thirdparty");
    const executors = a.replicas.get("executor")!;
    const result = clone(object) as Json;
    const spec = isObject(result.spec) ? result.spec : (result.spec = {});
    const executor = isObject(spec.executor) ? (spec.executor as Json) : (spec.executor = {} as Json);
    executor.instances = executors;
    const dynamic = spec.dynamicAllocation;
    if (isObject(dynamic) && dynamic.enabled === true) {
      const min = count(dynamic.minExecutors);
      if (min !== undefined && min > executors) return fail(op, `component "executor": spec.dynamicAllocation.minExecutors (${min}) is above the ${executors} assigned executors`, "spec.dynamicAllocation.minExecutors", "thirdparty");
      dynamic.initialExecutors = executors;
    }
    return ok(result as KubeObject);
  }

  override interpretComponent(object: KubeObject): Outcome<Component[]> {
    const spec = at(object, "spec");
    const type = String(at(spec, "type") ?? "").toLowerCase();
    // Spark's default overhead factor: 10% for JVM applications, 40% for Python and R.
    const jvm = type === "java" || type === "scala";
    const factor = count(at(spec, "memoryOverheadFactor")) ?? (jvm ? 0.1 : 0.4);
    const role = (name: "driver" | "executor", replicas: number): Component => {
      const s = at(spec, name);
      const req: ComponentReplicaRequirements = { resourceRequest: { cpu: quantityText(at(s, "cores")) ?? "1" } };
      const memory = sparkMemory(at(s, "memory"), at(s, "memoryOverhead"), factor);
      if (memory !== undefined) req.resourceRequest!.memory = memory;
      const gpu = at(s, "gpu");
      const gpuCount = count(at(gpu, "quantity")) ?? 0;
      const gpuName = at(gpu, "name");
      if (typeof gpuName === "string" && gpuName !== "" && gpuCount > 0) req.resourceRequest![gpuName] = String(gpuCount);
      placement(s, req);
      const required = at(s, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution");
      if (isObject(required)) req.nodeClaim = { ...(req.nodeClaim ?? {}), hardNodeAffinity: clone(required) as never };
      return { name, replicas, replicaRequirements: req };
    };
    let executors = count(at(spec, "executor", "instances")) ?? 1;
    // With dynamic allocation Spark starts with the initial executors, and never fewer than the minimum.
    if (at(spec, "dynamicAllocation", "enabled") === true) {
      executors = Math.max(executors, count(at(spec, "dynamicAllocation", "initialExecutors")) ?? 1, count(at(spec, "dynamicAllocation", "minExecutors")) ?? 1);
    }
    return ok([role("driver", 1), role("executor", executors)]);
  }
}
