/**
 * Karmada's built-in ("native") resource interpreters: which kinds each operation knows, and an
 * {@link Interpreter} that dispatches to the per-kind functions. Every function is pure: inputs are
 * never modified, results and errors are values.
 */
import {
  kindOf,
  notFoundMessage,
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
import { nativeFail, ok, reflectWholeStatus, verifyDependencies } from "./common.js";
import * as cronjob from "./cronjob.js";
import * as daemonset from "./daemonset.js";
import * as deployment from "./deployment.js";
import * as hpa from "./hpa.js";
import * as ingress from "./ingress.js";
import * as job from "./job.js";
import * as pdb from "./pdb.js";
import * as pod from "./pod.js";
import * as pv from "./pv.js";
import * as pvc from "./pvc.js";
import * as replicaset from "./replicaset.js";
import * as secret from "./secret.js";
import * as service from "./service.js";
import * as serviceaccount from "./serviceaccount.js";
import * as serviceimport from "./serviceimport.js";
import * as statefulset from "./statefulset.js";

/** The operations one kind implements natively. InterpretStatus falls back to the whole status for every kind. */
export interface NativeHandlers {
  interpretReplica?: (obj: KubeObject) => Outcome<ReplicaResult>;
  reviseReplica?: (obj: KubeObject, replicas: number) => Outcome<KubeObject>;
  retain?: (desired: KubeObject, observed: KubeObject) => Outcome<KubeObject>;
  aggregateStatus?: (obj: KubeObject, items: AggregatedStatusItem[]) => Outcome<KubeObject>;
  interpretStatus?: (obj: KubeObject) => Outcome<JsonValue | undefined>;
  interpretHealth?: (obj: KubeObject) => Outcome<boolean>;
  interpretDependency?: (obj: KubeObject) => Outcome<DependentObjectReference[]>;
}

const key = (apiVersion: string, kind: string): string => `${apiVersion}\u0000${kind}`;

/** The native handlers by apiVersion and kind, as Karmada registers them. */
export const NATIVE_HANDLERS: ReadonlyMap<string, NativeHandlers> = new Map<string, NativeHandlers>([
  [
    key("apps/v1", "Deployment"),
    {
      interpretReplica: deployment.getReplicas,
      reviseReplica: deployment.reviseReplica,
      retain: deployment.retain,
      aggregateStatus: deployment.aggregateStatus,
      interpretStatus: deployment.reflectStatus,
      interpretHealth: deployment.interpretHealth,
      interpretDependency: deployment.getDependencies,
    },
  ],
  [
    key("apps/v1", "ReplicaSet"),
    {
      interpretReplica: replicaset.getReplicas,
      reviseReplica: replicaset.reviseReplica,
      aggregateStatus: replicaset.aggregateStatus,
      interpretStatus: replicaset.reflectStatus,
      interpretHealth: replicaset.interpretHealth,
      interpretDependency: replicaset.getDependencies,
    },
  ],
  [
    key("apps/v1", "StatefulSet"),
    {
      interpretReplica: statefulset.getReplicas,
      reviseReplica: statefulset.reviseReplica,
      aggregateStatus: statefulset.aggregateStatus,
      interpretStatus: statefulset.reflectStatus,
      interpretHealth: statefulset.interpretHealth,
      interpretDependency: statefulset.getDependencies,
    },
  ],
  [
    key("apps/v1", "DaemonSet"),
    {
      aggregateStatus: daemonset.aggregateStatus,
      interpretStatus: daemonset.reflectStatus,
      interpretHealth: daemonset.interpretHealth,
      interpretDependency: daemonset.getDependencies,
    },
  ],
  [
    key("batch/v1", "Job"),
    {
      interpretReplica: job.getReplicas,
      reviseReplica: job.reviseReplica,
      retain: job.retain,
      aggregateStatus: (o, i) => job.aggregateStatus(o, i),
      interpretStatus: job.reflectStatus,
      interpretDependency: job.getDependencies,
    },
  ],
  [key("batch/v1", "CronJob"), { aggregateStatus: cronjob.aggregateStatus, interpretDependency: cronjob.getDependencies }],
  [
    key("v1", "Pod"),
    {
      interpretReplica: pod.getReplicas,
      retain: pod.retain,
      aggregateStatus: pod.aggregateStatus,
      interpretHealth: pod.interpretHealth,
      interpretDependency: pod.getDependencies,
    },
  ],
  [
    key("v1", "Service"),
    {
      retain: service.retain,
      aggregateStatus: service.aggregateStatus,
      interpretStatus: service.reflectStatus,
      interpretHealth: service.interpretHealth,
    },
  ],
  [
    key("networking.k8s.io/v1", "Ingress"),
    { aggregateStatus: ingress.aggregateStatus, interpretHealth: ingress.interpretHealth, interpretDependency: ingress.getDependencies },
  ],
  [key("v1", "ServiceAccount"), { retain: serviceaccount.retain }],
  [key("v1", "Secret"), { retain: secret.retain }],
  [
    key("v1", "PersistentVolumeClaim"),
    { retain: pvc.retain, aggregateStatus: pvc.aggregateStatus, interpretHealth: pvc.interpretHealth },
  ],
  [key("v1", "PersistentVolume"), { retain: pv.retain, aggregateStatus: pv.aggregateStatus }],
  [
    key("policy/v1", "PodDisruptionBudget"),
    { aggregateStatus: pdb.aggregateStatus, interpretStatus: pdb.reflectStatus, interpretHealth: pdb.interpretHealth },
  ],
  [key("autoscaling/v2", "HorizontalPodAutoscaler"), { aggregateStatus: hpa.aggregateStatus, interpretStatus: hpa.reflectStatus }],
  [key("multicluster.x-k8s.io/v1alpha1", "ServiceImport"), { interpretDependency: serviceimport.getDependencies }],
]);

/** The native handlers of a kind, or undefined. */
export function nativeHandlers(kind: ResourceKind): NativeHandlers | undefined {
  return NATIVE_HANDLERS.get(key(kind.apiVersion, kind.kind));
}

const METHOD: Partial<Record<Operation, keyof NativeHandlers>> = {
  InterpretReplica: "interpretReplica",
  ReviseReplica: "reviseReplica",
  Retain: "retain",
  AggregateStatus: "aggregateStatus",
  InterpretStatus: "interpretStatus",
  InterpretHealth: "interpretHealth",
  InterpretDependency: "interpretDependency",
};

/** Whether Karmada's native layer interprets `op` for this kind (InterpretStatus: every kind). */
export function nativeSupports(kind: ResourceKind, op: Operation): boolean {
  if (op === "InterpretStatus") return true;
  const method = METHOD[op];
  return method !== undefined && nativeHandlers(kind)?.[method] !== undefined;
}

function notFound<T>(op: Operation, obj: KubeObject): Outcome<T> {
  return nativeFail(op, notFoundMessage(op, kindOf(obj)));
}

/** Options of the native layer. */
export interface NativeInterpreterOptions {
  /** The clock for the conditions Karmada's Job aggregation stamps (default: the current time). */
  now?: () => Date;
}

/** Karmada's built-in interpreter as a layer. */
export function createNativeInterpreter(options: NativeInterpreterOptions = {}): Interpreter {
  const handlersOf = (obj: KubeObject) => nativeHandlers(kindOf(obj));
  return {
    supports: nativeSupports,
    interpretReplica(obj) {
      const h = handlersOf(obj)?.interpretReplica;
      return h ? h(obj) : notFound("InterpretReplica", obj);
    },
    interpretComponent(): Outcome<Component[]> {
      return nativeFail("InterpretComponent", "no plan to implement this method yet");
    },
    // Karmada's built-in interpreter revises no components (#7830): its "not found" error.
    reviseComponents(obj) {
      return notFound("ReviseComponents", obj);
    },
    reviseReplica(obj, replicas) {
      const h = handlersOf(obj)?.reviseReplica;
      return h ? h(obj, replicas) : notFound("ReviseReplica", obj);
    },
    retain(desired, observed) {
      const h = handlersOf(desired)?.retain;
      return h ? h(desired, observed) : notFound("Retain", desired);
    },
    aggregateStatus(obj, items) {
      const k = kindOf(obj);
      if (k.apiVersion === "batch/v1" && k.kind === "Job") {
        const now = options.now?.();
        return job.aggregateStatus(obj, items ?? [], now ? { now } : {});
      }
      const h = handlersOf(obj)?.aggregateStatus;
      // Go ranges over a nil slice as over an empty one.
      return h ? h(obj, items ?? []) : notFound("AggregateStatus", obj);
    },
    interpretStatus(obj) {
      const h = handlersOf(obj)?.interpretStatus;
      return h ? h(obj) : reflectWholeStatus(obj);
    },
    interpretHealth(obj) {
      const h = handlersOf(obj)?.interpretHealth;
      return h ? h(obj) : notFound("InterpretHealth", obj);
    },
    interpretDependency(obj) {
      const h = handlersOf(obj)?.interpretDependency;
      if (!h) return notFound("InterpretDependency", obj);
      // Karmada's DefaultInterpreter.GetDependencies runs VerifyDependencies on every kind's list (after
      // the StatefulSet's claim-template filter); its helpers return a nil slice when they find nothing.
      const deps = h(obj);
      if (!deps.ok) return deps;
      const checked = verifyDependencies(deps.value);
      return checked.ok && checked.value.length === 0 ? ok(null) : checked;
    },
  };
}

/** The native layer with the real clock. */
export const nativeInterpreter: Interpreter = createNativeInterpreter();

export * as nativeDeployment from "./deployment.js";
export * as nativeReplicaSet from "./replicaset.js";
export * as nativeStatefulSet from "./statefulset.js";
export * as nativeDaemonSet from "./daemonset.js";
export * as nativeJob from "./job.js";
export * as nativeCronJob from "./cronjob.js";
export * as nativePod from "./pod.js";
export * as nativeService from "./service.js";
export * as nativeIngress from "./ingress.js";
export * as nativeServiceAccount from "./serviceaccount.js";
export * as nativeSecret from "./secret.js";
export * as nativePersistentVolumeClaim from "./pvc.js";
export * as nativePersistentVolume from "./pv.js";
export * as nativePodDisruptionBudget from "./pdb.js";
export * as nativeHorizontalPodAutoscaler from "./hpa.js";
export * as nativeServiceImport from "./serviceimport.js";
