/**
 * An index of an informer's objects by the uid of each owner reference, kept current from the informer's
 * add/update/delete events: "the pods (or groups) of this object" in time proportional to their number,
 * not to the number of objects in the namespace. It holds the cached objects themselves (a Set per owner
 * uid, no keys of its own: at 50,000 pods every byte per pod counts), so an update removes the object it
 * replaces by identity, as the informer hands it over.
 */
import type { KubernetesObject } from "./kubernetes-object.js";

/** What the index needs of an informer: its add, update (with the object replaced) and delete events. */
export interface ObjectEvents<T> {
  on(verb: "add" | "update" | "delete", handler: (o: T, old?: T) => void): void;
}

export class OwnerIndex<T extends KubernetesObject> {
  private readonly byOwner = new Map<string, Set<T>>();

  /** Indexes the informer's objects from now on (register before starting the informer). */
  constructor(informer?: ObjectEvents<T>) {
    if (!informer) return;
    informer.on("add", (o) => this.set(o));
    informer.on("update", (o, old) => this.set(o, old));
    informer.on("delete", (o) => this.remove(o));
  }

  /** Indexes `o`, in place of `old` (the object it replaces) when given. */
  set(o: T, old?: T): void {
    if (old) this.remove(old);
    for (const r of o.metadata?.ownerReferences ?? []) {
      let objects = this.byOwner.get(r.uid);
      if (!objects) this.byOwner.set(r.uid, (objects = new Set()));
      objects.add(o);
    }
  }

  /** Drops `o` (the object as it was indexed). */
  remove(o: T): void {
    for (const r of o.metadata?.ownerReferences ?? []) {
      const objects = this.byOwner.get(r.uid);
      if (!objects?.delete(o)) continue;
      if (objects.size === 0) this.byOwner.delete(r.uid);
    }
  }

  /** The objects with an owner reference to `uid` (any, controller or not). */
  ownedBy(uid: string): T[] {
    const objects = this.byOwner.get(uid);
    return objects ? [...objects] : [];
  }
}
