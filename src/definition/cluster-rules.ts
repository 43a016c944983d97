/**
 * The rules a cluster holds its Kartas to beyond each one's own validity, as upstream's admission webhook
 * for kartas.run.ai states them (messages word for word): one Karta per root group/version/kind, the root
 * kind fixed once created, and the `run.ai/karta-*` labels equal to the root kind. `karta validate`
 * applies them to the files it is given, `karta controller`'s webhook to the cluster's Kartas, so the two
 * refuse the same things.
 */
import type { PathSegment } from "./diagnostic.js";
import type { Finding } from "./finding.js";
import type { GroupVersionKind } from "./types.js";

/** The labels that index a Karta by its root kind (KAI Scheduler lists Kartas by them). */
export const LABEL_GROUP = "run.ai/karta-group";
export const LABEL_VERSION = "run.ai/karta-version";
export const LABEL_KIND = "run.ai/karta-kind";

export const ROOT_KIND_PATH: readonly PathSegment[] = ["spec", "structureDefinition", "rootComponent", "kind"];

/** The part of a Karta (typed or as the API returns it) these rules read. */
export interface KartaLike {
  metadata?: { name?: string; labels?: Record<string, string> };
  spec?: unknown;
}

/**
 * The root component's group, version and kind as upstream reads them: present whenever the root names a
 * `kind` object (a field it leaves out reads as ""), absent otherwise.
 */
export function rootGroupVersionKind(karta: KartaLike | undefined): GroupVersionKind | undefined {
  const k = (karta?.spec as { structureDefinition?: { rootComponent?: { kind?: unknown } } } | undefined)?.structureDefinition?.rootComponent?.kind;
  if (k === null || typeof k !== "object" || Array.isArray(k)) return undefined;
  const field = (name: string): string => {
    const v = (k as Record<string, unknown>)[name];
    return typeof v === "string" ? v : "";
  };
  return { group: field("group"), version: field("version"), kind: field("kind") };
}

/** Two kinds are the same kind. */
export function sameGroupVersionKind(a: GroupVersionKind | undefined, b: GroupVersionKind | undefined): boolean {
  return a !== undefined && b !== undefined && a.group === b.group && a.version === b.version && a.kind === b.kind;
}

/** The labels the controller stamps on a Karta (undefined when the root names no kind). */
export function managedLabels(karta: KartaLike | undefined): Record<string, string> | undefined {
  const gvk = rootGroupVersionKind(karta);
  if (!gvk) return undefined;
  return { [LABEL_GROUP]: gvk.group, [LABEL_VERSION]: gvk.version, [LABEL_KIND]: gvk.kind };
}

/**
 * Managed labels that differ from the root kind. `requirePresent`: a missing one is an error too (an
 * update may not remove them; a new Karta gets them from the mutating webhook or the controller).
 */
export function checkManagedLabels(karta: KartaLike, options: { requirePresent?: boolean } = {}): Finding[] {
  const want = managedLabels(karta);
  if (!want) return [];
  const labels = karta.metadata?.labels ?? {};
  const out: Finding[] = [];
  for (const [key, value] of Object.entries(want)) {
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    if ((has && labels[key] !== value) || (!has && options.requirePresent)) {
      out.push({
        severity: "error",
        path: ["metadata", "labels", key],
        message: `label ${JSON.stringify(key)} is managed by the operator and must equal ${JSON.stringify(value)}; it cannot be edited or removed`,
        code: "managed-label",
      });
    }
  }
  return out;
}

/** The root kind of a stored Karta may not change (nor appear or go away). */
export function checkRootKindUnchanged(old: KartaLike, updated: KartaLike): Finding[] {
  const before = rootGroupVersionKind(old);
  const after = rootGroupVersionKind(updated);
  if (before !== undefined && sameGroupVersionKind(before, after)) return [];
  return [{ severity: "error", path: [...ROOT_KIND_PATH], message: "the root component GVK is immutable and cannot be changed after creation", code: "root-kind-immutable" }];
}

/** The message of a second Karta for a root kind that has one (`existing` names the first). */
export function duplicateRootMessage(gvk: GroupVersionKind, existing: string): string {
  return `a Karta for group ${JSON.stringify(gvk.group)} version ${JSON.stringify(gvk.version)} kind ${JSON.stringify(gvk.kind)} already exists (${JSON.stringify(existing)}); only one Karta per group/version/kind is allowed`;
}

/**
 * One Karta per full root kind: the error for `karta` when another of `others` (with another name) has
 * its root kind; the same group and kind at another version is another kind. `others` come with the
 * name the message gives them.
 */
export function checkUniqueRoot(karta: KartaLike, others: readonly { name: string; karta: KartaLike }[]): Finding[] {
  const gvk = rootGroupVersionKind(karta);
  if (!gvk) return [];
  const own = karta.metadata?.name;
  const clash = others.find((o) => (own === undefined || o.karta.metadata?.name !== own) && sameGroupVersionKind(rootGroupVersionKind(o.karta), gvk));
  if (!clash) return [];
  return [{ severity: "error", path: [...ROOT_KIND_PATH], message: duplicateRootMessage(gvk, clash.name), code: "duplicate-root-kind" }];
}
