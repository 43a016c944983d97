/**
 * A bounded table keyed by a kind and an operation (apiVersion, kind, operation), for what is looked
 * up at every request (routes, where to evaluate, costs). Nested maps: a lookup hashes the strings the
 * request carries, each once (a string keeps its hash), where a joined key would be built, copied flat
 * and hashed again at every lookup.
 */
export class KindTable<V> {
  private readonly byApiVersion = new Map<string, Map<string, Map<string, V>>>();
  private entries = 0;

  /** Past `limit` entries the table is emptied, so that the kinds requests name cannot grow it without bound. */
  constructor(private readonly limit: number) {}

  get(apiVersion: string, kind: string, operation: string): V | undefined {
    return this.byApiVersion.get(apiVersion)?.get(kind)?.get(operation);
  }

  set(apiVersion: string, kind: string, operation: string, value: V): void {
    if (this.entries >= this.limit) this.clear();
    let kinds = this.byApiVersion.get(apiVersion);
    if (kinds === undefined) this.byApiVersion.set(apiVersion, (kinds = new Map()));
    let operations = kinds.get(kind);
    if (operations === undefined) kinds.set(kind, (operations = new Map()));
    if (!operations.has(operation)) this.entries++;
    operations.set(operation, value);
  }

  /** How many entries it holds. */
  get size(): number {
    return this.entries;
  }

  clear(): void {
    this.byApiVersion.clear();
    this.entries = 0;
  }
}
