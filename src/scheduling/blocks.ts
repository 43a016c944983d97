/**
 * Declarative validation of the Workload API's building blocks, as the generated validators of
 * `k8s.io/api/scheduling/v1alpha3` (`Validate_WorkloadPodGroupSchedulingPolicy` and the rest) and
 * apimachinery's `validate` package check them: unions with exactly one member (not re-checked on an
 * update whose old object had the same members set), counts of at least 1, at most one topology
 * constraint with a label key, claims with a DNS-label name and exactly one DNS-subdomain reference.
 * On an update a field equal to its old value (when the old object is there to compare with) is not
 * validated again (ratcheting).
 *
 * Also the `validate` primitives the Job API and the Workload API wrap around them: set-once and
 * immutable fields, item limits, lists keyed by name.
 */

import { childPath, duplicate, indexPath, invalid, required, tooMany, type FieldError, type FieldPath } from "./fielderrors.js";
import { isDNS1123Label, isDNS1123Subdomain, isLabelKey } from "../names/index.js";
import { MAX_POD_GROUP_RESOURCE_CLAIMS, MAX_TOPOLOGY_CONSTRAINTS, type TopologyConstraint, type WorkloadPodGroupResourceClaim } from "./types.js";

/** The operation being validated: `update` when there is an old object. */
export interface Operation {
  update: boolean;
}
export const CREATE: Operation = { update: false };
export const UPDATE: Operation = { update: true };

/** JSON-like value as Go decodes it: null is absent. */
function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/**
 * `equality.Semantic.DeepEqual` over decoded JSON: absent (or null) and an empty list are the same
 * (a nil and an empty slice), absent and `{}` are not (a nil pointer and a pointer to a zero struct).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  const norm = (v: unknown) => (v === null || (Array.isArray(v) && v.length === 0) ? undefined : v);
  const x = norm(a);
  const y = norm(b);
  if (x === y) return true;
  if (x === undefined || y === undefined || typeof x !== "object" || typeof y !== "object") return false;
  if (Array.isArray(x) !== Array.isArray(y)) return false;
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => semanticEqual(v, y[i]));
  const xo = x as Record<string, unknown>;
  const yo = y as Record<string, unknown>;
  for (const k of new Set([...Object.keys(xo), ...Object.keys(yo)])) if (!semanticEqual(xo[k], yo[k])) return false;
  return true;
}

/** The generated "don't revalidate unchanged data": an update of a value equal to its correlated old one. */
export function unchanged(op: Operation, correlated: boolean, value: unknown, old: unknown): boolean {
  return op.update && correlated && semanticEqual(value, old);
}

/**
 * `validate.Union`: exactly one of `members` set. Not checked on an update whose old object (present)
 * had the same members set.
 */
export function union(op: Operation, path: FieldPath, members: readonly string[], obj: object, old: object | undefined): FieldError[] {
  const isSet = (o: object | undefined, m: string) => o !== undefined && present((o as Record<string, unknown>)[m]);
  const specified = members.filter((m) => isSet(obj, m));
  const changed = op.update && members.some((m) => isSet(obj, m) !== isSet(old, m));
  if (op.update && old !== undefined && !changed) return [];
  const all = members.map((m) => `\`${m}\``).join(", ");
  if (specified.length > 1) return [invalid(path, `{${specified.join(", ")}}`, `must specify exactly one of: ${all}`, "union")];
  if (specified.length === 0) return [invalid(path, "", `must specify one of: ${all}`, "union")];
  return [];
}

/** `validate.UpdatePointer` with NoSet and NoUnset: an optional field that may be neither added nor removed by an update. */
export function updatePointer(op: Operation, path: FieldPath, value: unknown, old: unknown): FieldError[] {
  if (!op.update) return [];
  if (!present(old) && present(value)) return [invalid(path, null, "field cannot be set once created", "update")];
  if (present(old) && !present(value)) return [invalid(path, null, "field cannot be cleared once set", "update")];
  return [];
}

/** `validate.Immutable`, reached only when the value changed: any update is refused. */
export function immutable(op: Operation, path: FieldPath): FieldError[] {
  return op.update ? [invalid(path, null, "field is immutable", "immutable")] : [];
}

/** The count field of a gang: `minCount` of a group of pods, `minGroupCount` of a group of groups. */
export type CountField = "minCount" | "minGroupCount";

interface PolicyBlock {
  basic?: object | null;
  gang?: Record<string, number | null | undefined> | null;
}

/** `Validate_WorkloadPodGroupSchedulingPolicy` / `Validate_WorkloadCompositePodGroupSchedulingPolicy`. */
export function validatePolicyBlock(op: Operation, path: FieldPath, obj: PolicyBlock, old: PolicyBlock | undefined, countField: CountField): FieldError[] {
  const errs = union(op, path, ["basic", "gang"], obj, old);
  const gang = obj.gang ?? undefined;
  const oldGang = old === undefined ? undefined : (old.gang ?? undefined);
  if (gang === undefined || unchanged(op, old !== undefined, gang, oldGang)) return errs;
  const count = gang[countField] ?? undefined;
  if (op.update && oldGang !== undefined && (oldGang[countField] ?? undefined) === count) return errs;
  if (count !== undefined && count < 1) errs.push(invalid(childPath(path, "gang", countField), count, "must be greater than or equal to 1", "minimum"));
  return errs;
}

