/**
 * Reading a workload from a cluster for `karta inspect` and `karta compile`, as kubectl does: `KIND/NAME`
 * (KIND a kind, resource, singular or short name, optionally `.group` or `.version.group`) resolved by
 * discovery, the object read, and the pods of its namespace whose ownerReferences lead to it, with the
 * objects in between (ReplicaSets, Jobs, StatefulSets...) so the owner-chain matching sees the links.
 * Every request carries one deadline, so an unreachable server is an error, not a hang.
 */
import {
  ApisApi,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  createConfiguration,
  ServerConfiguration,
  type KubeConfig,
  type KubernetesObject,
  type V1APIResource,
  type V1OwnerReference,
} from "@kubernetes/client-node";
import { apiError, keepPlainJson, loadKubeConfig } from "../controller/kube.js";
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
  /** The object's own controller owners, nearest first, as far as they can be read (a JobSet's Job: the JobSet). */
  above: KubernetesObject[];
  /** `group/Kind` of the cluster's Ready Kartas; undefined when it serves none or they cannot be read. */
  readyKartaKinds?: Set<string>;
  /** Whether the API server serves scheduling.k8s.io/v1alpha3 CompositePodGroup. */
  servesCompositePodGroup: boolean;
}

interface Resolved {
  group: string;
  version: string;
  resource: V1APIResource;
}

/** The API clients of one read, every request bound to `signal`. */
function clients(kc: KubeConfig, signal: AbortSignal) {
  const config = createConfiguration({
    baseServer: new ServerConfiguration(kc.getCurrentCluster()!.server, {}),
    authMethods: { default: kc },
    promiseMiddleware: [{ pre: async (ctx) => (ctx.setSignal(signal), ctx), post: async (r) => r }],
  });
  const objects = new KubernetesObjectApi(config);
  return { objects, core: new CoreV1Api(config), apis: new ApisApi(config), custom: new CustomObjectsApi(config) };
}

type Clients = ReturnType<typeof clients>;

/** The resource KIND names, as kubectl resolves it: core first, then the groups in the server's order. */
async function resolve(c: Clients, text: string): Promise<Resolved> {
  const lower = text.toLowerCase();
  const dot = lower.indexOf(".");
  const name = dot < 0 ? lower : lower.slice(0, dot);
  const qualifier = dot < 0 ? undefined : lower.slice(dot + 1);
  const groups = (await c.apis.getAPIVersions()).groups;
  const candidates: { group: string; version: string }[] = [];
  if (qualifier === undefined || qualifier === "v1") candidates.push({ group: "", version: "v1" });
  for (const g of groups) {
    // Every version of the group, the preferred first: kinds of one group may be served at different
    // versions (kubeflow.org: PyTorchJob at v1, MPIJob at v2beta1), as kubectl finds them.
    const preferred = g.preferredVersion?.version ?? g.versions[0]!.version;
    const versions = [preferred, ...g.versions.map((v) => v.version).filter((v) => v !== preferred)];
    if (qualifier === undefined || qualifier === g.name.toLowerCase()) candidates.push(...versions.map((version) => ({ group: g.name, version })));
    else for (const v of g.versions) if (qualifier === `${v.version}.${g.name}`.toLowerCase()) candidates.push({ group: g.name, version: v.version });
  }
  const lists = await Promise.all(
    candidates.map(async (cand) => {
      try {
        const list = cand.group === "" ? await c.core.getAPIResources() : await c.custom.getAPIResources({ group: cand.group, version: cand.version });
        return list.resources;
      } catch (err) {
        if (apiError(err)?.code === 404 || apiError(err)?.code === 503) return [];
        throw err;
      }
    }),
  );
  for (const [i, resources] of lists.entries()) {
    const r = resources.find(
      (x) => !x.name.includes("/") && (x.name === name || x.singularName === name || x.kind.toLowerCase() === name || (x.shortNames ?? []).includes(name)),
    );
    if (r) return { ...candidates[i]!, resource: r };
  }
  throw new InputError(`the server doesn't have a resource type "${text}"`, EXIT_WORKLOAD_NOT_FOUND);
}

/** The reference naming an object's controller: controller true, else the only one (as the controller reads it). */
function controllerRef(o: KubernetesObject): V1OwnerReference | undefined {
  const refs = o.metadata?.ownerReferences ?? [];
  return refs.find((r) => r.controller === true) ?? (refs.length === 1 ? refs[0] : undefined);
}

