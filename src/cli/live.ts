/**
 * Reading a workload from a cluster for `karta inspect` and `karta compile`, as kubectl does: `KIND/NAME`
 * (KIND a kind, resource, singular or short name, optionally `.group` or `.version.group`) resolved by
 * discovery, the object read, and the pods of its namespace whose ownerReferences lead to it, with the
 * objects in between (ReplicaSets, Jobs, StatefulSets...) so the owner-chain matching sees the links.
 * Every request carries one deadline, so an unreachable server is an error, not a hang.
 */
import type { KubernetesObject } from "@kubernetes/client-node";
import { apiVersionOf, LiveCluster } from "./cluster.js";
import { InputError } from "./objects.js";
import { EXIT_WORKLOAD_NOT_FOUND } from "./exit-codes.js";

export interface LiveOptions {
  namespace?: string;
  kubeconfig?: string;
  context?: string;
  /** Deadline of the whole read (default 30 s). */
  timeoutMs?: number;
}

export interface LiveWorkload {
  object: unknown;
  /** The pods whose owner chain reaches the object. */
  pods: unknown[];
  /** The objects between those pods and the object. */
  owners: unknown[];
  /** How to name the source in messages: `pytorchjobs.kubeflow.org/bert in namespace team`. */
  source: string;
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
  if (!namespace || !rootUid) return { object, pods: [], owners: [], source };

  const podList = await cluster.pods(namespace);
  // Each owner read once; undefined when gone or not readable (the chain stops there).
  const cache = new Map<string, Promise<KubernetesObject | undefined>>();
  const owner = (ref: { apiVersion: string; kind: string; name: string }) => {
    const key = `${ref.apiVersion}/${ref.kind}/${ref.name}`;
    if (!cache.has(key)) cache.set(key, read(ref.apiVersion, ref.kind, ref.name).catch(() => undefined));
    return cache.get(key)!;
  };
  /** The owners between `o` and the root (empty when `o` is owned by the root directly), or undefined when its chain does not reach it. */
  const chain = async (o: KubernetesObject, depth: number): Promise<KubernetesObject[] | undefined> => {
    if (depth > MAX_CHAIN) return undefined;
    for (const ref of o.metadata?.ownerReferences ?? []) {
      if (ref.uid === rootUid) return [];
      const next = await owner(ref);
      if (!next || next.metadata?.uid !== ref.uid) continue;
      const rest = await chain(next, depth + 1);
      if (rest) return [next, ...rest];
    }
    return undefined;
  };
  const pods: unknown[] = [];
  const owners = new Map<string, unknown>();
  for (const pod of podList) {
    const links = await chain(pod, 0);
    if (!links) continue;
    pods.push(pod);
    for (const o of links) owners.set(o.metadata?.uid ?? "", o);
  }
  return { object, pods, owners: [...owners.values()], source };
}
