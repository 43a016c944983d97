/**
 * JSON Patch (RFC 6902) over JSON values with JSON Pointers (RFC 6901): what `karta inspect --patch`
 * prints and what an interpreter webhook returns for Retain, ReviseReplica and AggregateStatus.
 * Pure: the document is never modified; the patched copy or an error value is returned.
 */
import { findDeepNesting, type JsonValue } from "../input/index.js";

/** One JSON Patch operation. `value` is any JSON value (typed `unknown` so callers pass parsed objects). */
export interface JsonPatchOperation {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}

/** The outcome of decoding or applying a patch. */
export type PatchOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

function isObject(v: unknown): v is { [k: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Decodes a patch document (a JSON array of operations). Checks each operation's members as RFC 6902
 * §4 requires: `op` and `path` always, `value` for add/replace/test, `from` for move/copy.
 */
export function decodeJsonPatch(text: string): PatchOutcome<JsonPatchOperation[]> {
  let parsed: unknown;
  const deep = findDeepNesting(text);
  if (deep !== undefined) return { ok: false, error: `invalid JSON Patch: ${deep.message}` };
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `invalid JSON Patch: ${(e as Error).message}` };
  }
  if (!Array.isArray(parsed)) return { ok: false, error: "invalid JSON Patch: expected an array of operations" };
  const ops: JsonPatchOperation[] = [];
  for (const [i, raw] of parsed.entries()) {
    if (!isObject(raw)) return { ok: false, error: `invalid JSON Patch: operation ${i} is not an object` };
    const op = raw.op;
    if (typeof op !== "string" || !OPS.has(op)) return { ok: false, error: `invalid JSON Patch: operation ${i}: unknown op ${JSON.stringify(op ?? null)}` };
    if (typeof raw.path !== "string") return { ok: false, error: `invalid JSON Patch: operation ${i} (${op}): missing "path"` };
    const out: JsonPatchOperation = { op: op as JsonPatchOperation["op"], path: raw.path };
    if (op === "add" || op === "replace" || op === "test") {
      if (!("value" in raw)) return { ok: false, error: `invalid JSON Patch: operation ${i} (${op}): missing "value"` };
      out.value = raw.value!;
    }
    if (op === "move" || op === "copy") {
      if (typeof raw.from !== "string") return { ok: false, error: `invalid JSON Patch: operation ${i} (${op}): missing "from"` };
      out.from = raw.from;
    }
    ops.push(out);
  }
  return { ok: true, value: ops };
}

/** Splits a JSON Pointer into unescaped reference tokens ("" is the whole document). */
export function parsePointer(pointer: string): PatchOutcome<string[]> {
  if (pointer === "") return { ok: true, value: [] };
  if (!pointer.startsWith("/")) return { ok: false, error: `JSON Pointer ${JSON.stringify(pointer)} must start with "/"` };
  const tokens: string[] = [];
  for (const raw of pointer.slice(1).split("/")) {
    if (/~[^01]|~$/.test(raw)) return { ok: false, error: `JSON Pointer ${JSON.stringify(pointer)} has an invalid escape` };
    tokens.push(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return { ok: true, value: tokens };
}

/** An array index token: digits without leading zeros (RFC 6901 §4). */
function arrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]*)$/.test(token) ? Number(token) : undefined;
}

function clone(v: JsonValue): JsonValue {
  return v === null || typeof v !== "object" ? v : (JSON.parse(JSON.stringify(v)) as JsonValue);
}

/** Deep equality of JSON values (object member order ignored), as the `test` operation compares. */
export function jsonEquals(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEquals(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEquals(a[k], b[k]));
  }
  return false;
}