/** The kinds (`group/Kind`) of the cluster's Ready Kartas; undefined when it serves no Kartas or lets us read none. */
async function readyKartaKinds(c: Clients): Promise<Set<string> | undefined> {
  let items: { spec?: { structureDefinition?: { rootComponent?: { kind?: { group?: string; kind?: string } } } }; status?: { conditions?: { type?: string; status?: string }[] } }[];
  try {
    items = ((await c.custom.listClusterCustomObject({ group: "run.ai", version: "v1alpha1", plural: "kartas" })) as { items: typeof items }).items;
  } catch {
    return undefined;
  }
  const ready = items.filter((k) => k.status?.conditions?.some((x) => x.type === "Ready" && x.status === "True"));
  if (ready.length === 0) return undefined;
  return new Set(ready.map((k) => `${k.spec?.structureDefinition?.rootComponent?.kind?.group ?? ""}/${k.spec?.structureDefinition?.rootComponent?.kind?.kind ?? ""}`));
}

async function servesCompositePodGroup(c: Clients): Promise<boolean> {
  try {
    return (await c.custom.getAPIResources({ group: "scheduling.k8s.io", version: "v1alpha3" })).resources.some((r) => r.kind === "CompositePodGroup");
  } catch {
    return false;
  }
}

const MAX_CHAIN = 8;

/** Reads KIND/NAME, its pods and the objects between them from the cluster in the kubeconfig. */
export async function readLiveWorkload(ref: { kind: string; name: string }, options: LiveOptions = {}): Promise<LiveWorkload> {
  let kc: KubeConfig;
  try {
    kc = loadKubeConfig({ ...(options.kubeconfig !== undefined ? { kubeconfig: options.kubeconfig } : {}), ...(options.context !== undefined ? { context: options.context } : {}) });
  } catch (err) {
    throw new InputError(`kubeconfig: ${(err as Error).message}`);
  }
  const server = kc.getCurrentCluster()!.server;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const signal = AbortSignal.timeout(timeoutMs);
  const c = clients(kc, signal);
  const fail = (err: unknown, what: string): never => {
    if (err instanceof InputError) throw err;
    const api = apiError(err);
    if (api) throw new InputError(`${what}: ${api.message || api.reason || `HTTP ${api.code}`}`);
    if (signal.aborted) throw new InputError(`${what}: no answer from ${server} within ${timeoutMs / 1000} s`);
    const cause = (err as { cause?: { message?: string } })?.cause?.message;
    throw new InputError(`${what}: cannot reach ${server}: ${cause ?? (err as Error)?.message ?? String(err)}`);
  };

  let resolved: Resolved;
  try {
    resolved = await resolve(c, ref.kind);
  } catch (err) {
    return fail(err, `resolving '${ref.kind}'`);
  }
  const { group, version, resource } = resolved;
  const apiVersion = group === "" ? version : `${group}/${version}`;
  const namespace = resource.namespaced ? (options.namespace ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? "default") : undefined;
  const qualified = group === "" ? resource.name : `${resource.name}.${group}`;
  const source = `${qualified}/${ref.name}${namespace ? ` in namespace ${namespace}` : ""}`;

  // client-node's models drop fields newer than they are; these kinds stay the JSON the server sent.
  const plain = (apiVersion: string, kind: string) => {
    const [g, v] = apiVersion.includes("/") ? (apiVersion.split("/") as [string, string]) : ["", apiVersion];
    keepPlainJson([{ group: g, version: v, kind }]);
  };
  const read = async (apiVersion: string, kind: string, name: string): Promise<KubernetesObject | undefined> => {
    plain(apiVersion, kind);
    try {
      return JSON.parse(JSON.stringify(await c.objects.read({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } }))) as KubernetesObject;
    } catch (err) {
      if (apiError(err)?.code === 404) return undefined;
      return fail(err, `reading ${kind} ${name}`);
    }
  };

  const object = await read(apiVersion, resource.kind, ref.name);
  if (!object) throw new InputError(`${qualified} "${ref.name}" not found${namespace ? ` in namespace ${namespace}` : ""}`, EXIT_WORKLOAD_NOT_FOUND);
  const rootUid = object.metadata?.uid;
  const [kartaKinds, composite] = await Promise.all([readyKartaKinds(c), servesCompositePodGroup(c)]);
  const cluster = { servesCompositePodGroup: composite, ...(kartaKinds ? { readyKartaKinds: kartaKinds } : {}) };
  if (!namespace || !rootUid) return { object, pods: [], owners: [], source, above: [], ...cluster };

  let podList: KubernetesObject[];
  try {
    podList = ((await c.core.listNamespacedPod({ namespace })) as unknown as { items: KubernetesObject[] }).items;
  } catch (err) {
    return fail(err, `listing the pods in namespace ${namespace}`);
  }
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
  return { object, pods, owners: [...owners.values()], source, above, ...cluster };
}
