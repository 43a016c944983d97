/**
 * `karta get TYPE` and `karta get --all-types`: the live workloads of every type a Karta describes, read
 * from the API server with the user's kubeconfig and context, each with its generic status, components,
 * pods ready/total and GPUs. Exit codes as upstream's `kli` defines them: 3 the named workload (or its
 * kind) is not there, 4 no Karta covers the type.
 */
import { STATUS_ORDER } from "../interpret/compile.js";
import { parseCommand, usageError, type Flags } from "./args.js";
import { clusterError, LiveCluster } from "./cluster.js";
import { guardInternalErrors } from "./crash.js";
import { EXIT_INTERNAL, EXIT_USAGE } from "./exit-codes.js";
import { internalErrorLine, type CliIO } from "./io.js";
import { CHUNK_SIZE_FLAG, CHUNK_SIZE_HELP, CLUSTER_FLAGS, CLUSTER_HELP, clusterFlags, NAMESPACE_FLAG, parseWorkloadArgs, scopeError } from "./live-ref.js";
import { KUBECTL_FOLDED_OUTPUTS, printWithTemplate, TEMPLATE_FLAGS, TEMPLATE_FORMATS, TEMPLATE_FORMATS_HELP, templateFlagsHelp, templatePrinter } from "./output-templates.js";
import { alignColumns } from "./table.js";
import { byType, missingLines, noWorkloadsLine, readEachType, readWorkloads, ScopeReader, type GetOptions } from "./workload-read.js";
import { listRow, machine, nameLine, tableHeader, tableRows, typeNames } from "./workload-table.js";
import type { WorkloadView } from "./workload-view.js";
import { loadWorkloadTypes, resolveTypes, servedTypes, warnAboutKinds, type ServedType } from "./workload-types.js";

/** The generic statuses, as --phase takes them. */
export const PHASES = [...STATUS_ORDER.map(([, s]) => s), "Undefined"] as const;

export const GET_HELP = `Usage: karta get TYPE [NAME...] | TYPE/NAME... | --all-types
                 [-n NAMESPACE | -A] [-l SELECTOR] [--phase STATUS]... [-o FORMAT] [--no-headers] [-w]
                 [--kubeconfig FILE] [--context NAME] [--request-timeout D]

Lists the live workloads of a type that a Karta describes (the cluster's Kartas, else the definitions
bundled with Karta; 'karta definitions list'), read from the API server with your kubeconfig and context
as kubectl reads them. TYPE is a kind, resource or short name, optionally .group or .version.group
(pytorchjob, pytorchjobs.kubeflow.org, PyTorchJob.v1.kubeflow.org). A workload's pods are those whose
controller ownerReferences lead to it (through its Karta's child kinds), as the controller finds them.

TYPE/NAME arguments may be of several types (pytorchjob/a jobset/b).

Columns: NAME, NAMESPACE, TYPE (with --all-types or several types), PHASE (the generic statuses that match, joined by
","), COMPONENTS (the components that run pods), PODS (ready/existing), GPUS (requested at the spec's
scale), AGE; -o wide adds DESIRED (pods the spec asks for), NODES, KARTA and ORIGIN (cluster or catalog).
Rows are newest first (NAMEs given: in their order, as kubectl prints them).

      --all-types         every type a Karta describes that the server serves (each at its most stable
                          served version), leaving out objects another listed type controls (a Deployment's
                          ReplicaSets)
  -n, --namespace NS      the namespace (default: the context's, else default)
  -A, --all-namespaces    every namespace
  -l, --selector SEL      a label selector on the workloads (key=value,key!=value,key in (a,b)...)
      --phase STATUS      only workloads with this status (repeatable): ${PHASES.join(", ")}
  -o, --output FORMAT     table (the default, as kli names it), wide, json or yaml ({items, count}; the
                          object alone for one NAME), name (kind.group/name, as kubectl prints it), or a
                          kubectl template over what json prints (with --watch, over each workload as it
                          is printed):
${TEMPLATE_FORMATS_HELP}
${templateFlagsHelp("the table, custom-columns")}
  -w, --watch             after the list, print a workload again whenever it (or one of its pods) changes;
                          with --request-timeout, the watch ends after that long (exit 0), as kubectl's
${CHUNK_SIZE_HELP}
${CLUSTER_HELP}
  -h, --help              show this help

Exit code: 0 listed (also none), 1 the cluster cannot be read, 2 usage (also a template that fails on
the workloads, with kubectl's error), 3 the named workload does not exist or its kind is not installed,
4 no Karta covers the type, 5 internal error (one line on standard error; with --watch, printed when it
happens, then the watch stops as on SIGINT).

Example:
  karta get jobset -n research
  karta get --all-types -A --phase Running -o wide
  karta get pytorchjob -A -o jsonpath='{range .items[*]}{.namespace}/{.name}{"\\t"}{.phases[*]}{"\\n"}{end}'
  karta get jobset -o custom-columns=NAME:.name,READY:.pods.ready,GPUS:.gpus --no-headers
  kubectl karta get pytorchjob/llama-finetune -n ml-team -o yaml
`;

export const FLAGS = {
  "all-types": { type: "boolean" },
  namespace: NAMESPACE_FLAG,
  "all-namespaces": { type: "boolean", short: "A" },
  selector: { type: "string", short: "l", emptyIsUnset: true },
  phase: { type: "string", multiple: true, choices: PHASES },
  output: { type: "string", short: "o", choices: ["table", "wide", "json", "yaml", "name", ...TEMPLATE_FORMATS], emptyIsUnset: true, foldCase: KUBECTL_FOLDED_OUTPUTS },
  ...TEMPLATE_FLAGS,
  watch: { type: "boolean", short: "w" },
  "chunk-size": CHUNK_SIZE_FLAG,
  ...CLUSTER_FLAGS,
} as const satisfies Flags;

