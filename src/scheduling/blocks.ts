/**
 * Declarative validation of the v1alpha3 building blocks, as the generated validators and
 * apimachinery's `validate` package apply it: unions with exactly one member, `minCount` /
 * `minGroupCount` ≥ 1, at most one topology constraint with a valid label key, claims with a DNS
 * label name and exactly one reference. On update (`old` given) unchanged values are not
 * re-validated (ratcheting), and the frozen-after-creation rules of the Workload API apply:
 * the basic/gang choice, constraints, disruption mode and claims are immutable, only the gang
 * count may change.
 */

import {
  childPath,
  duplicate,
  indexPath,
  invalid,
  required,
  tooMany,
  type FieldError,
} from "./fielderrors.js";
import { isDNS1123Label, isDNS1123Subdomain, isLabelKey } from "../names/index.js";
import {
  MAX_POD_GROUP_RESOURCE_CLAIMS,
  MAX_TOPOLOGY_CONSTRAINTS,
  type TopologyConstraint,
  type WorkloadPodGroupResourceClaim,
} from "./types.js";

/** The previous value on an update (`{ value: undefined }` when it was not set); `undefined` on a create. */
export type Old<T> = { value: T | undefined } | undefined;

/** Structural deep equality of JSON-like values (absent and undefined members are equal). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ao), ...Object.keys(bo)]);
  for (const k of keys) if (!deepEqual(ao[k], bo[k])) return false;
  return true;
}

/**
 * `validate.Union`: exactly one of `members` set. On update nothing is reported when the set of
 * members did not change.
 */
export function validateUnion(
  path: string,
  members: readonly string[],
  obj: Record<string, unknown>,
  old: Record<string, unknown> | undefined,
  isUpdate: boolean,
): FieldError[] {
  const isSet = (o: Record<string, unknown> | undefined, m: string) => o !== undefined && o[m] !== undefined;
  const specified = members.filter((m) => isSet(obj, m));
  if (isUpdate && members.every((m) => isSet(obj, m) === isSet(old, m))) return [];
  const all = members.map((m) => `\`${m}\``).join(", ");
  if (specified.length > 1) return [invalid(path, `{${specified.join(", ")}}`, `must specify exactly one of: ${all}`, "union")];
  if (specified.length === 0) return [invalid(path, "", `must specify one of: ${all}`, "union")];
  return [];
}

/** `validate.Minimum(…, 1)` on an optional count, ratcheted against its old value. */
function validateMinimumOne(path: string, value: number | undefined, old: Old<number>): FieldError[] {
  if (value === undefined) return [];
  if (old !== undefined && old.value === value) return [];
  if (value < 1) return [invalid(path, value, "must be greater than or equal to 1", "minimum")];
  return [];
}

/**
 * The policy block (`basic{}` | `gang{<count>?}`) where `countField` is `minCount` for a leaf and
 * `minGroupCount` for a composite. `old` is the block of the previous object (update) or undefined.
 */
export function validatePolicyBlock(
  path: string,
  block: { basic?: object; gang?: Record<string, number | undefined> },
  countField: "minCount" | "minGroupCount",
  old: Old<{ basic?: object; gang?: Record<string, number | undefined> }>,
): FieldError[] {
  const errs: FieldError[] = [];
  const isUpdate = old !== undefined;
  const prev = old?.value;
  errs.push(...validateUnion(path, ["basic", "gang"], block, prev, isUpdate));
  if (isUpdate && prev !== undefined) {
    // The basic/gang choice is frozen at creation; only the count inside gang may change.
    if ((block.basic !== undefined) !== (prev.basic !== undefined)) {
      errs.push(invalid(childPath(path, "basic"), null, "field is immutable", "immutable"));
    }
    if (block.gang !== undefined && prev.gang === undefined) {
      errs.push(invalid(childPath(path, "gang"), null, "field cannot be set once created", "update"));
    } else if (block.gang === undefined && prev.gang !== undefined) {
      errs.push(invalid(childPath(path, "gang"), null, "field cannot be cleared once set", "update"));
    }
  }
  if (block.gang !== undefined) {
    const oldCount: Old<number> = isUpdate && prev?.gang !== undefined ? { value: prev.gang[countField] } : undefined;
    errs.push(...validateMinimumOne(childPath(path, "gang", countField), block.gang[countField], oldCount));
  }
  return errs;
}

