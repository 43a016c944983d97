/**
 * Reading a cluster as kubectl does, for the commands that show live workloads (`inspect|compile
 * KIND/NAME`, `get`, `describe`): the user's kubeconfig and context, kubectl's resolution of a type name
 * by discovery, lists paged in chunks, reads, and events, through the controller's own client (no
 * generated models: objects stay the JSON the server sent). Every request has a deadline (kubectl's
 * --request-timeout, 30 s unless given), so an unreachable server is an error naming it, not a hang; it
 * starts once the credentials are had (an exec plugin may wait for someone to log in). Errors are
 * InputErrors with the server's message.
 */
import type { KubernetesObject } from "../controller/kubernetes-object.js";
import { apiError, CredentialError, KubeClient, PathSegmentError, resourcePath } from "../controller/client.js";
import { loadClusterAccess, type KubeconfigOverrides } from "../controller/kubeconfig.js";
import { formatGoDuration } from "../server/duration.js";
import { isBuiltInGroup } from "./builtin-groups.js";
import { EXIT_ERROR } from "./exit-codes.js";
import { InputError } from "./objects.js";

export interface ClusterOptions {
  kubeconfig?: string;
  context?: string;
  /** kubectl's flags over the kubeconfig (--server, --token, --as...). */
  overrides?: KubeconfigOverrides;
  /**
   * kubectl's --request-timeout in ns, as client-go's ParseTimeout reads it: a deadline on each request,
   * counted from when the credentials are had, and sent as ?timeout= (≤ 0: none; undefined: Karta's 30 s,
   * not sent).
   */
  requestTimeout?: bigint;
  /** kubectl's --chunk-size: lists are read in pages of this many objects (0: one request; default 500). */
  chunkSize?: number;
}

/** A resource as discovery serves it (an APIResource). */
export interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  singularName: string;
  shortNames?: string[];
  verbs: string[];
}

/** A served resource: its group, version and discovery entry. */
export interface Resolved {
  group: string;
  version: string;
  resource: ApiResource;
}