/** Runs `karta get`; returns the exit code (a bug is thrown to main, which prints it in one line). */
export async function runGet(args: string[], io: CliIO, signal?: AbortSignal): Promise<number> {
  const p = parseCommand(io, "get", args, FLAGS, GET_HELP, { positionals: true });
  if (typeof p === "number") return p;
  const v = p.values;
  const usage = (m: string): number => usageError(io, "get", m);
  const named = parseWorkloadArgs(p.positionals);
  if (named && "error" in named) return usage(named.error);
  const groups = named?.groups ?? [];
  const names = groups.flatMap((g) => g.names);
  if (v["all-types"] && groups.length > 0) return usage("give a TYPE or --all-types, not both");
  if (!v["all-types"] && groups.length === 0) return usage("give a TYPE (e.g. 'karta get pytorchjob'), or --all-types");
  const scoped = scopeError(v, names);
  if (scoped) return usage(scoped);
  const access = clusterFlags(v);
  if ("error" in access) return usage(access.error);
  const template = templatePrinter(io, v.output, v);
  if (template && "error" in template) return usage(template.error);
  const warn = (m: string): void => io.stderr(`karta get: warning: ${m}\n`);
  // With --watch the command runs until stopped: an internal error from its start on (the first list
  // included) is one line, then the watch stops (src/cli/crash.ts).
  const stopped = new AbortController();
  const guard = v.watch ? guardInternalErrors({ report: (f) => io.stderr(internalErrorLine("get", f.err)), stop: () => stopped.abort() }) : undefined;
  try {
    const cluster = LiveCluster.open({ ...access, chunkSize: v["chunk-size"] });
    const known = await loadWorkloadTypes(io, cluster, warn);
    let types: ServedType[];
    /** The TYPE arguments' types with their NAMEs, in the order given. */
    let typed: { type: ServedType; names: string[] }[] = [];
    if (groups.length > 0) {
      const resolved = await resolveTypes(cluster, known, groups.map((g) => g.type), warn);
      if ("exit" in resolved) {
        io.stderr(`karta get: ${resolved.message}\n`);
        return resolved.exit;
      }
      typed = groups.map((g, i) => ({ type: resolved[i]!, names: g.names }));
      types = byType(typed).map((t) => t.type);
      // As kubectl: "watch is only supported on individual resources and resource collections".
      if (v.watch && types.length > 1) return usage(`--watch takes one TYPE, not TYPE/NAME arguments of ${types.length} types`);
    } else {
      types = await servedTypes(cluster, known.types);
      warnAboutKinds(known, "all", warn);
    }
    const scope = v["all-namespaces"] ? undefined : (v.namespace ?? cluster.contextNamespace);
    const options: GetOptions = { types, allTypes: v["all-types"], names, scope, phases: v.phase, ...(v.selector !== undefined ? { selector: v.selector } : {}) };
    const wide = v.output === "wide";
    // Several types (--all-types, TYPE/NAME of more than one) are told apart by a TYPE column.
    const typeName = v["all-types"] || types.length > 1 ? typeNames(types) : undefined;
    const reader = new ScopeReader(cluster, scope);
    const read = v["all-types"] ? await readWorkloads(cluster, options, reader) : await readEachType(cluster, typed, options, reader);
    // Names that do not exist: the others are printed first, then a line for each missing one (as kubectl).
    const missing = "exit" in read ? read : undefined;
    const rows = ("exit" in read ? (read.found ?? []) : read).map(listRow);
    if (template) {
      // As kubectl: the template over what -o json prints; with --watch, over each workload alone.
      const values = v.watch ? rows : [names.length === 1 && rows.length === 1 ? rows[0] : { items: rows, count: rows.length }];
      if ((!missing || rows.length > 0) && !printWithTemplate(io, "get", template, values)) {
        // The names that do not exist are still said, as kubectl says them after what it printed.
        if (missing) io.stderr(missingLines("get", missing));
        return EXIT_USAGE;
      }
    } else if (v.output === "json" || v.output === "yaml") {
      if (!missing || rows.length > 0) io.stdout(machine(names.length === 1 && rows.length === 1 ? rows[0] : { items: rows, count: rows.length }, v.output));
    } else if (v.output === "name") {
      io.stdout(rows.map(nameLine).join(""));
    } else if (rows.length === 0 && (!v.watch || missing)) {
      if (!missing) io.stderr(noWorkloadsLine(scope));
    } else {
      const lines = alignColumns([...(v["no-headers"] ? [] : [tableHeader(wide, typeName !== undefined)]), ...tableRows(rows, wide, typeName)]);
      if (lines.length > 0) io.stdout(lines.join("\n") + "\n");
    }
    if (missing) {
      io.stderr(missingLines("get", missing));
      return missing.exit;
    }
    if (!v.watch) return 0;
    const { watchWorkloads } = await import("./get-watch.js");
    // kubectl's watch is one request: its client timeout (--request-timeout) ends it, and kubectl exits 0.
    const deadline = cluster.watchDeadline();
    const signals = [stopped.signal, ...(signal ? [signal] : []), ...(deadline ? [deadline] : [])];
    const format = template ? { template: (changed: WorkloadView[]) => printWithTemplate(io, "get", template, changed) } : v.output === "json" || v.output === "yaml" || v.output === "name" ? { format: v.output } : {};
    const code = await watchWorkloads(cluster, options, rows, { io, wide, ...(typeName ? { typeName } : {}), ...format, signal: AbortSignal.any(signals) }, readWorkloads);
    return guard?.failed ? EXIT_INTERNAL : code;
  } catch (err) {
    return clusterError(io, "get", err);
  } finally {
    guard?.release();
  }
}
