/**
 * Decoding a plain object into a typed Karta, driven by the schema table: unknown fields (which the
 * reference controller silently drops) and values of the wrong type are reported, with a did-you-mean,
 * and left out of the result so that later checks can trust the types. Repeated items of the CRD's
 * map and set lists are reported as the API server reports them (see list-type.ts).
 */
import { formatPath, type Diagnostic, type PathSegment } from "./diagnostic.js";
import { duplicateItems } from "./list-type.js";
import { typeSpec, type FieldType, type ObjectSpec } from "./schema-source.js";
import { closest, editDistance } from "./suggest.js";

/** A decoding diagnostic with its path still in segments (the loader turns it into a position). */
export interface DecodeIssue {
  path: PathSegment[];
  /** Report at the key rather than the value (unknown fields). */
  atKey?: boolean;
  diagnostic: Diagnostic;
}

/** Field names users write from old docs or other tools, with what to write instead. */
const KNOWN_MISTAKES: Record<string, string> = {
  ownerName: 'unknown field "ownerName"; did you mean "ownerRef"?',
  owner: 'unknown field "owner"; did you mean "ownerRef"?',
  fragmentedPodDefinition: 'unknown field "fragmentedPodDefinition"; did you mean "fragmentedPodSpecDefinition"?',
  referencedComponents:
    'unknown field "referencedComponents": not a Karta field; a child component names its parent with ownerRef',
  podTemplatePath: 'unknown field "podTemplatePath"; did you mean "podTemplateSpecPath"?',
};

/** Fields whose absence a validation rule reports in the reference's words; decoding does not report them too. */
const ABSENCE_REPORTED_BY_RULES = new Set(["ComponentDefinition.name"]);

/** Decodes `value` as the named object type. Returns the typed value (or undefined when unusable) and the issues. */
export function decodeObject(value: unknown, typeName: string, path: PathSegment[], issues: DecodeIssue[]): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) {
    issues.push(typeIssue(path, "an object", value));
    return undefined;
  }
  const spec: ObjectSpec = typeSpec(typeName);
  const out: Record<string, unknown> = {};
  for (const [key, fieldValue] of Object.entries(value)) {
    const field = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
    if (!field) {
      if (spec.open) setOwn(out, key, fieldValue);
      else issues.push(typeName === "StatusMappings" ? unknownStatus(path, key, Object.keys(spec.fields)) : unknownField(path, key, Object.keys(spec.fields)));
      continue;
    }
    if (fieldValue === null && field.type.type !== "any") {
      // YAML `field:` with nothing after it: JSON null, which Go decodes as absent.
      continue;
    }
    const decoded = decodeValue(fieldValue, field.type, [...path, key], issues);
    if (decoded !== undefined) setOwn(out, key, decoded);
  }
  for (const [key, field] of Object.entries(spec.fields)) {
    if (field.required && !(key in value && value[key] !== null) && !ABSENCE_REPORTED_BY_RULES.has(`${typeName}.${key}`)) {
      issues.push({
        path,
        diagnostic: { severity: "error", path: formatPath(path), message: `missing required field "${key}"`, code: "required-field" },
      });
    }
  }
  return out;
}

