/**
 * The edge to the Kubernetes API: the kubeconfig (flag, KUBECONFIG, or the in-cluster service account),
 * plain-JSON objects, informers that cache objects without managedFields (or with only who wrote them),
 * shared keep-alive connections, discovery, and structured errors from client-node's exceptions.
 */
import { Agent as HttpsAgent, type AgentOptions } from "node:https";
import { CoreV1Api, CustomObjectsApi, KubeConfig, ListWatch, Watch, type Informer, type KubernetesObject, type ListPromise, type ObjectCache } from "@kubernetes/client-node";
// The documented way to register a model; the package's index does not re-export it.
import { ObjectSerializer } from "@kubernetes/client-node/dist/serializer.js";

/**
 * client-node turns objects of the kinds it knows into its generated models, which drop fields newer than
 * the models (Pod spec.schedulingGroup, Kubernetes 1.36). A pass-through model keeps those kinds as the
 * JSON the server sent.
 */
export function keepPlainJson(kinds: { group: string; version: string; kind: string }[]): void {
  const identity = { serialize: (o: unknown) => o, deserialize: (o: unknown) => o };
  for (const gvk of kinds) {
    try {
      ObjectSerializer.registerModel(gvk, identity);
    } catch {
      // already registered in this process
    }
  }
}

keepPlainJson([
  { group: "", version: "v1", kind: "Pod" },
  { group: "", version: "v1", kind: "PodList" },
]);

/**
 * An informer (client-node's `makeInformer`) whose cache keeps its objects without
 * `metadata.managedFields`, as controller-runtime's TransformStripManagedFields does: nothing here reads
 * them, and they are a large part of every cached pod (one entry per writer, listing every field it set).
 * Objects are stripped as they arrive, from the list and from the watch, before the cache and the
 * handlers see them; `keepManagers` keeps who wrote each object (not the field sets), and `transform` trims
 * them further (the pod cache: src/controller/pod-cache.ts).
 */
export function makeLeanInformer<T extends KubernetesObject>(
  kc: KubeConfig,
  path: string,
  list: ListPromise<T>,
  options: { keepManagers?: boolean; transform?: (o: T) => T } = {},
): Informer<T> & ObjectCache<T> {
  const strip = options.keepManagers ? onlyManagers : stripManagedFields;
  const transform = options.transform ?? ((o: T) => o);
  const lean = (o: T): T => transform(strip(o));
  const watch = new Watch(kc);
  const start = watch.watch.bind(watch);
  // A watch ERROR event carries a Status, not an object of the kind: passed on as it came.
  watch.watch = (p, query, callback, done) => start(p, query, (phase, obj: unknown, raw?: unknown) => callback(phase, phase === "ERROR" ? obj : lean(obj as T), raw), done);
  const listStripped: ListPromise<T> = async () => {
    const l = await list();
    if (l.items) l.items = l.items.map(lean);
    return l;
  };
  return new ListWatch<T>(path, watch, listStripped, false);
}

function stripManagedFields<T>(o: T): T {
  const metadata = (o as { metadata?: { managedFields?: unknown } } | null)?.metadata;
  if (metadata && typeof metadata === "object" && "managedFields" in metadata) delete metadata.managedFields;
  return o;
}

/** managedFields reduced to who wrote the object and how (`{manager, operation}`), without the field sets. */
function onlyManagers<T>(o: T): T {
  const metadata = (o as { metadata?: { managedFields?: unknown } } | null)?.metadata;
  if (metadata && Array.isArray(metadata.managedFields)) {
    metadata.managedFields = metadata.managedFields.map((m: { manager?: unknown; operation?: unknown }) => ({ manager: m?.manager, operation: m?.operation }));
  }
  return o;
}

/** Whether `manager` has written the object (from managedFields, whole or reduced to managers). */
export function writtenBy(o: KubernetesObject, manager: string): boolean {
  return (o.metadata?.managedFields ?? []).some((m) => m.manager === manager);
}

/**
 * client-node (1.4) makes a new https.Agent for every request, so every request pays a TCP connect, a
 * TLS handshake and the parsing of the client key and CAs: most of a busy controller's CPU. Requests with
 * the same TLS options share one keep-alive agent instead (proxied clusters keep client-node's agents).
 */
export function shareConnections(kc: KubeConfig): KubeConfig {
  const k = kc as unknown as { createAgent: (cluster: { proxyUrl?: string; server?: string } | null, options: AgentOptions) => unknown };
  const original = k.createAgent.bind(kc);
  const agents = new Map<string, HttpsAgent>();
  k.createAgent = (cluster, options) => {
    if (cluster?.proxyUrl || !cluster?.server?.startsWith("https:")) return original(cluster, options);
    const key = JSON.stringify([options.ca, options.cert, options.key, options.pfx, options.passphrase, options.rejectUnauthorized, options.servername].map((v) => (Buffer.isBuffer(v) ? v.toString("base64") : v)));
    let agent = agents.get(key);
    if (!agent) {
      // An idle socket is closed after 30 s, before the API server's own idle timeout (90 s) can close
      // it under a request; a socket in use (a quiet watch) is not timed out by this.
      agent = new HttpsAgent({ ...options, keepAlive: true, timeout: 30_000 });
      // A rotated certificate gives a new key; an old agent's requests and watches finish on their own.
      if (agents.size >= 4) agents.delete(agents.keys().next().value!);
      agents.set(key, agent);
    }
    return agent;
  };
  return kc;
}

/** Kubeconfig as kubectl finds it: `--kubeconfig`, else KUBECONFIG / ~/.kube/config, else in-cluster; `--context` selects a context. */
export function loadKubeConfig(options: { kubeconfig?: string; context?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig !== undefined) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  if (options.context !== undefined) {
    if (!kc.getContexts().some((c) => c.name === options.context)) throw new Error(`context "${options.context}" is not in the kubeconfig`);
    kc.setCurrentContext(options.context);
  }
  if (kc.getCurrentCluster() === null) throw new Error("no cluster in the kubeconfig (give --kubeconfig, set KUBECONFIG, or run in a pod)");
  return shareConnections(kc);
}

/** What an API error said: HTTP code, Status reason and message. */
export interface ApiError {
  code: number;
  reason: string;
  message: string;
}

/** The Status of a failed request, or undefined for errors that are not API answers (network, bugs). */
export function apiError(err: unknown): ApiError | undefined {
  const e = err as { code?: unknown; body?: unknown };
  if (typeof e?.code !== "number") return undefined;
  let body: { reason?: string; message?: string } = {};
  try {
    body = typeof e.body === "string" ? (JSON.parse(e.body) as typeof body) : ((e.body ?? {}) as typeof body);
  } catch {
    body = { message: String(e.body) };
  }
  return { code: e.code, reason: body.reason ?? "", message: body.message ?? "" };
}

/** One served resource of a group/version. */
export interface ServedResource {
  name: string;
  kind: string;
  namespaced: boolean;
}

/** The resources a group/version serves (discovery), or undefined when the group/version is not served. */
export async function discover(kc: KubeConfig, group: string, version: string): Promise<ServedResource[] | undefined> {
  try {
    const list = group === "" ? await kc.makeApiClient(CoreV1Api).getAPIResources() : await kc.makeApiClient(CustomObjectsApi).getAPIResources({ group, version });
    return list.resources.filter((r) => !r.name.includes("/")).map((r) => ({ name: r.name, kind: r.kind, namespaced: r.namespaced }));
  } catch (err) {
    if (apiError(err)?.code === 404) return undefined;
    throw err;
  }
}
