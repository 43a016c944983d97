/**
 * `karta webhook-config`: prints the ResourceInterpreterWebhookConfiguration that routes to a
 * `karta serve` with the same definitions, customizations and feature gates every kind and
 * operation it answers; with --admission, the Mutating- and ValidatingWebhookConfiguration of
 * `karta controller`'s webhooks (pods; Kartas).
 */
import { goSafeYaml } from "./yaml-output.js";
import { listConfigFiles, buildFramework, type FrameworkSource, type SourceFile } from "../server/config.js";
import { webhookConfiguration, type WebhookTarget } from "../server/webhook-config.js";
import { atPath, controllerAdmissionConfigurations } from "../controller/admission-config.js";
import { parseCommand, usageError, type Flags } from "./args.js";
import type { CliIO } from "./io.js";
import { InputError, readInput } from "./objects.js";
import { noInputFiles } from "../files/index.js";
import { parseFeatureGates, pathProblem } from "./serve.js";
import { handwritten } from "../names/index.js";

export const WEBHOOK_CONFIG_HELP = `Usage: karta webhook-config [options]

Prints the ResourceInterpreterWebhookConfiguration for a 'karta serve' given the same
--definitions, --customizations and --feature-gates: one rule per kind, listing the operations some
layer answers. Kinds Karmada interprets natively (Deployment, Job, ...) are left out, since a webhook
rule would replace Karmada's built-in interpreter for them, unless --include-native.

With --admission it prints instead the two configurations of 'karta controller''s admission webhooks
(AdmissionReview v1, sideEffects None, timeoutSeconds 5), as two YAML documents (a List with -o json):
the MutatingWebhookConfiguration with podgroupname.karta.run.ai (Pod CREATE, failurePolicy Ignore, every
namespace except kube-system and the controller's own) and mkarta.run.ai (Karta CREATE: the
run.ai/karta-* labels, Ignore), and the ValidatingWebhookConfiguration with vkarta.run.ai (Karta CREATE
and UPDATE, failurePolicy Fail: an invalid Karta is refused with the errors 'karta validate' prints).

Options:
      --admission               the webhook configurations of 'karta controller' (defaults below change
                                to --service-name karta-controller-webhook, --path /mutate-v1-pod (the pod
                                webhook's; the Karta webhooks are at /mutate-run-ai-v1alpha1-karta and
                                /validate-run-ai-v1alpha1-karta), --timeout-seconds 5, --name
                                karta-controller); --url gives the server (https://host:port), each
                                webhook's path is added
      --controller-namespace NS with --admission: the controller's namespace, left out of the webhook
                                (default: --service-namespace, else karta-system)
      --definitions PATH        Karta definitions, file or directory (repeatable)
      --customizations PATH     ResourceInterpreterCustomizations, file or directory (repeatable)
      --feature-gates GATES     e.g. MultiplePodTemplatesScheduling=true (adds InterpretComponent)
      --url URL                 where Karmada reaches the server (https://host:port/interpret)
      --service-name NAME       or the Service in front of it (default karta-webhook)
      --service-namespace NS    its namespace (default karta-system)
      --service-port PORT       its port (default 443)
      --path PATH               the server's --path (default /interpret)
      --ca-file FILE            PEM CA bundle of the serving certificate (caBundle)
      --timeout-seconds N       1 to 30 (default 10; 5 with --admission)
      --name NAME               metadata.name (default karta)
      --include-native          also route kinds Karmada interprets natively
  -o, --output FORMAT           yaml or json (default yaml)
  -h, --help                    show this help

Exit codes: 0 ok, 1 the configuration has errors, 2 usage or unreadable input.

Example:
  karta webhook-config --customizations interpreter-customizations/ \\
      --url https://127.0.0.1:8443/interpret --ca-file /tmp/karta-certs/ca.crt
  karta webhook-config --admission --url https://127.0.0.1:9443 --ca-file /tmp/karta-webhook/ca.crt
`;

class UsageError extends Error {}

export const FLAGS = {
  definitions: { type: "string", multiple: true },
  customizations: { type: "string", multiple: true },
  "feature-gates": { type: "string", multiple: true },
  url: { type: "string" },
  "service-name": { type: "string" },
  "service-namespace": { type: "string" },
  "service-port": { type: "integer", min: 1, max: 65535 },
  path: { type: "string" },
  // An input: given twice with different files, a usage error rather than the first dropped.
  "ca-file": { type: "string", once: true },
  "timeout-seconds": { type: "integer", min: 1, max: 30 },
  name: { type: "string" },
  admission: { type: "boolean" },
  "controller-namespace": { type: "string" },
  "include-native": { type: "boolean" },
  output: { type: "string", short: "o", choices: ["yaml", "json"], default: "yaml" },
} as const satisfies Flags;