function decodeValue(value: unknown, type: FieldType, path: PathSegment[], issues: DecodeIssue[]): unknown {
  switch (type.type) {
    case "any":
      return value;
    case "string":
      if (typeof value === "string") {
        if (type.minLength !== undefined && value.length < type.minLength) {
          issues.push({ path, diagnostic: { severity: "error", path: formatPath(path), message: "must not be empty", code: "empty-value" } });
          return undefined;
        }
        if (type.enum && !type.enum.includes(value)) {
          issues.push({
            path,
            diagnostic: {
              severity: "error",
              path: formatPath(path),
              message: `must be ${type.enum.map((e) => JSON.stringify(e)).join(" or ")}, not ${JSON.stringify(value)}`,
              code: "enum",
            },
          });
          return undefined;
        }
        return value;
      }
      if (type.jsonText && value !== undefined) {
        // Karta's CRD took any JSON value here before it followed upstream's string: such a Karta still loads.
        const text = JSON.stringify(value);
        issues.push({ path, diagnostic: { severity: "warning", path: formatPath(path), message: `expected JSON text in a string, as upstream's CRD types it, got ${describe(value)}; read as ${JSON.stringify(text)} (write it so: upstream cannot decode the value)`, code: "json-text" } });
        return text;
      }
      issues.push(typeIssue(path, "a string", value));
      // Read on as the quoted text the message suggests, so that later checks do not add errors of their own (an "empty" name).
      return typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;
    case "integer":
      if (typeof value === "number" && Number.isInteger(value)) return value;
      issues.push(typeIssue(path, "an integer", value));
      return undefined;
    case "boolean":
      if (typeof value === "boolean") return value;
      issues.push(typeIssue(path, "a boolean", value));
      return undefined;
    case "object":
      return decodeObject(value, type.ref, path, issues);
    case "array": {
      if (!Array.isArray(value)) {
        issues.push(typeIssue(path, "a list", value));
        return undefined;
      }
      if (type.minItems !== undefined && value.length < type.minItems) {
        issues.push({
          path,
          diagnostic: { severity: "error", path: formatPath(path), message: `must have at least ${type.minItems} item${type.minItems === 1 ? "" : "s"}`, code: "empty-value" },
        });
      }
      const out: unknown[] = [];
      value.forEach((item, i) => {
        const decoded = decodeValue(item, type.items, [...path, i], issues);
        // Keep the indexes aligned with the source, so that paths stay right for later checks.
        out.push(decoded);
      });
      // On the items as written, as the API server checks them (a wrong-typed key still counts).
      if (type.listMapKey !== undefined || type.listType === "set") {
        const keys = type.listMapKey === undefined ? undefined : [type.listMapKey].flat();
        for (const d of duplicateItems(value, keys)) {
          const at = [...path, d.index];
          issues.push({ path: at, diagnostic: { severity: "error", path: formatPath(at), message: d.message, code: "duplicate-value" } });
        }
      }
      return out;
    }
    case "map": {
      if (!isPlainObject(value)) {
        issues.push(typeIssue(path, "a map", value));
        return undefined;
      }
      if (type.minProperties !== undefined && Object.keys(value).length < type.minProperties) {
        issues.push({ path, diagnostic: { severity: "error", path: formatPath(path), message: "must not be empty", code: "empty-value" } });
      }
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        const decoded = decodeValue(v, type.values, [...path, k], issues);
        if (decoded !== undefined) setOwn(out, k, decoded);
      }
      return out;
    }
  }
}

/** Sets a key as an own property, `__proto__` included (user YAML may hold any key). */
function setOwn(o: Record<string, unknown>, key: string, v: unknown): void {
  Object.defineProperty(o, key, { value: v, enumerable: true, writable: true, configurable: true });
}

function unknownField(path: PathSegment[], key: string, known: string[]): DecodeIssue {
  const fieldPath = [...path, key];
  let message = Object.hasOwn(KNOWN_MISTAKES, key) ? KNOWN_MISTAKES[key] : undefined;
  if (!message || (key === "ownerName" && !known.includes("ownerRef")) || (key === "fragmentedPodDefinition" && !known.includes("fragmentedPodSpecDefinition"))) {
    const guess = closest(key, known);
    message = guess ? `unknown field "${key}"; did you mean "${guess}"?` : `unknown field "${key}" (known fields: ${known.join(", ")})`;
  }
  return { path: fieldPath, atKey: true, diagnostic: { severity: "error", path: formatPath(fieldPath), message, code: "unknown-field" } };
}

/**
 * A statusMappings key that is not a status of the published Karta CRD (upstream's catalog once used
 * `pending` and `progressing`): refused as the API server refuses it, naming the statuses it accepts and
 * the closest of them.
 */
function unknownStatus(path: PathSegment[], key: string, known: string[]): DecodeIssue {
  const fieldPath = [...path, key];
  let nearest = known[0]!;
  for (const k of known) if (editDistance(key, k) < editDistance(key, nearest)) nearest = k;
  const message = `unknown status "${key}": the published Karta CRD (run.ai/v1alpha1) accepts ${known.join(", ")}; the closest is "${nearest}"`;
  return { path: fieldPath, atKey: true, diagnostic: { severity: "error", path: formatPath(fieldPath), message, code: "unknown-status" } };
}

function typeIssue(path: PathSegment[], expected: string, value: unknown): DecodeIssue {
  let message = `expected ${expected}, got ${describe(value)}`;
  if (expected === "a string" && (typeof value === "number" || typeof value === "boolean")) {
    message += `; quote it: "${String(value)}"`;
  }
  return { path, diagnostic: { severity: "error", path: formatPath(path), message, code: "type" } };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "boolean") return `the boolean ${value}`;
  return typeof value;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
