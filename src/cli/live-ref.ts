/**
 * The command-line side of reading a workload from a cluster (`karta inspect|compile KIND/NAME -n NS`):
 * the flags kubectl users know and their checks. Kept apart from live.ts so that commands given files
 * never load the Kubernetes client.
 */
import type { Flags, IntegerFlag, StringFlag } from "./args.js";
import { handwritten } from "../names/index.js";
import type { KubeconfigOverrides } from "../controller/kubeconfig.js";
import type { ClusterOptions } from "./cluster.js";
import { parseRequestTimeout } from "../server/duration.js";

/**
 * The flags that say how to reach the cluster, as kubectl names them (get, describe, inspect, compile);
 * an empty value is no override, as in kubectl (clientcmd).
 */
export const CLUSTER_FLAGS = {
  kubeconfig: { type: "string", emptyIsUnset: true },
  context: { type: "string", emptyIsUnset: true },
  "request-timeout": { type: "string" },
  cluster: { type: "string", emptyIsUnset: true },
  user: { type: "string", emptyIsUnset: true },
  server: { type: "string", short: "s", emptyIsUnset: true },
  token: { type: "string", emptyIsUnset: true },
  username: { type: "string", emptyIsUnset: true },
  password: { type: "string", emptyIsUnset: true },
  "certificate-authority": { type: "string", emptyIsUnset: true },
  "client-certificate": { type: "string", emptyIsUnset: true },
  "client-key": { type: "string", emptyIsUnset: true },
  "insecure-skip-tls-verify": { type: "boolean" },
  "tls-server-name": { type: "string", emptyIsUnset: true },
  "disable-compression": { type: "boolean" },
  as: { type: "string", emptyIsUnset: true },
  "as-group": { type: "string", multiple: true, emptyIsUnset: true },
  "as-uid": { type: "string", emptyIsUnset: true },
} as const satisfies Flags;

type ClusterValues = { [K in keyof typeof CLUSTER_FLAGS]?: (typeof CLUSTER_FLAGS)[K] extends { type: "boolean" } ? boolean | undefined : (typeof CLUSTER_FLAGS)[K] extends { multiple: true } ? string[] | undefined : string | undefined };

/**
 * `-n, --namespace NS` of every command that reads a cluster: a namespace is a DNS-1123 label (as the API
 * server validates a Namespace's name), refused before any request, since it becomes a segment of the
 * request's path (`-n ../../api/v1` would name another path).
 */
export const NAMESPACE_FLAG = { type: "string", short: "n", emptyIsUnset: true, validate: (ns: string) => handwritten.isDNS1123Label(ns) } as const satisfies StringFlag;

/** kubectl's `--chunk-size N` of get and describe: lists read in pages of N objects (0: all at once). */
export const CHUNK_SIZE_FLAG = { type: "integer", min: 0, default: 500 } as const satisfies IntegerFlag;

/** Its help line, descriptions at column 26. */
export const CHUNK_SIZE_HELP = `      --chunk-size N      read large lists in pages of N objects rather than all at once, as kubectl
                          (default 500; 0: one request)`;

export const LIVE_FLAGS = {
  namespace: NAMESPACE_FLAG,
  ...CLUSTER_FLAGS,
} as const satisfies Flags;

/** The help lines of {@link CLUSTER_FLAGS}, descriptions at column 26 (get and describe). */
export const CLUSTER_HELP = helpLines(clusterHelpRows(), 26);

/** Help rows as lines, each description starting at column `width` (below a flag that leaves no two spaces). */
function helpLines(rows: [string, string[]][], width: number): string {
  const indent = " ".repeat(width);
  return rows.map(([flag, lines]) => (flag.length + 2 > width ? [flag, ...lines.map((l) => indent + l)] : lines.map((l, i) => (i === 0 ? flag.padEnd(width) : indent) + l)).join("\n")).join("\n");
}

