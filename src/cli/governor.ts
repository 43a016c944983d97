/**
 * Which workload's groups a live object's pods are in, as `karta controller` decides (src/controller/owners.ts):
 * an owner of the object whose kind is described governs them (the outermost such owner), so
 * `karta compile job/NAME` for a JobSet's Job makes nothing, as the controller makes nothing for it.
 */
import type { KubernetesObject } from "../controller/kubernetes-object.js";
import { describes, readCatalog, type Catalog } from "./catalog.js";
import type { CliIO } from "./io.js";
import type { LiveWorkload } from "./live.js";

const groupOf = (apiVersion: string | undefined): string => (apiVersion?.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "");

/**
 * The owner that governs the object's pods: the outermost of `above` whose kind is described — by a
 * Ready Karta of the cluster when it has any (as the controller decides), else by `described` (the
 * definitions the command reads). Undefined: the object governs its own pods.
 */
export function governingOwner(live: Pick<LiveWorkload, "above" | "readyKartaKinds">, described: (o: KubernetesObject) => boolean): KubernetesObject | undefined {
  const kinds = live.readyKartaKinds;
  const is = (o: KubernetesObject): boolean => (kinds ? kinds.has(`${groupOf(o.apiVersion)}/${o.kind}`) : described(o));
  return [...live.above].reverse().find(is);
}

/** The governing owner of a live object, described by the cluster's Ready Kartas, else by `-d` (or the bundled definitions). */
export async function liveGovernor(io: CliIO, live: LiveWorkload, definition: string | undefined, catalog: Catalog | undefined): Promise<KubernetesObject | undefined> {
  if (live.above.length === 0) return undefined;
  // The bundled catalog holds the object's own kind only; its folder answers for the others.
  const known = catalog ?? (live.readyKartaKinds ? undefined : await readCatalog(io, definition));
  return governingOwner(live, (o) => known !== undefined && describes(known, o));
}

/** `its pods are in the groups of JobSet train (jobset.x-k8s.io/v1alpha2), ...`. */
export function governedMessage(owner: KubernetesObject): string {
  return `its pods are in the groups of its owner ${owner.kind} ${owner.metadata?.name ?? ""} (${owner.apiVersion}), the outermost owner whose kind has a Karta`;
}
