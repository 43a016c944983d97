/**
 * `karta interpret`: runs one interpreter operation offline, or checks customizations, with the flags
 * of `karmadactl interpret`. Unlike karmadactl, the answer comes from the whole layered framework
 * (the given customizations, then an optional webhook configuration, the Karta definitions (-d, and
 * the bundled ones), the bundled thirdparty customizations and the built-in interpreters), and a
 * failed operation exits non-zero.
 */
import { stringify } from "yaml";
import { CUSTOMIZATION_RULES, findConflicts, parseCustomizations, type CustomizationIssue } from "../interpreter/declarative/customization.js";
import { createDeclarativeInterpreter, DeclarativeInterpreter } from "../interpreter/declarative/interpreter.js";
import { kubeLibrary } from "../interpreter/lua/kube.js";
import { LuaVM } from "../interpreter/lua/vm.js";
import { parseYamlDocuments } from "../interpreter/declarative/yaml-documents.js";
import { createInterpreterFramework, type FrameworkLayers, type InterpreterFramework, type LayerOutcome } from "../interpreter/framework.js";
import { createNativeInterpreter } from "../interpreter/native/index.js";
import { createThirdpartyInterpreter } from "../interpreter/thirdparty/index.js";
import { createKartaInterpreter, loadKartaText } from "../interpreter/karta/index.js";
import { formatDiagnostic, type Definition } from "../definition/index.js";
import { OPERATIONS, parseOperation, type AggregatedStatusItem, type JsonValue, type KubeObject, type Operation, type ResourceInterpreterCustomization } from "../interpreter/types.js";
import { parseWebhookConfigurations } from "../interpreter/webhook/config.js";
import { WebhookInterpreter } from "../interpreter/webhook/interpreter.js";
import { listInputFiles } from "../files/index.js";
import { commandLine } from "./args.js";
import type { CliIO } from "./io.js";
import { InputError, readInput } from "./objects.js";
import { OutputBuffer } from "./output.js";

/** The operations `karta interpret --operation` runs. */
const RUNNABLE: Operation[] = OPERATIONS.filter((op) => op !== "Prune");

export const INTERPRET_HELP = `Usage: karta interpret [options]
Runs one resource interpreter operation on local files, or checks customizations, like
'karmadactl interpret'. The answer comes from the first layer implementing the operation for the
object's kind: the customizations given with -f, then --webhook-config's webhooks, the Karta
definition of the kind (-d, else the bundled ones), the customizations bundled with Karta, then
Karmada's built-in interpreters.

Options:
  -f, --filename PATH        ResourceInterpreterCustomization file or directory (repeatable)
  -R, --recursive            read directories given with -f recursively
      --operation OP         ${RUNNABLE.join(", ")} (any case)
      --desired-file FILE    the desired object (the resource template); - for stdin
      --observed-file FILE   the observed object (as in a member cluster); - for stdin
      --status-file FILE     AggregatedStatusItems, one per YAML document (repeatable); - for stdin
      --desired-replica N    the replicas for ReviseReplica (default 0)
      --check                check each customization's rules: PASS, UNSET or ERROR (compile);
                             with --desired-file, also run each script once on that object
      --webhook-config FILE  ResourceInterpreterWebhookConfiguration objects to consult
  -d, --definition FILE      Karta definitions to answer from (- for stdin); for their kinds they
                             replace the Kartas bundled with Karta, which answer by default where
                             Karmada's built-in interpreters have no answer
      --show-layer           print which layer answered
  -h, --help                 show this help

Output: for each result '---', '# [i/n] <name>:' and the value as YAML.
Exit codes: 0 ok, 1 the operation or a check failed, 2 usage or unreadable input.

Example:
  karta interpret -f cloneset-customization.yaml --operation InterpretReplica \\
      --desired-file cloneset.yaml
  karta interpret -f customizations/ --check --desired-file deployment.yaml
  karta interpret --operation InterpretComponent --desired-file raycluster.yaml --show-layer
`;

interface InterpretOptions {
  filenames: string[];
  recursive: boolean;
  operation?: Operation;
  desiredFile?: string;
  observedFile?: string;
  statusFiles: string[];
  desiredReplica: number;
  check: boolean;
  webhookConfig?: string;
  definition?: string;
  showLayer: boolean;
}

