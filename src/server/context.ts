/**
 * The wire format of Karmada's interpreter webhook: decoding a ResourceInterpreterContext request
 * (config.karmada.io/v1alpha1) into an operation's inputs, and the response envelope. Decoding is
 * pure and never throws: a body that is not a context is an error value with the uid when one could
 * be read.
 */
import { findDeepNesting, MAX_NESTING_DEPTH, nestingMessage } from "../input/index.js";
import { fieldErrorToString, invalid, notSupported } from "../scheduling/fielderrors.js";
import { replicaCountError } from "../interpreter/components.js";
import { decodeStatusItem, OPERATIONS, type AggregatedStatusItem, type JsonValue, type KubeObject, type Operation, type TargetComponent } from "../interpreter/types.js";

export const CONTEXT_API_VERSION = "config.karmada.io/v1alpha1";
export const CONTEXT_KIND = "ResourceInterpreterContext";

/** An operation's inputs, as a request carries them. */
export interface OperationInput {
  operation: Operation;
  object: KubeObject;
  observedObject?: KubeObject;
  /** ReviseReplica's desired replicas (0 otherwise). */
  replicas: number;
  /** ReviseComponents' assignment, `request.components` (Karmada #7830/#7841); absent otherwise. */
  components?: TargetComponent[];
  /** `request.aggregatedStatus`; absent when the request has none (Go's nil slice, as Karmada omits an empty one). */
  aggregatedStatus?: AggregatedStatusItem[];
}

/** A decoded request. */
export interface InterpreterRequest extends OperationInput {
  uid: string;
}

/** The outcome of decoding a body. */
export type DecodedContext = { ok: true; request: InterpreterRequest } | { ok: false; uid: string; message: string };

function isObject(v: unknown): v is { [k: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

type Field<T> = { ok: true; value: T } | { ok: false; message: string };

/** `path: Invalid value: 5: must be a string`, as Kubernetes words a field error. */
function invalidValue(path: string, value: JsonValue, detail: string): string {
  return fieldErrorToString(invalid(path, value, detail));
}

/**
 * A string that must be there: absent, null or empty is a Required value, another type an Invalid
 * one (a number is not "missing").
 */
function stringField(v: JsonValue | undefined, path: string): Field<string> {
  if (v === undefined || v === null || v === "") return { ok: false, message: `${path}: Required value` };
  if (typeof v !== "string") return { ok: false, message: invalidValue(path, v, "must be a string") };
  return { ok: true, value: v };
}

function objectField(v: JsonValue | undefined, name: string): Field<KubeObject> {
  if (v === undefined || v === null) return { ok: false, message: `${name}: Required value` };
  if (!isObject(v)) return { ok: false, message: invalidValue(name, v, "must be an object") };
  for (const key of ["apiVersion", "kind"]) {
    const f = stringField(v[key], `${name}.${key}`);
    if (!f.ok) return f;
  }
  return { ok: true, value: v };
}

/** ReviseReplica's count when the request has one; undefined when absent or null (Karmada sends it, 0 included). */
function replicaCount(v: JsonValue | undefined, path: string): Field<number | undefined> {
  if (v === undefined || v === null) return { ok: true, value: undefined };
  const error = replicaCountError(v, path);
  return error === undefined ? { ok: true, value: v as number } : { ok: false, message: error };
}

/** Levels around an object in a ResourceInterpreterContext: context, request, aggregatedStatus, item, status. */
const ENVELOPE_DEPTH = 5;

/**
 * Whether a text that parsed as JSON nests deeper than `limit`: the brackets outside strings counted
 * in one pass (findDeepNesting reads YAML too, which costs a request several times more).
 */
function jsonNestsDeeperThan(text: string, limit: number): boolean {
  // Nesting needs an opening bracket per level: a body with fewer than the limit in all (counted by
  // the native indexOf, most bodies) cannot nest deeper.
  let opening = 0;
  for (const bracket of ["{", "["]) {
    for (let i = text.indexOf(bracket); i >= 0; i = text.indexOf(bracket, i + 1)) if (++opening > limit) break;
  }
  if (opening <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // Past the closing quote: the next one not escaped by an odd run of backslashes.
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j < 0) return true; // not JSON after all: leave it to the full scan
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - k) % 2 === 1) break;
        j = text.indexOf('"', j + 1);
      }
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** How far into `request.object` {@link peekRoute} looks for its apiVersion and kind. */
const PEEK_CHARS = 1024;

