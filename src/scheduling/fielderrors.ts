/**
 * Field errors as values, shaped like Kubernetes' `k8s.io/apimachinery/pkg/util/validation/field`
 * errors: a type, the path of the offending field (`<nil>` for Go's nil path), the bad value (when one
 * is shown) and a detail.
 * {@link fieldErrorToString} renders them the way `(*field.Error).Error()` does, so messages can
 * be compared word for word with the API server's.
 */

import { goJSON, goQuote } from "../gofmt/index.js";

/** The error kinds of `field.ErrorType`, by their Go constant suffix. */
export type FieldErrorType =
  | "NotFound"
  | "Required"
  | "Duplicate"
  | "Invalid"
  | "NotSupported"
  | "Forbidden"
  | "TooLong"
  | "TooMany"
  | "Internal"
  | "TypeInvalid";

/** One validation failure. `value` is absent when the error does not show a value. */
export interface FieldError {
  type: FieldErrorType;
  /** Field path such as `spec.podGroupTemplates[0].schedulingPolicy.gang.minCount`. */
  field: string;
  /** The offending value; `null` renders as `null`, absence renders nothing. */
  value?: unknown;
  detail: string;
  /** The declarative-validation origin (`union`, `minimum`, `maxItems`, `immutable`...), when known. */
  origin?: string;
}

/** What each type prints as, exactly as `field.ErrorType.String()`. */
const TYPE_TEXT: Record<FieldErrorType, string> = {
  NotFound: "Not found",
  Required: "Required value",
  Duplicate: "Duplicate value",
  Invalid: "Invalid value",
  NotSupported: "Unsupported value",
  Forbidden: "Forbidden",
  TooLong: "Too long",
  TooMany: "Too many",
  Internal: "Internal error",
  TypeInvalid: "Invalid value",
};

/** Kinds whose rendering never shows the value. */
const VALUELESS: ReadonlySet<FieldErrorType> = new Set(["Required", "Forbidden", "TooLong", "Internal"]);

/** Render a value as `ErrorBody` does: strings with `%q`, numbers and booleans with `%v`, anything else as Go's JSON. */
function renderValue(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return goQuote(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return goJSON(value);
}

/** The part after the path, as `(*field.Error).ErrorBody()`. */
export function fieldErrorBody(e: FieldError): string {
  let s = TYPE_TEXT[e.type];
  if (!VALUELESS.has(e.type) && "value" in e) s += `: ${renderValue(e.value)}`;
  if (e.detail !== "") s += `: ${e.detail}`;
  return s;
}

/** `spec.x: Invalid value: 0: must be greater than or equal to 1`, as `(*field.Error).Error()`. */
export function fieldErrorToString(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** All errors, one per line. */
export function fieldErrorsToString(errors: readonly FieldError[]): string {
  return errors.map(fieldErrorToString).join("\n");
}

// ---------------------------------------------------------------- paths

/**
 * A field path as rendered text, or `undefined` for Go's nil `*field.Path` (the empty string is taken as
 * nil too: no Go path renders empty).
 */
export type FieldPath = string | undefined;

/** How Go prints a path: a nil path is `<nil>`. */
export function pathString(p: FieldPath): string {
  return p === undefined || p === "" ? "<nil>" : p;
}

/**
 * `parent.name` (Go's `Child`), or `name` under a nil parent; the parent itself without names. An empty
 * name prints as Go prints it: `[]`.
 */
export function childPath(parent: FieldPath, ...names: string[]): FieldPath {
  let p = parent === "" ? undefined : parent;
  for (const n of names) p = n === "" ? `${p ?? ""}[]` : p === undefined ? n : `${p}.${n}`;
  return p;
}

/** `parent[i]` (Go's `Index`; `[i]` under a nil parent). */
export function indexPath(parent: FieldPath, i: number): string {
  return `${parent ?? ""}[${i}]`;
}

// ---------------------------------------------------------------- constructors

/** `field.Invalid`. */
export function invalid(field: FieldPath, value: unknown, detail: string, origin?: string): FieldError {
  return withOrigin({ type: "Invalid", field: pathString(field), value, detail }, origin);
}
/** `field.Required`. */
export function required(field: FieldPath, detail = ""): FieldError {
  return { type: "Required", field: pathString(field), detail };
}
/** `field.Forbidden`. */
export function forbidden(field: FieldPath, detail: string, origin?: string): FieldError {
  return withOrigin({ type: "Forbidden", field: pathString(field), detail }, origin);
}
/** `field.Duplicate`. */
export function duplicate(field: FieldPath, value: unknown): FieldError {
  return { type: "Duplicate", field: pathString(field), value, detail: "" };
}
/** `field.TooMany`: `must have at most N items` (singular for one). */
export function tooMany(field: FieldPath, actual: number, max: number): FieldError {
  const detail = max >= 0 ? `must have at most ${max} ${max === 1 ? "item" : "items"}` : "has too many items";
  return { type: "TooMany", field: pathString(field), value: actual, detail, origin: "maxItems" };
}
/** `field.NotSupported`: lists the accepted values, quoted. */
export function notSupported(field: FieldPath, value: unknown, validValues: readonly string[]): FieldError {
  const detail = validValues.length > 0 ? `supported values: ${validValues.map((v) => goQuote(v)).join(", ")}` : "";
  return { type: "NotSupported", field: pathString(field), value, detail };
}
/** `field.InternalError`: the detail is the error text. */
export function internal(field: FieldPath, message: string): FieldError {
  return { type: "Internal", field: pathString(field), detail: message };
}

function withOrigin(e: FieldError, origin: string | undefined): FieldError {
  if (origin !== undefined) e.origin = origin;
  return e;
}
