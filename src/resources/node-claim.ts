/**
 * The node constraints of a pod spec as Karmada's NodeClaim (helper.GenerateNodeClaimByPodSpec):
 * nodeSelector, tolerations and the required node affinity. Absent when all three are absent.
 */
import { asObject, podSpecOf } from "./pod-spec.js";
import type { NodeClaim } from "./types.js";

/** Drops null and undefined members (Go's typed round trip never writes them). */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== null && x !== undefined).map(withoutNulls);
  const o = asObject(v);
  if (!o) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) if (x !== null && x !== undefined) out[k] = withoutNulls(x);
  return out;
}

/** A toleration as Go writes it: every field is `omitempty`. */
function normalizeToleration(t: unknown): Record<string, unknown> {
  const o = asObject(withoutNulls(t)) ?? {};
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) if (x !== "") out[k] = x;
  return out;
}

/**
 * The NodeClaim of a pod template or pod spec, or undefined when it has no nodeSelector, no
 * tolerations and no required node affinity. As in Karmada, an empty but present nodeSelector or
 * required affinity still yields a (possibly empty) claim, and empty fields are left out.
 */
export function nodeClaim(templateOrSpec: unknown): NodeClaim | undefined {
  const { spec } = podSpecOf(templateOrSpec);
  const selector = asObject(spec["nodeSelector"]);
  const tolerations = Array.isArray(spec["tolerations"]) ? (spec["tolerations"] as unknown[]).filter((t) => t !== null) : [];
  const required = asObject(asObject(asObject(spec["affinity"])?.["nodeAffinity"])?.["requiredDuringSchedulingIgnoredDuringExecution"]);
  if (selector === undefined && required === undefined && tolerations.length === 0) return undefined;
  const claim: NodeClaim = {};
  if (required !== undefined) claim.hardNodeAffinity = withoutNulls(required) as Record<string, unknown>;
  if (selector !== undefined && Object.keys(selector).length > 0) {
    const sel: Record<string, string> = {};
    for (const [k, v] of Object.entries(selector)) sel[k] = typeof v === "string" ? v : String(v ?? "");
    claim.nodeSelector = sel;
  }
  if (tolerations.length > 0) claim.tolerations = tolerations.map(normalizeToleration);
  return claim;
}
