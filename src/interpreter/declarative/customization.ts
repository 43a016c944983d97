/**
 * ResourceInterpreterCustomization objects: reading them from YAML or JSON text (several documents,
 * or a List), checking their shape, and Karmada's merge of several customizations per target kind.
 */
import type { CustomizationRules, CustomizationTarget, JsonValue, Operation, ResourceInterpreterCustomization } from "../types.js";
import { parseYamlObjects } from "./yaml-documents.js";

/** A problem found in a customization file. */
export interface CustomizationIssue {
  /** The file (or other source name) the customization came from. */
  file: string;
  /** 1-based line of the document or error, when known. */
  line?: number;
  /** 1-based column of a YAML error, when the parser gives one. */
  column?: number;
  /** The text does not parse (YAML, nesting, aliases): unreadable input, not an invalid customization. */
  unreadable?: true;
  /** Field path inside the object (`spec.customizations.retention.luaScript`). */
  path: string;
  message: string;
}

/** The outcome of reading customizations: the valid ones and the problems, each naming its file. */
export interface CustomizationLoad {
  customizations: ResourceInterpreterCustomization[];
  issues: CustomizationIssue[];
}

/** The customization fields and the operation and Lua function each one defines. */
export const CUSTOMIZATION_RULES = [
  { field: "retention", operation: "Retain", fn: "Retain" },
  { field: "replicaResource", operation: "InterpretReplica", fn: "GetReplicas" },
  { field: "componentResource", operation: "InterpretComponent", fn: "GetComponents" },
  { field: "replicaRevision", operation: "ReviseReplica", fn: "ReviseReplica" },
  { field: "componentRevision", operation: "ReviseComponents", fn: "ReviseComponents" },
  { field: "statusReflection", operation: "InterpretStatus", fn: "ReflectStatus" },
  { field: "statusAggregation", operation: "AggregateStatus", fn: "AggregateStatus" },
  { field: "healthInterpretation", operation: "InterpretHealth", fn: "InterpretHealth" },
  { field: "dependencyInterpretation", operation: "InterpretDependency", fn: "GetDependencies" },
] as const satisfies readonly { field: keyof CustomizationRules; operation: Operation; fn: string }[];

const RIC_API_VERSION = "config.karmada.io/v1alpha1";
const RIC_KIND = "ResourceInterpreterCustomization";

/** Lua scripts per customization field (`healthInterpretation: "function InterpretHealth(obj) ... end"`). */
export type CustomizationScripts = Partial<Record<keyof CustomizationRules, string>>;

/** A ResourceInterpreterCustomization of one target kind holding these scripts. */
export function customizationOf(name: string, target: CustomizationTarget, scripts: CustomizationScripts): ResourceInterpreterCustomization {
  const customizations: CustomizationRules = {};
  for (const [field, luaScript] of Object.entries(scripts) as [keyof CustomizationRules, string | undefined][]) {
    if (luaScript !== undefined) customizations[field] = { luaScript };
  }
  return { apiVersion: RIC_API_VERSION, kind: RIC_KIND, metadata: { name }, spec: { target: { ...target }, customizations } };
}

