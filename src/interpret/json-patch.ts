/** Applying an RFC 6902 JSON Patch (add, replace, remove, test) to a copy of a document. */
import type { JsonPatchOperation } from "./types.js";

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new Error(`invalid JSON Pointer '${pointer}'`);
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The patched copy of `document`, or the first failing operation's error. Never modifies its input. */
export function applyJsonPatch(document: unknown, patch: readonly JsonPatchOperation[]): { ok: true; value: unknown } | { ok: false; error: string } {
  let doc: unknown = structuredClone(document);
  for (const [i, op] of patch.entries()) {
    try {
      const tokens = parsePointer(op.path);
      if (tokens.length === 0) {
        if (op.op === "add" || op.op === "replace") doc = structuredClone(op.value);
        else if (op.op === "test" && JSON.stringify(doc) !== JSON.stringify(op.value)) throw new Error("test failed");
        else if (op.op === "remove") doc = undefined;
        continue;
      }
      let parent: unknown = doc;
      for (const t of tokens.slice(0, -1)) {
        if (Array.isArray(parent)) parent = parent[Number(t)];
        else if (parent !== null && typeof parent === "object") parent = (parent as Record<string, unknown>)[t];
        else parent = undefined;
        if (parent === undefined || parent === null || typeof parent !== "object") throw new Error(`path ${op.path} does not exist`);
      }
      const last = tokens[tokens.length - 1]!;
      if (Array.isArray(parent)) {
        const index = last === "-" ? parent.length : Number(last);
        if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new Error(`index ${last} out of range`);
        if (op.op === "add") parent.splice(index, 0, structuredClone(op.value));
        else if (index >= parent.length) throw new Error(`path ${op.path} does not exist`);
        else if (op.op === "replace") parent[index] = structuredClone(op.value);
        else if (op.op === "remove") parent.splice(index, 1);
        else if (JSON.stringify(parent[index]) !== JSON.stringify(op.value)) throw new Error("test failed");
      } else {
        const obj = parent as Record<string, unknown>;
        if (op.op === "add") obj[last] = structuredClone(op.value);
        else if (!(last in obj)) throw new Error(`path ${op.path} does not exist`);
        else if (op.op === "replace") obj[last] = structuredClone(op.value);
        else if (op.op === "remove") delete obj[last];
        else if (JSON.stringify(obj[last]) !== JSON.stringify(op.value)) throw new Error("test failed");
      }
    } catch (err) {
      return { ok: false, error: `operation ${i} (${op.op} ${op.path}): ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  return { ok: true, value: doc };
}
