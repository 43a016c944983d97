/**
 * Kubernetes objects as the commands read them: from JSON or YAML text (a `List` flattened, as
 * `kubectl get -o yaml` prints it), pods picked out, and the definition that matches an object.
 */
import { parseAllDocuments } from "yaml";
import type { Definition } from "../definition/index.js";
import { apiVersionOf } from "../interpret/index.js";

/** Input that cannot be read or understood: reported as `file: message`. */
export class InputError extends Error {}

/** The objects in a text: JSON (one value or several), or YAML documents; `List`s are flattened. */
export function parseObjects(text: string, name: string): unknown[] {
  const trimmed = text.trimStart();
  let values: unknown[] | undefined;
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      const v = JSON.parse(text) as unknown;
      values = Array.isArray(v) ? v : [v];
    } catch {
      values = undefined; // several JSON values or YAML flow style: the YAML reader takes it
    }
  }
  if (values === undefined) {
    values = [];
    for (const doc of parseAllDocuments(text)) {
      if (doc.errors.length > 0) throw new InputError(`${name}: ${doc.errors[0]!.message}`);
      const v = doc.toJS({ maxAliasCount: 1000 }) as unknown;
      if (v === null || v === undefined) continue;
      values.push(v);
    }
  }
  const out: unknown[] = [];
  const flatten = (v: unknown): void => {
    if (v !== null && typeof v === "object" && !Array.isArray(v) && typeof (v as { kind?: unknown }).kind === "string" && /List$/.test((v as { kind: string }).kind) && Array.isArray((v as { items?: unknown }).items)) {
      for (const item of (v as { items: unknown[] }).items) flatten(item);
    } else out.push(v);
  };
  for (const v of values) flatten(v);
  return out;
}

/** Whether a value looks like a pod (a Pod, or an object without a kind). */
export function isPodLike(v: unknown): boolean {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const kind = (v as { kind?: unknown }).kind;
  return kind === undefined || kind === "Pod";
}

/** With several definitions in the file, the one whose root kind is the object's. */
export function pickDefinition(definitions: Definition[], object: unknown): Definition {
  if (definitions.length === 1) return definitions[0]!;
  const o = (object ?? {}) as { apiVersion?: unknown; kind?: unknown };
  const hit = definitions.find((d) => {
    const k = d.karta.spec?.structureDefinition?.rootComponent?.kind;
    return k !== undefined && k.kind === o.kind && apiVersionOf(k) === o.apiVersion;
  });
  return hit ?? definitions[0]!;
}