function clusterHelpRows(): [string, string[]][] {
  return [
    ["      --kubeconfig FILE", ["the kubeconfig (default: KUBECONFIG, ~/.kube/config, or in-cluster)"]],
    ["      --context NAME", ["the kubeconfig context to use"]],
    ["      --request-timeout D", ["how long to wait for each answer of the server, as kubectl: 30s, 2m, a", "number of seconds, or 0 for no limit (default 30s; the time an exec", "credential plugin takes is not counted)"]],
    [
      "      --cluster NAME, --user NAME, -s, --server URL, --token TOKEN,\n      --username NAME, --password PASSWORD (basic auth),\n      --certificate-authority FILE, --client-certificate FILE, --client-key FILE,\n      --insecure-skip-tls-verify, --tls-server-name NAME, --disable-compression,\n      --as USER, --as-group GROUP (repeatable), --as-uid UID",
      ["override the kubeconfig's context as kubectl's flags of the same names do"],
    ],
  ];
}

/** The cluster flags' values checked (an error names the flag given wrong), as kubectl reads them. */
export function clusterFlags(values: ClusterValues): ClusterOptions | { error: string } {
  // kubectl reads an empty --request-timeout as its default, 0: no limit.
  const t = values["request-timeout"] === "" ? "0" : values["request-timeout"];
  const requestTimeout = t === undefined ? undefined : parseRequestTimeout(t);
  if (t !== undefined && requestTimeout === undefined) return { error: `invalid argument "${t}" for "--request-timeout": expected a number of seconds or a duration such as 30s or 2m (0: no limit)` };
  const o: KubeconfigOverrides = {};
  const strings = { cluster: "cluster", user: "user", server: "server", token: "token", username: "username", password: "password", "certificate-authority": "certificateAuthority", "client-certificate": "clientCertificate", "client-key": "clientKey", "tls-server-name": "tlsServerName", as: "as", "as-uid": "asUid" } as const;
  for (const [flag, field] of Object.entries(strings)) {
    const v = values[flag as keyof typeof strings];
    if (v !== undefined) o[field] = v;
  }
  if (values["insecure-skip-tls-verify"]) o.insecureSkipTLSVerify = true;
  if (values["disable-compression"]) o.disableCompression = true;
  if (values["as-group"] && values["as-group"].length > 0) o.asGroups = values["as-group"];
  return {
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context !== undefined ? { context: values.context } : {}),
    ...(requestTimeout !== undefined ? { requestTimeout } : {}),
    ...(Object.keys(o).length > 0 ? { overrides: o } : {}),
  };
}

/** The first cluster flag given, as the user wrote it (they read from a cluster: an error without KIND/NAME). */
function clusterFlagGiven(values: ClusterValues): string | undefined {
  for (const name of Object.keys(CLUSTER_FLAGS) as (keyof ClusterValues)[]) {
    const v = values[name];
    if (v !== undefined && v !== false && !(Array.isArray(v) && v.length === 0)) return `--${name}`;
  }
  return undefined;
}

/** The flags of a workload read from files, shared by inspect and compile: its definition, the object and its pods. */
export const WORKLOAD_FLAGS = {
  definition: { type: "string", short: "d", once: true },
  // Repeatable as kubectl's -f: the files together hold the one workload object.
  object: { type: "string", short: "f", multiple: true },
  filename: { type: "string", multiple: true },
  pods: { type: "string", multiple: true },
} as const satisfies Flags;

/** The help lines of KIND/NAME and the cluster flags, descriptions starting at column `width`. */
export function liveHelp(width: number): string {
  return helpLines([
    ["  KIND/NAME", ["read the object from the cluster instead, as kubectl does (KIND: kind,", "resource or short name, optionally .group: pytorchjob/bert,", "pytorchjobs.kubeflow.org/bert), with its pods (those whose ownerReferences", "lead to it) and the objects between them (ReplicaSets, Jobs...)"]],
    ["  -n, --namespace NS", ["the object's namespace (default: the context's, else default)"]],
    ...clusterHelpRows(),
  ], width);
}

export interface LiveTarget extends ClusterOptions {
  ref: { kind: string; name: string };
  namespace?: string;
}

/** `KIND/NAME` or `KIND NAME` from the positional arguments; undefined when there are none. */
export function parseLiveRef(positionals: readonly string[]): { kind: string; name: string } | { error: string } | undefined {
  if (positionals.length === 0) return undefined;
  if (positionals.length === 1) {
    const [kind, name, ...rest] = positionals[0]!.split("/");
    if (!kind || !name || rest.length > 0) return { error: `expected KIND/NAME (e.g. pytorchjob/bert), not '${positionals[0]}'` };
    return { kind, name };
  }
  if (positionals.length === 2 && !positionals[0]!.includes("/") && !positionals[1]!.includes("/")) return { kind: positionals[0]!, name: positionals[1]! };
  return { error: `expected one KIND/NAME (or KIND NAME), not '${positionals.join(" ")}'` };
}

