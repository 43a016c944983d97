/**
 * `karta get --watch`: after the list, informers on the workloads, their pods and the kinds between them;
 * whenever one changes, the workloads are read again from those caches and each row that differs from
 * what was printed last, or whose workload changed, is printed again (as `kubectl get --watch` prints
 * every event of an object: a label changed prints the row again). Runs
 * until SIGINT or SIGTERM (or `signal`: the command's, its stop after an internal error, and the end of
 * --request-timeout), then exits 0. With a template (-o jsonpath=…, custom-columns=…) each workload is
 * printed alone with it, as kubectl prints each event's object; a template that fails on one stops the
 * watch (exit 2), as kubectl stops.
 */
import type { LiveCluster } from "./cluster.js";
import { EXIT_USAGE } from "./exit-codes.js";
import type { CliIO } from "./io.js";
import { InputError } from "./objects.js";
import { alignColumns } from "./table.js";
import { ScopeReader, type GetOptions } from "./workload-read.js";
import type { DescribeView, WorkloadView } from "./workload-view.js";
import { listRow, machine, nameLine, tableRows } from "./workload-table.js";

type Read = (cluster: LiveCluster, o: GetOptions, reader: ScopeReader) => Promise<DescribeView[] | { exit: number; message: string }>;

const keyOf = (v: WorkloadView): string => `${v.type.group}/${v.type.kind}/${v.namespace}/${v.name}`;

export async function watchWorkloads(
  cluster: LiveCluster,
  options: GetOptions,
  printed: readonly WorkloadView[],
  out: {
    io: CliIO;
    wide: boolean;
    typeName?: (v: WorkloadView) => string;
    format?: "json" | "yaml" | "name";
    /** Prints the workloads with -o's template; false when it failed on one (its error printed). */
    template?: (rows: WorkloadView[]) => boolean;
    signal?: AbortSignal;
  },
  read: Read,
): Promise<number> {
  // What was printed of each workload, and the resourceVersion it had (unknown for the first list's rows).
  const last = new Map<string, { json: string; version?: string; row: WorkloadView }>(printed.map((v) => [keyOf(v), { json: JSON.stringify(v), row: v }]));
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const stop = new AbortController();
  let failed = false;
  const print = (rows: WorkloadView[]): void => {
    if (rows.length === 0 || failed) return;
    if (out.template) {
      if (!out.template(rows)) {
        failed = true;
        stop.abort();
      }
    } else if (out.format === "name") out.io.stdout(rows.map(nameLine).join(""));
    else if (out.format) for (const r of rows) out.io.stdout(machine(r, out.format));
    else out.io.stdout(alignColumns(tableRows(rows, out.wide, out.typeName)).join("\n") + "\n");
  };
  const refresh = async (): Promise<void> => {
    // Every phase is read, so that a workload gone from the cluster is told apart from one whose phase left --phase.
    const views = await read(cluster, { ...options, names: [], phases: [] }, reader);
    if ("exit" in views) return;
    const changed: WorkloadView[] = [];
    const present = new Set<string>();
    for (const v of views.map(listRow)) {
      if (options.names.length > 0 && !options.names.includes(v.name)) continue;
      present.add(keyOf(v));
      if (options.phases.length > 0 && !v.phases.some((p) => options.phases.includes(p))) continue;
      // Any change of the workload itself (a label, the spec) prints its row, as kubectl prints every
      // event of an object; its pods print it when the row changes.
      const json = JSON.stringify(v);
      const version = reader.resourceVersion(v.uid);
      const before = last.get(keyOf(v));
      if (before?.json === json && (before.version === undefined || before.version === version)) {
        before.version = version;
        continue;
      }
      last.set(keyOf(v), { json, row: v, ...(version !== undefined ? { version } : {}) });
      changed.push(v);
    }
    // A deleted workload is printed once more with its last row, as kubectl get --watch prints a DELETED object.
    for (const [key, { row }] of last) {
      if (present.has(key)) continue;
      last.delete(key);
      changed.push(row);
    }
    print(changed);
  };
  const schedule = (): void => {
    if (timer || stop.signal.aborted) return;
    // Events come in bursts (a job and its pods): one read per burst.
    timer = setTimeout(() => {
      timer = undefined;
      running = running.then(refresh).catch((err: unknown) => out.io.stderr(`karta get: warning: ${err instanceof InputError ? err.message : String(err)}\n`));
    }, 200);
  };
  const reader = new ScopeReader(cluster, options.scope, {
    onChange: schedule,
    onError: (err) => out.io.stderr(`karta get: warning: the watch failed (${(err as Error)?.message ?? String(err)}); watching again\n`),
  });
  const onSignal = (): void => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  if (out.signal?.aborted) stop.abort();
  else out.signal?.addEventListener("abort", onSignal, { once: true });
  const stopped = new Promise<void>((resolve) => (stop.signal.aborted ? resolve() : stop.signal.addEventListener("abort", () => resolve(), { once: true })));
  try {
    // The informers list once more; what changed since the first list is printed. They retry a server
    // that does not answer until it does, or until the command is stopped.
    const first = refresh();
    first.catch(() => undefined); // stopped meanwhile: the informers were stopped before they synced
    await Promise.race([first, stopped]);
    await stopped;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    if (timer) clearTimeout(timer);
    await running;
    await reader.stop();
  }
  return failed ? EXIT_USAGE : 0;
}