function isObject(v: unknown): v is { [k: string]: JsonValue } {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Checks one decoded object and returns it typed, or the issues found. Accepts the fields Karmada's
 * CRD accepts; unknown customization fields are reported (they would be pruned silently otherwise).
 */
export function parseCustomizationObject(value: JsonValue, file: string, line?: number): { customization?: ResourceInterpreterCustomization; issues: CustomizationIssue[] } {
  const issues: CustomizationIssue[] = [];
  const issue = (path: string, message: string): void => {
    issues.push(line === undefined ? { file, path, message } : { file, line, path, message });
  };
  if (!isObject(value)) {
    issue("", "expected a ResourceInterpreterCustomization object");
    return { issues };
  }
  if (value.apiVersion !== RIC_API_VERSION) issue("apiVersion", `must be ${RIC_API_VERSION}, got ${JSON.stringify(value.apiVersion ?? null)}`);
  if (value.kind !== RIC_KIND) issue("kind", `must be ${RIC_KIND}, got ${JSON.stringify(value.kind ?? null)}`);
  const metadata = value.metadata;
  if (!isObject(metadata) || typeof metadata.name !== "string" || metadata.name === "") issue("metadata.name", "Required value");
  const spec = value.spec;
  if (!isObject(spec)) {
    issue("spec", "Required value");
    return { issues };
  }
  const target = spec.target;
  if (!isObject(target)) {
    issue("spec.target", "Required value");
  } else {
    if (typeof target.apiVersion !== "string" || target.apiVersion === "") issue("spec.target.apiVersion", "Required value");
    if (typeof target.kind !== "string" || target.kind === "") issue("spec.target.kind", "Required value");
  }
  const customizations = spec.customizations;
  if (!isObject(customizations)) {
    issue("spec.customizations", "Required value");
    return { issues };
  }
  const known = new Set<string>(CUSTOMIZATION_RULES.map((r) => r.field));
  for (const [field, rule] of Object.entries(customizations)) {
    const path = `spec.customizations.${field}`;
    if (!known.has(field)) {
      issue(path, `unknown field "${field}"; expected one of ${[...known].join(", ")}`);
      continue;
    }
    if (rule === null) continue;
    if (!isObject(rule)) {
      issue(path, "must be an object with a luaScript");
      continue;
    }
    if (typeof rule.luaScript !== "string") issue(`${path}.luaScript`, "Required value: must be a string");
  }
  if (issues.length > 0) return { issues };
  return { customization: value as unknown as ResourceInterpreterCustomization, issues };
}

/**
 * Reads customizations from YAML or JSON text with any number of documents; a document may also be a
 * list (`kind: List` or `ResourceInterpreterCustomizationList`) with `items`. Empty documents are
 * skipped. Problems name `file` and the document's line.
 */
export function parseCustomizations(text: string, file: string): CustomizationLoad {
  const out: CustomizationLoad = { customizations: [], issues: [] };
  const { objects, errors } = parseYamlObjects(text);
  for (const err of errors) out.issues.push({ file, line: err.line, ...(err.column !== undefined ? { column: err.column } : {}), path: "", message: err.message, unreadable: true });
  for (const { value, line } of objects) {
    const { customization, issues } = parseCustomizationObject(value, file, line);
    out.issues.push(...issues);
    if (customization) out.customizations.push(customization);
  }
  return out;
}

/** The scripts in effect for one target kind after merging. */
export interface MergedRules {
  apiVersion: string;
  kind: string;
  /** Script per customization field (not dependencyInterpretation); absent or "" when none. */
  scripts: Partial<Record<Exclude<keyof CustomizationRules, "dependencyInterpretation">, string>>;
  /** Every non-empty dependency script, in customization-name order. */
  dependencyScripts: string[];
  /** Names of the customizations merged, in order. */
  sources: string[];
}

/** The key of a target kind. */
export function targetKey(apiVersion: string, kind: string): string {
  return `${apiVersion}\u0000${kind}`;
}

/**
 * Karmada's merge: customizations sorted by name; for each target kind and each operation the first
 * non-empty script wins; dependency scripts are all kept, in that order.
 */
export function mergeCustomizations(customizations: readonly ResourceInterpreterCustomization[]): Map<string, MergedRules> {
  const sorted = [...customizations].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  const merged = new Map<string, MergedRules>();
  for (const ric of sorted) {
    const { apiVersion, kind } = ric.spec.target;
    const key = targetKey(apiVersion, kind);
    let rules = merged.get(key);
    if (!rules) {
      rules = { apiVersion, kind, scripts: {}, dependencyScripts: [], sources: [] };
      merged.set(key, rules);
    }
    rules.sources.push(ric.metadata.name);
    const c = ric.spec.customizations;
    for (const { field } of CUSTOMIZATION_RULES) {
      const script = c[field]?.luaScript;
      if (script === undefined || script === "") continue;
      if (field === "dependencyInterpretation") rules.dependencyScripts.push(script);
      else if (!rules.scripts[field]) rules.scripts[field] = script;
    }
  }
  return merged;
}

/**
 * What Karmada's admission webhook rejects: two customizations for the same target that both define
 * a script for the same operation (dependency interpretation excepted). Reported as issues; the merge
 * still applies (the first by name wins), as it does at run time.
 */
export function findConflicts(customizations: readonly ResourceInterpreterCustomization[], fileOf: (name: string) => string = () => ""): CustomizationIssue[] {
  const issues: CustomizationIssue[] = [];
  const seen = new Map<string, string>();
  const sorted = [...customizations].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
  for (const ric of sorted) {
    for (const { field, operation } of CUSTOMIZATION_RULES) {
      if (field === "dependencyInterpretation") continue;
      if (!ric.spec.customizations[field]?.luaScript) continue;
      const key = `${targetKey(ric.spec.target.apiVersion, ric.spec.target.kind)}\u0000${field}`;
      const first = seen.get(key);
      if (first === undefined) {
        seen.set(key, ric.metadata.name);
      } else {
        issues.push({
          file: fileOf(ric.metadata.name),
          path: `spec.customizations.${field}`,
          message: `conflicting with InterpreterOperation(${operation}) of existing ResourceInterpreterCustomization(${first})`,
        });
      }
    }
  }
  return issues;
}
