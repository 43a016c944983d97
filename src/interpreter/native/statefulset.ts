/** Built-in interpretation of apps/v1 StatefulSet. */
import type { DependentObjectReference, KubeObject, Outcome } from "../types.js";
import { asObjectArray, getField, getObject, ok, stringField } from "./common.js";
import type { CountedStatusShape } from "./counted-status.js";
import { replicatedWorkload, rolledOut, templateDependencies } from "./workload.js";

const SHAPE: CountedStatusShape = {
  counters: ["availableReplicas", "currentReplicas", "readyReplicas", "replicas", "updatedReplicas"],
  alwaysWritten: ["replicas", "availableReplicas"],
  // Karmada's StatefulSet reflection does not carry observedGeneration, and its aggregation compares a
  // member's template generation with the member's own generation.
  reflectsObservedGeneration: false,
  templateGenerationAgainst: "member",
  nothingWhenEmpty: false,
  specInts: [["replicas", "int32"]],
  typedStatus: {
    name: "StatefulSetStatus",
    fields: [
      ["observedGeneration", "int64"],
      ["replicas", "int32"],
      ["readyReplicas", "int32"],
      ["currentReplicas", "int32"],
      ["updatedReplicas", "int32"],
      ["collisionCount", "int32"],
      ["availableReplicas", "int32"],
    ],
    afterAnnotation: true,
  },
  memberGoType: "native.WrappedStatefulSetStatus",
};

/** InterpretReplica, ReviseReplica (`spec.replicas`), AggregateStatus and InterpretStatus (the replica counters). */
export const { getReplicas, reviseReplica, aggregateStatus, reflectStatus } = replicatedWorkload(SHAPE);

/** InterpretHealth: as Deployment's. */
export const interpretHealth = rolledOut(SHAPE.typedStatus.fields);

/** InterpretDependency: the pod template's dependencies, minus PVCs the volumeClaimTemplates create. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  const deps = templateDependencies(obj, getObject(obj, "spec", "template"));
  if (!deps.ok) return deps;
  const claimTemplates = new Set(asObjectArray(getField(obj, "spec", "volumeClaimTemplates")).map((t) => stringField(t, "metadata", "name")));
  if (claimTemplates.size === 0) return deps;
  return ok(deps.value.filter((d) => d.kind !== "PersistentVolumeClaim" || !claimTemplates.has(d.name ?? "")));
}
