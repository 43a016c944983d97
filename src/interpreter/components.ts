/**
 * ReviseComponents' input checked against the components an interpreter reports: Karmada's scheduler
 * passes the full per-cluster assignment (one TargetComponent per Component of the InterpretComponent
 * result, matched by name), as the FlinkDeployment script of Karmada PR #7830 requires. A name the
 * workload does not have, a name given twice or a component left out is an error, not a guess.
 */
import { fieldErrorToString, invalid, required } from "../scheduling/fielderrors.js";
import type { TargetComponent } from "./types.js";

const INT32_MAX = 2 ** 31 - 1;

/**
 * What is wrong with a replica count Karmada passes (ReviseReplica's, a TargetComponent's): an int32,
 * not negative, worded as the API server words a field error at `path`; undefined when it is one.
 * Absent or null is a Required value: a missing count is no reason to scale to 0.
 */
export function replicaCountError(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return fieldErrorToString(required(path));
  if (typeof v !== "number" || !Number.isInteger(v)) return fieldErrorToString(invalid(path, v, "must be an integer"));
  if (v < 0) return fieldErrorToString(invalid(path, v, "must be greater than or equal to 0"));
  if (v > INT32_MAX) return fieldErrorToString(invalid(path, v, `must be less than or equal to ${INT32_MAX}`));
  return undefined;
}

/** The assigned replicas by component name, or what is wrong with the assignment. */
export function assignmentByName(components: readonly TargetComponent[] | undefined | null, known: readonly string[]): { ok: true; replicas: Map<string, number> } | { ok: false; error: string } {
  const replicas = new Map<string, number>();
  const list = components ?? [];
  for (const [i, c] of list.entries()) {
    const name = typeof c?.name === "string" ? c.name : "";
    if (name === "") return { ok: false, error: `components[${i}].name: Required value` };
    const n = c.replicas;
    const bad = replicaCountError(n, `components[${i}].replicas`);
    if (bad !== undefined) return { ok: false, error: bad };
    if (!known.includes(name)) return { ok: false, error: `components[${i}].name: unknown component ${JSON.stringify(name)}; the workload's components are ${known.map((k) => JSON.stringify(k)).join(", ") || "none"}` };
    if (replicas.has(name)) return { ok: false, error: `components[${i}].name: duplicate component ${JSON.stringify(name)}` };
    replicas.set(name, n);
  }
  const missing = known.filter((k) => !replicas.has(k));
  if (missing.length > 0) return { ok: false, error: `missing component${missing.length > 1 ? "s" : ""} ${missing.map((k) => JSON.stringify(k)).join(", ")}: the assignment must list every component` };
  return { ok: true, replicas };
}