/** `Validate_TopologyConstraint`: a required label key. */
function validateTopologyConstraint(op: Operation, path: FieldPath, obj: TopologyConstraint, old: TopologyConstraint | undefined): FieldError[] {
  const keyPath = childPath(path, "key");
  const key = obj.key ?? "";
  if (op.update && old !== undefined && (old.key ?? "") === key) return [];
  if (key === "") return [required(keyPath)];
  return isLabelKey(key).map((m) => invalid(keyPath, key, m, "format=k8s-label-key"));
}

/** `Validate_WorkloadPodGroupSchedulingConstraints` (and its composite twin): at most one topology constraint, each valid. */
export function validateConstraintsBlock(op: Operation, path: FieldPath, obj: { topology?: TopologyConstraint[] | null }, old: { topology?: TopologyConstraint[] | null } | undefined): FieldError[] {
  const topology = obj.topology ?? [];
  const topologyPath = childPath(path, "topology");
  if (unchanged(op, old !== undefined, topology, old?.topology)) return [];
  if (topology.length > MAX_TOPOLOGY_CONSTRAINTS) return [tooMany(topologyPath, topology.length, MAX_TOPOLOGY_CONSTRAINTS)];
  return topology.flatMap((t, i) => validateTopologyConstraint(op, indexPath(topologyPath, i), t, undefined));
}

/** `Validate_WorkloadPodGroupDisruptionMode` (and its composite twin): exactly one of `single` / `all`. */
export function validateDisruptionModeBlock(op: Operation, path: FieldPath, obj: object, old: object | undefined): FieldError[] {
  return union(op, path, ["single", "all"], obj, old);
}

/** `Validate_WorkloadPodGroupResourceClaim`: one reference, a DNS-label name, DNS-subdomain references. */
export function validateResourceClaim(op: Operation, path: FieldPath, obj: WorkloadPodGroupResourceClaim, old: WorkloadPodGroupResourceClaim | undefined): FieldError[] {
  const errs = union(op, path, ["resourceClaimName", "resourceClaimTemplateName"], obj, old);
  const name = obj.name ?? "";
  if (!(op.update && old !== undefined && (old.name ?? "") === name)) {
    const namePath = childPath(path, "name");
    if (name === "") errs.push(required(namePath));
    else for (const m of isDNS1123Label(name)) errs.push(invalid(namePath, name, m, "format=k8s-short-name"));
  }
  for (const f of ["resourceClaimName", "resourceClaimTemplateName"] as const) {
    const v = obj[f] ?? undefined;
    if (v === undefined || (op.update && old !== undefined && (old[f] ?? undefined) === v)) continue;
    for (const m of isDNS1123Subdomain(v)) errs.push(invalid(childPath(path, f), v, m, "format=k8s-long-name"));
  }
  return errs;
}

/** A claim as Go prints it in a Duplicate error: its fields in the struct's order, unset references left out. */
function claimValue(c: WorkloadPodGroupResourceClaim): Record<string, string> {
  const v: Record<string, string> = { name: c.name ?? "" };
  if (present(c.resourceClaimName)) v.resourceClaimName = c.resourceClaimName!;
  if (present(c.resourceClaimTemplateName)) v.resourceClaimTemplateName = c.resourceClaimTemplateName!;
  return v;
}

/**
 * A list of claims as a field of an API object (a Job's `spec.scheduling.resourceClaims`, a template's
 * `resourceClaims`): immutable, at most four, keyed by name (a repeated name is a Duplicate, the later
 * ones), each validated against the old claim of its name unless equal to it.
 */
export function validateResourceClaimList(
  op: Operation,
  path: FieldPath,
  claims: WorkloadPodGroupResourceClaim[] | null | undefined,
  old: WorkloadPodGroupResourceClaim[] | null | undefined,
  correlated: boolean,
): FieldError[] {
  const list = claims ?? [];
  if (unchanged(op, correlated, list, old)) return [];
  const short = [...immutable(op, path)];
  if (list.length > MAX_POD_GROUP_RESOURCE_CLAIMS) short.push(tooMany(path, list.length, MAX_POD_GROUP_RESOURCE_CLAIMS));
  if (short.length > 0 || list.length === 0) return short;
  const errs: FieldError[] = [];
  const dups = new Set<number>();
  list.forEach((c, i) => list.forEach((d, j) => j > i && c.name === d.name && dups.add(j)));
  for (const j of [...dups].sort((a, b) => a - b)) errs.push(duplicate(indexPath(path, j), claimValue(list[j]!)));
  const oldList = old ?? [];
  list.forEach((c, i) => {
    const prev = oldList.find((o) => o.name === c.name);
    if (op.update && prev !== undefined && semanticEqual(c, prev)) return;
    errs.push(...validateResourceClaim(op, indexPath(path, i), c, prev));
  });
  return errs;
}