/** Set/unset rules of a whole block on update (the block itself was added or cleared). */
export function validateBlockPresence(path: string, present: boolean, wasPresent: boolean): FieldError[] {
  if (present && !wasPresent) return [invalid(path, null, "field cannot be set once created", "update")];
  if (!present && wasPresent) return [invalid(path, null, "field cannot be cleared once set", "update")];
  return [];
}

/** An immutable field: any change on update is `Invalid value: null: field is immutable`, as the API server's declarative validation says it. */
export function validateImmutable(path: string, value: unknown, old: Old<unknown>): FieldError[] {
  if (old === undefined) return [];
  return deepEqual(value, old.value) ? [] : [invalid(path, null, "field is immutable", "immutable")];
}

/** The constraints block: `topology` has at most one item, each with a valid label key. */
export function validateConstraintsBlock(
  path: string,
  block: { topology?: TopologyConstraint[] },
  old: Old<{ topology?: TopologyConstraint[] }>,
): FieldError[] {
  const topology = block.topology ?? [];
  if (old !== undefined && deepEqual(topology, old.value?.topology ?? [])) return [];
  const topoPath = childPath(path, "topology");
  if (topology.length > MAX_TOPOLOGY_CONSTRAINTS) return [tooMany(topoPath, topology.length, MAX_TOPOLOGY_CONSTRAINTS)];
  const errs: FieldError[] = [];
  topology.forEach((t, i) => {
    const keyPath = childPath(indexPath(topoPath, i), "key");
    if (t.key === undefined || t.key === "") errs.push(required(keyPath));
    else for (const m of isLabelKey(t.key)) errs.push(invalid(keyPath, t.key, m, "format=k8s-label-key"));
  });
  return errs;
}

/** The disruption mode block: exactly one of `single` / `all`. */
export function validateDisruptionModeBlock(
  path: string,
  block: { single?: object; all?: object },
  old: Old<{ single?: object; all?: object }>,
): FieldError[] {
  return validateUnion(path, ["single", "all"], block, old?.value, old !== undefined);
}

/**
 * The claims list: at most four, keyed by name, each with a DNS label name and exactly one of
 * `resourceClaimName` / `resourceClaimTemplateName` (both DNS subdomains). Old claims are matched
 * by name; an unchanged claim is not re-validated.
 */
export function validateResourceClaimsBlock(
  path: string,
  claims: WorkloadPodGroupResourceClaim[],
  old: Old<WorkloadPodGroupResourceClaim[]>,
): FieldError[] {
  if (old !== undefined && deepEqual(claims, old.value ?? [])) return [];
  if (claims.length > MAX_POD_GROUP_RESOURCE_CLAIMS) return [tooMany(path, claims.length, MAX_POD_GROUP_RESOURCE_CLAIMS)];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  claims.forEach((c, i) => {
    if (seen.has(c.name)) errs.push(duplicate(indexPath(path, i), c.name));
    seen.add(c.name);
  });
  const oldByName = new Map((old?.value ?? []).map((c) => [c.name, c] as const));
  claims.forEach((c, i) => {
    const prev = oldByName.get(c.name);
    if (old !== undefined && prev !== undefined && deepEqual(c, prev)) return;
    const p = indexPath(path, i);
    const members = c as unknown as Record<string, unknown>;
    errs.push(...validateUnion(p, ["resourceClaimName", "resourceClaimTemplateName"], members, prev as Record<string, unknown> | undefined, false));
    const namePath = childPath(p, "name");
    if (c.name === undefined || c.name === "") errs.push(required(namePath));
    else for (const m of isDNS1123Label(c.name)) errs.push(invalid(namePath, c.name, m, "format=k8s-short-name"));
    for (const f of ["resourceClaimName", "resourceClaimTemplateName"] as const) {
      const v = c[f];
      if (v !== undefined) for (const m of isDNS1123Subdomain(v)) errs.push(invalid(childPath(p, f), v, m, "format=k8s-long-name"));
    }
  });
  return errs;
}
