/**
 * `karta rbac`: prints the ClusterRole `karta controller` needs for the given definitions.
 * Exit code: 0 fine, 1 a definition has errors, 2 usage or unreadable input.
 */
import { stringify } from "yaml";
import { formatDiagnostic, hasSyntaxErrors, loadCrds, loadDefinitions, sortDiagnostics, type Diagnostic, type Karta } from "../definition/index.js";
import { listInputFiles } from "../files/index.js";
import { parseCommand, usageError, type Flags } from "./args.js";
import type { CliIO } from "./io.js";
import { InputError, readInput } from "./objects.js";
import { controllerClusterRole } from "../controller/rbac.js";

export const RBAC_HELP = `Usage: karta rbac -d DEFINITION... [--crd CRD]... [--name NAME] [-o yaml|json]

Prints the ClusterRole that 'karta controller' needs for the given Kartas, and nothing more: read the
root kinds, the child component kinds and additionalChildKinds a pod's owner chain can pass through
(not Services, Secrets, ConfigMaps...) and pods; write Workload, PodGroup and
CompositePodGroup objects; read Kartas and write their labels and status; read CRDs; write events;
use a Lease for leader election. Bind it to the controller's service account.

  -d, --definition PATH   a Karta file, or a directory of them (searched recursively); may be repeated
      --crd PATH          CRD manifests giving the exact resource names of custom kinds (otherwise the
                          name is derived from the kind as Kubernetes does: PyTorchJob -> pytorchjobs)
      --name NAME         the ClusterRole's name (default karta-controller)
  -o, --output FORMAT     yaml (default) or json
  -h, --help              show this help

Exit code: 0 fine, 1 a definition has errors, 2 usage or unreadable input.

Example:
  karta rbac -d definitions/ > clusterrole.yaml
  karta rbac -d definitions/kubeflow.org/v1/PyTorchJob.yaml --crd pytorchjobs-crd.yaml
`;

export const FLAGS = {
  definition: { type: "string", short: "d", multiple: true },
  crd: { type: "string", multiple: true },
  name: { type: "string" },
  output: { type: "string", short: "o", choices: ["yaml", "json"], default: "yaml" },
} as const satisfies Flags;

export async function runRbac(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(io, "rbac", args, FLAGS, RBAC_HELP);
  if (typeof parsed === "number") return parsed;
  const values = parsed.values;
  const usage = (msg: string): number => usageError(io, "rbac", msg);
  if (!values.definition?.length) return usage("at least one definition is required (-d PATH)");
  const output = values.output;
  if (values.name !== undefined && !/^[a-z0-9]([-a-z0-9.:]*[a-z0-9])?$/.test(values.name)) return usage(`--name '${values.name}' is not a valid ClusterRole name`);

  const kartas: Karta[] = [];
  const plurals = new Map<string, string>();
  const problems: Diagnostic[] = [];
  try {
    for (const file of listInputFiles(values.definition, { recursive: true })) {
      const loaded = loadDefinitions(await readInput(io, file), file);
      // As karta validate checks them: a definition whose jq does not compile grants nothing usable.
      problems.push(...loaded.diagnostics, ...(await import("../definition/validate.js")).definitionErrors(loaded.definitions));
      kartas.push(...loaded.definitions.map((d) => d.karta));
    }
    for (const file of listInputFiles(values.crd ?? [], { recursive: true })) {
      const loaded = loadCrds(await readInput(io, file), file);
      problems.push(...loaded.diagnostics);
      for (const c of loaded.crds) plurals.set(`${c.group}/${c.kind}`, c.name.slice(0, c.name.length - c.group.length - 1));
    }
  } catch (err) {
    if (err instanceof InputError || (err as { code?: string }).code === "ENOENT") {
      io.stderr(`karta rbac: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
  const errors = sortDiagnostics(problems.filter((x) => x.severity === "error"));
  for (const d of errors) io.stderr(formatDiagnostic(d) + "\n");
  if (errors.length > 0) {
    io.stderr(`karta rbac: the input has ${errors.length} error${errors.length === 1 ? "" : "s"}; nothing printed\n`);
    return hasSyntaxErrors(errors) ? 2 : 1;
  }
  if (kartas.length === 0) {
    io.stderr("karta rbac: no Karta definition found\n");
    return 2;
  }
  const role = controllerClusterRole(kartas, { ...(values.name ? { name: values.name } : {}), plurals });
  io.stdout(output === "json" ? JSON.stringify(role, null, 2) + "\n" : stringify(role, { lineWidth: 0, aliasDuplicateObjects: false }));
  return 0;
}
