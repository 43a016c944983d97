/**
 * The resource (plural) name of a kind when no CRD says it: the plural the CRD generators (kubebuilder's
 * controller-gen) give a kind, which the operators' CRDs carry: lowercase, English rules (`s`, `x`, `z`,
 * `ch`, `sh` -> `es`; a consonant and `y` -> `ies`; otherwise `s`): Sandbox -> sandboxes, NetworkPolicy ->
 * networkpolicies, Gateway -> gateways.
 */
export function guessedResource(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}
