/**
 * Resource lists (core/v1 ResourceList: resource name → quantity) as they appear in JSON, and the
 * arithmetic workloads need on them. Keys come out sorted, as Go writes a map.
 */
import { Quantity } from "./quantity.js";

/** A resource list as plain JSON: resource name → quantity string (numbers are accepted on input). */
export type ResourceListJSON = Record<string, string>;

/** A resource list of parsed quantities. */
export type ResourceList = Record<string, Quantity>;

/** A problem found while reading a resource list, with the field path of the offending entry. */
export interface ResourceListIssue {
  path: string;
  message: string;
}

/** Formats a field path segment for a map key, bracketing keys that are not plain identifiers. */
function keyPath(base: string, key: string): string {
  const seg = /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  return base === "" ? seg.replace(/^\./, "") : base + seg;
}

/**
 * Reads a JSON resource list. Entries that do not parse are left out and reported with their path;
 * a missing or null list is empty.
 */
export function parseResourceList(value: unknown, path = ""): { list: ResourceList; issues: ResourceListIssue[] } {
  const list: ResourceList = {};
  const issues: ResourceListIssue[] = [];
  if (value === null || value === undefined) return { list, issues };
  if (typeof value !== "object" || Array.isArray(value)) {
    issues.push({ path, message: "a resource list must be an object of quantities" });
    return { list, issues };
  }
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    const r = Quantity.fromJSON(raw);
    if (r.ok) list[name] = r.quantity;
    else issues.push({ path: keyPath(path, name), message: r.error.message });
  }
  return { list, issues };
}

function sortedKeys(...lists: ResourceList[]): string[] {
  const keys = new Set<string>();
  for (const l of lists) for (const k of Object.keys(l)) keys.add(k);
  return [...keys].sort();
}

/** The per-resource sum of the lists. */
export function addResourceLists(...lists: ResourceList[]): ResourceList {
  const out: ResourceList = {};
  for (const key of sortedKeys(...lists)) {
    let sum = Quantity.zero();
    for (const l of lists) {
      const q = l[key];
      if (q) sum = sum.add(q);
    }
    out[key] = sum;
  }
  return out;
}

/** The per-resource maximum of the lists (a resource absent from a list does not lower it). */
export function maxResourceLists(...lists: ResourceList[]): ResourceList {
  const out: ResourceList = {};
  for (const key of sortedKeys(...lists)) {
    let best: Quantity | undefined;
    for (const l of lists) {
      const q = l[key];
      if (q && (best === undefined || q.cmp(best) > 0)) best = q;
    }
    if (best) out[key] = best;
  }
  return out;
}

/** Every quantity multiplied by an integer (e.g. per-replica requests × replicas). */
export function multiplyResourceList(list: ResourceList, factor: number | bigint): ResourceList {
  const out: ResourceList = {};
  for (const key of sortedKeys(list)) out[key] = (list[key] as Quantity).mul(factor);
  return out;
}

/** The list without zero quantities (and, when `dropNegative`, without negative ones). */
export function dropZeroResources(list: ResourceList, dropNegative = false): ResourceList {
  const out: ResourceList = {};
  for (const key of sortedKeys(list)) {
    const q = list[key] as Quantity;
    if (q.isZero() || (dropNegative && q.sign() < 0)) continue;
    out[key] = q;
  }
  return out;
}

/** The list as JSON with upstream's canonical quantity strings, keys sorted. */
export function formatResourceList(list: ResourceList): ResourceListJSON {
  const out: ResourceListJSON = {};
  for (const key of sortedKeys(list)) out[key] = (list[key] as Quantity).toString();
  return out;
}

/** Re-emits a JSON resource list in canonical form (`{"cpu": "1.5"}` → `{"cpu": "1500m"}`). */
export function canonicalizeResourceList(value: unknown, path = ""): { list: ResourceListJSON; issues: ResourceListIssue[] } {
  const { list, issues } = parseResourceList(value, path);
  const out: ResourceListJSON = {};
  for (const key of sortedKeys(list)) out[key] = (list[key] as Quantity).canonicalString();
  return { list: out, issues };
}
