/**
 * `karta interpret`: runs one interpreter operation offline, or checks customizations, with the flags
 * of `karmadactl interpret`. Unlike karmadactl, the answer comes from the whole layered framework
 * (the given customizations, then an optional webhook configuration, the Karta definitions (-d, and
 * the bundled ones), the bundled thirdparty customizations and the built-in interpreters), and a
 * failed operation exits non-zero.
 */
import { createHash } from "node:crypto";
import { CUSTOMIZATION_RULES, findConflicts, parseCustomizations, type CustomizationIssue } from "../interpreter/declarative/customization.js";
// The Lua VM (wasmoon), the thirdparty and webhook layers are loaded only when a run needs them.
import { loadCustomizationFiles } from "../interpreter/declarative/load.js";
import { bundledDirectory } from "../files/package.js";
import { findUnreadableText } from "../input/index.js";
import { parseYamlDocuments } from "../interpreter/declarative/yaml-documents.js";
import { positionAt } from "../interpreter/declarative/text-position.js";
import type { FrameworkLayers, InterpreterFramework, LayerOutcome } from "../interpreter/framework.js";
import { replicaCountError } from "../interpreter/components.js";
import { loadKartaText } from "../interpreter/karta/index.js";
import { assembleLayers } from "../interpreter/layers.js";
import type { ResourceInterpreterWebhookConfiguration } from "../interpreter/webhook/config.js";
import { formatDiagnostic, hasSyntaxErrors, type Diagnostic } from "../definition/diagnostic.js";
import type { Definition } from "../definition/load.js";
import { decodeStatusItem, kindOf, OPERATIONS, parseOperation, type ReplicaResult, type AggregatedStatusItem, type JsonValue, type KubeObject, type Operation, type ResourceInterpreterCustomization, type TargetComponent } from "../interpreter/types.js";
import { listInputFiles } from "../files/index.js";
import { parseCommand, usageError, type Flags, type ParsedArgs } from "./args.js";
import type { FrameworkSource, SourceFile } from "../server/config.js";
import { customizationIssueText } from "../interpreter/declarative/issue-text.js";
import type { OperationInput } from "../server/context.js";
import type { EvaluationPool } from "../server/pool.js";
import type { CliIO } from "./io.js";
import { displayName, InputError, readInput, typeMetaTypeError } from "./objects.js";
import { OutputBuffer } from "./output.js";
import { goSafeYaml } from "./yaml-output.js";
import { JsonStreamError, parseJsonStream } from "../input/json-stream.js";

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
      --desired-replica N    the replicas for ReviseReplica, 0 to 2147483647 (default 0)
      --desired-component NAME=N
                             one component's replicas for ReviseComponents (repeatable)
      --components-file FILE the components for ReviseComponents: TargetComponents {name, replicas}
                             as a YAML/JSON list or one per document (repeatable); - for stdin
      --check                check each customization's rules: PASS, UNSET or ERROR (compile);
                             with --desired-file, also run each script once on that object
      --webhook-config FILE  ResourceInterpreterWebhookConfiguration objects to consult
  -d, --definition PATH      Karta definitions to answer from: a file, a directory of them, or - for
                             stdin; for their kinds they replace the Kartas bundled with Karta, which
                             answer by default where Karmada's built-in interpreters have no answer
      --show-layer           print which layer answered
      --show-doc             print what each rule's script does (with -f, each customization's
                             rules and scripts, as 'karmadactl interpret --edit --show-doc' shows them)
  -o, --output FORMAT        yaml or json: the results as one object (default: karmadactl's
                             '---' / '# [i/n] name:' layout)
  -h, --help                 show this help

Output: for each result '---', '# [i/n] <name>:' and the value as YAML.
Exit codes: 0 ok, 1 the operation or a check failed, 2 usage or unreadable input.

