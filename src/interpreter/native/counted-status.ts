/**
 * Status handling shared by the controllers whose status is a set of counters (Deployment, ReplicaSet,
 * StatefulSet, DaemonSet): members report the counters with their generations, the control plane sums them.
 */
import type { AggregatedStatusItem, JsonValue, KubeObject, Outcome } from "../types.js";
import {
  type Obj,
  RESOURCE_TEMPLATE_GENERATION_ANNOTATION,
  clone,
  generation,
  getObject,
  intOr0,
  nativeFail,
  ok,
  resourceTemplateGeneration,
  statusToReflect,
  memberStatuses,
  type MemberStatusType,
  typedIntFieldsError,
  typedObjectError,
  type TypedIntFields,
} from "./common.js";

/** How one kind's counters are read and written. */
export interface CountedStatusShape {
  /** The counters, in the order Go declares them. */
  counters: readonly string[];
  /** Counters Go writes even when zero (no `omitempty`). */
  alwaysWritten: readonly string[];
  /** Whether InterpretStatus reports observedGeneration (Karmada's StatefulSet reflection leaves it out). */
  reflectsObservedGeneration: boolean;
  /**
   * What a member's resourceTemplateGeneration is compared with: the template's generation, or (Karmada's
   * StatefulSet aggregation) the member's own generation.
   */
  templateGenerationAgainst: "template" | "member";
  /** Whether InterpretStatus reports nothing when every field is zero (Deployment and ReplicaSet check for "{}"). */
  nothingWhenEmpty: boolean;
  /**
   * Karmada's DaemonSet aggregation compares the whole typed old status with the new one (semantic
   * equality: an empty list equals none), so these other status fields, when set, make it write the
   * counters even when they did not change. The other kinds compare only the counters.
   */
  otherFieldsCompared?: { lists: readonly string[]; pointers: readonly string[] };
  /**
   * The Go type members' statuses are decoded into: the kind's status wrapped with its generations, so
   * its integer fields are the typed status's and FEDERATED_GENERATION's.
   */
  memberGoType: string;
  /**
   * The kind's typed status (its Go name and integer fields in declaration order), which InterpretStatus
   * converts the status into, before reading the generation annotation or (StatefulSet) after.
   */
  typedStatus: { name: string; fields: TypedIntFields; afterAnnotation?: boolean };
  /** The spec's integer fields the typed conversion of the whole object meets first (replicas). */
  specInts: TypedIntFields;
}

/** The integer fields Karmada's FederatedGeneration adds to a wrapped member status. */
const FEDERATED_GENERATION = { generation: "int64", resourceTemplateGeneration: "int64" } as const;

/** The Go type a member's status is decoded into. */
function memberType(shape: CountedStatusShape): MemberStatusType {
  return { goType: shape.memberGoType, ints: { ...FEDERATED_GENERATION, ...Object.fromEntries(shape.typedStatus.fields) } };
}

function write(target: Obj, key: string, value: number, always: boolean): void {
  if (value === 0 && !always) delete target[key];
  else target[key] = value;
}

/** Sums the members' counters; observedGeneration advances only when every member has caught up. */
export function aggregateCounted(shape: CountedStatusShape, obj: KubeObject, items: AggregatedStatusItem[]): Outcome<KubeObject> {
  const gen = generation(obj);
  const sums = new Map<string, number>(shape.counters.map((c) => [c, 0]));
  let caughtUp = 0;
  // Karmada converts the whole object to its typed form before reading any member.
  const unconvertible = typedObjectError(obj, shape.specInts, shape.typedStatus.fields, "AggregateStatus");
  if (unconvertible) return unconvertible;
  const members = memberStatuses("AggregateStatus", items, memberType(shape));
  if (!members.ok) return members;
  for (const item of members.value) {
    const s = item.status;
    const memberGen = intOr0(s, "generation");
    const against = shape.templateGenerationAgainst === "template" ? gen : memberGen;
    if (intOr0(s, "observedGeneration") >= memberGen && intOr0(s, "resourceTemplateGeneration") >= against) caughtUp++;
    for (const c of shape.counters) sums.set(c, (sums.get(c) as number) + intOr0(s, c));
  }
  const old = getObject(obj, "status") ?? {};
  const observedGeneration = caughtUp === items.length ? gen : intOr0(old, "observedGeneration");
  const others = shape.otherFieldsCompared;
  const othersZero =
    others === undefined ||
    (others.lists.every((f) => old[f] === undefined || old[f] === null || (Array.isArray(old[f]) && old[f].length === 0)) &&
      others.pointers.every((f) => old[f] === undefined || old[f] === null));
  const unchanged =
    othersZero && intOr0(old, "observedGeneration") === observedGeneration && shape.counters.every((c) => intOr0(old, c) === sums.get(c));
  if (unchanged) return ok(clone(obj));
  const out = clone(obj) as Obj;
  const status: Obj = getObject(out, "status") ?? {};
  write(status, "observedGeneration", observedGeneration, false);
  for (const c of shape.counters) write(status, c, sums.get(c) as number, shape.alwaysWritten.includes(c));
  out["status"] = status;
  return ok(out as KubeObject);
}

/**
 * The counters a member reports, with its generation and the template generation it was applied from
 * (an error when the member object lacks a valid template-generation annotation, as in Karmada).
 */
export function reflectCounted(shape: CountedStatusShape, obj: KubeObject): Outcome<JsonValue | undefined> {
  const read = statusToReflect(obj);
  if (!read.ok) return read;
  const status = read.value;
  if (status === undefined) return ok(undefined);
  const typed = shape.typedStatus;
  const conversion = (): Outcome<never> | undefined => {
    const err = typedIntFieldsError(status, typed.fields);
    return err === undefined ? undefined : nativeFail("InterpretStatus", `failed to convert ${typed.name} from map[string]interface{}: ${err}`, "status");
  };
  if (!typed.afterAnnotation) {
    const failed = conversion();
    if (failed) return failed;
  }
  const rtg = resourceTemplateGeneration(obj);
  if ("error" in rtg) return nativeFail("InterpretStatus", rtg.error, `metadata.annotations["${RESOURCE_TEMPLATE_GENERATION_ANNOTATION}"]`);
  if (typed.afterAnnotation) {
    const failed = conversion();
    if (failed) return failed;
  }
  const out: Obj = {};
  write(out, "generation", generation(obj), false);
  write(out, "resourceTemplateGeneration", rtg.value, false);
  if (shape.reflectsObservedGeneration) write(out, "observedGeneration", intOr0(status, "observedGeneration"), false);
  for (const c of shape.counters) write(out, c, intOr0(status, c), shape.alwaysWritten.includes(c));
  if (shape.nothingWhenEmpty && Object.keys(out).length === 0) return ok(undefined);
  return ok(out);
}