/** The JSON string starting at `text[i]` (a quote), unescaped, and the index past it; undefined if it has escapes or no end. */
function plainString(text: string, i: number): { value: string; end: number } | undefined {
  if (text.charCodeAt(i) !== 34) return undefined;
  const end = text.indexOf('"', i + 1);
  if (end < 0) return undefined;
  const value = text.slice(i + 1, end);
  return value.includes("\\") ? undefined : { value, end: end + 1 };
}

function skipSpace(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++i));
  return i;
}

/**
 * The operation and the object's apiVersion and kind, read from a body without parsing it, as Karmada
 * writes it (`operation` before `object`, the object's keys sorted): a hint for where to evaluate the
 * request, never for what to answer (the evaluation decodes the body in full). Undefined when the text
 * is not so laid out, for instance when the object's first keys are not apiVersion and kind.
 */
export function peekRoute(body: string): { operation: string; apiVersion: string; kind: string } | undefined {
  const op = body.indexOf('"operation"');
  if (op < 0) return undefined;
  let i = skipSpace(body, op + 11);
  if (body.charCodeAt(i) !== 58) return undefined;
  const operation = plainString(body, skipSpace(body, i + 1));
  if (!operation) return undefined;
  const obj = body.indexOf('"object"', operation.end);
  if (obj < 0) return undefined;
  i = skipSpace(body, obj + 8);
  if (body.charCodeAt(i) !== 58) return undefined;
  i = skipSpace(body, i + 1);
  if (body.charCodeAt(i) !== 123) return undefined;
  // The object's members until both are found: only string values are stepped over.
  let apiVersion: string | undefined;
  let kind: string | undefined;
  const limit = i + PEEK_CHARS;
  i++;
  while (i < limit && (apiVersion === undefined || kind === undefined)) {
    const key = plainString(body, skipSpace(body, i));
    if (!key) return undefined;
    i = skipSpace(body, key.end);
    if (body.charCodeAt(i) !== 58) return undefined;
    const value = plainString(body, skipSpace(body, i + 1));
    if (!value) return undefined;
    if (key.value === "apiVersion") apiVersion = value.value;
    else if (key.value === "kind") kind = value.value;
    i = skipSpace(body, value.end);
    if (body.charCodeAt(i) !== 44) break;
    i++;
  }
  if (apiVersion === undefined || kind === undefined) return undefined;
  return { operation: operation.value, apiVersion, kind };
}