class UsageError extends Error {}

function parseArgs(args: string[]): InterpretOptions | "help" {
  const o: InterpretOptions = { filenames: [], recursive: false, statusFiles: [], desiredReplica: 0, check: false, showLayer: false };
  for (const arg of commandLine(args)) {
    const a = arg.flag;
    const value = (): string => {
      const v = arg.value();
      if (v === undefined) throw new UsageError(`flag needs an argument: ${a}`);
      return v;
    };
    switch (a) {
      case "-h":
      case "--help":
        return "help";
      case "-f":
      case "--filename":
        o.filenames.push(value());
        break;
      case "-R":
      case "--recursive":
        o.recursive = true;
        break;
      case "--operation": {
        const name = value();
        const op = parseOperation(name);
        if (!op || op === "Prune") throw new UsageError(`operation ${name} is not supported. Use one of: ${RUNNABLE.join(", ")}`);
        o.operation = op;
        break;
      }
      case "--desired-file":
        o.desiredFile = value();
        break;
      case "--observed-file":
        o.observedFile = value();
        break;
      case "--status-file":
        o.statusFiles.push(value());
        break;
      case "--desired-replica": {
        const v = value();
        // karmadactl reads it as an int32.
        if (!/^-?[0-9]+$/.test(v)) throw new UsageError(`invalid argument ${JSON.stringify(v)} for "--desired-replica" flag: must be an integer`);
        const n = Number(v);
        if (n < -(2 ** 31) || n > 2 ** 31 - 1) throw new UsageError(`invalid argument ${JSON.stringify(v)} for "--desired-replica" flag: value out of range`);
        o.desiredReplica = n;
        break;
      }
      case "--check":
        o.check = true;
        break;
      case "--webhook-config":
        o.webhookConfig = value();
        break;
      case "-d":
      case "--definition":
        o.definition = value();
        break;
      case "--show-layer":
        o.showLayer = true;
        break;
      default:
        throw new UsageError(a.startsWith("-") ? `unknown flag: ${a}` : `unexpected argument ${JSON.stringify(a)}`);
    }
  }
  const stdinUsers = [o.desiredFile, o.observedFile, ...o.statusFiles, o.definition].filter((f) => f === "-").length;
  if (stdinUsers > 1) throw new UsageError("only one of --desired-file, --observed-file, --status-file and --definition can read standard input");
  if (!o.check && o.operation === undefined) throw new UsageError("operation is not set for executing");
  return o;
}

/** One object from a file (karmadactl requires exactly one). */
async function readObject(io: CliIO, file: string, what: string): Promise<KubeObject> {
  const { documents, errors } = parseYamlDocuments(await readInput(io, file));
  if (errors.length > 0) throw new InputError(`fail to get ${what} object: ${file}:${errors[0]!.line}: ${errors[0]!.message}`);
  if (documents.length !== 1) throw new InputError(`fail to get ${what} object: ${file}: expected exactly one object, found ${documents.length}`);
  const v = documents[0]!.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new InputError(`fail to get ${what} object: ${file}: not an object`);
  if (typeof v.apiVersion !== "string" || typeof v.kind !== "string") throw new InputError(`fail to get ${what} object: ${file}: Object 'Kind' is missing`);
  return v;
}

/** AggregatedStatusItems: each YAML document an item (or a list of items). */
async function readStatusItems(io: CliIO, files: readonly string[]): Promise<AggregatedStatusItem[]> {
  const items: AggregatedStatusItem[] = [];
  for (const file of files) {
    const { documents, errors } = parseYamlDocuments(await readInput(io, file));
    if (errors.length > 0) throw new InputError(`fail to get status items: ${file}:${errors[0]!.line}: ${errors[0]!.message}`);
    for (const { value, line } of documents) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item !== "object" || item === null || Array.isArray(item)) throw new InputError(`fail to get status items: ${file}:${line}: an AggregatedStatusItem must be an object`);
        if (typeof item.clusterName !== "string" || item.clusterName === "") throw new InputError(`fail to get status items: ${file}:${line}: clusterName: Required value`);
        items.push(item as unknown as AggregatedStatusItem);
      }
    }
  }
  return items;
}

