/** Built-in interpretation of apps/v1 DaemonSet. */
import type { AggregatedStatusItem, DependentObjectReference, JsonValue, KubeObject, Outcome } from "../types.js";
import { generation, getObject, intOr0, ok } from "./common.js";
import { type CountedStatusShape, aggregateCounted, reflectCounted } from "./counted-status.js";
import { templateDependencies } from "./workload.js";

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
};

/** AggregateStatus: the scheduling counters summed over members. */
export function aggregateStatus(obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  return aggregateCounted(SHAPE, obj, items);
}

/** InterpretStatus: the scheduling counters with the member's generations. */
export function reflectStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  return reflectCounted(SHAPE, obj);
}

/** InterpretHealth: latest generation observed, every desired node updated, every updated pod available. */
export function interpretHealth(obj: KubeObject): Outcome<boolean> {
  if (intOr0(obj, "status", "observedGeneration") !== generation(obj)) return ok(false);
  if (intOr0(obj, "status", "updatedNumberScheduled") < intOr0(obj, "status", "desiredNumberScheduled")) return ok(false);
  return ok(intOr0(obj, "status", "numberAvailable") >= intOr0(obj, "status", "updatedNumberScheduled"));
}

/** InterpretDependency: the pod template's dependencies. */
export function getDependencies(obj: KubeObject): Outcome<DependentObjectReference[]> {
  return templateDependencies(obj, getObject(obj, "spec", "template"));
}
