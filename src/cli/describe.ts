/**
 * `karta describe TYPE/NAME`: live workloads as upstream's `kli describe` draws them — a header (kind
 * and name, namespace, definition and its origin, age), the tree of root, components, instances (and
 * replicas), pods and their nodes, each with its status, the phase, the resources each component asks for
 * — then the object's events as `kubectl describe` lists them. Exit codes as `get`.
 */
import type { KubernetesObject } from "../controller/kubernetes-object.js";
import { parseCommand, usageError, type Flags } from "./args.js";
import { ApiInputError, clusterError, LiveCluster } from "./cluster.js";
import type { CliIO } from "./io.js";
import { EXIT_USAGE } from "./exit-codes.js";
import { CHUNK_SIZE_FLAG, CHUNK_SIZE_HELP, CLUSTER_FLAGS, CLUSTER_HELP, clusterFlags, NAMESPACE_FLAG, parseWorkloadArgs, scopeError } from "./live-ref.js";
import { KUBECTL_FOLDED_OUTPUTS, printWithTemplate, TEMPLATE_FLAGS, TEMPLATE_FORMATS, TEMPLATE_FORMATS_HELP, templateFlagsHelp, templatePrinter } from "./output-templates.js";
import { age, alignColumns } from "./table.js";
import { missingLines, noWorkloadsLine, readEachType, ScopeReader } from "./workload-read.js";
import { machine } from "./workload-table.js";
import { loadWorkloadTypes, resolveTypes } from "./workload-types.js";
import type { DescribeView, PodView, TreeNode } from "./workload-view.js";

export const DESCRIBE_HELP = `Usage: karta describe TYPE [NAME... | NAME_PREFIX | -l SELECTOR] | TYPE/NAME...
                      [-n NAMESPACE | -A] [--show-events] [--pod-limit N] [--component-limit N] [-o FORMAT]
                      [--kubeconfig FILE] [--context NAME] [--request-timeout D]
       karta describe -f FILE [--pods SOURCE]... [-d DEFINITION] [--pod-limit N] [--component-limit N] [-o FORMAT]

Shows live workloads as their Karta sees them, read from the API server with your kubeconfig and
context: a header (kind/name, namespace, the definition and whether it is the cluster's Karta or the
catalog's, age); the tree of the workload (its generic status, pods ready/desired, GPUs), its components
and their instances (and replicas, by a replicaSelector's key) with ready/desired pods, GPUs and nodes,
and every pod with its phase (and why it is not ready), GPUs and node; pods no component claims under
"(no component)"; the phase; the resources (GPU, CPU, memory) each component asks for at its desired
replicas; problems the interpretation found; and the workload's events, as kubectl describe shows them.
TYPE as for 'karta get'.

As kubectl describe: TYPE alone describes every workload of the type (newest first, where kubectl goes by
name), -l only those its labels match; TYPE NAME that does not exist describes every workload whose name
starts with NAME; TYPE/NAME arguments may be of several types. Events are shown for one workload only,
unless --show-events says.

  -f, --filename FILE     describe the workload object in FILE (- for stdin) offline, as upstream's kli
                          does: no cluster is asked, so no events; its pods are those given with --pods
      --pods SOURCE       with -f: pods (a file, a directory or -; a List as 'kubectl get pods -o yaml'
                          prints), and objects between them and the workload (ReplicaSets, Jobs...)
  -d, --definition PATH   with -f: the Karta (a file or directory) instead of the bundled one
  -n, --namespace NS      the namespace (default: the context's, else default)
  -A, --all-namespaces    every namespace
  -l, --selector SEL      a label selector on the workloads (key=value,key!=value,key in (a,b)...)
      --show-events       show each workload's events (default: true for one workload, false for
                          several and for names matched by prefix)
      --pod-limit N       in the tree, at most N pods under each component or instance, those not
                          ready first, the rest on one line with how many are ready (default 0: all)
      --component-limit N in the tree, at most N components or instances under each one, the rest on
                          one line with their pods ready/desired (default 0: all)
  -o, --output FORMAT     table (the default, as kli names it), json or yaml: the same values (with the
                          events); {items, count} for several; or a kubectl template over what json prints:
${TEMPLATE_FORMATS_HELP}
${templateFlagsHelp("custom-columns")}
${CHUNK_SIZE_HELP}
${CLUSTER_HELP}
  -h, --help              show this help

Exit code: 0 shown (also none, with a note on standard error), 1 the cluster cannot be read, 2 usage
(also a template that fails on the workloads), 3 a named workload does not exist (the others are shown)
or its kind is not installed, 4 no Karta covers the type.

Example:
  karta describe jobset/llm-pretrain -n research
  karta describe -f examples/jobset.yaml --pods examples/jobset-pods.yaml --pod-limit 3
  karta describe pytorchjob -l team=ml -n ml-team
  kubectl karta describe pytorchjob llama-finetune -n ml-team -o yaml
  karta describe jobset/llm-pretrain -o jsonpath='{range .events[*]}{.reason}: {.message}{"\\n"}{end}'
`;