function issueText(i: CustomizationIssue | { file: string; line?: number; path: string; message: string }): string {
  return `${i.file}${i.line !== undefined ? `:${i.line}` : ""}: error: ${i.path ? `${i.path}: ` : ""}${i.message}`;
}

/** karmadactl prints results through a JSON round trip and sigs.k8s.io/yaml: sorted keys, block style. */
function toYaml(v: unknown): string {
  const plain = v === undefined ? null : (JSON.parse(JSON.stringify(v)) as JsonValue);
  return stringify(plain, { sortMapEntries: true, indentSeq: false, lineWidth: 0 });
}

/** The named results of one operation, in karmadactl's order and names. */
async function execute(fw: InterpreterFramework, op: Operation, o: InterpretOptions, desired: KubeObject | undefined, observed: KubeObject | undefined, items: AggregatedStatusItem[]): Promise<{ ok: true; results: [string, unknown][]; layer: string } | { ok: false; error: string; layer?: string }> {
  const single = (): KubeObject | string => {
    if (!desired && !observed) return "desired, desired-file, observed, observed-file options are not set";
    if (desired && observed) return "you can not specify multiple object by desired, desired-file, observed, observed-file options";
    return (desired ?? observed)!;
  };
  const done = <T>(out: LayerOutcome<T>, name: (v: T) => [string, unknown][]): { ok: true; results: [string, unknown][]; layer: string } | { ok: false; error: string; layer?: string } =>
    out.ok ? { ok: true, results: name(out.value), layer: out.layer } : { ok: false, error: out.error.message, layer: out.error.layer };
  if (op === "Retain") {
    if (!desired) return { ok: false, error: "desired, desired-file options are not set" };
    if (!observed) return { ok: false, error: "observed, observed-file options are not set" };
    return done(await fw.retain(desired, observed), (v) => [["retained", v]]);
  }
  const obj = single();
  if (typeof obj === "string") return { ok: false, error: obj };
  switch (op) {
    case "InterpretReplica":
      return done(await fw.interpretReplica(obj), (v) => [
        ["replica", v.replicas],
        ["requires", v.replicaRequirements ?? null],
      ]);
    case "InterpretComponent":
      return done(await fw.interpretComponents(obj), (v) => [["components", v]]);
    case "ReviseReplica":
      return done(await fw.reviseReplica(obj, o.desiredReplica), (v) => [["revised", v]]);
    case "InterpretStatus":
      return done(await fw.reflectStatus(obj), (v) => [["status", v ?? null]]);
    case "AggregateStatus":
      return done(await fw.aggregateStatus(obj, items), (v) => [["aggregateStatus", v]]);
    case "InterpretHealth":
      return done(await fw.interpretHealth(obj), (v) => [["healthy", v]]);
    case "InterpretDependency":
      return done(await fw.getDependencies(obj), (v) => [["dependencies", v]]);
    default:
      return { ok: false, error: `operation ${op} is not supported` };
  }
}

/** Loaded customizations with the file each came from. */
interface LoadedCustomizations {
  items: { customization: ResourceInterpreterCustomization; file: string }[];
  issues: CustomizationIssue[];
}

async function loadCustomizations(io: CliIO, o: InterpretOptions): Promise<LoadedCustomizations> {
  const out: LoadedCustomizations = { items: [], issues: [] };
  for (const file of listInputFiles(o.filenames, { recursive: o.recursive })) {
    const loaded = parseCustomizations(await readInput(io, file), file);
    out.issues.push(...loaded.issues);
    for (const customization of loaded.customizations) out.items.push({ customization, file });
  }
  return out;
}

