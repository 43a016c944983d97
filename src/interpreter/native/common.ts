/**
 * Shared helpers of the built-in (native) interpreters: reading fields the way Karmada's typed
 * conversions read them, copying without mutating inputs, and writing statuses with Go's `omitempty`.
 */
import { isDeepStrictEqual } from "node:util";
import type { AggregatedStatusItem, DependentObjectReference, JsonValue, KubeObject, Operation, Outcome } from "../types.js";
import { fail, ok } from "../types.js";
import { verifyDependencies as verifyReferences } from "../dependencies.js";
import { nestedMap, type Obj } from "./unstructured.js";

export type { Obj };

export const LAYER = "native";

/** A deep copy of a JSON value (inputs are never modified). */
export function clone<T>(v: T): T {
  return v === undefined ? v : (structuredClone(v) as T);
}

/** The object at a path, or undefined when a step is missing or not an object. */
export function getObject(obj: unknown, ...path: string[]): Obj | undefined {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
    cur = (cur as Obj)[p];
  }
  return cur !== null && typeof cur === "object" && !Array.isArray(cur) ? (cur as Obj) : undefined;
}

/** The value at a path, or undefined. */
export function getField(obj: unknown, ...path: string[]): unknown {
  const parent = getObject(obj, ...path.slice(0, -1));
  return parent === undefined ? undefined : parent[path[path.length - 1] as string];
}

/** Sets a value at a path, creating intermediate objects (like unstructured.SetNestedField). */
export function setField(obj: Obj, value: unknown, ...path: string[]): void {
  let cur = obj;
  for (const p of path.slice(0, -1)) {
    if (cur[p] === null || typeof cur[p] !== "object" || Array.isArray(cur[p])) cur[p] = {};
    cur = cur[p];
  }
  cur[path[path.length - 1] as string] = value;
}

