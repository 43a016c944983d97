/**
 * An index of an informer's objects by the uid of each owner reference, kept current from the informer's
 * add/update/delete events: "the pods (or groups) of this object" in time proportional to their number,
 * not to the number of objects in the namespace.
 */
import type { KubernetesObject } from "@kubernetes/client-node";

/** What the index needs of an informer: its add, update and delete events. */
export interface ObjectEvents<T> {
  on(verb: "add" | "update" | "delete", handler: (o: T) => void): void;
}

const keyOf = (o: KubernetesObject): string => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

export class OwnerIndex<T extends KubernetesObject> {
  private readonly byOwner = new Map<string, Map<string, T>>();
  /** The owner uids each object was indexed under (to drop it when its references change). */
  private readonly owners = new Map<string, string[]>();

  /** Indexes the informer's objects from now on (register before starting the informer). */
  constructor(informer?: ObjectEvents<T>) {
    if (!informer) return;
    informer.on("add", (o) => this.set(o));
    informer.on("update", (o) => this.set(o));
    informer.on("delete", (o) => this.remove(o));
  }

  set(o: T): void {
    const key = keyOf(o);
    this.remove(o);
    const uids = [...new Set((o.metadata?.ownerReferences ?? []).map((r) => r.uid))];
    for (const uid of uids) {
      let objects = this.byOwner.get(uid);
      if (!objects) this.byOwner.set(uid, (objects = new Map()));
      objects.set(key, o);
    }
    if (uids.length > 0) this.owners.set(key, uids);
  }

  remove(o: T): void {
    const key = keyOf(o);
    for (const uid of this.owners.get(key) ?? []) {
      const objects = this.byOwner.get(uid);
      objects?.delete(key);
      if (objects?.size === 0) this.byOwner.delete(uid);
    }
    this.owners.delete(key);
  }

  /** The objects with an owner reference to `uid` (any, controller or not). */
  ownedBy(uid: string): T[] {
    return [...(this.byOwner.get(uid)?.values() ?? [])];
  }
}
