/**
 * The command-line side of reading a workload from a cluster (`karta inspect|compile KIND/NAME -n NS`):
 * the flags kubectl users know and their checks. Kept apart from live.ts so that commands given files
 * never load the Kubernetes client.
 */
import type { Flags } from "./args.js";

export const LIVE_FLAGS = {
  namespace: { type: "string", short: "n" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
} as const satisfies Flags;

/** The flags of a workload read from files, shared by inspect and compile: its definition, the object and its pods. */
export const WORKLOAD_FLAGS = {
  definition: { type: "string", short: "d" },
  object: { type: "string", short: "f" },
  filename: { type: "string" },
  pods: { type: "string", multiple: true },
} as const satisfies Flags;

/** The help lines of KIND/NAME and the cluster flags, descriptions starting at column `width`. */
export function liveHelp(width: number): string {
  const rows: [string, string[]][] = [
    ["  KIND/NAME", ["read the object from the cluster instead, as kubectl does (KIND: kind,", "resource or short name, optionally .group: pytorchjob/bert,", "pytorchjobs.kubeflow.org/bert), with its pods (those whose ownerReferences", "lead to it) and the objects between them (ReplicaSets, Jobs...)"]],
    ["  -n, --namespace NS", ["the object's namespace (default: the context's, else default)"]],
    ["      --kubeconfig FILE", ["the kubeconfig (default: KUBECONFIG, ~/.kube/config, or in-cluster)"]],
    ["      --context NAME", ["the kubeconfig context to use"]],
  ];
  return rows.map(([flag, lines]) => lines.map((l, i) => (i === 0 ? flag.padEnd(width) : " ".repeat(width)) + l).join("\n")).join("\n");
}

export interface LiveTarget {
  ref: { kind: string; name: string };
  namespace?: string;
  kubeconfig?: string;
  context?: string;
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

/**
 * The cluster object to read, undefined when the workload comes from files, or a usage error: a file and
 * KIND/NAME together, files of pods with KIND/NAME (the cluster's are read), or cluster flags without KIND/NAME.
 */
export function liveTarget(
  positionals: readonly string[],
  values: { namespace?: string | undefined; kubeconfig?: string | undefined; context?: string | undefined },
  given: { object: boolean; podFlags: string[] },
): LiveTarget | undefined | { error: string } {
  const ref = parseLiveRef(positionals);
  if (ref && "error" in ref) return ref;
  if (!ref) {
    const flag = values.namespace !== undefined ? "--namespace" : values.kubeconfig !== undefined ? "--kubeconfig" : values.context !== undefined ? "--context" : undefined;
    if (flag) return { error: `${flag} reads the workload from a cluster: give it as KIND/NAME` };
    return undefined;
  }
  if (given.object) return { error: "give the workload as -f FILE or as KIND/NAME, not both" };
  if (given.podFlags.length > 0) return { error: `with KIND/NAME the pods are read from the cluster: leave out ${given.podFlags.join(" and ")}` };
  for (const [flag, v] of [["--namespace", values.namespace], ["--kubeconfig", values.kubeconfig], ["--context", values.context]] as const) {
    if (v === "") return { error: `flag needs an argument: ${flag}` };
  }
  return {
    ref,
    ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
    ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context !== undefined ? { context: values.context } : {}),
  };
}
