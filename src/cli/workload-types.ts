/**
 * The workload types `karta get` and `karta describe` know: a Karta per root kind, from the cluster (the
 * `kartas.run.ai` objects, as the controller reads them) and from the definitions bundled with Karta (the
 * catalog); for one group/version/kind the cluster's wins. Of two cluster Kartas of one root kind the
 * older governs, as in the controller. Problems reading the cluster's (no CRD, forbidden) are warnings:
 * the catalog answers; a server that cannot be read at all is the command's error. An invalid Karta, or
 * two of one kind, is a warning only where the command lists that kind.
 */
import type { KubernetesObject } from "../controller/kubernetes-object.js";
import { loadDefinitionValue, validateDefinition, type Definition } from "../definition/index.js";
import { LABEL_GROUP, LABEL_KIND, LABEL_VERSION } from "../definition/cluster-rules.js";
import { compileInterpreter, type CompiledInterpreter } from "../interpret/index.js";
import { readCatalog, kindMatches } from "./catalog.js";
import { preferBuiltIn } from "./builtin-groups.js";
import { ApiInputError, type LiveCluster, type Resolved } from "./cluster.js";
import type { CliIO } from "./io.js";
import type { TypeRef } from "./workload-view.js";
import { EXIT_NO_DEFINITION, EXIT_WORKLOAD_NOT_FOUND } from "./exit-codes.js";

/** A kind with the Karta that describes it. */
export interface WorkloadType {
  type: TypeRef;
  /** The Karta's name (metadata.name). */
  karta: string;
  origin: "cluster" | "catalog";
  definition: Definition;
  /** Compiled on first use. */
  interpreter(): CompiledInterpreter;
}

const key = (t: TypeRef): string => `${t.group}/${t.version}/${t.kind}`;

function workloadType(definition: Definition, origin: "cluster" | "catalog"): WorkloadType | undefined {
  const k = definition.karta.spec?.structureDefinition?.rootComponent?.kind;
  if (!k?.kind || !k.version) return undefined;
  let compiled: CompiledInterpreter | undefined;
  return {
    type: { group: k.group ?? "", version: k.version, kind: k.kind },
    karta: definition.karta.metadata?.name ?? "",
    origin,
    definition,
    interpreter: () => (compiled ??= compileInterpreter(definition)),
  };
}

/** A warning about the cluster's Kartas of one kind, given only when a command needs that kind. */
export interface KindWarning {
  /** The root kind of the Karta(s) it is about; undefined when an invalid Karta does not say (it may be any). */
  kind?: TypeRef;
  message: string;
}

/** The root kind a cluster Karta names (its rootComponent, else the labels the controller keeps), even when it is not valid. */
function declaredKind(item: KubernetesObject): TypeRef | undefined {
  const spec = (item as { spec?: { structureDefinition?: { rootComponent?: { kind?: { group?: unknown; version?: unknown; kind?: unknown } } } } }).spec;
  const k = spec?.structureDefinition?.rootComponent?.kind;
  const labels = item.metadata?.labels ?? {};
  const kind = typeof k?.kind === "string" && k.kind !== "" ? k.kind : labels[LABEL_KIND];
  if (kind === undefined || kind === "") return undefined;
  const group = typeof k?.group === "string" ? k.group : (labels[LABEL_GROUP] ?? "");
  const version = typeof k?.version === "string" ? k.version : (labels[LABEL_VERSION] ?? "");
  return { group, version, kind };
}

/**
 * Whether a failure reading the cluster's Kartas will fail the command too (the server not reached, no
 * answer in time, credentials, 401): then it is the command's error, said once, not a warning first.
 */
function failsEverything(err: unknown): boolean {
  return !(err instanceof ApiInputError) || err.code === 401;
}

/**
 * The Kartas of the cluster, valid ones only. Why the cluster's cannot be read is a warning (the catalog
 * answers); why one of a kind is left out or not used is a warning about that kind (`kinds`).
 */
