/**
 * ReviseComponents' input checked against the components an interpreter reports: Karmada's scheduler
 * passes the full per-cluster assignment (one TargetComponent per Component of the InterpretComponent
 * result, matched by name), as the FlinkDeployment script of Karmada PR #7830 requires. A name the
 * workload does not have, a name given twice or a component left out is an error, not a guess.
 */
import type { TargetComponent } from "./types.js";

/** The assigned replicas by component name, or what is wrong with the assignment. */
export function assignmentByName(components: readonly TargetComponent[] | undefined | null, known: readonly string[]): { ok: true; replicas: Map<string, number> } | { ok: false; error: string } {
  const replicas = new Map<string, number>();
  const list = components ?? [];
  for (const [i, c] of list.entries()) {
    const name = typeof c?.name === "string" ? c.name : "";
    if (name === "") return { ok: false, error: `components[${i}].name: Required value` };
    const n = c.replicas;
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > 2 ** 31 - 1) return { ok: false, error: `components[${i}].replicas: must be an integer from 0 to 2147483647, got ${JSON.stringify(n)}` };
    if (!known.includes(name)) return { ok: false, error: `components[${i}].name: unknown component ${JSON.stringify(name)}; the workload's components are ${known.map((k) => JSON.stringify(k)).join(", ") || "none"}` };
    if (replicas.has(name)) return { ok: false, error: `components[${i}].name: duplicate component ${JSON.stringify(name)}` };
    replicas.set(name, n);
  }
  const missing = known.filter((k) => !replicas.has(k));
  if (missing.length > 0) return { ok: false, error: `missing component${missing.length > 1 ? "s" : ""} ${missing.map((k) => JSON.stringify(k)).join(", ")}: the assignment must list every component` };
  return { ok: true, replicas };
}
