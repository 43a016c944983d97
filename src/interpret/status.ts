/**
 * The generic status of a workload: every status whose matchers hold, as the reference evaluates
 * them (matchers of one status OR'd; byPhase, byConditions and byExpression of one matcher AND'd;
 * an absent condition does not match; nothing matched is `Undefined`).
 */
import type { Diagnostic } from "../definition/index.js";
import { toJson } from "../jq/native/json.js";
import type { CompiledMatcher, CompiledStatus } from "./compile.js";
import type { GenericStatus, ObservedCondition, StatusMatch, StatusResult } from "./types.js";
import { isObject } from "./plain.js";

/** jq's `tostring`: strings as they are, anything else as compact JSON. */
function jqToString(v: unknown): string {
  return typeof v === "string" ? v : toJson(v);
}

/** Evaluates the root's status definition on the object. */
export function evaluateStatus(status: CompiledStatus | undefined, object: unknown, diagnostics: Diagnostic[]): StatusResult {
  const result: StatusResult = { statuses: [], matches: [], conditions: [] };
  if (!status) {
    result.statuses = ["Undefined"];
    return result;
  }
  let phase: string | undefined;
  if (status.phase) {
    const r = status.phase.first(object);
    if (!r.ok) diagnostics.push({ severity: "error", path: status.phase.path, message: `failed to extract phase: ${r.error}`, code: "jq-eval" });
    else if (typeof r.value === "string") phase = r.value;
    // null decodes into the reference's string as "" (a phase not yet written); no value leaves none.
    else if (r.value === null) phase = "";
    else if (r.value !== undefined) {
      diagnostics.push({ severity: "error", path: status.phase.path, message: `phase must be a string, got ${JSON.stringify(r.value)}${status.phase.objectFields(object)(0)}`, code: "status" });
    }
  }
  if (phase !== undefined) result.phase = phase;

  const byType = new Map<string, ObservedCondition>();
  if (status.conditions) {
    const r = status.conditions.run(object);
    if (!r.ok) diagnostics.push({ severity: "error", path: status.conditions.path, message: `failed to extract conditions: ${r.error}`, code: "jq-eval" });
    else {
      const field = status.conditions.objectFields(object, r.values.length);
      for (const [i, list] of r.values.entries()) {
        if (list === null) continue;
        if (!Array.isArray(list)) {
          diagnostics.push({ severity: "error", path: status.conditions.path, message: `conditions must be a list, got ${JSON.stringify(list)}${field(i)}`, code: "status" });
          continue;
        }
        for (const [j, element] of list.entries()) {
          // The reference decodes each element into a map: null is an empty one (a condition of type ""),
          // anything else but an object fails its status.
          if (element !== null && !isObject(element)) {
            diagnostics.push({ severity: "error", path: status.conditions.path, message: `conditions[${j}] must be an object, got ${JSON.stringify(element)}${field(i)}`, code: "status" });
            continue;
          }
          const raw: Record<string, unknown> = element ?? {};
          const c: ObservedCondition = { type: typeof raw[status.typeField] === "string" ? (raw[status.typeField] as string) : "" };
          const st = raw[status.statusField];
          if (typeof st === "string") c.status = st;
          if (status.reasonField !== undefined && typeof raw[status.reasonField] === "string") c.reason = raw[status.reasonField] as string;
          if (status.messageField !== undefined && typeof raw[status.messageField] === "string" && raw[status.messageField] !== "") c.message = raw[status.messageField] as string;
          result.conditions.push(c);
          // A later condition of the same type wins, as in the reference's map.
          byType.set(c.type, c);
        }
      }
    }
  }

  // One expression shared by several mappings (a YAML alias) that fails on this object is one error, not one per mapping.
  const failed: Failed = {};
  for (const mapping of status.mappings) {
    for (const m of mapping.matchers) {
      const match = matches(m, phase, byType, object, diagnostics, failed);
      if (match) {
        const entry: StatusMatch = { status: mapping.status, path: m.path, matcher: m.matcher };
        if (match.length > 0) entry.conditions = match;
        if (m.matcher.byPhase) entry.phase = phase!;
        result.matches.push(entry);
        break;
      }
    }
  }
  for (const { diagnostic, more } of failed.byKey?.values() ?? []) if (more > 0) diagnostic.message += ` (and in ${more} more status mapping${more === 1 ? "" : "s"} with the same expression)`;
  const statuses: GenericStatus[] = result.matches.map((m) => m.status);
  result.statuses = statuses.length > 0 ? statuses : ["Undefined"];
  return result;
}

/** The status expressions that failed on this object, by text and error (made on the first failure). */
interface Failed {
  byKey?: Map<string, { diagnostic: Diagnostic; more: number }>;
}

/** The observed conditions the matcher required when it holds, undefined when it does not. */
function matches(
  { matcher, expression, comparison, path }: CompiledMatcher,
  phase: string | undefined,
  byType: Map<string, ObservedCondition>,
  object: unknown,
  diagnostics: Diagnostic[],
  failed: Failed,
): ObservedCondition[] | undefined {
  if (!matcher) return undefined;
  if (matcher.byPhase) {
    if (phase === undefined || phase !== matcher.byPhase) return undefined;
  }
  const observed: ObservedCondition[] = [];
  for (const expected of matcher.byConditions ?? []) {
    const actual = byType.get(expected.type);
    if (!actual) return undefined;
    if (expected.status && expected.status !== (actual.status ?? "")) return undefined;
    if (expected.reason && expected.reason !== (actual.reason ?? "")) return undefined;
    observed.push(actual);
  }
  if (matcher.byExpression && expression) {
    // A comparison that does not compile answers its parse error (the reference's failure to evaluate).
    const r = (comparison ?? expression).first(object);
    if (!r.ok) {
      const key = `${expression.text}\0${r.error}`;
      const earlier = failed.byKey?.get(key);
      if (earlier) earlier.more++;
      else {
        const diagnostic: Diagnostic = { severity: "error", path: `${path}.byExpression.expression`, message: `failed to evaluate ByExpression: ${r.error}`, code: "jq-eval" };
        diagnostics.push(diagnostic);
        (failed.byKey ??= new Map()).set(key, { diagnostic, more: 0 });
      }
      return undefined;
    }
    if (comparison) {
      if (r.value === true) return observed;
      if (r.value === undefined || r.value === null || r.value === false) return undefined;
      diagnostics.push({ severity: "error", path: `${path}.byExpression.expression`, message: `failed to evaluate ByExpression: expression comparison did not return a boolean, got ${JSON.stringify(r.value)}`, code: "status" });
      return undefined;
    }
    if (r.value === undefined || jqToString(r.value) !== matcher.byExpression.expectedResult) return undefined;
  }
  return observed;
}