async function clusterTypes(cluster: LiveCluster, warn: (message: string) => void, kinds: KindWarning[]): Promise<WorkloadType[]> {
  // The API groups first (every command reads them): a server that cannot be read fails here, once.
  const groups = await cluster.apiGroups();
  const absent = "the cluster serves no Karta definitions (the CRD kartas.run.ai is not installed); using the bundled ones";
  if (!groups.some((g) => g.name === "run.ai" && g.versions.includes("v1alpha1"))) {
    warn(absent);
    return [];
  }
  let served;
  try {
    served = await cluster.resources("run.ai", "v1alpha1");
  } catch (err) {
    if (failsEverything(err)) throw err;
    warn(`cannot read the cluster's Karta definitions (${(err as Error).message}); using the bundled ones`);
    return [];
  }
  const resource = served?.find((r) => r.name === "kartas");
  if (!resource) {
    warn(absent);
    return [];
  }
  let items: KubernetesObject[];
  try {
    items = await cluster.list({ group: "run.ai", version: "v1alpha1", resource }, undefined);
  } catch (err) {
    if (failsEverything(err)) throw err;
    warn(`cannot list the cluster's Karta definitions (${err instanceof ApiInputError && err.code === 403 ? "forbidden" : (err as Error).message}); using the bundled ones`);
    return [];
  }
  const byKind = new Map<string, { type: WorkloadType; created: string }>();
  for (const item of items) {
    const name = item.metadata?.name ?? "";
    const loaded = loadDefinitionValue(item, `karta ${name}`);
    const definition = loaded.definitions[0];
    const errors = [...loaded.diagnostics, ...(definition ? validateDefinition(definition, { lint: false }) : [])].filter((d) => d.severity === "error");
    if (!definition || errors.length > 0) {
      const kind = declaredKind(item);
      kinds.push({ ...(kind ? { kind } : {}), message: `Karta ${name} is not valid (${errors[0] ? `${errors[0].path ? `${errors[0].path}: ` : ""}${errors[0].message}` : "no definition"}); left out` });
      continue;
    }
    const t = workloadType(definition, "cluster");
    if (!t) continue;
    const created = String(item.metadata?.creationTimestamp ?? "");
    const had = byKind.get(key(t.type));
    if (had) {
      const older = Date.parse(created) < Date.parse(had.created) || (created === had.created && name < had.type.karta);
      kinds.push({ kind: t.type, message: `Kartas ${had.type.karta} and ${name} both describe ${t.type.kind} ${t.type.group || "core"}/${t.type.version}; the older, ${older ? name : had.type.karta}, is used` });
      if (!older) continue;
    }
    byKind.set(key(t.type), { type: t, created });
  }
  return [...byKind.values()].map((x) => x.type);
}

/** The workload types a command may list, and the warnings about the cluster's Kartas of each kind. */
export interface KnownTypes {
  types: WorkloadType[];
  /** Given with {@link warnAboutKinds} for the kinds the command needs. */
  kindWarnings: KindWarning[];
}

/**
 * The cluster's Kartas and the bundled definitions, the cluster's first for a kind both describe. `warn`
 * gets why the cluster's cannot be read; what concerns one kind waits in `kindWarnings`. A server that
 * cannot be read at all is the command's error (thrown), not a warning.
 */
export async function loadWorkloadTypes(io: CliIO, cluster: LiveCluster, warn: (message: string) => void): Promise<KnownTypes> {
  const kindWarnings: KindWarning[] = [];
  const fromCluster = await clusterTypes(cluster, warn, kindWarnings);
  const catalog = await readCatalog(io, undefined);
  const taken = new Set(fromCluster.map((t) => key(t.type)));
  const bundled = catalog.definitions.map((d) => workloadType(d, "catalog")).filter((t): t is WorkloadType => t !== undefined && !taken.has(key(t.type)));
  return { types: [...fromCluster, ...bundled], kindWarnings };
}

/**
 * Gives the warnings about the cluster's Kartas of the kinds a command lists: `all` (--all-types), the
 * kinds (group and kind, any version) of the types it resolved, or, for a type name that resolved to no
 * type, the kinds that name means. A warning about a Karta whose kind cannot be read is always given.
 */
export function warnAboutKinds(known: KnownTypes, needed: "all" | readonly { group: string; kind: string }[] | { name: string }, warn: (message: string) => void): void {
  for (const w of known.kindWarnings) {
    const k = w.kind;
    const wanted =
      k === undefined ||
      needed === "all" ||
      (Array.isArray(needed) ? needed.some((n) => n.group === k.group && n.kind === k.kind) : kindMatches((needed as { name: string }).name, k));
    if (wanted) warn(w.message);
  }
}

