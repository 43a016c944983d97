/**
 * Live workloads of a type, read as `karta get` and `karta describe` show them: the objects, the pods of
 * their namespaces (of every namespace with -A), and the objects of the kinds between them (a JobSet's
 * Jobs, a LeaderWorkerSet's StatefulSets), each list read once; a pod belongs to the object its
 * controller ownerReferences lead to, followed as the controller follows them (src/controller/owners.ts).
 */
import type { KubernetesObject } from "../controller/kubernetes-object.js";
import { Informer } from "../controller/informer.js";
import { silentLogger } from "../controller/log.js";
import { chainKinds, groupKindKey, resolveOwnerChain, type ChainLookup, type GroupKind } from "../controller/owners.js";
import type { Karta } from "../definition/index.js";
import { apiVersionOf, PODS, type LiveCluster, type Resolved } from "./cluster.js";
import type { ServedType } from "./workload-types.js";
import { describeView, type DescribeView, type WorkloadView } from "./workload-view.js";
import { EXIT_WORKLOAD_NOT_FOUND } from "./exit-codes.js";

/** Where to read: one namespace, or every namespace (undefined). */
export type Scope = string | undefined;

/** A list as of now: fixed for one read, the informer's cache while watching. */
type Current = () => KubernetesObject[];

/**
 * The lists of one read, each requested once however many types need it. Watching (`onChange`), each
 * list is an informer's cache, kept current by a watch from the list's resourceVersion; every event calls
 * `onChange`.
 */
export class ScopeReader {
  private readonly lists = new Map<string, Promise<Current | null>>();
  private readonly informers: { stop(): Promise<void> }[] = [];
  /** Watching: the resourceVersion of each object by uid, as its last event left it. */
  private readonly versions = new Map<string, string>();
  private stopped = false;

  constructor(
    readonly cluster: LiveCluster,
    readonly scope: Scope,
    private readonly watching?: { onChange(): void; onError(err: unknown): void },
  ) {}

  /** The pods in scope. */
  async pods(): Promise<KubernetesObject[]> {
    return (await this.memo(PODS, undefined))!();
  }

  /** The objects of a kind in scope; null when the server does not serve it. */
  async kind(k: { group: string; version: string; kind: string }): Promise<KubernetesObject[] | null> {
    const resource = (await this.cluster.resources(k.group, k.version))?.find((r) => r.kind === k.kind);
    if (!resource) return null;
    return (await this.memo({ group: k.group, version: k.version, resource }, undefined))!();
  }

  /** The objects of a resolved type (with a label selector). */
  async objects(r: Resolved, labelSelector?: string): Promise<KubernetesObject[]> {
    return (await this.memo(r, labelSelector))!();
  }

  /** Watching: the resourceVersion the object with this uid has in the cache (undefined when it is not there). */
  resourceVersion(uid: string): string | undefined {
    return this.versions.get(uid);
  }

  /** Stops the watches. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.allSettled(this.informers.map((i) => i.stop()));
  }

  private memo(r: Resolved, labelSelector: string | undefined): Promise<Current | null> {
    const key = `${r.group}/${r.version}/${r.resource.kind}?${labelSelector ?? ""}`;
    let p = this.lists.get(key);
    if (!p) this.lists.set(key, (p = this.watching ? this.watch(r, labelSelector) : this.cluster.list(r, this.scope, labelSelector !== undefined ? { labelSelector } : {}).then((l) => () => l)));
    return p;
  }

  /** An informer on the list: listed, then watched from the list's resourceVersion (relisted when it expires). */
  private async watch(r: Resolved, labelSelector: string | undefined): Promise<Current> {
    const what = r.group === "" ? r.resource.name : `${r.resource.name}.${r.group}`;
    const informer = new Informer<KubernetesObject>(this.cluster.client, {
      path: this.cluster.collectionPath(r, this.scope),
      what,
      // A 404 while watching: the type is gone (its CRD deleted), not a page.
      notFound: `${what} is not served any more (its CustomResourceDefinition deleted?)`,
      log: silentLogger,
      pageSize: this.cluster.chunkSize,
      ...(labelSelector !== undefined ? { labelSelector } : {}),
      onFailure: (why) => {
        if (!this.stopped) this.watching!.onError(new Error(why));
      },
    });
    for (const verb of ["add", "update", "delete"] as const) {
      informer.on(verb, (o) => {
        const uid = o.metadata?.uid;
        if (uid !== undefined) {
          if (verb === "delete") this.versions.delete(uid);
          else this.versions.set(uid, o.metadata?.resourceVersion ?? "");
        }
        this.watching!.onChange();
      });
    }
    this.informers.push(informer);
    await informer.start();
    // List items are given the list's kind by the informer; a server that names none gets the type's.
    const apiVersion = apiVersionOf(r.group, r.version);
    return () => informer.list().map((o) => (o.kind ? o : { ...o, apiVersion, kind: r.resource.kind }));
  }
}

