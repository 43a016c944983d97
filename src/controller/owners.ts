/**
 * Owner chains: from a pod (or any object) up its controlling ownerReferences, through the objects in
 * between (ReplicaSets, Jobs, StatefulSets, a leader pod owning its workers' StatefulSet...), to the
 * outermost object of a kind with a Ready Karta, which governs the pod. Pure: the objects come from a
 * lookup the caller backs with its informer caches, so the webhook answers without an API call.
 */
import type { KubernetesObject, OwnerReference } from "./kubernetes-object.js";
import type { Karta } from "../definition/index.js";

/** A kind, by API group and kind (versions are not compared: one object answers at every served version). */
export interface GroupKind {
  group: string;
  kind: string;
}

/** `group/Kind`, the key kinds are indexed by. */
export function groupKindKey(gk: GroupKind): string {
  return `${gk.group}/${gk.kind}`;
}

/** The group of an apiVersion (`apps/v1` -> apps, `v1` -> ""). */
export function groupOf(apiVersion: string | undefined): string {
  const v = apiVersion ?? "";
  return v.includes("/") ? v.slice(0, v.indexOf("/")) : "";
}

/** What the chain needs from the caches. */
export interface ChainLookup {
  /** The Karta (name) whose root kind this is, when it is the root kind of a Ready Karta. */
  rootKarta(gk: GroupKind): string | undefined;
  /**
   * The cached object (of a chain kind or a Ready Karta's root kind), `undefined` when the cache has none
   * of that name, `null` when the kind is not watched.
   */
  object(gk: GroupKind, namespace: string, name: string): KubernetesObject | null | undefined;
}

/** Where an owner chain leads. */
export type ChainResult =
  /**
   * To `root` (a reference: the caller reads the root object from its cache), the outermost owner on the
   * chain whose kind has a Ready Karta, through `owners` (nearest first; inner described kinds included).
   */
  | { found: true; karta: string; root: OwnerReference; owners: KubernetesObject[] }
  /**
   * Nowhere: `missing` names an owner of a watched kind that the cache does not have (yet), so asking again
   * later may succeed; otherwise the chain ends (no controller, an unwatched kind, a uid that does not match).
   */
  | { found: false; missing?: OwnerReference; why: string };

/** Longer chains are not followed (an AppWrapper around a LeaderWorkerSet's worker pod is five links). */
export const MAX_CHAIN = 8;

/** The reference an object's controller is named by: the one with controller true, else the only one. */
export function controllerRef(o: KubernetesObject): OwnerReference | undefined {
  const refs = o.metadata?.ownerReferences ?? [];
  return refs.find((r) => r.controller === true) ?? (refs.length === 1 ? refs[0] : undefined);
}

/**
 * Follows `o`'s controller references (in `namespace`: owners live in their dependents' namespace) to the
 * outermost owner whose kind has a Ready Karta, as KAI's pod grouper walks to the top owner: a JobSet's
 * pod is the JobSet's even when Jobs have a Karta too, an AppWrapper's is the AppWrapper's whatever it
 * wraps. The walk goes on through every kind it can read (a described kind's objects are cached too)
 * and ends where an owner's kind is not watched, or there is no controller; an owner of a watched kind
 * missing from the cache leaves the answer open (`missing`), since the outermost may lie beyond it.
 */
export function resolveOwnerChain(o: KubernetesObject, namespace: string, lookup: ChainLookup): ChainResult {
  const owners: KubernetesObject[] = [];
  const seen = new Set<string>();
  let outermost: Extract<ChainResult, { found: true }> | undefined;
  let current = o;
  const end = (why: string): ChainResult => outermost ?? { found: false, why };
  for (let depth = 0; depth < MAX_CHAIN; depth++) {
    const ref = controllerRef(current);
    if (!ref) return end(depth === 0 ? "no controller owner" : `${current.kind} ${current.metadata?.name} has no controller owner`);
    if (seen.has(ref.uid)) return end(`ownership cycle at ${ref.kind} ${ref.name}`);
    seen.add(ref.uid);
    const gk = { group: groupOf(ref.apiVersion), kind: ref.kind };
    const karta = lookup.rootKarta(gk);
    if (karta !== undefined) outermost = { found: true, karta, root: ref, owners: [...owners] };
    const next = lookup.object(gk, namespace, ref.name);
    if (next === null) return end(`${groupKindKey(gk)} is not a kind any Ready Karta's chain passes through`);
    if (next === undefined) return { found: false, missing: ref, why: `${ref.kind} ${namespace}/${ref.name} is not in the cache` };
    if (next.metadata?.uid !== ref.uid) return { found: false, missing: ref, why: `${ref.kind} ${namespace}/${ref.name} in the cache has uid ${next.metadata?.uid}, not ${ref.uid}` };
    // List items come without kind and apiVersion; the owner index of `karta compile` needs them.
    const linked = next.kind === ref.kind && next.apiVersion !== undefined ? next : ({ ...next, apiVersion: ref.apiVersion, kind: ref.kind } as KubernetesObject);
    owners.push(linked);
    current = linked;
  }
  return end(`owner chain longer than ${MAX_CHAIN}`);
}

/**
 * Kinds that never own pods, directly or not: declared as a Karta's children (Services, Secrets...) but
 * never on a pod's owner chain, so the controller neither watches nor reads them.
 */
function ownsNoPods(gk: GroupKind): boolean {
  if (gk.group === "") return gk.kind !== "Pod";
  return ["rbac.authorization.k8s.io", "networking.k8s.io", "autoscaling", "policy", "scheduling.k8s.io"].includes(gk.group) || (gk.group === "apps" && gk.kind === "ControllerRevision");
}

/** A kind of a Karta's structure, with the version it is declared at. */
export interface DeclaredKind extends GroupKind {
  version: string;
}

/**
 * The kinds a pod's owner chain may pass through on its way to a Karta's root: its child component kinds
 * and additionalChildKinds that can own pods (not the root's own kind, not Services, Secrets, ConfigMaps...).
 * Pods themselves are intermediate too (a LeaderWorkerSet's leader pod owns its workers' StatefulSet).
 */
export function chainKinds(karta: Karta): DeclaredKind[] {
  const sd = karta.spec?.structureDefinition;
  const root = sd?.rootComponent?.kind;
  const out = new Map<string, DeclaredKind>();
  const add = (k: { group?: string; version?: string; kind?: string } | undefined): void => {
    if (!k?.kind || !k.version) return;
    const gk = { group: k.group ?? "", kind: k.kind };
    if (ownsNoPods(gk) || (root && gk.group === (root.group ?? "") && gk.kind === root.kind)) return;
    if (!out.has(groupKindKey(gk))) out.set(groupKindKey(gk), { ...gk, version: k.version });
  };
  for (const c of sd?.childComponents ?? []) add(c.kind);
  for (const k of sd?.additionalChildKinds ?? []) add(k);
  return [...out.values()].filter((k) => !(k.group === "" && k.kind === "Pod"));
}

/** Whether the controller's ClusterRole must let it read this declared kind (the root, or a kind of a chain). */
export function readByController(gk: GroupKind): boolean {
  return !ownsNoPods(gk) || (gk.group === "" && gk.kind === "Pod");
}
