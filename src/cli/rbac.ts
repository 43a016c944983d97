/**
 * `karta rbac`: prints the ClusterRole and the leader-election Role `karta controller` needs for the given definitions.
 * Exit code: 0 fine, 1 a definition has errors or none was found, 2 usage or unreadable input.
 */
import { stringify } from "yaml";
import { formatDiagnostic, hasSyntaxErrors, loadCrds, loadDefinitions, sortDiagnostics, type Diagnostic, type Karta } from "../definition/index.js";
import { expandInputs, listInputFiles, noInputFiles } from "../files/index.js";
import { parseCommand, usageError, type Flags } from "./args.js";
import type { CliIO } from "./io.js";
import { displayName, InputError, readInput } from "./objects.js";
import { controllerRbac } from "../controller/rbac.js";
import { handwritten } from "../names/index.js";

export const RBAC_HELP = `Usage: karta rbac -d DEFINITION... [-R] [--crd CRD]... [--name NAME] [-n NAMESPACE]
                  [--leader-elect-resource-name NAME] [--total-shards N] [-o yaml|json]

Prints the RBAC that 'karta controller' needs for the given Kartas, and nothing more, verb by verb what
its requests do: a ClusterRole to list and watch the root kinds, the child component kinds and
additionalChildKinds a pod's owner chain can pass through (not Services, Secrets, ConfigMaps...), pods,
Kartas and CRDs; to create (as server-side apply does), patch and delete Workload, PodGroup and
CompositePodGroup objects; to patch Kartas' labels and status; to create events (and list the core
ones); and a Role in the controller's namespace for leader election: get and update its Lease by name,
and create Leases there (RBAC cannot restrict a create by name). No Lease elsewhere: not the scheduler's,
not the nodes' heartbeats. Two YAML documents (a List with -o json); bind the ClusterRole with a
ClusterRoleBinding and the Role with a RoleBinding in that namespace to the controller's service account.

  -d, --definition PATH   a Karta file, or a directory of them (searched recursively); may be repeated
  -R, --recursive         kubectl's flag, the default here: directories of -d and --crd are searched
                          recursively; -R=false reads only the files at a directory's top
      --crd PATH          CRD manifests giving the exact resource names of custom kinds (otherwise the
                          name is derived from the kind as Kubernetes does: PyTorchJob -> pytorchjobs)
      --name NAME         the ClusterRole's and the Role's name (default karta-controller)
  -n, --namespace NS      the namespace the controller runs in, where its Lease is (default karta-system)
      --leader-elect-resource-name NAME  the controller's Lease name (default karta-controller)
      --total-shards N    the controller's --total-shards: the Role names each shard's Lease (NAME-shard-I)
  -o, --output FORMAT     yaml (default) or json
  -h, --help              show this help

Exit code: 0 fine, 1 a definition has errors or none was found (an empty directory), 2 usage or
unreadable input.

Example:
  karta rbac -d definitions/ > rbac.yaml
  karta rbac -d definitions/kubeflow.org/v1/PyTorchJob.yaml --crd examples/crds/ -n ml-platform
`;

export const FLAGS = {
  definition: { type: "string", short: "d", multiple: true },
  crd: { type: "string", multiple: true },
  recursive: { type: "boolean", short: "R", unsetIsUndefined: true },
  name: { type: "string" },
  // A namespace and a Lease name are checked as the API server checks them (controller.ts's flags).
  namespace: { type: "string", short: "n", validate: (ns: string) => handwritten.isDNS1123Label(ns) },
  "leader-elect-resource-name": { type: "string", validate: (n: string) => handwritten.isDNS1123Subdomain(n) },
  "total-shards": { type: "integer", min: 1, max: 1024, default: 1 },
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
  const recursive = values.recursive ?? true;
  const definitionFiles = expandInputs(values.definition, { recursive });
  // A directory with no definition file in it is named, as karta validate names it (kubectl: "no objects passed").
  for (const dir of definitionFiles.empty) io.stderr(`karta rbac: -d ${dir}: ${noInputFiles(dir, recursive)}\n`);
  // An error of the input, as karta validate counts it (kubectl apply -f fails with no objects): exit 1.
  if (definitionFiles.empty.length > 0) return 1;
  try {
    for (const file of definitionFiles.files) {
      const loaded = loadDefinitions(await readInput(io, file), file);
      // As karta validate checks them: a definition whose jq does not compile grants nothing usable.
      problems.push(...loaded.diagnostics, ...(await import("../definition/validate.js")).definitionErrors(loaded.definitions));
      kartas.push(...loaded.definitions.map((d) => d.karta));
    }
    for (const file of listInputFiles(values.crd ?? [], { recursive })) {
      const loaded = loadCrds(await readInput(io, file), displayName(file), { required: (values.crd ?? []).includes(file) });
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
    return 1;
  }
  const roles = controllerRbac(kartas, {
    ...(values.name ? { name: values.name } : {}),
    ...(values.namespace !== undefined ? { namespace: values.namespace } : {}),
    ...(values["leader-elect-resource-name"] !== undefined ? { leaseName: values["leader-elect-resource-name"] } : {}),
    totalShards: values["total-shards"],
    plurals,
  });
  io.stdout(
    output === "json"
      ? JSON.stringify({ apiVersion: "v1", kind: "List", items: roles }, null, 2) + "\n"
      : roles.map((r) => stringify(r, { lineWidth: 0, aliasDuplicateObjects: false })).join("---\n"),
  );
  return 0;
}
