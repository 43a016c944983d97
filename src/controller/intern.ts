/**
 * One copy of the strings that repeat across cached objects: the namespace, label values, owner
 * references (a job's fifty pods name the same owner uid), creation times. JSON.parse gives every pod its
 * own copies (V8 shares only the shortest strings); sharing them takes about a quarter off a cached pod.
 * The table forgets everything once it holds `limit` strings, so strings of deleted objects are not kept
 * for ever: the objects keep the copies they share.
 */
export class Interner {
  private readonly table = new Map<string, string>();

  constructor(private readonly limit = 100_000) {}

  /** The shared copy of `s`. */
  intern<T>(s: T): T {
    if (typeof s !== "string") return s;
    const had = this.table.get(s);
    if (had !== undefined) return had as T;
    if (this.table.size >= this.limit) this.table.clear();
    this.table.set(s, s);
    return s;
  }

  /** Shares the repeating strings of an object's metadata (and its status.phase), in place. */
  object<T extends { metadata?: object; status?: unknown }>(o: T): T {
    const m = o.metadata as
      | { namespace?: string; creationTimestamp?: string; generateName?: string; labels?: Record<string, string>; ownerReferences?: { apiVersion?: string; kind?: string; name?: string; uid?: string }[] }
      | undefined;
    if (!m) return o;
    if (m.namespace !== undefined) m.namespace = this.intern(m.namespace);
    if (m.creationTimestamp !== undefined) m.creationTimestamp = this.intern(m.creationTimestamp);
    if (m.generateName !== undefined) m.generateName = this.intern(m.generateName);
    if (m.labels) for (const k of Object.keys(m.labels)) m.labels[k] = this.intern(m.labels[k]!);
    for (const r of m.ownerReferences ?? []) {
      r.apiVersion = this.intern(r.apiVersion);
      r.kind = this.intern(r.kind);
      r.name = this.intern(r.name);
      r.uid = this.intern(r.uid);
    }
    const status = o.status as { phase?: string } | undefined;
    if (status && typeof status === "object" && status.phase !== undefined) status.phase = this.intern(status.phase);
    return o;
  }
}
