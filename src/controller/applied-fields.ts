/**
 * Whether a server-side apply would change anything: the live object already holds every value the
 * desired object sets, and every field the field manager owns (its managedFields entry, fieldsV1) is
 * still in the desired object (an apply would remove one that is not). Then the apply is skipped, also
 * after a restart, when the process has no memory of what it applied: a controller that re-applied every
 * group after each restart or failover would send the API server one write per group (40,000 at 10,000
 * workloads). The check is conservative: an array must match element by element, so a list someone else
 * added to, or a value the server normalised, costs one apply, never a missed change.
 */

type Fields = { [key: string]: Fields };

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** Every value `desired` sets is in `live` (objects by key, arrays element by element, scalars equal). */
export function holds(desired: unknown, live: unknown): boolean {
  if (Array.isArray(desired)) return Array.isArray(live) && live.length === desired.length && desired.every((d, i) => holds(d, live[i]));
  if (isObject(desired)) {
    if (!isObject(live)) return false;
    for (const [k, d] of Object.entries(desired)) if (d !== undefined && !holds(d, live[k])) return false;
    return true;
  }
  return desired === live || (desired === null && live === undefined);
}

function sameValue(a: unknown, b: unknown): boolean {
  return holds(a, b) && holds(b, a);
}

/** Every path of a fieldsV1 set (`f:name`, `k:{...}`, `v:value`, `i:N`) exists in `desired`. */
export function ownedFieldsIn(fields: unknown, desired: unknown): boolean {
  if (!isObject(fields)) return true;
  for (const [key, sub] of Object.entries(fields as Fields)) {
    if (key === ".") continue;
    const kind = key.slice(0, 2);
    const rest = key.slice(2);
    let next: unknown;
    if (kind === "f:") {
      if (!isObject(desired) || desired[rest] === undefined) return false;
      next = desired[rest];
    } else if (kind === "k:" || kind === "v:") {
      if (!Array.isArray(desired)) return false;
      let wanted: unknown;
      try {
        wanted = JSON.parse(rest);
      } catch {
        return false;
      }
      next = kind === "v:" ? desired.find((e) => sameValue(e, wanted)) : desired.find((e) => isObject(e) && isObject(wanted) && Object.entries(wanted).every(([k, v]) => sameValue(e[k], v)));
      if (next === undefined) return false;
    } else if (kind === "i:") {
      if (!Array.isArray(desired) || desired[Number(rest)] === undefined) return false;
      next = desired[Number(rest)];
    } else return false;
    if (!ownedFieldsIn(sub, next)) return false;
  }
  return true;
}

/** A managedFields entry as the cache keeps it. */
export interface ManagedEntry {
  manager?: string;
  operation?: string;
  fieldsV1?: unknown;
}

/**
 * Whether applying `desired` as `manager` would leave `live` as it is: `live` holds every desired value and
 * `manager`'s applied fields are all still desired. False when `manager` has never applied to it.
 */
export function applyIsNoop(desired: unknown, live: { metadata?: { managedFields?: ManagedEntry[] } } | undefined, manager: string): boolean {
  if (!live) return false;
  const entry = live.metadata?.managedFields?.find((m) => m.manager === manager && m.operation === "Apply");
  if (!entry?.fieldsV1) return false;
  return holds(desired, live) && ownedFieldsIn(entry.fieldsV1, desired);
}

/**
 * managedFields reduced to who wrote the object and how, with the field set of `manager`'s apply only
 * (what {@link applyIsNoop} reads): the other entries' field sets are most of a small object's bytes.
 */
export function keepManagerFields<T extends { metadata?: { managedFields?: unknown } }>(o: T, manager: string): T {
  const m = o.metadata?.managedFields;
  if (Array.isArray(m)) {
    (o.metadata as { managedFields?: ManagedEntry[] }).managedFields = m.map((e: ManagedEntry) =>
      e?.manager === manager && e.operation === "Apply" ? { manager: e.manager, operation: e.operation, fieldsV1: e.fieldsV1 } : { manager: e?.manager, operation: e?.operation },
    );
  }
  return o;
}

/** Whether `manager` has written the object (from managedFields, whole or as {@link keepManagerFields} keeps them). */
export function writtenBy(o: { metadata?: { managedFields?: ManagedEntry[] } }, manager: string): boolean {
  return (o.metadata?.managedFields ?? []).some((m) => m.manager === manager);
}