/** Decodes a request body (JSON text) into a request, or an error naming the field at fault. */
export function decodeContext(body: string): DecodedContext {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (e) {
    return { ok: false, uid: "", message: `body is not JSON: ${(e as Error).message}` };
  }
  if (!isObject(parsed)) return { ok: false, uid: "", message: "body must be a JSON object (a ResourceInterpreterContext)" };
  const request = parsed.request;
  const uid = isObject(request) && typeof request.uid === "string" ? request.uid : "";
  const bad = (message: string): DecodedContext => ({ ok: false, uid, message });
  // The objects inside are held to the limit of every reader (V8's JSON.parse does not recurse, but
  // what runs on the object does); the envelope adds at most ENVELOPE_DEPTH levels around them.
  const deep = jsonNestsDeeperThan(body, MAX_NESTING_DEPTH + ENVELOPE_DEPTH) ? findDeepNesting(body, MAX_NESTING_DEPTH + ENVELOPE_DEPTH) : undefined;
  if (deep !== undefined) return bad(`line ${deep.line}: ${nestingMessage()}`);
  if (parsed.apiVersion !== CONTEXT_API_VERSION || parsed.kind !== CONTEXT_KIND) {
    return bad(`expected apiVersion ${CONTEXT_API_VERSION} and kind ${CONTEXT_KIND}, got ${JSON.stringify(parsed.apiVersion ?? "")} and ${JSON.stringify(parsed.kind ?? "")}`);
  }
  if (request === undefined || request === null) return bad("request: Required value");
  if (!isObject(request)) return bad(invalidValue("request", request, "must be an object"));
  const uidField = stringField(request.uid, "request.uid");
  if (!uidField.ok) return bad(uidField.message);
  const operationField = stringField(request.operation, "request.operation");
  if (!operationField.ok) return bad(operationField.message);
  // Exactly as Karmada names them: another case is refused, so the name needs no case folding.
  if (!(OPERATIONS as readonly string[]).includes(operationField.value)) return bad(fieldErrorToString(notSupported("request.operation", operationField.value, OPERATIONS)));
  const operation = operationField.value as Operation;
  const object = objectField(request.object, "request.object");
  if (!object.ok) return bad(object.message);
  const input: InterpreterRequest = { uid: uidField.value, operation, object: object.value, replicas: 0 };
  if (request.observedObject !== undefined && request.observedObject !== null) {
    const observed = objectField(request.observedObject, "request.observedObject");
    if (!observed.ok) return bad(observed.message);
    input.observedObject = observed.value;
  }
  if (operation === "Retain" && input.observedObject === undefined) return bad("request.observedObject: Required value for Retain");
  const replicas = replicaCount(request.replicas, "request.replicas");
  if (!replicas.ok) return bad(replicas.message);
  if (replicas.value !== undefined) input.replicas = replicas.value;
  else if (operation === "ReviseReplica") return bad("request.replicas: Required value for ReviseReplica");
  if (request.components !== undefined && request.components !== null) {
    if (!Array.isArray(request.components)) return bad(invalidValue("request.components", request.components, "must be a list"));
    const components: TargetComponent[] = [];
    for (const [i, c] of request.components.entries()) {
      const at = `request.components[${i}]`;
      if (c === null) return bad(`${at}: Required value`);
      if (!isObject(c)) return bad(invalidValue(at, c, "must be an object"));
      const name = stringField(c.name, `${at}.name`);
      if (!name.ok) return bad(name.message);
      const countError = replicaCountError(c.replicas, `${at}.replicas`);
      if (countError !== undefined) return bad(countError);
      components.push({ name: name.value, replicas: c.replicas as number });
    }
    input.components = components;
  }
  // Karmada leaves an empty list out, so an empty one is as missing as an absent one.
  if (operation === "ReviseComponents" && (input.components === undefined || input.components.length === 0)) return bad("request.components: Required value for ReviseComponents");
  if (request.aggregatedStatus !== undefined && request.aggregatedStatus !== null) {
    if (!Array.isArray(request.aggregatedStatus)) return bad(invalidValue("request.aggregatedStatus", request.aggregatedStatus, "must be a list"));
    const items: AggregatedStatusItem[] = [];
    for (const [i, item] of request.aggregatedStatus.entries()) {
      const decoded = decodeStatusItem(item, `request.aggregatedStatus[${i}]`);
      if (!decoded.ok) return bad(decoded.message);
      items.push(decoded.item);
    }
    input.aggregatedStatus = items;
  }
  return { ok: true, request: input };
}

/** `ResourceInterpreterResponse` fields (uid and successful always; the rest by operation). */
export type InterpreterResponse = { uid: string; successful: boolean; status?: { code: number; message: string } } & { [k: string]: JsonValue | undefined };

/** The response envelope around a response. */
export function contextResponse(response: InterpreterResponse): string {
  return JSON.stringify({ apiVersion: CONTEXT_API_VERSION, kind: CONTEXT_KIND, response });
}

/** A failed response. */
export function failureResponse(uid: string, code: number, message: string): InterpreterResponse {
  return { uid, successful: false, status: { code, message } };
}