/** The apiVersion of a group and version (`v1` for the core group). */
export function apiVersionOf(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

/** Pods, as a resolved resource. */
export const PODS: Resolved = { group: "", version: "v1", resource: { name: "pods", kind: "Pod", namespaced: true, singularName: "pod", verbs: [] } };

type ObjectList = { items?: KubernetesObject[]; metadata?: { continue?: string } };

/** The longest timer Node.js keeps (a longer one fires at once). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The API server of a kubeconfig, read with a deadline on each request. */
export class LiveCluster {
  readonly server: string;
  /** The namespace of the kubeconfig's current context, else `default`. */
  readonly contextNamespace: string;
  readonly client: KubeClient;
  private readonly timeoutMs: number;
  /** --request-timeout in ms when it was given with a limit (Karta's own 30 s is not a watch's). */
  private readonly givenMs: number | undefined;
  /** kubectl's ?timeout= on every request when --request-timeout was given (Go's duration text). */
  private readonly serverTimeout: string | undefined;
  private groups?: Promise<{ name: string; preferred: string; versions: string[] }[]>;
  private readonly served = new Map<string, Promise<ApiResource[] | undefined>>();
  /** The page size of lists and of watches' lists (--chunk-size; 0: no limit). */
  readonly chunkSize: number;

  private constructor(client: KubeClient, options: ClusterOptions) {
    this.client = client;
    this.chunkSize = options.chunkSize ?? 500;
    this.server = client.access.server;
    this.contextNamespace = client.access.namespace || "default";
    const t = options.requestTimeout;
    this.givenMs = t !== undefined && t > 0n ? Number(t) / 1e6 : undefined;
    this.timeoutMs = t === undefined ? 30_000 : (this.givenMs ?? 0);
    this.serverTimeout = t !== undefined && t > 0n ? formatGoDuration(t) : undefined;
  }

  /** The cluster of the kubeconfig (as kubectl finds it) and context; an InputError when there is none. */
  static open(options: ClusterOptions = {}): LiveCluster {
    try {
      const access = loadClusterAccess(options);
      // An exec plugin may prompt on the terminal and write to standard error, as under kubectl.
      const execTerminal = { stdin: process.stdin.isTTY === true, stderr: (c: Buffer) => void process.stderr.write(c) };
      return new LiveCluster(new KubeClient(access, { userAgent: "karta", execTerminal, compression: access.disableCompression !== true }), options);
    } catch (err) {
      throw new ClusterError(`kubeconfig: ${(err as Error).message}`);
    }
  }

  /**
   * A GET within the deadline (which starts once the credentials are had: the time an exec plugin takes is
   * not the request's), not retried (kubectl does not retry a refused connection).
   */
  private get<T>(path: string, query?: Record<string, string | number | undefined>): Promise<T> {
    const q = { ...query, ...(this.serverTimeout !== undefined ? { timeout: this.serverTimeout } : {}) };
    // A limit beyond what a Node.js timer holds (24.8 days) is none here; the server is still told it. The
    // deadline is the only timer: the socket's idle timeout (timeoutMs) could never fire before it.
    const limited = this.timeoutMs > 0 && this.timeoutMs <= MAX_TIMER_MS;
    return this.client.get<T>(path, { query: q, ...(limited ? { deadlineMs: this.timeoutMs } : {}), timeoutMs: 0, retryBudgetMs: 0 });
  }

  /**
   * The end of a watch as kubectl's: one request under --request-timeout, when it was given (at least a
   * millisecond); undefined without a limit, or one beyond what a Node.js timer holds.
   */
  watchDeadline(): AbortSignal | undefined {
    const ms = this.givenMs;
    return ms !== undefined && ms <= MAX_TIMER_MS ? AbortSignal.timeout(Math.max(1, ms)) : undefined;
  }

  /** The error of a failed request as an InputError: the server's message, the deadline, or why the server was not reached. */
  fail(err: unknown, what: string): never {
    if (err instanceof InputError) throw err;
    const api = apiError(err);
    if (api) throw new ApiInputError(`${what}: ${api.message || api.reason || `HTTP ${api.code}`}`, api.code);
    if (err instanceof CredentialError) throw new ClusterError(`${what}: getting credentials: ${err.message}`);
    if (err instanceof PathSegmentError) throw new ClusterError(`${what}: ${err.message}`);
    if ((err as { code?: unknown })?.code === "ETIMEDOUT") throw new ClusterError(`${what}: no answer from ${this.server} within ${this.timeoutMs / 1000} s`);
    throw new ClusterError(`${what}: cannot reach ${this.server}: ${(err as Error)?.message ?? String(err)}`);
  }

  /** The API groups the server serves, with their preferred and all versions (one discovery request). */
  apiGroups(): Promise<{ name: string; preferred: string; versions: string[] }[]> {
    this.groups ??= this.get<{ groups?: { name: string; preferredVersion?: { version: string }; versions?: { version: string }[] }[] }>("/apis").then(
      (list) => (list.groups ?? []).map((g) => ({ name: g.name, preferred: g.preferredVersion?.version ?? g.versions?.[0]?.version ?? "", versions: (g.versions ?? []).map((v) => v.version) })),
      (err: unknown) => this.fail(err, "discovering the API groups"),
    );
    return this.groups;
  }

  /** The resources a group/version serves (no subresources), or undefined when the server does not serve it. */
  resources(group: string, version: string): Promise<ApiResource[] | undefined> {
    const key = `${group}/${version}`;
    let p = this.served.get(key);
    if (!p) {
      p = (async () => {
        try {
          const list = await this.get<{ resources?: ApiResource[] }>(group === "" ? `/api/${version}` : `/apis/${group}/${version}`);
          return (list.resources ?? []).filter((r) => !r.name.includes("/"));
        } catch (err) {
          const code = apiError(err)?.code;
          if (code === 404 || code === 503) return undefined;
          return this.fail(err, `discovering ${apiVersionOf(group, version)}`);
        }
      })();
      this.served.set(key, p);
    }
    return p;
  }

  /**
   * The resource a type name names, as kubectl resolves it: a kind, resource, singular or short name, any
   * case, optionally `.group` or `.version.group`; the core group first, then the groups in the server's
   * order with the built-in groups before the CRDs' (as kube-apiserver lists them). Undefined when nothing
   * the server serves has that name.
   */
  async resolve(text: string): Promise<Resolved | undefined> {
    const lower = text.toLowerCase();
    const dot = lower.indexOf(".");
    const name = dot < 0 ? lower : lower.slice(0, dot);
    const qualifier = dot < 0 ? undefined : lower.slice(dot + 1);
    const candidates: { group: string; version: string }[] = [];
    if (qualifier === undefined || qualifier === "v1") candidates.push({ group: "", version: "v1" });
    for (const g of await this.apiGroups()) {
      // Every version of the group, the preferred first: kinds of one group may be served at different
      // versions (kubeflow.org: PyTorchJob at v1, MPIJob at v2beta1), as kubectl finds them.
      const versions = [g.preferred, ...g.versions.filter((v) => v !== g.preferred)];
      if (qualifier === undefined || qualifier === g.name.toLowerCase()) candidates.push(...versions.map((version) => ({ group: g.name, version })));
      else for (const v of g.versions) if (qualifier === `${v}.${g.name}`.toLowerCase()) candidates.push({ group: g.name, version: v });
    }
    // The built-in groups before the CRDs', as kube-apiserver's discovery orders them (a server that does not: the same answer).
    candidates.sort((a, b) => Number(isBuiltInGroup(b.group)) - Number(isBuiltInGroup(a.group)));
    const lists = await Promise.all(candidates.map((c) => this.resources(c.group, c.version)));
    for (const [i, resources] of lists.entries()) {
      const r = (resources ?? []).find((x) => x.name === name || x.singularName === name || x.kind.toLowerCase() === name || (x.shortNames ?? []).includes(name));
      if (r) return { ...candidates[i]!, resource: r };
    }
    return undefined;
  }

  /** The API path of a resource's collection, in a namespace or in all (what a watch is opened on). */
  collectionPath(r: Resolved, namespace: string | undefined): string {
    return resourcePath(apiVersionOf(r.group, r.version), r.resource.name, r.resource.namespaced ? namespace : undefined);
  }

  /** Every object of a resource in `namespace` (every namespace when undefined), read in chunks of `chunk`. */
  async list(r: Resolved, namespace: string | undefined, options: { labelSelector?: string; fieldSelector?: string; chunk?: number } = {}): Promise<KubernetesObject[]> {
    const apiVersion = apiVersionOf(r.group, r.version);
    const what = `listing ${r.group === "" ? r.resource.name : `${r.resource.name}.${r.group}`}${namespace && r.resource.namespaced ? ` in namespace ${namespace}` : ""}`;
    let path: string;
    try {
      path = this.collectionPath(r, namespace);
    } catch (err) {
      return this.fail(err, what);
    }
    const out: KubernetesObject[] = [];
    let token: string | undefined;
    const chunk = options.chunk ?? this.chunkSize;
    do {
      let page: ObjectList;
      try {
        page = await this.get<ObjectList>(path, { fieldSelector: options.fieldSelector, labelSelector: options.labelSelector, limit: chunk > 0 ? chunk : undefined, continue: token });
      } catch (err) {
        return this.fail(err, what);
      }
      // List items come without apiVersion and kind; the interpretation checks them.
      for (const item of page.items ?? []) out.push({ ...item, apiVersion, kind: r.resource.kind });
      token = page.metadata?.continue || undefined;
    } while (token);
    return out;
  }

  /** One object, or undefined when it does not exist (or its kind is not served). */
  async read(apiVersion: string, kind: string, name: string, namespace: string | undefined): Promise<KubernetesObject | undefined> {
    const [group, version] = apiVersion.includes("/") ? (apiVersion.split("/") as [string, string]) : ["", apiVersion];
    const resource = (await this.resources(group, version))?.find((r) => r.kind === kind);
    if (!resource) return undefined;
    try {
      return await this.get<KubernetesObject>(resourcePath(apiVersion, resource.name, resource.namespaced ? namespace : undefined, name));
    } catch (err) {
      if (apiError(err)?.code === 404) return undefined;
      return this.fail(err, `reading ${kind} ${name}`);
    }
  }

  /** The pods of a namespace (of every namespace when undefined). */
  async pods(namespace: string | undefined): Promise<KubernetesObject[]> {
    return this.list(PODS, namespace);
  }

  /** The events about an object (core/v1 Events whose involvedObject is its uid), oldest first. */
  async events(namespace: string, uid: string): Promise<KubernetesObject[]> {
    const events = await this.list({ group: "", version: "v1", resource: { name: "events", kind: "Event", namespaced: true, singularName: "event", verbs: [] } }, namespace, { fieldSelector: `involvedObject.uid=${uid}` });
    const when = (e: Record<string, unknown>): number => Date.parse(String(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? (e.metadata as { creationTimestamp?: string })?.creationTimestamp ?? ""));
    return events.sort((a, b) => when(a as never) - when(b as never));
  }
}

/**
 * A failed operation on the cluster (no kubeconfig, an unreachable server, credentials, an API error):
 * exit 1 in every command, as the README's table says of cluster and auth errors, not 2 (unreadable input).
 */
export class ClusterError extends InputError {
  constructor(message: string) {
    super(message, EXIT_ERROR);
  }
}

/** An error from an API answer, with its HTTP code (403 is told apart from a bad cluster). */
export class ApiInputError extends ClusterError {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** What a command prints for an error reading the cluster (exit 1); anything else is a bug, passed on to main. */
export function clusterError(io: { stderr(text: string): void }, command: string, err: unknown): 1 {
  if (!(err instanceof InputError)) throw err;
  io.stderr(`karta ${command}: ${err.message}\n`);
  return 1;
}
