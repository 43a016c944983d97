/**
 * Reading a workload from a cluster for `karta inspect` and `karta compile`, as kubectl does: `KIND/NAME`
 * (KIND a kind, resource, singular or short name, optionally `.group` or `.version.group`) resolved by
 * discovery, the object read, and the pods of its namespace whose ownerReferences lead to it, with the
 * objects in between (ReplicaSets, Jobs, StatefulSets...) so the owner-chain matching sees the links.
 * Every request carries one deadline, so an unreachable server is an error, not a hang.
 */
import type { KubernetesObject } from "../controller/kubernetes-object.js";
import { controllerRef } from "../controller/owners.js";
import { apiVersionOf, LiveCluster, type ClusterOptions } from "./cluster.js";
import { InputError } from "./objects.js";
import { EXIT_WORKLOAD_NOT_FOUND } from "./exit-codes.js";
import { groupVersionKindOf, kaiFallbackKartas } from "../scheduling/kai-plugins.js";

export interface LiveOptions extends ClusterOptions {
  namespace?: string;
}

export interface LiveWorkload {
  object: unknown;
  /** The pods whose owner chain reaches the object. */
  pods: unknown[];
  /** The objects between those pods and the object. */
  owners: unknown[];
  /** How to name the source in messages: `pytorchjobs.kubeflow.org/bert in namespace team`. */
  source: string;
  /** The object's own controller owners, nearest first, as far as they can be read (a JobSet's Job: the JobSet). */
  above: KubernetesObject[];
  /** `group/Kind` of the cluster's Ready Kartas; undefined when it serves none or they cannot be read. */
  readyKartaKinds?: Set<string>;
  /**
   * The stored Kartas KAI Scheduler's Karta fallback would take for the object's kind (none when the
   * cluster serves no Kartas); undefined when they cannot be read.
   */
  kaiFallbackKartas?: string[];
  /** Whether the API server serves scheduling.k8s.io/v1alpha3 CompositePodGroup. */
  servesCompositePodGroup: boolean;
}

type KartaItem = { spec?: { structureDefinition?: { rootComponent?: { kind?: { group?: string; kind?: string } } } }; status?: { conditions?: { type?: string; status?: string }[] } };

/** The cluster's Kartas: none when it serves no Kartas; undefined when it lets us read none. */
async function storedKartas(cluster: LiveCluster): Promise<KartaItem[] | undefined> {
  try {
    const resource = (await cluster.resources("run.ai", "v1alpha1"))?.find((r) => r.kind === "Karta");
    if (!resource) return [];
    return (await cluster.list({ group: "run.ai", version: "v1alpha1", resource }, undefined)) as KartaItem[];
  } catch {
    return undefined;
  }
}

/** The kinds (`group/Kind`) of these Kartas that are Ready; undefined when there are none. */
function readyKartaKinds(items: readonly KartaItem[]): Set<string> | undefined {
  const ready = items.filter((k) => k.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"));
  if (ready.length === 0) return undefined;
  return new Set(ready.map((k) => `${k.spec?.structureDefinition?.rootComponent?.kind?.group ?? ""}/${k.spec?.structureDefinition?.rootComponent?.kind?.kind ?? ""}`));
}

async function servesCompositePodGroup(cluster: LiveCluster): Promise<boolean> {
  try {
    return ((await cluster.resources("scheduling.k8s.io", "v1alpha3")) ?? []).some((r) => r.kind === "CompositePodGroup");
  } catch {
    return false;
  }
}

const MAX_CHAIN = 8;

/** Reads KIND/NAME, its pods and the objects between them from the cluster in the kubeconfig. */
export async function readLiveWorkload(ref: { kind: string; name: string }, options: LiveOptions = {}): Promise<LiveWorkload> {
  const cluster = LiveCluster.open(options);
  let resolved;
  try {
    resolved = await cluster.resolve(ref.kind);
  } catch (err) {
    return cluster.fail(err, `resolving '${ref.kind}'`);
  }
  if (!resolved) throw new InputError(`the server doesn't have a resource type "${ref.kind}"`, EXIT_WORKLOAD_NOT_FOUND);
  const { group, version, resource } = resolved;
  const apiVersion = apiVersionOf(group, version);
  const namespace = resource.namespaced ? (options.namespace ?? cluster.contextNamespace) : undefined;
  const qualified = group === "" ? resource.name : `${resource.name}.${group}`;
  const source = `${qualified}/${ref.name}${namespace ? ` in namespace ${namespace}` : ""}`;
  const read = (apiVersion: string, kind: string, name: string): Promise<KubernetesObject | undefined> => cluster.read(apiVersion, kind, name, namespace);

  const object = await read(apiVersion, resource.kind, ref.name);
  if (!object) throw new InputError(`${qualified} "${ref.name}" not found${namespace ? ` in namespace ${namespace}` : ""}`, EXIT_WORKLOAD_NOT_FOUND);
  const rootUid = object.metadata?.uid;
  const [kartas, composite] = await Promise.all([storedKartas(cluster), servesCompositePodGroup(cluster)]);
  const kartaKinds = kartas && readyKartaKinds(kartas);
  const served = {
    servesCompositePodGroup: composite,
    ...(kartaKinds ? { readyKartaKinds: kartaKinds } : {}),
    ...(kartas ? { kaiFallbackKartas: kaiFallbackKartas(kartas, groupVersionKindOf(apiVersion, resource.kind)) } : {}),
  };
  if (!namespace || !rootUid) return { object, pods: [], owners: [], source, above: [], ...served };

  const podList = await cluster.pods(namespace);
  // Each owner read once; undefined when gone or not readable (the chain stops there).
  const cache = new Map<string, Promise<KubernetesObject | undefined>>();
  const owner = (ref: { apiVersion: string; kind: string; name: string }) => {
    const key = `${ref.apiVersion}/${ref.kind}/${ref.name}`;
    if (!cache.has(key)) cache.set(key, read(ref.apiVersion, ref.kind, ref.name).catch(() => undefined));
    return cache.get(key)!;
  };
  /**
   * The owners between `o` and the root (empty when `o` is owned by the root directly), or undefined when
   * its chain of controller references does not reach it (as `karta controller` follows them).
   */
  const chain = async (o: KubernetesObject, depth: number): Promise<KubernetesObject[] | undefined> => {
    const ref = controllerRef(o);
    if (depth > MAX_CHAIN || !ref) return undefined;
    if (ref.uid === rootUid) return [];
    const next = await owner(ref);
    if (!next || next.metadata?.uid !== ref.uid) return undefined;
    const rest = await chain(next, depth + 1);
    return rest ? [next, ...rest] : undefined;
  };
  const pods: unknown[] = [];
  const owners = new Map<string, unknown>();
  for (const pod of podList) {
    const links = await chain(pod, 0);
    if (!links) continue;
    pods.push(pod);
    for (const o of links) owners.set(o.metadata?.uid ?? "", o);
  }
  // Up from the object: an owner whose kind has a Karta too governs its pods (src/controller/owners.ts).
  const above: KubernetesObject[] = [];
  const seen = new Set<string>([rootUid]);
  for (let at: KubernetesObject = object, ref = controllerRef(at); ref && !seen.has(ref.uid) && above.length < MAX_CHAIN; ref = controllerRef(at)) {
    seen.add(ref.uid);
    const next = await owner(ref);
    if (!next || next.metadata?.uid !== ref.uid) break;
    at = { ...next, apiVersion: ref.apiVersion, kind: ref.kind } as KubernetesObject;
    above.push(at);
  }
  return { object, pods, owners: [...owners.values()], source, above, ...served };
}