/** Runs one rule of one customization on a sample (the desired object retargeted to the customization's kind). */
async function runRule(ipt: DeclarativeInterpreter, op: Operation, sample: KubeObject, observed: KubeObject, items: AggregatedStatusItem[], replicas: number): Promise<string | undefined> {
  const err = (o: { ok: boolean; error?: { message: string } }): string | undefined => (o.ok ? undefined : o.error!.message);
  switch (op) {
    case "Retain":
      return err(await ipt.retain(sample, observed));
    case "InterpretReplica":
      return err(await ipt.interpretReplica(sample));
    case "InterpretComponent":
      return err(await ipt.interpretComponent(sample));
    case "ReviseReplica":
      return err(await ipt.reviseReplica(sample, replicas));
    case "InterpretStatus":
      return err(await ipt.interpretStatus(observed));
    case "AggregateStatus":
      return err(await ipt.aggregateStatus(sample, items));
    case "InterpretHealth":
      return err(await ipt.interpretHealth(observed));
    case "InterpretDependency":
      return err(await ipt.interpretDependency(sample));
    default:
      return undefined;
  }
}

/**
 * `--check`: karmadactl's report (each rule PASS, UNSET or ERROR: compile errors), and, given a
 * sample object, each script also run once on it (InterpretStatus, InterpretHealth and Retain's
 * observed side on --observed-file when given).
 */
async function runCheck(out: OutputBuffer, loaded: LoadedCustomizations, desired: KubeObject | undefined, observed: KubeObject | undefined, items: AggregatedStatusItem[], replicas: number): Promise<boolean> {
  let failed = false;
  const width = Math.max(...CUSTOMIZATION_RULES.map((r) => `    ${r.operation}:`.length)) + 3;
  const vm = await LuaVM.create({ kube: kubeLibrary() });
  try {
    for (const { customization: ric } of loaded.items) {
      out.write("-----------------------------------\n");
      out.write(`SOURCE: ${ric.metadata.name}\n`);
      out.write(`TARGET: ${ric.spec.target.apiVersion} ${ric.spec.target.kind}\n`);
      out.write("RULERS:\n");
      const ipt = new DeclarativeInterpreter(vm, [ric]);
      const retarget = (obj: KubeObject): KubeObject => ({ ...obj, apiVersion: ric.spec.target.apiVersion, kind: ric.spec.target.kind });
      for (const { field, operation } of CUSTOMIZATION_RULES) {
        const label = `    ${operation}:`.padEnd(width);
        const script = ric.spec.customizations[field]?.luaScript;
        if (!script) {
          out.write(`${label}UNSET\n`);
          continue;
        }
        const compiled = vm.compile(script);
        let error = compiled.ok ? undefined : compiled.error;
        if (error === undefined && desired !== undefined) {
          error = await runRule(ipt, operation, retarget(desired), retarget(observed ?? desired), items, replicas);
        }
        if (error !== undefined) {
          failed = true;
          out.write(`${label}ERROR: ${error.trim()}\n`);
        } else {
          out.write(`${label}PASS\n`);
        }
      }
    }
  } finally {
    vm.close();
  }
  return !failed;
}

/**
 * The framework `karta interpret` runs with no customization file and no webhook: the Kartas (the
 * given ones, then the bundled ones, which leave Kubernetes' own kinds to the built-in
 * interpreters), the bundled thirdparty customizations and the built-in interpreters. Problems with
 * bundled files are warnings (the rest still works); `close` releases the Lua VMs.
 */
export async function createBundledFramework(kartas: Definition[] = []): Promise<{ framework: InterpreterFramework; layers: FrameworkLayers; warnings: string[]; close: () => void }> {
  const layers: FrameworkLayers = { native: createNativeInterpreter() };
  const warnings: string[] = [];
  const karta = createKartaInterpreter({ definitions: kartas, builtin: layers.native });
  warnings.push(...karta.issues);
  layers.karta = karta.interpreter;
  const thirdparty = await createThirdpartyInterpreter();
  if (thirdparty.issues.length === 0) layers.thirdparty = thirdparty.interpreter;
  else warnings.push(...thirdparty.issues.map((i) => `bundled customizations: ${issueText(i)}`));
  return { framework: createInterpreterFramework(layers), layers, warnings, close: () => thirdparty.interpreter.close() };
}