export const FLAGS = {
  namespace: NAMESPACE_FLAG,
  "all-namespaces": { type: "boolean", short: "A" },
  selector: { type: "string", short: "l", emptyIsUnset: true },
  "show-events": { type: "boolean", unsetIsUndefined: true },
  filename: { type: "string", short: "f" },
  pods: { type: "string", multiple: true },
  definition: { type: "string", short: "d" },
  "pod-limit": { type: "integer", min: 0, default: 0 },
  "component-limit": { type: "integer", min: 0, default: 0 },
  output: { type: "string", short: "o", choices: ["table", "json", "yaml", ...TEMPLATE_FORMATS], emptyIsUnset: true, foldCase: KUBECTL_FOLDED_OUTPUTS },
  ...TEMPLATE_FLAGS,
  "chunk-size": CHUNK_SIZE_FLAG,
  ...CLUSTER_FLAGS,
} as const satisfies Flags;

/** An event about the workload, as kubectl describe lists it. */
export interface EventView {
  type: string;
  reason: string;
  /** kubectl's AGE cell: `5m`, or `2m (x3 over 10m)` for a repeated event. */
  age: string;
  from: string;
  message: string;
}

const branch = (last: boolean): string => (last ? "`-- " : "|-- ");
const indent = (last: boolean): string => (last ? "    " : "|   ");

function podStatus(p: PodView): string {
  return p.reason ? `${p.phase} (${p.reason})` : p.phase;
}

const gpuCell = (n: number): string => (n > 0 ? `gpu: ${n}` : "");

/** How much of the tree to print: at most this many pods, and components, under each node (0: all). */
export interface TreeLimits {
  pods: number;
  components: number;
}

/** The tree's rows: [name with its branch, status, GPUs, nodes]. */
function treeRows(view: DescribeView, limits: TreeLimits): string[][] {
  const rows: string[][] = [];
  const t = view.tree;
  rows.push([`${view.type.kind}/${view.name} [${view.phases.join(",")}]`, `${t.ready}/${view.desiredPods} ready`, gpuCell(view.gpus), ""]);
  const walk = (node: TreeNode, prefix: string): void => {
    // Over the limit, the pods not ready come first (what a reader looks for), the others stay in their order.
    const pods = limits.pods > 0 && node.pods.length > limits.pods ? [...node.pods.filter((p) => !p.ready), ...node.pods.filter((p) => p.ready)] : node.pods;
    const shownPods = limits.pods > 0 ? pods.slice(0, limits.pods) : pods;
    const shownChildren = limits.components > 0 ? node.children.slice(0, limits.components) : node.children;
    const hiddenPods = pods.slice(shownPods.length);
    const hiddenChildren = node.children.slice(shownChildren.length);
    const items: ({ pod: PodView } | { node: TreeNode } | { more: string[] })[] = [...shownPods.map((pod) => ({ pod }))];
    if (hiddenPods.length > 0) items.push({ more: [`... ${hiddenPods.length} more pod${hiddenPods.length === 1 ? "" : "s"}`, `${hiddenPods.filter((p) => p.ready).length}/${hiddenPods.length} ready`, gpuCell(hiddenPods.reduce((n, p) => n + p.gpus, 0)), ""] });
    items.push(...shownChildren.map((n) => ({ node: n })));
    if (hiddenChildren.length > 0) {
      const sum = (f: (n: TreeNode) => number): number => hiddenChildren.reduce((s, n) => s + f(n), 0);
      items.push({ more: [`... ${hiddenChildren.length} more`, `${sum((n) => n.ready)}/${sum((n) => n.desired ?? n.current)} ready`, gpuCell(sum((n) => n.gpus)), ""] });
    }
    items.forEach((item, i) => {
      const last = i === items.length - 1;
      if ("more" in item) {
        const [what, ...cells] = item.more;
        rows.push([prefix + branch(last) + what, ...cells]);
        return;
      }
      if ("pod" in item) {
        rows.push([prefix + branch(last) + item.pod.name, podStatus(item.pod), gpuCell(item.pod.gpus), item.pod.node ?? "<none>"]);
        return;
      }
      const n = item.node;
      rows.push([prefix + branch(last) + n.name, `${n.ready}/${n.desired ?? n.current} ready`, gpuCell(n.gpus), n.nodes.join(",")]);
      walk(n, prefix + indent(last));
    });
  };
  walk(t, "");
  return rows;
}

