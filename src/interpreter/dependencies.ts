/**
 * Checking and ordering the DependentObjectReferences an InterpretDependency returns, as Karmada does
 * for every layer: its validation (apiVersion, kind, a name or a valid label selector) and its order.
 */
import type { DependentObjectReference } from "./types.js";

/** validation.VerifyDependencies: apiVersion, kind, and a name or a label selector are required. */
export function verifyDependencies(refs: readonly DependentObjectReference[]): string | undefined {
  const errs: string[] = [];
  refs.forEach((ref, i) => {
    const p = `dependencies[${i}]`;
    if (!ref.apiVersion) errs.push(`${p}.apiVersion: Invalid value: "": missing required apiVersion`);
    if (!ref.kind) errs.push(`${p}.kind: Invalid value: "": missing required kind`);
    if (!ref.name && ref.labelSelector === undefined) errs.push(`${p}: Invalid value: ${JSON.stringify(ref)}: dependency can not leave name and labelSelector all empty`);
    for (const [j, req] of (ref.labelSelector?.matchExpressions ?? []).entries()) {
      const q = `${p}.labelSelector.matchExpressions[${j}]`;
      const values = req.values ?? [];
      if ((req.operator === "In" || req.operator === "NotIn") && values.length === 0) errs.push(`${q}.values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`);
      else if ((req.operator === "Exists" || req.operator === "DoesNotExist") && values.length > 0) errs.push(`${q}.values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`);
      else if (!["In", "NotIn", "Exists", "DoesNotExist"].includes(req.operator)) errs.push(`${q}.operator: Invalid value: ${JSON.stringify(req.operator)}: not a valid selector operator`);
    }
  });
  if (errs.length === 0) return undefined;
  return errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`;
}

/** Karmada's order: apiVersion, kind, namespace, name. */
export function sortDependencies(refs: DependentObjectReference[]): DependentObjectReference[] {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return refs.sort((a, b) => cmp(a.apiVersion, b.apiVersion) || cmp(a.kind, b.kind) || cmp(a.namespace ?? "", b.namespace ?? "") || cmp(a.name ?? "", b.name ?? ""));
}
