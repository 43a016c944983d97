/**
 * Resolving a jq path (a list of steps) against an OpenAPI v3 schema, as found in a CRD's
 * `openAPIV3Schema` or in our core/v1 Pod schema: properties, maps (`additionalProperties`), lists
 * (`items`), alternatives (`anyOf`/`oneOf`/`allOf`), subtrees kept as-is (`x-kubernetes-preserve-unknown-fields`)
 * and embedded objects whose schema was left out (a `template` that is a PodTemplateSpec, a `metadata`
 * that is an ObjectMeta).
 */
import type { Step } from "./jq-analysis.js";
import { closest } from "./suggest.js";

export interface OpenApiSchema {
  type?: string;
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  additionalProperties?: boolean | OpenApiSchema;
  items?: OpenApiSchema;
  required?: string[];
  anyOf?: OpenApiSchema[];
  oneOf?: OpenApiSchema[];
  allOf?: OpenApiSchema[];
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  [extension: string]: unknown;
}

/** Schemas used when a CRD leaves an embedded object's schema out. */
export interface EmbeddedSchemas {
  objectMeta: OpenApiSchema;
  podTemplateSpec: OpenApiSchema;
}

export type Resolution =
  /** Every step exists. `optional`: the last named field is not in its parent's `required`. */
  | { status: "ok"; optional: boolean; schema: OpenApiSchema }
  /** From step `at` on, the schema does not say (kept unknown fields, untyped object). */
  | { status: "open"; at: number }
  /** Step `at` does not exist; `suggestion` is the closest field there, `reason` why it fails. */
  | { status: "missing"; at: number; suggestion?: string; known: string[]; reason: "no-field" | "not-object" | "not-list" };

const EMBEDDED_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

/** Resolves `steps` in `schema`. */
export function resolvePath(schema: OpenApiSchema, steps: readonly Step[], embedded?: EmbeddedSchemas): Resolution {
  let current: OpenApiSchema[] = [schema];
  let optional = false;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    const alternatives = current.flatMap(expand);
    if (alternatives.some(isOpen)) {
      // An embedded object whose schema was left out: continue with the known schema of such objects.
      const name = i > 0 ? steps[i - 1] : undefined;
      if (embedded && name?.type === "field" && name.name === "template" && alternatives.every(isOpen)) {
        current = [embedded.podTemplateSpec];
        i--;
        continue;
      }
      if (embedded && name?.type === "field" && name.name === "metadata" && alternatives.every(isOpen)) {
        current = [embedded.objectMeta];
        i--;
        continue;
      }
      return { status: "open", at: i };
    }
    if (step.type === "field") {
      const next: OpenApiSchema[] = [];
      let isRequired = false;
      const known = new Set<string>();
      for (const alt of alternatives) {
        const prop = alt.properties?.[step.name];
        if (prop) {
          next.push(prop);
          // A field with a default is filled in by the API server: never absent.
          if (alt.required?.includes(step.name) || prop.default !== undefined) isRequired = true;
        } else if (alt["x-kubernetes-embedded-resource"] === true && EMBEDDED_FIELDS.has(step.name)) {
          // An embedded resource has apiVersion, kind and metadata even when its schema does not list them.
          next.push(step.name === "metadata" ? (embedded?.objectMeta ?? { type: "object" }) : { type: "string" });
        } else if (typeof alt.additionalProperties === "object") next.push(alt.additionalProperties);
        else if (alt["x-kubernetes-preserve-unknown-fields"] === true) next.push({ "x-kubernetes-preserve-unknown-fields": true });
        else if (alt.additionalProperties === true) next.push({ "x-kubernetes-preserve-unknown-fields": true });
        for (const k of Object.keys(alt.properties ?? {})) known.add(k);
      }
      if (next.length === 0) {
        const isObject = alternatives.some((a) => a.type === "object" || a.properties !== undefined || a.type === undefined);
        if (!isObject) return { status: "missing", at: i, known: [], reason: "not-object" };
        const suggestion = closest(step.name, known);
        return { status: "missing", at: i, known: [...known].sort(), reason: "no-field", ...(suggestion ? { suggestion } : {}) };
      }
      optional = !isRequired;
      current = next;
    } else {
      const next: OpenApiSchema[] = [];
      for (const alt of alternatives) {
        if (alt.items) next.push(alt.items);
        else if (step.type === "iterate" && typeof alt.additionalProperties === "object") next.push(alt.additionalProperties);
        else if (step.type === "iterate" && alt.additionalProperties === true) next.push({ "x-kubernetes-preserve-unknown-fields": true });
        else if (step.type === "iterate" && alt.properties) return { status: "open", at: i + 1 };
      }
      if (next.length === 0) return { status: "missing", at: i, known: [], reason: "not-list" };
      // An element of a list may be absent (index out of range) only for explicit indexes.
      optional = step.type === "index";
      current = next;
    }
  }
  return { status: "ok", optional, schema: current[0] ?? {} };
}

/** The alternatives a schema stands for (its own shape merged with allOf, plus anyOf/oneOf branches). */
function expand(s: OpenApiSchema): OpenApiSchema[] {
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? [])];
  const own: OpenApiSchema = { ...s };
  for (const a of s.allOf ?? []) {
    own.properties = { ...(own.properties ?? {}), ...(a.properties ?? {}) };
    if (a.items && !own.items) own.items = a.items;
    if (a.additionalProperties !== undefined && own.additionalProperties === undefined) own.additionalProperties = a.additionalProperties;
  }
  const ownHasShape = own.properties !== undefined || own.items !== undefined || own.additionalProperties !== undefined || own.type !== undefined;
  const ownOpen = own["x-kubernetes-preserve-unknown-fields"] === true;
  return ownHasShape || ownOpen || branches.length === 0 ? [own, ...branches.flatMap(expand)] : branches.flatMap(expand);
}

/** A schema that says nothing about what is inside: anything may be there. */
function isOpen(s: OpenApiSchema): boolean {
  if (s["x-kubernetes-preserve-unknown-fields"] === true && !s.properties && !s.items && !s.additionalProperties) return true;
  if (s["x-kubernetes-int-or-string"] === true) return false;
  const hasShape = s.properties !== undefined || s.items !== undefined || s.additionalProperties !== undefined;
  return !hasShape && (s.type === "object" || s.type === undefined);
}
