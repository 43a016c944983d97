/**
 * Checking and ordering the DependentObjectReferences an InterpretDependency returns, as Karmada does
 * for every layer: its validation (apiVersion, kind, a name or a valid label selector) and its order.
 */
import { goQuote } from "../gofmt/index.js";
import { isLabelKey, isLabelValue } from "../names/index.js";
import { goStringCompare } from "../resources/index.js";
import type { DependentObjectReference } from "./types.js";

/**
 * validation.VerifyDependencies: apiVersion, kind, and a name or a label selector are required, and a
 * label selector must be valid (metav1 ValidateLabelSelector: its matchLabels' keys and values, then
 * each expression's operator, key and values). The errors aggregate as apimachinery's field errors do
 * (one alone as it is, several in brackets, repeats once). Karmada checks matchLabels in Go's random map
 * order; here, in key order.
 */
export function verifyDependencies(refs: readonly DependentObjectReference[]): string | undefined {
  const errs: string[] = [];
  const invalid = (path: string, value: string, msg: string): void => {
    errs.push(`${path}: Invalid value: ${goQuote(value)}: ${msg}`);
  };
  refs.forEach((ref, i) => {
    const p = `dependencies[${i}]`;
    if (!ref.apiVersion) invalid(`${p}.apiVersion`, "", "missing required apiVersion");
    if (!ref.kind) invalid(`${p}.kind`, "", "missing required kind");
    if (!ref.name && ref.labelSelector === undefined) errs.push(`${p}: Invalid value: ${JSON.stringify(ref)}: dependency can not leave name and labelSelector all empty`);
    const selector = ref.labelSelector;
    if (selector === undefined) return;
    const labels = `${p}.labelSelector.matchLabels`;
    for (const key of Object.keys(selector.matchLabels ?? {}).sort(goStringCompare)) {
      for (const msg of isLabelKey(key)) invalid(labels, key, msg);
      for (const msg of isLabelValue(selector.matchLabels![key]!)) invalid(labels, selector.matchLabels![key]!, msg);
    }
    for (const [j, req] of (selector.matchExpressions ?? []).entries()) {
      const q = `${p}.labelSelector.matchExpressions[${j}]`;
      const values = req.values ?? [];
      if (req.operator === "In" || req.operator === "NotIn") {
        if (values.length === 0) errs.push(`${q}.values: Required value: must be specified when \`operator\` is 'In' or 'NotIn'`);
      } else if (req.operator === "Exists" || req.operator === "DoesNotExist") {
        if (values.length > 0) errs.push(`${q}.values: Forbidden: may not be specified when \`operator\` is 'Exists' or 'DoesNotExist'`);
      } else {
        invalid(`${q}.operator`, req.operator, "not a valid selector operator");
      }
      for (const msg of isLabelKey(req.key)) invalid(`${q}.key`, req.key, msg);
      values.forEach((v, k) => {
        for (const msg of isLabelValue(v)) invalid(`${q}.values[${k}]`, v, msg);
      });
    }
  });
  const unique = [...new Set(errs)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(", ")}]`;
}

/** Karmada's order: apiVersion, kind, namespace, name. */
export function sortDependencies(refs: DependentObjectReference[]): DependentObjectReference[] {
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return refs.sort((a, b) => cmp(a.apiVersion, b.apiVersion) || cmp(a.kind, b.kind) || cmp(a.namespace ?? "", b.namespace ?? "") || cmp(a.name ?? "", b.name ?? ""));
}