const keyOf = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ""}/${name ?? ""}`;

/**
 * The pods (and the objects between) of each root object of a type, from the lists in scope: a pod whose
 * controller chain reaches a root of the type, through the kinds the type's Karta declares.
 */
export async function podsByRoot(reader: ScopeReader, t: ServedType): Promise<Map<string, { pods: KubernetesObject[]; owners: KubernetesObject[] }>> {
  const chain = chainKinds(t.definition.karta as Karta);
  const byKind = new Map<string, Map<string, KubernetesObject>>();
  const pods = await reader.pods();
  byKind.set(groupKindKey({ group: "", kind: "Pod" }), new Map(pods.map((p) => [keyOf(p.metadata?.namespace, p.metadata?.name), p])));
  for (const k of chain) {
    const objects = await reader.kind(k);
    if (objects) byKind.set(groupKindKey(k), new Map(objects.map((o) => [keyOf(o.metadata?.namespace, o.metadata?.name), o])));
  }
  const lookup: ChainLookup = {
    rootKarta: (gk: GroupKind) => (gk.group === t.type.group && gk.kind === t.type.kind ? t.karta : undefined),
    object: (gk: GroupKind, namespace: string, name: string) => {
      const objects = byKind.get(groupKindKey(gk));
      return objects ? objects.get(keyOf(namespace, name)) : null;
    },
  };
  const out = new Map<string, { pods: KubernetesObject[]; owners: Map<string, KubernetesObject> }>();
  for (const pod of pods) {
    const r = resolveOwnerChain(pod, pod.metadata?.namespace ?? "", lookup);
    if (!r.found) continue;
    let entry = out.get(r.root.uid);
    if (!entry) out.set(r.root.uid, (entry = { pods: [], owners: new Map() }));
    entry.pods.push(pod);
    for (const o of r.owners) entry.owners.set(o.metadata?.uid ?? "", o);
  }
  return new Map([...out].map(([uid, e]) => [uid, { pods: e.pods, owners: [...e.owners.values()] }]));
}

/** The describe view of each object of a type, with its pods. */
export async function viewsOf(reader: ScopeReader, t: ServedType, objects: readonly KubernetesObject[]): Promise<DescribeView[]> {
  const byRoot = await podsByRoot(reader, t);
  const interpreter = t.interpreter();
  return objects.map((object) => {
    const mine = byRoot.get(object.metadata?.uid ?? "") ?? { pods: [], owners: [] };
    const interpretation = interpreter.interpret(object, { pods: mine.pods, children: mine.owners });
    return describeView({ type: t.type, karta: t.karta, origin: t.origin, object, interpretation, pods: mine.pods });
  });
}

/** Newest first, then by namespace and name. */
function newestFirst(a: WorkloadView, b: WorkloadView): number {
  const t = Date.parse(b.createdAt ?? "") - Date.parse(a.createdAt ?? "");
  return (Number.isNaN(t) ? 0 : t) || a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name);
}

/** Whether an object's controller chain reaches none of the covered kinds (it is a workload of its own). */
async function topLevel(o: KubernetesObject, covered: Set<string>, cluster: LiveCluster, cache: Map<string, Promise<KubernetesObject | undefined>>): Promise<boolean> {
  let current = o;
  for (let depth = 0; depth < 8; depth++) {
    const ref = (current.metadata?.ownerReferences ?? []).find((r) => r.controller === true);
    if (!ref) return true;
    const group = ref.apiVersion.includes("/") ? ref.apiVersion.slice(0, ref.apiVersion.indexOf("/")) : "";
    if (covered.has(groupKindKey({ group, kind: ref.kind }))) return false;
    const key = `${ref.apiVersion}/${ref.kind}/${o.metadata?.namespace ?? ""}/${ref.name}`;
    if (!cache.has(key)) cache.set(key, cluster.read(ref.apiVersion, ref.kind, ref.name, o.metadata?.namespace).catch(() => undefined));
    const next = await cache.get(key)!;
    if (!next || next.metadata?.uid !== ref.uid) return true; // an owner that is gone ends the chain
    current = next;
  }
  return true;
}

/** What `karta get` reads. */
export interface GetOptions {
  types: ServedType[];
  allTypes: boolean;
  names: string[];
  scope: string | undefined;
  selector?: string;
  phases: string[];
}

/**
 * The views of the workloads asked for: newest first, or, for NAMEs, in their order (as kubectl prints
 * named objects). Named ones that do not exist are an exit code and a message per name, with the views of
 * the names that do (printed before the messages, as kubectl does).
 */
export async function readWorkloads(cluster: LiveCluster, o: GetOptions, reader: ScopeReader): Promise<DescribeView[] | { exit: number; message: string; found?: DescribeView[] }> {
  const covered = new Set(o.types.map((t) => groupKindKey(t.type)));
  const owners = new Map<string, Promise<KubernetesObject | undefined>>();
  const out: DescribeView[] = [];
  const missing: string[] = [];
  for (const t of o.types) {
    let objects: KubernetesObject[];
    if (o.names.length > 0) {
      objects = [];
      for (const name of o.names) {
        const got = await cluster.read(apiVersionOf(t.type.group, t.type.version), t.type.kind, name, t.resolved.resource.namespaced ? o.scope : undefined);
        if (!got) missing.push(`${t.type.kind} "${name}" not found${t.resolved.resource.namespaced ? ` in namespace ${o.scope}` : ""}`);
        else objects.push({ ...got, apiVersion: apiVersionOf(t.type.group, t.type.version), kind: t.type.kind });
      }
    } else {
      objects = await reader.objects(t.resolved, o.selector);
      if (o.allTypes) {
        const keep = await Promise.all(objects.map((x) => topLevel(x, covered, cluster, owners)));
        objects = objects.filter((_, i) => keep[i]);
      }
    }
    out.push(...(await viewsOf(reader, t, objects)));
  }
  const views = out.filter((v) => o.phases.length === 0 || v.phases.some((p) => o.phases.includes(p)));
  if (o.names.length === 0) views.sort(newestFirst);
  return missing.length > 0 ? { exit: EXIT_WORKLOAD_NOT_FOUND, message: missing.join("\n"), found: views } : views;
}

/** TYPE arguments by the type they resolved to (one type may be written two ways: pytorchjob, pytorchjobs.kubeflow.org), their NAMEs together. */
export function byType(named: readonly { type: ServedType; names: readonly string[] }[]): { type: ServedType; names: string[] }[] {
  const out = new Map<string, { type: ServedType; names: string[] }>();
  for (const { type, names } of named) {
    const key = groupKindKey(type.type);
    const seen = out.get(key);
    if (seen) seen.names.push(...names);
    else out.set(key, { type, names: [...names] });
  }
  return [...out.values()];
}

/**
 * The workloads of TYPE/NAME arguments of several types: {@link readWorkloads} for each argument's type
 * and names, in the order given (`a/x b/y a/z`: x, y, z, and the names that do not exist said in that
 * order, as kubectl visits its arguments); TYPEs without names are read once per type (a type written
 * twice, as kind and as resource, once), merged newest first.
 */
export async function readEachType(cluster: LiveCluster, named: { type: ServedType; names: string[] }[], o: Omit<GetOptions, "types" | "names">, reader: ScopeReader): Promise<DescribeView[] | { exit: number; message: string; found?: DescribeView[] }> {
  const found: DescribeView[] = [];
  const missing: { exit: number; message: string }[] = [];
  const allNamed = named.every((n) => n.names.length > 0);
  for (const { type, names } of allNamed ? named : byType(named)) {
    const read = await readWorkloads(cluster, { ...o, types: [type], names }, reader);
    if ("exit" in read) missing.push(read);
    found.push(...("exit" in read ? (read.found ?? []) : read));
  }
  if (!allNamed) found.sort(newestFirst);
  return missing.length > 0 ? { exit: missing[0]!.exit, message: missing.map((m) => m.message).join("\n"), found } : found;
}

/** What `get` and `describe` say on standard error when a scope holds no workload. */
export function noWorkloadsLine(scope: Scope): string {
  return scope === undefined ? "No workloads found in any namespace.\n" : `No workloads found in namespace ${scope}.\n`;
}

/** The lines of a read's missing names, each as the command's error line. */
export function missingLines(command: string, missing: { message: string }): string {
  return missing.message
    .split("\n")
    .map((line) => `karta ${command}: ${line}\n`)
    .join("");
}
