/** Built-in interpretation of apps/v1 DaemonSet. */
import type { KubeObject, Outcome } from "../types.js";
import { generation, intOr0, ok, typedObjectError } from "./common.js";
import type { CountedStatusShape } from "./counted-status.js";
import { countedStatus, specTemplateDependencies } from "./workload.js";

const SHAPE: CountedStatusShape = {
  counters: [
    "currentNumberScheduled",
    "desiredNumberScheduled",
    "numberAvailable",
    "numberMisscheduled",
    "numberReady",
    "updatedNumberScheduled",
    "numberUnavailable",
  ],
  alwaysWritten: ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"],
  reflectsObservedGeneration: true,
  templateGenerationAgainst: "template",
  nothingWhenEmpty: false,
  otherFieldsCompared: { lists: ["conditions"], pointers: ["collisionCount"] },
  specInts: [],
  typedStatus: {
    name: "DaemonSetStatus",
    fields: [
      ["currentNumberScheduled", "int32"],
      ["numberMisscheduled", "int32"],
      ["desiredNumberScheduled", "int32"],
      ["numberReady", "int32"],
      ["observedGeneration", "int64"],
      ["updatedNumberScheduled", "int32"],
      ["numberAvailable", "int32"],
      ["numberUnavailable", "int32"],
      ["collisionCount", "int32"],
    ],
  },
  memberGoType: "native.WrappedDaemonSetStatus",
};

/** AggregateStatus and InterpretStatus: the scheduling counters, summed over members or with the member's generations. */
export const { aggregateStatus, reflectStatus } = countedStatus(SHAPE);

/** InterpretHealth: latest generation observed, every desired node updated, every updated pod available. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  const unconvertible = typedObjectError(obj, [], SHAPE.typedStatus.fields);
  if (unconvertible) return unconvertible;
  if (intOr0(obj, "status", "observedGeneration") !== generation(obj)) return ok(false);
  if (intOr0(obj, "status", "updatedNumberScheduled") < intOr0(obj, "status", "desiredNumberScheduled")) return ok(false);
  return ok(intOr0(obj, "status", "numberAvailable") >= intOr0(obj, "status", "updatedNumberScheduled"));
}

/** InterpretDependency: the pod template's dependencies. */
export const getDependencies = specTemplateDependencies;