Example:
  karta interpret -f interpreter-customizations/ -R --operation InterpretReplica \\
      --desired-file examples/cloneset.yaml
  karta interpret -f interpreter-customizations/ -R --check --desired-file examples/deployment.yaml
  karta interpret --operation InterpretComponent --desired-file examples/raycluster.yaml --show-layer
  karta interpret --operation InterpretReplica --desired-file examples/deployment.yaml -o json
  karta interpret --operation ReviseComponents --desired-file examples/flinkdeployment.yaml \\
      --desired-component jobmanager=1 --desired-component taskmanager=4
  karta interpret --show-doc -f interpreter-customizations/ -R
`;

interface InterpretOptions {
  filenames: string[];
  recursive: boolean;
  operation?: Operation;
  desiredFile?: string;
  observedFile?: string;
  statusFiles: string[];
  desiredReplica: number;
  /** ReviseComponents' assignment from --desired-component, in order. */
  desiredComponents: TargetComponent[];
  componentsFiles: string[];
  check: boolean;
  showDoc: boolean;
  output?: "yaml" | "json";
  webhookConfig?: string;
  definition?: string;
  showLayer: boolean;
}

class UsageError extends Error {}

export const FLAGS = {
  filename: { type: "string", short: "f", multiple: true },
  recursive: { type: "boolean", short: "R" },
  // Inputs and the operation: given twice with different values, a usage error (keeping the last would drop one).
  operation: { type: "string", once: true },
  "desired-file": { type: "string", once: true },
  "observed-file": { type: "string", once: true },
  "status-file": { type: "string", multiple: true },
  // karmadactl reads it as an int32; a negative replica count is never meant.
  "desired-replica": { type: "integer", min: 0, max: 2 ** 31 - 1, default: 0 },
  // ReviseComponents' input (Karmada #7830/#7841; karmadactl has no flag for it yet): NAME=N pairs, or files.
  "desired-component": { type: "string", multiple: true },
  "components-file": { type: "string", multiple: true },
  check: { type: "boolean" },
  "show-doc": { type: "boolean" },
  "webhook-config": { type: "string", once: true },
  definition: { type: "string", short: "d", once: true },
  "show-layer": { type: "boolean" },
  output: { type: "string", short: "o", choices: ["yaml", "json"] },
} as const satisfies Flags;

function options(p: ParsedArgs<typeof FLAGS>): InterpretOptions {
  const v = p.values;
  const o: InterpretOptions = {
    filenames: v.filename,
    recursive: v.recursive,
    statusFiles: v["status-file"],
    desiredReplica: v["desired-replica"],
    desiredComponents: v["desired-component"].map(parseDesiredComponent),
    componentsFiles: v["components-file"],
    check: v.check,
    showDoc: v["show-doc"],
    showLayer: v["show-layer"],
  };
  if (v.operation !== undefined) {
    const op = parseOperation(v.operation);
    if (!op || op === "Prune") throw new UsageError(`operation ${v.operation} is not supported. Use one of: ${RUNNABLE.join(", ")}`);
    o.operation = op;
  }
  if (v["desired-file"] !== undefined) o.desiredFile = v["desired-file"];
  if (v["observed-file"] !== undefined) o.observedFile = v["observed-file"];
  if (v["webhook-config"] !== undefined) o.webhookConfig = v["webhook-config"];
  if (v.definition !== undefined) o.definition = v.definition;
  if (v.output !== undefined) o.output = v.output;
  const stdinUsers = [o.desiredFile, o.observedFile, ...o.statusFiles, ...o.componentsFiles, o.definition].filter((f) => f === "-").length;
  if (stdinUsers > 1) throw new UsageError("only one of --desired-file, --observed-file, --status-file, --components-file and --definition can read standard input");
  if (!o.check && !o.showDoc && o.operation === undefined) throw new UsageError("operation is not set for executing");
  return o;
}

/** `--desired-component NAME=N`: one TargetComponent. */
function parseDesiredComponent(text: string): TargetComponent {
  const m = /^([^=]+)=(\d+)$/.exec(text.trim());
  const n = m ? Number(m[2]) : NaN;
  if (!m || !Number.isSafeInteger(n) || n > 2 ** 31 - 1) throw new UsageError(`invalid --desired-component ${JSON.stringify(text)}: expected NAME=REPLICAS with REPLICAS from 0 to 2147483647`);
  return { name: m[1]!.trim(), replicas: n };
}

/** The documents of a file: a JSON stream (JSON Lines or concatenated values) or YAML documents. */
function documentsOf(text: string): ReturnType<typeof parseYamlDocuments> {
  // Before any parser: the one nesting limit of every reader.
  const deep = findUnreadableText(text);
  if (deep !== undefined) return { documents: [], errors: [{ ...positionAt(text, deep.offset), message: deep.message }] };
  const head = text.trimStart();
  if (head.startsWith("{") || head.startsWith("[")) {
    try {
      const values = parseJsonStream(text);
      return { documents: values.map(({ value, line }) => ({ value: value as JsonValue, line })), errors: [] };
    } catch (err) {
      if (!(err instanceof JsonStreamError)) throw err;
      // JSON documents between YAML's `---` are YAML: the JSON error stands only where YAML fails too.
      const yaml = parseYamlDocuments(text);
      if (err.line > 1 && yaml.errors.length > 0) return { documents: [], errors: [{ line: err.line, message: err.message }] };
      return yaml;
    }
  }
  return parseYamlDocuments(text);
}

/** The documents of a file or `-`, with the name its messages give it (`<stdin>` for `-`). */
async function readDocuments(io: CliIO, source: string): Promise<ReturnType<typeof documentsOf> & { file: string }> {
  return { ...documentsOf(await readInput(io, source)), file: displayName(source) };
}

/** One object from a file (karmadactl requires exactly one). */
async function readObject(io: CliIO, source: string, what: string): Promise<KubeObject> {
  const { documents, errors, file } = await readDocuments(io, source);
  if (errors.length > 0) throw new InputError(`fail to get ${what} object: ${errorAt(file, errors[0]!)}: ${errors[0]!.message}`);
  if (documents.length !== 1) throw new InputError(`fail to get ${what} object: ${file}: expected exactly one object, found ${documents.length}`);
  const v = documents[0]!.value;
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new InputError(`fail to get ${what} object: ${file}: not an object`);
  const wrongType = typeMetaTypeError(v);
  if (wrongType !== undefined) throw new InputError(`fail to get ${what} object: ${file}: ${wrongType}`);
  if (typeof v.apiVersion !== "string" || typeof v.kind !== "string") throw new InputError(`fail to get ${what} object: ${file}: Object 'Kind' is missing`);
  return v;
}

/**
 * AggregatedStatusItems: each YAML document an item (or a list of items), read as karmadactl reads
 * them (see decodeStatusItem). No --status-file is Go's nil (no items at all), which a script tells
 * from an empty file's empty list.
 */
async function readStatusItems(io: CliIO, files: readonly string[]): Promise<AggregatedStatusItem[] | undefined> {
  if (files.length === 0) return undefined;
  const items: AggregatedStatusItem[] = [];
  for (const source of files) {
    const { documents, errors, file } = await readDocuments(io, source);
    if (errors.length > 0) throw new InputError(`fail to get status items: ${errorAt(file, errors[0]!)}: ${errors[0]!.message}`);
    for (const { value, line } of documents) {
      for (const [i, v] of (Array.isArray(value) ? value : [value]).entries()) {
        const decoded = decodeStatusItem(v, Array.isArray(value) ? `[${i}]` : "");
        if (!decoded.ok) throw new InputError(`fail to get status items: ${file}:${line}: ${decoded.message}`);
        items.push(decoded.item);
      }
    }
  }
  return items;
}

/** TargetComponents from files: each document a {name, replicas} or a list of them. */
async function readComponents(io: CliIO, files: readonly string[]): Promise<TargetComponent[]> {
  const out: TargetComponent[] = [];
  for (const source of files) {
    const { documents, errors, file } = await readDocuments(io, source);
    if (errors.length > 0) throw new InputError(`fail to get components: ${errorAt(file, errors[0]!)}: ${errors[0]!.message}`);
    for (const { value, line } of documents) {
      for (const [i, item] of (Array.isArray(value) ? value : [value]).entries()) {
        const where = `${file}:${line}: ${Array.isArray(value) ? `[${i}].` : ""}`;
        if (typeof item !== "object" || item === null || Array.isArray(item)) throw new InputError(`fail to get components: ${where.slice(0, -1)}: a TargetComponent must be an object {name, replicas}`);
        if (typeof item.name !== "string" || item.name === "") throw new InputError(`fail to get components: ${where}name: Required value`);
        const r = item.replicas;
        const bad = replicaCountError(r, `${where}replicas`);
        if (bad !== undefined) throw new InputError(`fail to get components: ${bad}`);
        const unknown = Object.keys(item).find((k) => k !== "name" && k !== "replicas");
        if (unknown !== undefined) throw new InputError(`fail to get components: ${where}${unknown}: unknown field (a TargetComponent has name and replicas)`);
        out.push({ name: item.name, replicas: r as number });
      }
    }
  }
  return out;
}

function issueText(i: CustomizationIssue | { file: string; line?: number; column?: number; path: string; message: string }): string {
  return `${i.file}${i.line !== undefined ? `:${i.line}:${i.column ?? 1}` : ""}: error: ${i.path ? `${i.path}: ` : ""}${i.message}`;
}

/** `file:line:col` of a parse error, as every reader names it. */
function errorAt(file: string, e: { line: number; column?: number }): string {
  return `${file}:${e.line}:${e.column ?? 1}`;
}

/**
 * karmadactl prints results through a JSON round trip and sigs.k8s.io/yaml: sorted keys, block style,
 * and a string Go's reader would take for another type quoted (goSafeYaml).
 */
function toYaml(v: unknown): string {
  const plain = v === undefined ? null : (JSON.parse(JSON.stringify(v)) as JsonValue);
  return goSafeYaml(plain, { sortMapEntries: true, indentSeq: false });
}

/** The named results of one operation, in karmadactl's order and names. */
async function execute(fw: InterpreterFramework, op: Operation, o: InterpretOptions, desired: KubeObject | undefined, observed: KubeObject | undefined, items: AggregatedStatusItem[] | undefined, components: TargetComponent[], source: FrameworkSource): Promise<{ ok: true; results: [string, unknown][]; layer: string } | { ok: false; error: string; layer?: string }> {
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
  }
  const obj = op === "Retain" ? desired! : single();
  if (typeof obj === "string") return { ok: false, error: obj };
  const input: OperationInput = { operation: op, object: obj, replicas: o.desiredReplica };
  if (items !== undefined) input.aggregatedStatus = items;
  if (op === "ReviseComponents") input.components = components;
  if (op === "Retain") input.observedObject = observed!;
  const out = await runBounded(fw, input, source);
  if (!out.ok) return out;
  switch (op) {
    case "InterpretReplica":
      return done(out.outcome as LayerOutcome<ReplicaResult>, (v) => [
        ["replica", v.replicas],
        ["requires", v.replicaRequirements ?? null],
      ]);
    case "InterpretComponent":
      return done(out.outcome, (v) => [["components", v]]);
    case "ReviseReplica":
    case "ReviseComponents":
      return done(out.outcome, (v) => [["revised", v]]);
    case "Retain":
      return done(out.outcome, (v) => [["retained", v]]);
    case "InterpretStatus":
      return done(out.outcome, (v) => [["status", v ?? null]]);
    case "AggregateStatus":
      return done(out.outcome, (v) => [["aggregatedStatus", v]]);
    case "InterpretHealth":
      return done(out.outcome, (v) => [["healthy", v]]);
    case "InterpretDependency":
      return done(out.outcome, (v) => [["dependencies", v]]);
    default:
      return { ok: false, error: `operation ${op} is not supported` };
  }
}

/** The kinds ("apiVersion kind") the bundled customizations target, read once per process (they ship with the package). */
let bundledTargets: Set<string> | undefined;

/**
 * Whether the thirdparty layer answers for `apiVersion kind`: a kind the bundled customizations
 * (interpreter-customizations/) target, or one of its TypeScript interpreters' kinds (Flux, Kyverno,
 * SidecarSet, and the kinds whose Karta defers operations to them), which need no Lua VM to tell.
 */
async function thirdpartyAnswers(kind: string): Promise<boolean> {
  if (bundledTargets === undefined) {
    const dir = bundledDirectory("interpreter-customizations");
    const { customizations } = dir === undefined ? { customizations: [] } : loadCustomizationFiles([dir], { recursive: true });
    bundledTargets = new Set(customizations.map((c) => `${c.spec.target.apiVersion} ${c.spec.target.kind}`));
  }
  if (bundledTargets.has(kind)) return true;
  const { ownInterpreters } = await import("../interpreter/thirdparty/own.js");
  return ownInterpreters().some((i) => i.kinds.some((k) => `${k.kind.apiVersion} ${k.kind.kind}` === kind));
}

/**
 * The evaluation worker of the last run, kept for the next run of the same configuration in this
 * process (a program or test that calls `main` again and again); its thread does not keep a process
 * from exiting, so a one-shot command ends as before.
 */
let kept: { key: string; pool: EvaluationPool } | undefined;

async function evaluationPool(source: FrameworkSource): Promise<EvaluationPool> {
  const key = createHash("sha256").update(JSON.stringify(source)).digest("hex");
  if (kept?.key === key) return kept.pool;
  const { EvaluationPool } = await import("../server/pool.js");
  const previous = kept;
  kept = { key, pool: new EvaluationPool({ size: 1, source }) };
  await previous?.pool.close();
  return kept.pool;
}

/**
 * Runs the operation. When a Lua layer may answer it, the evaluation runs in a worker thread that is
 * terminated if a script runs past its deadline inside a library function (string.find with a
 * pathological pattern), where the Lua VM cannot stop it; other layers answer in this thread.
 */
async function runBounded(fw: InterpreterFramework, input: OperationInput, source: FrameworkSource): Promise<{ ok: true; outcome: LayerOutcome<unknown> } | { ok: false; error: string; layer?: string }> {
  const layers = fw.layersFor(kindOf(input.object), input.operation);
  const lua = layers.find((l) => l === "declarative" || l === "thirdparty");
  if (lua === undefined) return { ok: true, outcome: await (await import("../server/evaluate.js")).runOperation(fw, input) };
  const pool = await evaluationPool(source);
  const r = await pool.runOperation(input, Date.now() + 3_600_000);
  if (r.ok) return { ok: true, outcome: r.value };
  return { ok: false, error: r.message, layer: lua };
}

/** Loaded customizations with the file each came from. */
interface LoadedCustomizations {
  items: { customization: ResourceInterpreterCustomization; file: string }[];
  issues: CustomizationIssue[];
  /** The texts read, for a worker thread to load the same customizations. */
  texts: SourceFile[];
}

async function loadCustomizations(io: CliIO, o: InterpretOptions): Promise<LoadedCustomizations> {
  const out: LoadedCustomizations = { items: [], issues: [], texts: [] };
  for (const file of listInputFiles(o.filenames, { recursive: o.recursive })) {
    const text = await readInput(io, file);
    const name = displayName(file);
    out.texts.push({ file: name, text });
    const loaded = parseCustomizations(text, name);
    out.issues.push(...loaded.issues);
    for (const customization of loaded.customizations) out.items.push({ customization, file: name });
  }
  return out;
}

/** What each rule's script does and the function it defines: what `--show-doc` prints as Lua comments. */
const RULE_DOCS: Record<string, string> = {
  Retain: "Keeps values a member cluster changed (observedObj) in the object Karmada applies (desiredObj).\nfunction Retain(desiredObj, observedObj) ... return desiredObj end",
  InterpretReplica: "The object's replica count and what each replica needs (nodeClaim, resourceRequest, priorityClassName).\nfunction GetReplicas(desiredObj) ... return replicas, requirements end",
  InterpretComponent: "The object's components: name, replicas and replicaRequirements of each pod template.\nfunction GetComponents(desiredObj) ... return components end",
  ReviseReplica: "Writes the replica count Karmada scheduled to a member cluster into the object.\nfunction ReviseReplica(desiredObj, desiredReplica) ... return desiredObj end",
  ReviseComponents: "Writes each component's replicas Karmada scheduled to a member cluster into the object (components[i].name, components[i].replicas; proposed in Karmada #7830).\nfunction ReviseComponents(desiredObj, components) ... return desiredObj end",
  InterpretStatus: "The part of the member cluster's status that Karmada collects.\nfunction ReflectStatus(observedObj) ... return status end",
  AggregateStatus: "Combines the statuses collected from member clusters (statusItems[i].status) into the object's status.\nfunction AggregateStatus(desiredObj, statusItems) ... return desiredObj end",
  InterpretHealth: "Whether the object is healthy in a member cluster.\nfunction InterpretHealth(observedObj) ... return true or false end",
  InterpretDependency: "The objects (ConfigMaps, Secrets, ServiceAccounts...) to propagate with the object: {apiVersion, kind, namespace, name}.\nfunction GetDependencies(desiredObj) ... return dependencies end",
};

/** `--show-doc`: each rule's documentation as Lua comments; with customizations, each in karmadactl's edit layout with its scripts. */
function showDoc(out: OutputBuffer, loaded: LoadedCustomizations): void {
  const rule = (operation: string, script?: string): void => {
    out.write(`---@rule: ${operation}\n`);
    for (const line of (RULE_DOCS[operation] ?? "").split("\n")) out.write(`-- ${line}\n`);
    if (script) out.write(script.endsWith("\n") ? script : script + "\n");
  };
  if (loaded.items.length === 0) for (const { operation } of CUSTOMIZATION_RULES) rule(operation);
  for (const { customization: ric } of loaded.items) {
    out.write(`---@name: ${ric.metadata.name}\n---@apiVersion: ${ric.spec.target.apiVersion}\n---@kind: ${ric.spec.target.kind}\n`);
    for (const { field, operation } of CUSTOMIZATION_RULES) rule(operation, ric.spec.customizations[field]?.luaScript);
  }
}

/**
 * Rows as karmadactl's tab writer (kubectl's: minimum width 6, padding 3) prints consecutive lines: every
 * cell but a row's last is a column cell, padded to its column's width over the consecutive rows that
 * have that column.
 */
export function tabulate(rows: readonly (readonly string[])[]): string {
  const widths: number[][] = rows.map(() => []);
  const columns = Math.max(0, ...rows.map((r) => r.length - 1));
  for (let c = 0; c < columns; c++) {
    for (let start = 0; start < rows.length; ) {
      if (rows[start]!.length - 1 <= c) {
        start++;
        continue;
      }
      let end = start;
      let width = 6;
      while (end < rows.length && rows[end]!.length - 1 > c) width = Math.max(width, rows[end++]![c]!.length + 3);
      for (let r = start; r < end; r++) widths[r]![c] = width;
      start = end;
    }
  }
  return rows.map((row, r) => row.map((cell, c) => (c < row.length - 1 ? cell.padEnd(widths[r]![c]!) : cell)).join("") + "\n").join("");
}

/**
 * `--check`: karmadactl's report (each rule PASS, UNSET or ERROR: compile errors), and, given a
 * sample object, each script also run once on it (InterpretStatus, InterpretHealth and Retain's
 * observed side on --observed-file when given).
 */
async function runCheck(out: OutputBuffer, loaded: LoadedCustomizations, desired: KubeObject | undefined, observed: KubeObject | undefined, items: AggregatedStatusItem[] | undefined, replicas: number, components: TargetComponent[]): Promise<boolean> {
  let failed = false;
  const [{ LuaVM }, { kubeLibrary }, { EvaluationPool }] = await Promise.all([import("../interpreter/lua/vm.js"), import("../interpreter/lua/kube.js"), import("../server/pool.js")]);
  const vm = await LuaVM.create({ kube: kubeLibrary() });
  // Scripts run on the sample in a worker thread: one stuck inside a library function is stopped there.
  const pool = desired !== undefined ? new EvaluationPool({ size: 1, source: { definitions: [], customizations: [], webhookConfigurations: [], multiplePodTemplatesScheduling: false } }) : undefined;
  try {
    for (const { customization: ric } of loaded.items) {
      out.write("-----------------------------------\n");
      out.write(`SOURCE: ${ric.metadata.name}\n`);
      out.write(tabulate([[`TARGET: ${ric.spec.target.apiVersion} ${ric.spec.target.kind}`, ""]]));
      out.write("RULERS:\n");
      const retarget = (obj: KubeObject): KubeObject => ({ ...obj, apiVersion: ric.spec.target.apiVersion, kind: ric.spec.target.kind });
      const rows: string[][] = [];
      for (const { field, operation } of CUSTOMIZATION_RULES) {
        const label = `    ${operation}:`;
        const script = ric.spec.customizations[field]?.luaScript;
        if (!script) {
          rows.push([label, "UNSET"]);
          continue;
        }
        const compiled = vm.compile(script);
        let error = compiled.ok ? undefined : compiled.error;
        if (error === undefined && desired !== undefined) {
          const r = await pool!.runRule({ customization: ric, operation, sample: retarget(desired), observed: retarget(observed ?? desired), ...(items !== undefined ? { items } : {}), replicas, components }, Date.now() + 3_600_000);
          error = r.ok ? (r.value ?? undefined) : r.message;
        }
        if (error !== undefined) {
          failed = true;
          // karmadactl ends an ERROR cell with a tab, so the message is padded like a column.
          rows.push([label, `ERROR: ${error.trim().replace(/\s*\n\s*/g, " ")}`, ""]);
        } else rows.push([label, "PASS"]);
      }
      out.write(tabulate(rows));
    }
  } finally {
    vm.close();
    await pool?.close();
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
  const { framework, layers, kartaIssues, thirdpartyIssues, close } = await assembleLayers({ kartas, thirdparty: true });
  const warnings = [...kartaIssues, ...thirdpartyIssues.map((i) => `bundled customizations: ${issueText(i)}`)];
  return { framework, layers, warnings, close };
}

/** Runs `karta interpret`. */
export async function runInterpret(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "interpret", args, FLAGS, INTERPRET_HELP);
  if (typeof p === "number") return p;
  let o: InterpretOptions;
  try {
    o = options(p);
  } catch (e) {
    if (e instanceof UsageError) return usageError(io, "interpret", e.message);
    throw e;
  }
  const out = new OutputBuffer(io);
  const closers: (() => void)[] = [];
  try {
    let kartas: Definition[] = [];
    const source: FrameworkSource = { definitions: [], customizations: [], webhookConfigurations: [], multiplePodTemplatesScheduling: false };
    if (o.definition !== undefined) {
      // A file, or a directory of them (recursively), as for inspect and compile.
      const loaded: { definitions: Definition[]; diagnostics: Diagnostic[] } = { definitions: [], diagnostics: [] };
      for (const file of listInputFiles([o.definition], { recursive: true })) {
        const name = displayName(file);
        const text = await readInput(io, file);
        source.definitions.push({ file: name, text });
        const one = loadKartaText(text, name);
        loaded.definitions.push(...one.definitions);
        loaded.diagnostics.push(...one.diagnostics);
      }
      if (loaded.diagnostics.length > 0) {
        for (const d of loaded.diagnostics) io.stderr(`${formatDiagnostic(d)}\n`);
        return hasSyntaxErrors(loaded.diagnostics) ? 2 : 1;
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
      const textOf = new Map(loaded.texts.map((t) => [t.file, t.text]));
      for (const i of issues) io.stderr(`${customizationIssueText(textOf.get(i.file) ?? "", i)}\n`);
      // Text that does not parse is unreadable input (2), as for -d; an invalid customization is 1.
      return issues.some((i) => i.unreadable) ? 2 : 1;
    }
    const desired = o.desiredFile !== undefined ? await readObject(io, o.desiredFile, "desired") : undefined;
    const observed = o.observedFile !== undefined ? await readObject(io, o.observedFile, "observed") : undefined;
    const items = await readStatusItems(io, o.statusFiles);
    const components = [...o.desiredComponents, ...(await readComponents(io, o.componentsFiles))];

    if (o.showDoc) {
      showDoc(out, loaded);
      out.flush();
      return 0;
    }
    if (o.check) {
      if (loaded.items.length === 0) {
        // karmadactl reads -f directories at their top only, unless -R: say so when that is where the files are.
        const nested = !o.recursive && listInputFiles(o.filenames, { recursive: true }).length > listInputFiles(o.filenames, { recursive: false }).length;
        io.stderr(o.filenames.length === 0 ? "karta interpret: --check needs customizations (-f)\n" : `karta interpret: --check: no ResourceInterpreterCustomization in ${o.filenames.join(", ")}${nested ? " (its sub-directories are read only with -R, --recursive)" : ""}\n`);
        return 2;
      }
      const passed = await runCheck(out, loaded, desired, observed, items, o.desiredReplica, components);
      out.flush();
      return passed ? 0 : 1;
    }

    source.customizations = loaded.texts;
    const webhooks: ResourceInterpreterWebhookConfiguration[] = [];
    if (o.webhookConfig !== undefined) {
      const { parseWebhookConfigurations } = await import("../interpreter/webhook/config.js");
      const text = await readInput(io, o.webhookConfig);
      source.webhookConfigurations.push({ file: o.webhookConfig, text });
      const parsed = parseWebhookConfigurations(text, o.webhookConfig);
      if (parsed.issues.length > 0) {
        for (const i of parsed.issues) io.stderr(`${issueText(i)}\n`);
        return parsed.issues.some((i) => i.unreadable) ? 2 : 1;
      }
      webhooks.push(...parsed.configurations);
    }
    // The bundled customizations answer only for their own kinds: start their Lua VM only for those.
    const subject = desired ?? observed;
    const assembled = await assembleLayers({
      kartas,
      customizations: loaded.items.map((i) => i.customization),
      webhooks,
      thirdparty: subject !== undefined && (await thirdpartyAnswers(`${String(subject.apiVersion)} ${String(subject.kind)}`)),
    });
    closers.push(() => assembled.close());
    // Bundled Kartas leave Kubernetes' own kinds to Karmada's built-in interpreters; -d Kartas do not.
    if (assembled.kartaIssues.length > 0) {
      for (const i of assembled.kartaIssues) io.stderr(`${kartas.length > 0 ? "error" : "warning: bundled Kartas"}: ${i}\n`);
      if (kartas.length > 0) return 1;
    }
    for (const i of assembled.thirdpartyIssues) io.stderr(`warning: bundled customizations: ${issueText(i)}\n`);

    const fw = assembled.framework;
    const op = o.operation!;
    if (op === "ReviseComponents" && components.length === 0) {
      io.stderr("karta interpret: ReviseComponents needs the components' replicas: --desired-component NAME=N (repeatable) or --components-file FILE\n");
      return 2;
    }
    const result = await execute(fw, op, o, desired, observed, items, components, source);
    if (!result.ok) {
      io.stderr(`Execute ${op} error: ${result.error.trimEnd()}${result.layer ? ` (layer: ${result.layer})` : ""}\n`);
      return 1;
    }
    if (o.output !== undefined) {
      // -o: the results as one object, named as karmadactl names them.
      const value = Object.fromEntries(result.results.map(([name, v]) => [name, v ?? null]));
      if (o.showLayer) io.stderr(`layer: ${result.layer}\n`);
      out.write(o.output === "json" ? JSON.stringify(value, null, 2) + "\n" : toYaml(value));
      out.flush();
      return 0;
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
