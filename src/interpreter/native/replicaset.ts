/** Built-in interpretation of apps/v1 ReplicaSet. */
import type { KubeObject, Outcome } from "../types.js";
import { generation, getField, intOr0, ok, typedObjectError } from "./common.js";
import type { CountedStatusShape } from "./counted-status.js";
import { replicatedWorkload, specTemplateDependencies } from "./workload.js";

const SHAPE: CountedStatusShape = {
  counters: ["replicas", "readyReplicas", "availableReplicas"],
  alwaysWritten: ["replicas"],
  reflectsObservedGeneration: true,
  templateGenerationAgainst: "template",
  nothingWhenEmpty: true,
  specInts: [["replicas", "int32"]],
  typedStatus: {
    name: "ReplicaSetStatus",
    fields: [
      ["replicas", "int32"],
      ["fullyLabeledReplicas", "int32"],
      ["readyReplicas", "int32"],
      ["availableReplicas", "int32"],
      ["terminatingReplicas", "int32"],
      ["observedGeneration", "int64"],
    ],
  },
  memberGoType: "native.WrappedReplicaSetStatus",
};

/** InterpretReplica, ReviseReplica (`spec.replicas`), AggregateStatus and InterpretStatus (replicas, readyReplicas, availableReplicas). */
export const { getReplicas, reviseReplica, aggregateStatus, reflectStatus } = replicatedWorkload(SHAPE);

/** InterpretHealth: the latest generation observed and every desired replica available. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  const unconvertible = typedObjectError(obj, [["replicas", "int32"]], SHAPE.typedStatus.fields);
  if (unconvertible) return unconvertible;
  if (intOr0(obj, "status", "observedGeneration") !== generation(obj)) return ok(false);
  const replicas = getField(obj, "spec", "replicas");
  return ok(!(typeof replicas === "number" && intOr0(obj, "status", "availableReplicas") < replicas));
}

/** InterpretDependency: the pod template's ConfigMaps, Secrets, ServiceAccount and PVCs. */
export const getDependencies = specTemplateDependencies;