/** The events section, as kubectl describe prints it. */
function eventsText(events: EventView[]): string {
  if (events.length === 0) return "Events:  <none>\n";
  const rows = alignColumns(
    [["Type", "Reason", "Age", "From", "Message"], ["----", "------", "----", "----", "-------"], ...events.map((e) => [e.type, e.reason, e.age, e.from, e.message])],
    { minWidth: 0, padding: 2 },
  );
  return `Events:\n${rows.map((r) => `  ${r}`).join("\n")}\n`;
}

/** The whole text of `karta describe` for a view and its events (no Events section when they are not shown). */
export function describeText(view: DescribeView, events: EventView[] | undefined, now = Date.now(), limits: TreeLimits = { pods: 0, components: 0 }): string {
  const out: string[] = [];
  out.push([`${view.type.kind}/${view.name}`, `namespace: ${view.namespace || "<none>"}`, `definition: ${view.karta} (${view.origin})`, `age: ${age(view.createdAt, now)}`].join("   "));
  out.push("");
  out.push(...alignColumns(treeRows(view, limits)));
  out.push("");
  out.push(`Phase: ${view.phases.join(",")}`);
  out.push("");
  out.push("Resources:");
  const r = view.resources;
  out.push(...alignColumns([["COMPONENT", "REPLICAS", "GPU", "CPU", "MEMORY"], ...[...r.rows, r.total].map((x) => [x.component, String(x.replicas), String(x.gpus), x.cpu, x.memory])]));
  if (view.problems.length > 0) {
    out.push("");
    out.push("Problems:");
    for (const p of view.problems) out.push(`  ${p}`);
  }
  if (!events) return out.join("\n") + "\n";
  out.push("");
  return out.join("\n") + "\n" + eventsText(events);
}

/** kubectl describe's AGE of an event (first seen, or `last (xN over first)` for a repeated one). */
export function eventView(e: KubernetesObject, now = Date.now()): EventView {
  const x = e as unknown as Record<string, unknown> & { source?: { component?: string }; series?: { count?: number; lastObservedTime?: string }; involvedObject?: { fieldPath?: string } };
  const first = typeof x.eventTime === "string" && x.eventTime !== "" ? x.eventTime : (x.firstTimestamp as string | undefined);
  const firstAge = age(first, now);
  let when = firstAge;
  if (x.series) when = `${age(x.series.lastObservedTime, now)} (x${x.series.count ?? 0} over ${firstAge})`;
  else if (typeof x.count === "number" && x.count > 1) when = `${age(x.lastTimestamp as string | undefined, now)} (x${x.count} over ${firstAge})`;
  const message = String(x.message ?? "").trim();
  return {
    type: String(x.type ?? ""),
    reason: String(x.reason ?? ""),
    age: when,
    from: x.source?.component || String(x.reportingComponent ?? ""),
    message: x.involvedObject?.fieldPath ? `${x.involvedObject.fieldPath}: ${message}` : message,
  };
}

/**
 * The workload's events; a user who may read the workload but not Events (a read-only role without
 * them) gets the rest with a warning, as `kubectl describe` ignores its events lookup failing.
 */
async function readEvents(io: CliIO, cluster: LiveCluster, namespace: string, uid: string): Promise<KubernetesObject[]> {
  try {
    return await cluster.events(namespace, uid);
  } catch (err) {
    if (!(err instanceof ApiInputError)) throw err;
    io.stderr(`karta describe: warning: events not shown: ${err.message}\n`);
    return [];
  }
}