/** Kubernetes' version priority: v1 > v1beta2 > v1beta1 > v1alpha1 > anything else (then by name). */
export function versionPriority(a: string, b: string): number {
  const parse = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    return [m[2] === undefined ? 0 : m[2] === "beta" ? 1 : 2, -Number(m[1]), -Number(m[3] ?? 0), v];
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x[3].localeCompare(y[3]);
}

/** A type with the resource the server serves it as. */
export interface ServedType extends WorkloadType {
  resolved: Resolved;
}

/** The type at `version` when the server serves it, else undefined. */
async function served(cluster: LiveCluster, t: WorkloadType): Promise<ServedType | undefined> {
  const resources = await cluster.resources(t.type.group, t.type.version);
  const resource = resources?.find((r) => r.kind === t.type.kind);
  return resource ? { ...t, resolved: { group: t.type.group, version: t.type.version, resource } } : undefined;
}

/** Every kind with a definition that the server serves, each at its most stable served version with one. */
export async function servedTypes(cluster: LiveCluster, types: readonly WorkloadType[]): Promise<ServedType[]> {
  const all = (await Promise.all(types.map((t) => served(cluster, t)))).filter((t): t is ServedType => t !== undefined);
  const best = new Map<string, ServedType>();
  for (const t of all) {
    const gk = `${t.type.group}/${t.type.kind}`;
    const had = best.get(gk);
    if (!had || versionPriority(t.type.version, had.type.version) < 0) best.set(gk, t);
  }
  return [...best.values()].sort((a, b) => a.type.kind.localeCompare(b.type.kind) || a.type.group.localeCompare(b.type.group));
}

/** Why a type name cannot be listed, with kli's exit code: 3 the kind is not installed, 4 no Karta covers it. */
export interface TypeProblem {
  exit: typeof EXIT_WORKLOAD_NOT_FOUND | typeof EXIT_NO_DEFINITION;
  message: string;
  /** The kind the server resolved the name to, when it did. */
  resolved?: { group: string; kind: string };
}

/**
 * The types TYPE arguments name, in order, with the warnings about the cluster's Kartas of those kinds
 * only (why one is left out...), not of others; the first that does not resolve is the problem.
 */
export async function resolveTypes(cluster: LiveCluster, known: KnownTypes, names: readonly string[], warn: (message: string) => void): Promise<ServedType[] | TypeProblem> {
  const types: ServedType[] = [];
  // A TYPE written again (pod/a job/b pod/c) is resolved, and warned about, once.
  const seen = new Map<string, ServedType>();
  for (const name of names) {
    const again = seen.get(name);
    if (again) {
      types.push(again);
      continue;
    }
    const t = await resolveType(cluster, known.types, name);
    warnAboutKinds(known, "exit" in t ? (t.resolved ? [t.resolved] : { name }) : [t.type], warn);
    if ("exit" in t) return t;
    seen.set(name, t);
    types.push(t);
  }
  return types;
}

/**
 * The type a name means (kubectl's resolution by discovery), at the version it names, else the server's
 * preferred one, else the most stable served version a definition has.
 */
export async function resolveType(cluster: LiveCluster, types: readonly WorkloadType[], text: string): Promise<ServedType | TypeProblem> {
  const r = await cluster.resolve(text);
  if (!r) {
    const known = preferBuiltIn(
      types.filter((t) => kindMatches(text, t.type) || `${t.type.kind.toLowerCase()}s` === text.toLowerCase().split(".")[0]),
      (t) => t.type.group,
    )[0];
    return known ? { exit: EXIT_WORKLOAD_NOT_FOUND, message: `${known.type.kind} is not installed in this cluster` } : { exit: EXIT_NO_DEFINITION, message: `no Karta definition covers "${text}"` };
  }
  const candidates = types.filter((t) => t.type.group === r.group && t.type.kind === r.resource.kind);
  const namedVersion = text.split(".")[1] === r.version;
  const exact = candidates.find((t) => t.type.version === r.version);
  if (exact) return { ...exact, resolved: r };
  if (!namedVersion) {
    const others = await servedTypes(cluster, candidates);
    if (others[0]) return others[0];
  }
  return { exit: EXIT_NO_DEFINITION, message: `no Karta definition covers "${text}"`, resolved: { group: r.group, kind: r.resource.kind } };
}