/** The value at `tokens`, or undefined when the path does not exist. */
function getAt(doc: JsonValue, tokens: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = doc;
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      const i = arrayIndex(t);
      cur = i === undefined || i >= cur.length ? undefined : cur[i];
    } else if (isObject(cur)) {
      cur = Object.prototype.hasOwnProperty.call(cur, t) ? cur[t] : undefined;
    } else {
      return undefined;
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

type Step = { ok: true; doc: JsonValue } | { ok: false; error: string };

/** The container holding the last token, walked in the (already cloned) document. */
function parentOf(doc: JsonValue, tokens: string[], path: string): { ok: true; parent: JsonValue } | { ok: false; error: string } {
  const parent = getAt(doc, tokens.slice(0, -1));
  if (parent === undefined || (parent === null || typeof parent !== "object")) return { ok: false, error: `path ${JSON.stringify(path)}: parent does not exist` };
  return { ok: true, parent };
}

function add(doc: JsonValue, tokens: string[], value: JsonValue, path: string): Step {
  if (tokens.length === 0) return { ok: true, doc: value };
  const p = parentOf(doc, tokens, path);
  if (!p.ok) return p;
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(p.parent)) {
    const i = last === "-" ? p.parent.length : arrayIndex(last);
    if (i === undefined || i > p.parent.length) return { ok: false, error: `path ${JSON.stringify(path)}: array index out of bounds` };
    p.parent.splice(i, 0, value);
  } else {
    // Defined, not assigned: a member named "__proto__" is data, not the object's prototype.
    Object.defineProperty(p.parent, last, { value, writable: true, enumerable: true, configurable: true });
  }
  return { ok: true, doc };
}

function remove(doc: JsonValue, tokens: string[], path: string): Step & { removed?: JsonValue } {
  if (tokens.length === 0) return { ok: false, error: "cannot remove the whole document" };
  const p = parentOf(doc, tokens, path);
  if (!p.ok) return p;
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(p.parent)) {
    const i = arrayIndex(last);
    if (i === undefined || i >= p.parent.length) return { ok: false, error: `path ${JSON.stringify(path)}: array index out of bounds` };
    const [removed] = p.parent.splice(i, 1);
    return { ok: true, doc, removed: removed! };
  }
  const obj = p.parent as { [k: string]: JsonValue };
  if (!Object.prototype.hasOwnProperty.call(obj, last)) return { ok: false, error: `path ${JSON.stringify(path)} does not exist` };
  const removed = obj[last]!;
  delete obj[last];
  return { ok: true, doc, removed };
}

/**
 * Applies the operations in order to a copy of `doc`. The first failing operation aborts the patch
 * (RFC 6902 §5: the whole patch fails) and its error names the operation's index.
 */
export function applyJsonPatch(doc: unknown, ops: readonly JsonPatchOperation[]): PatchOutcome<JsonValue> {
  let cur = clone(doc as JsonValue);
  for (const [i, o] of ops.entries()) {
    const tokens = parsePointer(o.path);
    if (!tokens.ok) return { ok: false, error: `operation ${i} (${o.op}): ${tokens.error}` };
    let step: Step;
    switch (o.op) {
      case "add":
        step = add(cur, tokens.value, clone(o.value as JsonValue), o.path);
        break;
      case "remove":
        step = remove(cur, tokens.value, o.path);
        break;
      case "replace":
        if (getAt(cur, tokens.value) === undefined) {
          step = { ok: false, error: `path ${JSON.stringify(o.path)} does not exist` };
        } else if (tokens.value.length === 0) {
          step = { ok: true, doc: clone(o.value as JsonValue) };
        } else {
          const r = remove(cur, tokens.value, o.path);
          step = r.ok ? add(r.doc, tokens.value, clone(o.value as JsonValue), o.path) : r;
        }
        break;
      case "move":
      case "copy": {
        const from = parsePointer(o.from!);
        if (!from.ok) return { ok: false, error: `operation ${i} (${o.op}): ${from.error}` };
        if (o.op === "move" && o.path !== o.from && o.path.startsWith(`${o.from}/`)) {
          return { ok: false, error: `operation ${i} (move): cannot move ${JSON.stringify(o.from)} into its own child ${JSON.stringify(o.path)}` };
        }
        const value = getAt(cur, from.value);
        if (value === undefined) {
          step = { ok: false, error: `from ${JSON.stringify(o.from)} does not exist` };
        } else if (o.op === "copy") {
          step = add(cur, tokens.value, clone(value), o.path);
        } else {
          const r = remove(cur, from.value, o.from!);
          step = r.ok ? add(r.doc, tokens.value, value, o.path) : r;
        }
        break;
      }
      case "test":
        step = jsonEquals(getAt(cur, tokens.value), o.value as JsonValue | undefined) ? { ok: true, doc: cur } : { ok: false, error: `testing value ${JSON.stringify(o.path)} failed` };
        break;
    }
    if (!step.ok) return { ok: false, error: `operation ${i} (${o.op}): ${step.error}` };
    cur = step.doc;
  }
  return { ok: true, value: cur };
}