/** Runs `karta describe`; returns the exit code (a bug is thrown to main, which prints it in one line). */
export async function runDescribe(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "describe", args, FLAGS, DESCRIBE_HELP, { positionals: true });
  if (typeof p === "number") return p;
  const v = p.values;
  const usage = (m: string): number => usageError(io, "describe", m);
  const template = templatePrinter(io, v.output, v);
  if (template && "error" in template) return usage(template.error);
  const limits = { pods: v["pod-limit"], components: v["component-limit"] };
  // -o's machine formats, for a file's workload and for live ones alike: false when a template failed on the value.
  const machineOutput = template !== undefined || v.output === "json" || v.output === "yaml";
  const printValue = (value: unknown): boolean => {
    if (template) return printWithTemplate(io, "describe", template, [value]);
    io.stdout(machine(value, v.output as "json" | "yaml"));
    return true;
  };
  if (v.filename !== undefined) {
    if (p.positionals.length > 0) return usage(`-f describes the object in the file: not with '${p.positionals[0]}'`);
    if (v["all-namespaces"] || v.selector !== undefined) return usage(`-f describes the object in the file: not with ${v.selector !== undefined ? "--selector" : "--all-namespaces"}`);
    const { describeFile } = await import("./describe-file.js");
    const view = await describeFile(io, { files: [v.filename], pods: v.pods, ...(v.definition !== undefined ? { definition: v.definition } : {}) });
    if (typeof view === "number") return view;
    if (machineOutput) return printValue(view) ? 0 : EXIT_USAGE;
    io.stdout(describeText(view, undefined, Date.now(), limits) + "\n(file mode: no live status: the pods given with --pods, no events)\n");
    return 0;
  }
  if (v.pods.length > 0 || v.definition !== undefined) return usage(`${v.pods.length > 0 ? "--pods" : "--definition"} goes with -f FILE (a live workload's pods and Karta are the cluster's)`);
  const named = parseWorkloadArgs(p.positionals);
  if (!named) return usage("give the type of workload to describe: TYPE (e.g. 'karta describe pytorchjob'), TYPE NAME or TYPE/NAME");
  if ("error" in named) return usage(named.error);
  const names = named.groups.flatMap((g) => g.names);
  const scoped = scopeError(v, names);
  if (scoped) return usage(scoped);
  const access = clusterFlags(v);
  if ("error" in access) return usage(access.error);
  try {
    const cluster = LiveCluster.open({ ...access, chunkSize: v["chunk-size"] });
    const warn = (m: string): void => io.stderr(`karta describe: warning: ${m}\n`);
    const known = await loadWorkloadTypes(io, cluster, warn);
    const types = await resolveTypes(cluster, known, named.groups.map((g) => g.type), warn);
    if ("exit" in types) {
      io.stderr(`karta describe: ${types.message}\n`);
      return types.exit;
    }
    const scope = v["all-namespaces"] ? undefined : (v.namespace ?? cluster.contextNamespace);
    const reader = new ScopeReader(cluster, scope);
    const options = { allTypes: false, scope, phases: [], ...(v.selector !== undefined ? { selector: v.selector } : {}) };
    let read = await readEachType(cluster, named.groups.map((g, i) => ({ type: types[i]!, names: g.names })), options, reader);
    let prefixed = false;
    // kubectl describe TYPE NAME: when no workload has that name, every one whose name starts with it.
    if ("exit" in read && !named.slashed && names.length === 1) {
      const all = await readEachType(cluster, [{ type: types[0]!, names: [] }], options, reader);
      const matching = "exit" in all ? [] : all.filter((w) => w.name.startsWith(names[0]!));
      if (matching.length > 0) [read, prefixed] = [matching, true];
    }
    const missing = "exit" in read ? read : undefined;
    const views = "exit" in read ? (read.found ?? []) : read;
    const showEvents = v["show-events"] ?? (views.length === 1 && !prefixed && !missing);
    const now = Date.now();
    const described: { view: DescribeView; events?: EventView[] }[] = [];
    for (const view of views) {
      if (!showEvents) described.push({ view });
      else described.push({ view, events: view.uid && view.namespace ? (await readEvents(io, cluster, view.namespace, view.uid)).map((e) => eventView(e, now)) : [] });
    }
    if (machineOutput) {
      const values = described.map(({ view, events }) => ({ ...view, ...(events ? { events } : {}) }));
      const value = names.length === 1 && values.length === 1 && !prefixed ? values[0] : { items: values, count: values.length };
      if ((!missing || values.length > 0) && !printValue(value)) {
        // The names that do not exist are still said, as kubectl says them after what it printed.
        if (missing) io.stderr(missingLines("describe", missing));
        return EXIT_USAGE;
      }
    } else {
      io.stdout(described.map(({ view, events }) => describeText(view, events, now, limits)).join("\n\n"));
      if (views.length === 0 && !missing) io.stderr(noWorkloadsLine(scope));
    }
    if (missing) {
      io.stderr(missingLines("describe", missing));
      return missing.exit;
    }
    return 0;
  } catch (err) {
    return clusterError(io, "describe", err);
  }
}
