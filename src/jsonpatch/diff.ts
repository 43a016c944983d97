/**
 * JSON Patch creation: the operations that turn one JSON value into another, as Karmada's webhook
 * servers send them (ReviseReplica, Retain, AggregateStatus). Objects are compared key by key;
 * arrays of equal length element by element, otherwise replaced whole (simple, and always correct).
 */
import type { JsonValue } from "../input/index.js";
import { jsonEquals, type JsonPatchOperation } from "./index.js";

/** RFC 6901 escaping of one reference token. */
function token(key: string | number): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObject(v: JsonValue | undefined): v is { [k: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The operations taking `from` to `to` (empty when they are equal). */
export function createJsonPatch(from: JsonValue, to: JsonValue): JsonPatchOperation[] {
  const ops: JsonPatchOperation[] = [];
  diff(from, to, "", ops);
  return ops;
}

function diff(a: JsonValue, b: JsonValue, at: string, ops: JsonPatchOperation[]): void {
  if (isObject(a) && isObject(b)) {
    for (const k of Object.keys(a)) {
      if (!Object.prototype.hasOwnProperty.call(b, k)) ops.push({ op: "remove", path: `${at}/${token(k)}` });
    }
    for (const k of Object.keys(b)) {
      const p = `${at}/${token(k)}`;
      if (!Object.prototype.hasOwnProperty.call(a, k)) ops.push({ op: "add", path: p, value: b[k]! });
      else diff(a[k]!, b[k]!, p, ops);
    }
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    for (let i = 0; i < a.length; i++) diff(a[i]!, b[i]!, `${at}/${i}`, ops);
    return;
  }
  if (!jsonEquals(a, b)) ops.push({ op: "replace", path: at, value: b });
}