/** The workloads a command line names: TYPE [NAME...] or TYPE/NAME..., each TYPE with its NAMEs in the order given. */
export interface WorkloadArgs {
  groups: { type: string; names: string[] }[];
  /** Written as TYPE/NAME (kubectl's prefix matching is for TYPE NAME only). */
  slashed: boolean;
}

/**
 * The TYPE and NAME arguments of `get` and `describe`, as kubectl reads them: `TYPE [NAME...]`, or
 * `TYPE/NAME...` whose types may differ (neighbours of one TYPE as written grouped, in the order given:
 * `a/x a/y b/z a/w` is a: x y, b: z, a: w); undefined when there are none; the two forms mixed are an error.
 */
export function parseWorkloadArgs(positionals: readonly string[]): WorkloadArgs | { error: string } | undefined {
  if (positionals.length === 0) return undefined;
  const [first, ...rest] = positionals as [string, ...string[]];
  if (!first.includes("/")) {
    const typed = rest.find((a) => a.includes("/"));
    if (typed !== undefined) return { error: `'${typed}' is a TYPE/NAME after TYPE: give every workload as TYPE/NAME, or TYPE NAME...` };
    return { groups: [{ type: first, names: rest }], slashed: false };
  }
  const bare = rest.find((a) => !a.includes("/"));
  if (bare !== undefined) return { error: `'${bare}' is a NAME after TYPE/NAME: give every workload as TYPE/NAME, or TYPE NAME...` };
  const groups: { type: string; names: string[] }[] = [];
  for (const arg of positionals) {
    const at = arg.indexOf("/");
    const type = arg.slice(0, at);
    const name = arg.slice(at + 1);
    if (type === "" || name === "" || name.includes("/")) return { error: `expected TYPE/NAME (e.g. jobset/llm-pretrain), not '${arg}'` };
    const last = groups[groups.length - 1];
    if (last?.type.toLowerCase() === type.toLowerCase()) last.names.push(name);
    else groups.push({ type, names: [name] });
  }
  return { groups, slashed: true };
}

/** What is wrong with `-n`, `-A`, `-l` and NAMEs together in `get` and `describe` (undefined: nothing). */
export function scopeError(v: { "all-namespaces": boolean; namespace?: string | undefined; selector?: string | undefined }, names: readonly string[]): string | undefined {
  if (v["all-namespaces"] && v.namespace !== undefined) return "give -n NAMESPACE or -A, not both";
  if (v["all-namespaces"] && names.length > 0) return "a workload cannot be read by name across all namespaces";
  if (names.length > 0 && v.selector !== undefined) return "give NAMEs or -l SELECTOR, not both";
  return undefined;
}

/**
 * The cluster object to read, undefined when the workload comes from files, or a usage error: a file and
 * KIND/NAME together, files of pods with KIND/NAME (the cluster's are read), or cluster flags without KIND/NAME.
 */
export function liveTarget(
  positionals: readonly string[],
  values: ClusterValues & { namespace?: string | undefined },
  given: { object: boolean; podFlags: string[] },
): LiveTarget | undefined | { error: string } {
  const ref = parseLiveRef(positionals);
  if (ref && "error" in ref) return ref;
  if (!ref) {
    const flag = values.namespace !== undefined ? "--namespace" : clusterFlagGiven(values);
    if (flag) return { error: `${flag} reads the workload from a cluster: give it as KIND/NAME` };
    return undefined;
  }
  if (given.object) return { error: "give the workload as -f FILE or as KIND/NAME, not both" };
  if (given.podFlags.length > 0) return { error: `with KIND/NAME the pods are read from the cluster: leave out ${given.podFlags.join(" and ")}` };
  const cluster = clusterFlags(values);
  if ("error" in cluster) return cluster;
  return { ref, ...(values.namespace !== undefined ? { namespace: values.namespace } : {}), ...cluster };
}