/** Runs `karta webhook-config`. */
export async function runWebhookConfig(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommand(io, "webhook-config", args, FLAGS, WEBHOOK_CONFIG_HELP);
  if (typeof parsed === "number") return parsed;
  const values = parsed.values;
  let target: WebhookTarget;
  let gates: { multiplePodTemplatesScheduling: boolean };
  let timeoutSeconds: number;
  const admission = values.admission === true;
  const name = values.name ?? (admission ? "karta-controller" : "karta");
  try {
    // What the API server would refuse in the configuration, or `karta serve` in its own flags: said now, not at apply time.
    const check = (flag: string, value: string | undefined, problems: (v: string) => string[]): void => {
      const found = value === undefined ? [] : problems(value);
      if (found.length > 0) throw new UsageError(`invalid argument ${JSON.stringify(value)} for "--${flag}": ${found.join("; ")}`);
    };
    check("name", values.name, handwritten.isDNS1123Subdomain);
    check("service-name", values["service-name"], handwritten.isDNS1123Label);
    check("service-namespace", values["service-namespace"], handwritten.isDNS1123Label);
    check("controller-namespace", values["controller-namespace"], handwritten.isDNS1123Label);
    check("path", values.path, (p) => [pathProblem(p)].filter((x) => x !== undefined));
    if (admission) {
      for (const f of ["definitions", "customizations", "feature-gates"] as const) if (values[f].length > 0) throw new UsageError(`--${f} does not apply to --admission`);
      if (values["include-native"]) throw new UsageError("--include-native does not apply to --admission");
    } else if (values["controller-namespace"] !== undefined) throw new UsageError("--controller-namespace applies to --admission only");
    gates = parseFeatureGates(values["feature-gates"]);
    timeoutSeconds = values["timeout-seconds"] ?? (admission ? 5 : 10);
    const service = values["service-name"] !== undefined || values["service-namespace"] !== undefined || values["service-port"] !== undefined;
    if (values.url !== undefined) {
      if (service) throw new UsageError("--url and --service-* exclude each other");
      let url: URL;
      try {
        url = new URL(values.url);
      } catch {
        throw new UsageError(`invalid argument ${JSON.stringify(values.url)} for "--url": not a URL`);
      }
      if (url.protocol !== "https:") throw new UsageError(`invalid argument ${JSON.stringify(values.url)} for "--url": ${admission ? "the API server" : "Karmada"} calls webhooks over https`);
      // The controller's server: the pod webhook at its path unless the URL names one.
      target = admission && (url.pathname === "" || url.pathname === "/") ? atPath({ url: values.url }, values.path ?? "/mutate-v1-pod") : { url: values.url };
    } else {
      target = {
        service: {
          name: values["service-name"] ?? (admission ? "karta-controller-webhook" : "karta-webhook"),
          namespace: values["service-namespace"] ?? "karta-system",
          port: values["service-port"] ?? 443,
          path: values.path ?? (admission ? "/mutate-v1-pod" : "/interpret"),
        },
      };
    }
  } catch (e) {
    if (e instanceof UsageError || (e as Error).constructor.name === "UsageError") return usageError(io, "webhook-config", (e as Error).message);
    throw e;
  }
  if (admission) {
    try {
      const caPem = values["ca-file"] !== undefined ? await readInput(io, values["ca-file"]) : undefined;
      if (caPem !== undefined && !caPem.includes("-----BEGIN CERTIFICATE-----")) throw new InputError(`${values["ca-file"]}: not a PEM certificate`);
      const controllerNamespace = values["controller-namespace"] ?? values["service-namespace"] ?? "karta-system";
      const configs = controllerAdmissionConfigurations({ name, target, timeoutSeconds, controllerNamespace, ...(caPem !== undefined ? { caPem } : {}) });
      io.stdout(
        values.output === "json"
          ? `${JSON.stringify({ apiVersion: "v1", kind: "List", items: configs }, null, 2)}\n`
          : configs.map((c) => goSafeYaml(c)).join("---\n"),
      );
      return 0;
    } catch (e) {
      if (e instanceof InputError) {
        io.stderr(`karta webhook-config: ${e.message}\n`);
        return 2;
      }
      throw e;
    }
  }
  try {
    const read = async (paths: string[], flag: string): Promise<SourceFile[]> => {
      const found = listConfigFiles(paths, { strict: true });
      if (found.errors.length > 0) throw new InputError(found.errors[0]!);
      // As validate and rbac: a directory given that holds nothing to read is an error of the input (1).
      if (found.emptyDirectories.length > 0) throw new InputError(`--${flag} ${found.emptyDirectories[0]!}: ${noInputFiles(found.emptyDirectories[0]!, true)}`, 1);
      const out: SourceFile[] = [];
      for (const file of found.files) out.push({ file, text: await readInput(io, file) });
      return out;
    };
    const source: FrameworkSource = { definitions: await read(values.definitions, "definitions"), customizations: await read(values.customizations, "customizations"), webhookConfigurations: [], ...gates };
    const caPem = values["ca-file"] !== undefined ? await readInput(io, values["ca-file"]) : undefined;
    if (caPem !== undefined && !caPem.includes("-----BEGIN CERTIFICATE-----")) throw new InputError(`${values["ca-file"]}: not a PEM certificate`);
    const built = await buildFramework(source, { checkLua: true });
    try {
      if (built.errors.length > 0) {
        for (const e of built.errors) io.stderr(`${e}\n`);
        // Text that does not parse is unreadable input (2), as in validate and rbac; the rest is invalid (1).
        return built.unreadable ? 2 : 1;
      }
      const config = webhookConfiguration(built.framework, built.kinds, { name, target, timeoutSeconds, includeNative: values["include-native"], ...(caPem !== undefined ? { caPem } : {}) });
      io.stdout(values.output === "json" ? `${JSON.stringify(config, null, 2)}\n` : goSafeYaml(config));
      return 0;
    } finally {
      built.close();
    }
  } catch (e) {
    if (e instanceof InputError) {
      io.stderr(`karta webhook-config: ${e.message}\n`);
      return e.exitCode;
    }
    throw e;
  }
}