/** An integer field as Go's typed conversion reads it: absent or null is 0; anything but an integer is an error. */
export function intField(obj: unknown, ...path: string[]): { value: number; present: boolean } | { error: string } {
  const v = getField(obj, ...path);
  if (v === undefined || v === null) return { value: 0, present: false };
  if (typeof v === "number" && Number.isInteger(v)) return { value: v, present: true };
  // JSON.stringify shows an infinite number as "null": name it as Go prints a float64 (+Inf).
  const shown = typeof v === "number" && !Number.isFinite(v) ? (Number.isNaN(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf") : JSON.stringify(v);
  return { error: `.${path.join(".")} accessor error: ${shown} is of the type ${typeof v === "number" ? "float64" : typeof v}, expected int64` };
}

/**
 * An int32 field as runtime.DefaultUnstructuredConverter.FromUnstructured reads it into a typed object
 * (ConvertToTypedObject): absent or null is 0; an integer, or a float with no fraction, is converted
 * to int32 as Go converts (keeping the low 32 bits); a fraction cannot be converted; a string, bool,
 * list or object is an "unrecognized type". Infinities keep the accessor wording used elsewhere.
 */
export function typedInt32(obj: unknown, ...path: string[]): { value: number; present: boolean } | { error: string } {
  const v = getField(obj, ...path);
  if (typeof v === "number" && !Number.isFinite(v)) return intField(obj, ...path);
  if (v === undefined || v === null) return { value: 0, present: false };
  if (typeof v !== "number") return { error: "unrecognized type: int32" };
  if (!Number.isInteger(v)) return { error: "cannot convert float64 to int32" };
  return { value: Number(BigInt.asIntN(32, BigInt(v))), present: true };
}

/** Why FromUnstructured cannot put a JSON value into a Go integer of `bits`, or undefined (null and absent are zero). */
export function typedIntError(v: unknown, bits: "int32" | "int64"): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number") return `unrecognized type: ${bits}`;
  // Infinities and integral floats convert (Trunc(x) == x); only a fraction cannot.
  return Number.isFinite(v) && !Number.isInteger(v) ? `cannot convert float64 to ${bits}` : undefined;
}

/**
 * Why FromUnstructured cannot put a JSON value into a Go string field of type `goType` (e.g.
 * "v1.PodPhase"), or undefined: an integer is convertible in reflection but refused, named by the
 * field's type; nothing else converts, named by its kind.
 */
export function typedStringError(v: unknown, goType = "string"): string | undefined {
  if (v === undefined || v === null || typeof v === "string") return undefined;
  if (typeof v === "number" && Number.isInteger(v) && Math.abs(v) < 2 ** 63) return `cannot convert int64 to ${goType}`;
  return "unrecognized type: string";
}

/** Integer fields of a typed struct, in Go's declaration order (FromUnstructured converts in that order). */
export type TypedIntFields = readonly (readonly [string, "int32" | "int64"])[];

/**
 * The first error FromUnstructured meets converting these integer fields of `obj` (in declaration
 * order), or undefined.
 */
export function typedIntFieldsError(obj: unknown, fields: TypedIntFields): string | undefined {
  const o = getObject(obj) ?? {};
  for (const [name, bits] of fields) {
    const err = typedIntError(o[name], bits);
    if (err !== undefined) return err;
  }
  return undefined;
}

/** The integer fields of ObjectMeta, in declaration order. */
const OBJECT_META_INTS: TypedIntFields = [
  ["generation", "int64"],
  ["deletionGracePeriodSeconds", "int64"],
];

/**
 * The first error ConvertToTypedObject meets in an object's integer fields, visiting them as Go's
 * struct order does (metadata, then spec, then status), as a failed outcome of `operation`; undefined
 * when they all convert.
 */
export function typedObjectError(
  obj: unknown,
  spec: TypedIntFields,
  status: TypedIntFields,
  operation: Operation = "InterpretHealth",
): Outcome<never> | undefined {
  const err =
    typedIntFieldsError(getObject(obj, "metadata"), OBJECT_META_INTS) ??
    typedIntFieldsError(getObject(obj, "spec"), spec) ??
    typedIntFieldsError(getObject(obj, "status"), status);
  return err === undefined ? undefined : nativeFail(operation, err);
}

/** An integer field, 0 when absent or malformed (for member statuses, which Karmada reads leniently). */
export function intOr0(obj: unknown, ...path: string[]): number {
  const r = intField(obj, ...path);
  return "value" in r ? r.value : 0;
}

/** A string field, "" when absent. */
export function stringField(obj: unknown, ...path: string[]): string {
  const v = getField(obj, ...path);
  return typeof v === "string" ? v : "";
}

/** Sets or removes a status field the way Go's `omitempty` writes an int: zero is left out. */
export function setOmitEmpty(target: Obj, key: string, value: number): void {
  if (value === 0) delete target[key];
  else target[key] = value;
}

/** The status items that carry a status. */
export function withStatus(items: AggregatedStatusItem[] | undefined): (AggregatedStatusItem & { status: Obj })[] {
  return (items ?? []).filter(
    (i): i is AggregatedStatusItem & { status: Obj } => i.status !== null && i.status !== undefined && typeof i.status === "object",
  );
}

/**
 * The Go type a member status is decoded into (encoding/json) and its integer fields, which Karmada's
 * json.Unmarshal rejects when they hold anything but an integer in range (null is left as zero).
 */
export interface MemberStatusType {
  /** The type as Go prints it, e.g. "v1.JobStatus" or "native.WrappedDeploymentStatus". */
  goType: string;
  /** Integer fields by JSON name: their Go type. */
  ints: Readonly<Record<string, "int32" | "int64">>;
  /** String fields by JSON name: their Go type (e.g. "v1.PodPhase"). */
  strings?: Readonly<Record<string, string>>;
}

const INT_RANGE = { int32: 2 ** 31, int64: 2 ** 63 } as const;

function jsonKind(v: unknown): string {
  if (typeof v === "string") return "string";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "number";
  return Array.isArray(v) ? "array" : "object";
}

/**
 * Why json.Unmarshal would reject a member's status as `type`, or undefined: a status that is not a
 * JSON object, or (the first in document order) an integer field holding something else.
 */
export function memberStatusError(status: unknown, type: MemberStatusType): string | undefined {
  if (status === null || status === undefined) return undefined;
  if (typeof status !== "object" || Array.isArray(status)) return `json: cannot unmarshal ${jsonKind(status)} into Go value of type ${type.goType}`;
  const struct = type.goType.slice(type.goType.indexOf(".") + 1);
  for (const [k, v] of Object.entries(status as Obj)) {
    if (v === null) continue;
    const s = type.strings !== undefined && Object.prototype.hasOwnProperty.call(type.strings, k) ? type.strings[k] : undefined;
    if (s !== undefined) {
      if (typeof v !== "string") return `json: cannot unmarshal ${jsonKind(v)} into Go struct field ${struct}.${k} of type ${s}`;
      continue;
    }
    const t = Object.prototype.hasOwnProperty.call(type.ints, k) ? type.ints[k] : undefined;
    if (t === undefined) continue;
    const fits = typeof v === "number" && Number.isInteger(v) && v >= -INT_RANGE[t] && v < INT_RANGE[t];
    if (fits) continue;
    const value = typeof v === "number" ? `number ${String(v)}` : jsonKind(v);
    return `json: cannot unmarshal ${value} into Go struct field ${struct}.${k} of type ${t}`;
  }
  return undefined;
}

/** The status items that carry a status, or the first decoding error among them (see {@link memberStatusError}). */
export function memberStatuses(
  operation: Operation,
  items: AggregatedStatusItem[] | undefined,
  type: MemberStatusType,
): Outcome<(AggregatedStatusItem & { status: Obj })[]> {
  for (const item of items ?? []) {
    const err = memberStatusError(item.status, type);
    if (err !== undefined) return nativeFail(operation, err);
  }
  return ok(withStatus(items));
}

/** Karmada's resource template generation annotation. */
export const RESOURCE_TEMPLATE_GENERATION_ANNOTATION = "resourcetemplate.karmada.io/generation";

/**
 * The template generation recorded on a member object by Karmada's annotation. As in Karmada
 * (runtime.Convert_string_To_int64), a missing or unparsable annotation is an error.
 */
export function resourceTemplateGeneration(obj: unknown): { value: number } | { error: string } {
  const s = stringField(obj, "metadata", "annotations", RESOURCE_TEMPLATE_GENERATION_ANNOTATION);
  if (!/^[+-]?[0-9]+$/.test(s)) return { error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: invalid syntax` };
  const v = BigInt(s);
  if (v > 9223372036854775807n || v < -9223372036854775808n) {
    return { error: `strconv.ParseInt: parsing ${JSON.stringify(s)}: value out of range` };
  }
  return { value: Number(v) };
}

/** `metadata.generation`, 0 when absent. */
export function generation(obj: unknown): number {
  return intOr0(obj, "metadata", "generation");
}

/** `metadata.namespace`, "" when absent. */
export function namespaceOf(obj: unknown): string {
  return stringField(obj, "metadata", "namespace");
}

/** A successful outcome. */
export { ok };

/** A failed native outcome. */
export function nativeFail<T>(operation: Operation, message: string, path?: string): Outcome<T> {
  return fail<T>(operation, message, path, LAYER);
}

/** Karmada's VerifyDependencies over the references a native interpreter found. */
export function verifyDependencies(deps: DependentObjectReference[]): Outcome<DependentObjectReference[]> {
  const invalid = verifyReferences(deps);
  return invalid === undefined ? ok(deps) : nativeFail("InterpretDependency", invalid);
}

/**
 * AggregateStatus's result: a copy of the object with `status` as its status, or unchanged when
 * `unchanged` (by default: the old status deep-equals the new one; Karmada then skips the update).
 */
export function withAggregatedStatus(obj: KubeObject, status: Obj, unchanged = isDeepStrictEqual(getObject(obj, "status") ?? {}, status)): Outcome<KubeObject> {
  const out = clone(obj) as Obj;
  if (!unchanged) out["status"] = status;
  return ok(out as KubeObject);
}

/**
 * The `status` an InterpretStatus handler starts from, read as Karmada reads it (NestedMap): undefined
 * when absent, an error when present but not an object (null included).
 */
export function statusToReflect(obj: KubeObject): Outcome<Obj | undefined> {
  const status = nestedMap(obj, "status");
  if ("error" in status) return nativeFail("InterpretStatus", status.error, "status");
  return ok(status.found ? status.value : undefined);
}

/** The whole `status` of an object, as Karmada's default InterpretStatus reflects it. */
export function reflectWholeStatus(obj: KubeObject): Outcome<JsonValue | undefined> {
  return statusToReflect(obj) as Outcome<JsonValue | undefined>;
}

/** Drops keys whose value is undefined. */
export function defined(o: Obj): Obj {
  for (const k of Object.keys(o)) if (o[k] === undefined) delete o[k];
  return o;
}

/** The objects of a JSON array (non-objects skipped); empty when not an array. */
export function asObjectArray(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter((x): x is Obj => x !== null && typeof x === "object" && !Array.isArray(x)) : [];
}
