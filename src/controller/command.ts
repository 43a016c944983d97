/**
 * `karta controller`: runs the Karta reconciler against a cluster until SIGINT/SIGTERM.
 * Exit code: 0 after a graceful shutdown, 1 when it cannot start, 2 usage.
 */
import { parseArgs } from "node:util";
import type { CliIO } from "../cli/io.js";
import { KartaReconciler } from "./kartas.js";
import { WorkloadReconciler } from "./workloads.js";
import { loadKubeConfig } from "./kube.js";
import { jsonLogger } from "./log.js";

export const CONTROLLER_HELP = `Usage: karta controller [--kubeconfig FILE] [--context NAME] [-v]

Runs the Karta controller. It watches the Karta objects (kartas.run.ai) and keeps their status current:
the condition KartaValidated (the same validation as 'karta validate', with the errors' field paths),
CRDExists (the root kind is served at that version) and Ready (both True), with observedGeneration, and
the labels run.ai/karta-group, run.ai/karta-version and run.ai/karta-kind. A Karta whose CRD is applied
later becomes Ready without a restart. For every Ready Karta it watches the root kind and pods, and
server-side applies (field manager karta) the Workload, CompositePodGroups and PodGroups that
'karta compile' makes for each object, owned by it; groups that no longer exist are deleted, objects
whose immutable fields changed are recreated, and interpretation errors become Events on the object.
Logs are JSON lines on standard error.

The kubeconfig is found as kubectl finds it: --kubeconfig, else KUBECONFIG or ~/.kube/config, else
the in-cluster service account. 'karta rbac' prints the ClusterRole it needs.

      --kubeconfig FILE   the kubeconfig to use
      --context NAME      the kubeconfig context to use
  -v, --verbose           debug logs
  -h, --help              show this help

Exit code: 0 after a graceful shutdown (SIGINT/SIGTERM), 1 when it cannot start, 2 usage.

Example:
  kubectl apply -f deploy/crd/run.ai_kartas.yaml -f definitions/kubeflow.org/v1/PyTorchJob.yaml
  karta controller --kubeconfig ~/.kube/config
`;

export async function runController(args: string[], io: CliIO, signal?: AbortSignal): Promise<number> {
  let values: { kubeconfig?: string; context?: string; verbose?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        kubeconfig: { type: "string" },
        context: { type: "string" },
        verbose: { type: "boolean", short: "v" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    io.stderr(`karta controller: ${(err as Error).message}\n\nRun 'karta controller --help' for usage.\n`);
    return 2;
  }
  if (values.help) {
    io.stdout(CONTROLLER_HELP);
    return 0;
  }
  const log = jsonLogger((l) => io.stderr(l), values.verbose === true);
  let reconciler: KartaReconciler;
  let workloads: WorkloadReconciler;
  try {
    const kc = loadKubeConfig({ ...(values.kubeconfig !== undefined ? { kubeconfig: values.kubeconfig } : {}), ...(values.context !== undefined ? { context: values.context } : {}) });
    reconciler = new KartaReconciler(kc, log);
    workloads = new WorkloadReconciler(kc, reconciler, log);
    await reconciler.start();
    await workloads.start();
  } catch (err) {
    log("error", "cannot start", { err: (err as Error).message });
    return 1;
  }
  log("info", "karta controller started");
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  signal?.addEventListener("abort", onSignal, { once: true });
  await new Promise<void>((resolve) => {
    if (stop.signal.aborted) resolve();
    else stop.signal.addEventListener("abort", () => resolve(), { once: true });
  });
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  log("info", "shutting down");
  await workloads.stop();
  await reconciler.stop();
  log("info", "stopped");
  return 0;
}