/** Runs `karta interpret`. */
export async function runInterpret(args: string[], io: CliIO): Promise<number> {
  let o: InterpretOptions;
  try {
    const parsed = parseArgs(args);
    if (parsed === "help") {
      io.stdout(INTERPRET_HELP);
      return 0;
    }
    o = parsed;
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`karta interpret: ${e.message}\nRun 'karta interpret --help' for usage.\n`);
      return 2;
    }
    throw e;
  }
  const out = new OutputBuffer(io);
  const closers: (() => void)[] = [];
  try {
    let kartas: Definition[] = [];
    if (o.definition !== undefined) {
      const loaded = loadKartaText(await readInput(io, o.definition), o.definition === "-" ? "<stdin>" : o.definition);
      if (loaded.diagnostics.length > 0) {
        for (const d of loaded.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
        return 1;
      }
      if (loaded.definitions.length === 0) throw new InputError(`${o.definition}: no Karta definition found`);
      kartas = loaded.definitions;
    }
    const loaded = await loadCustomizations(io, o);
    const conflicts = findConflicts(
      loaded.items.map((i) => i.customization),
      (name) => loaded.items.find((i) => i.customization.metadata.name === name)?.file ?? "",
    );
    const issues = [...loaded.issues, ...(o.check ? [] : conflicts)];
    if (issues.length > 0) {
      for (const i of issues) io.stderr(`${issueText(i)}\n`);
      return 1;
    }
    const desired = o.desiredFile !== undefined ? await readObject(io, o.desiredFile, "desired") : undefined;
    const observed = o.observedFile !== undefined ? await readObject(io, o.observedFile, "observed") : undefined;
    const items = await readStatusItems(io, o.statusFiles);

    if (o.check) {
      if (loaded.items.length === 0) {
        io.stderr("karta interpret: --check needs customizations (-f)\n");
        return 2;
      }
      const passed = await runCheck(out, loaded, desired, observed, items, o.desiredReplica);
      out.flush();
      return passed ? 0 : 1;
    }

    const layers: FrameworkLayers = { native: createNativeInterpreter() };
    if (loaded.items.length > 0) {
      const declarative = await createDeclarativeInterpreter(loaded.items.map((i) => i.customization));
      closers.push(() => declarative.close());
      layers.declarative = declarative;
    }
    if (o.webhookConfig !== undefined) {
      const parsed = parseWebhookConfigurations(await readInput(io, o.webhookConfig), o.webhookConfig);
      if (parsed.issues.length > 0) {
        for (const i of parsed.issues) io.stderr(`${issueText(i)}\n`);
        return 1;
      }
      layers.webhook = new WebhookInterpreter(parsed.configurations);
    }
    // Bundled Kartas leave Kubernetes' own kinds to Karmada's built-in interpreters; -d Kartas do not.
    const karta = createKartaInterpreter({ definitions: kartas, builtin: layers.native });
    if (karta.issues.length > 0) {
      for (const i of karta.issues) io.stderr(`${kartas.length > 0 ? "error" : "warning: bundled Kartas"}: ${i}\n`);
      if (kartas.length > 0) return 1;
    }
    layers.karta = karta.interpreter;
    const thirdparty = await createThirdpartyInterpreter();
    closers.push(() => thirdparty.interpreter.close());
    if (thirdparty.issues.length === 0) layers.thirdparty = thirdparty.interpreter;
    else for (const i of thirdparty.issues) io.stderr(`warning: bundled customizations: ${issueText(i)}\n`);

    const fw = createInterpreterFramework(layers);
    const op = o.operation!;
    const result = await execute(fw, op, o, desired, observed, items);
    if (!result.ok) {
      io.stderr(`Execute ${op} error: ${result.error}${result.layer ? ` (layer: ${result.layer})` : ""}\n`);
      return 1;
    }
    if (o.showLayer) out.write(`# layer: ${result.layer}\n`);
    result.results.forEach(([name, value], i) => {
      out.write("---\n");
      out.write(`# [${i + 1}/${result.results.length}] ${name}:\n`);
      out.write(toYaml(value));
    });
    out.flush();
    return 0;
  } catch (e) {
    if (e instanceof InputError) {
      out.flush();
      io.stderr(`karta interpret: ${e.message}\n`);
      return 2;
    }
    throw e;
  } finally {
    for (const c of closers) c();
  }
}
