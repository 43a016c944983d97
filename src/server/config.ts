/**
 * The server's configuration: the user's Karta definitions and ResourceInterpreterCustomizations, read
 * from files and directories into a snapshot of texts (what worker threads receive), checked before
 * use, and built into an interpreter framework (by interpreter/layers.ts, as `karta interpret` builds it:
 * the customizations, the Kartas, the bundled thirdparty customizations, Karmada's built-in interpreters).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { readErrorReason } from "../files/read-error.js";
import { isScalar, LineCounter, parseAllDocuments } from "yaml";
import { formatDiagnostic, hasSyntaxErrors, type Definition } from "../definition/index.js";
import { findConflicts, parseCustomizations, CUSTOMIZATION_RULES } from "../interpreter/declarative/customization.js";
import type { InterpreterFramework } from "../interpreter/framework.js";
import { loadKartaText } from "../interpreter/karta/index.js";
import { assembleLayers } from "../interpreter/layers.js";
import { LuaVM } from "../interpreter/lua/vm.js";
import type { Operation, ResourceInterpreterCustomization, ResourceKind } from "../interpreter/types.js";
import { parseWebhookConfigurations } from "../interpreter/webhook/config.js";
import { customizationIssueText, issueText } from "../interpreter/declarative/issue-text.js";

/** One file's text and the name errors give it. */
export interface SourceFile {
  file: string;
  text: string;
}

/** Everything a framework is built from: plain data, so that it can be posted to worker threads. */
export interface FrameworkSource {
  /** User Karta definitions; for their kinds they replace the bundled ones. */
  definitions: SourceFile[];
  /** User ResourceInterpreterCustomizations (the declarative layer). */
  customizations: SourceFile[];
  /** ResourceInterpreterWebhookConfigurations to consult (the CLI's --webhook-config; the server has none). */
  webhookConfigurations: SourceFile[];
  /** Karmada's MultiplePodTemplatesScheduling feature gate. */
  multiplePodTemplatesScheduling: boolean;
}

/** A built framework and how to release its Lua states. */
export interface BuiltFramework {
  framework: InterpreterFramework;
  /** Every kind some layer has an interpreter for (user customizations, Kartas, thirdparty, native). */
  kinds: ResourceKind[];
  /** Problems of the user's files (file:line:col: error: path: message); empty when the source is usable. */
  errors: string[];
  /** Some file does not parse (YAML, nesting, aliases): unreadable input (exit 2), not invalid (exit 1). */
  unreadable: boolean;
  /** Problems of bundled files (warnings: the rest still works). */
  warnings: string[];
  /**
   * Whether answering `op` for this kind may run a Lua script (a user customization or a bundled one)
   * or call a webhook: work that only a worker thread can be stopped in. The rest (Kartas, whose jq is
   * bounded by steps, and the TypeScript interpreters) may be answered on the server's event loop.
   */
  needsWorker(kind: ResourceKind, op: Operation): boolean;
  close(): void;
}

/** Where line `luaLine` of a customization's script is in its file (1-based line and column). */
function scriptPosition(text: string, name: string, field: string, luaLine: number): { line: number; column: number } | undefined {
  const lc = new LineCounter();
  let docs;
  try {
    docs = parseAllDocuments(text, { lineCounter: lc });
  } catch {
    return undefined;
  }
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.getIn(["metadata", "name"]) !== name) continue;
    const node = doc.getIn(["spec", "customizations", field, "luaScript"], true);
    if (!isScalar(node) || !node.range) return undefined;
    const start = lc.linePos(node.range[0]);
    if (node.type === "BLOCK_LITERAL" || node.type === "BLOCK_FOLDED") {
      // The content starts on the line after the `|` header, at the block's indentation.
      const lines = text.split("\n");
      const first = lines.slice(start.line).find((l) => l.trim() !== "") ?? "";
      return { line: start.line + luaLine, column: first.length - first.trimStart().length + 1 };
    }
    return { line: start.line + luaLine - 1, column: start.col };
  }
  return undefined;
}

/** Lua syntax errors of a customization's scripts, at their place in the file. */
function luaIssues(vm: LuaVM, ric: ResourceInterpreterCustomization, file: string, text: string): string[] {
  const out: string[] = [];
  for (const { field } of CUSTOMIZATION_RULES) {
    const script = ric.spec.customizations[field]?.luaScript;
    if (!script) continue;
    const compiled = vm.compile(script);
    if (compiled.ok) continue;
    const m = /^<string>:(\d+): ([\s\S]*)$/.exec(compiled.error.trim());
    // gopher-lua's syntax errors do not start with the line: the compiler names it.
    const line = m ? Number(m[1]) : compiled.line;
    const at = line !== undefined ? scriptPosition(text, ric.metadata.name, field, line) : undefined;
    const where = at ? `${file}:${at.line}:${at.column}` : file;
    out.push(`${where}: error: spec.customizations.${field}.luaScript: ${line !== undefined ? `line ${line} of the script: ${m ? m[2] : compiled.error.trim()}` : compiled.error.trim()}`);
  }
  return out;
}

/**
 * Builds the framework from a source and checks the user's files: YAML and schema errors of
 * definitions and customizations, Lua scripts that do not compile, conflicting customizations,
 * and webhook configurations that are not valid.
 */
export async function buildFramework(source: FrameworkSource, options: { checkLua?: boolean } = {}): Promise<BuiltFramework> {
  const errors: string[] = [];
  const warnings: string[] = [];
  let unreadable = false;
  const kartas: Definition[] = [];
  for (const { file, text } of source.definitions) {
    const loaded = loadKartaText(text, file);
    if (hasSyntaxErrors(loaded.diagnostics)) unreadable = true;
    for (const d of loaded.diagnostics) errors.push(formatDiagnostic(d));
    if (loaded.diagnostics.length === 0 && loaded.definitions.length === 0) errors.push(`${file}: error: no Karta definition found`);
    kartas.push(...loaded.definitions);
  }
  const rics: { customization: ResourceInterpreterCustomization; file: string }[] = [];
  let vm: LuaVM | undefined;
  for (const { file, text } of source.customizations) {
    const loaded = parseCustomizations(text, file);
    if (loaded.issues.some((i) => i.unreadable)) unreadable = true;
    errors.push(...loaded.issues.map((i) => customizationIssueText(text, i)));
    for (const customization of loaded.customizations) {
      rics.push({ customization, file });
      if (options.checkLua) {
        vm ??= await LuaVM.create();
        errors.push(...luaIssues(vm, customization, file, text));
      }
    }
  }
  vm?.close();
  errors.push(
    ...findConflicts(
      rics.map((r) => r.customization),
      (name) => rics.find((r) => r.customization.metadata.name === name)?.file ?? "",
    ).map(issueText),
  );
  const hooks = source.webhookConfigurations.flatMap(({ file, text }) => {
    const parsed = parseWebhookConfigurations(text, file);
    if (parsed.issues.some((i) => i.unreadable)) unreadable = true;
    errors.push(...parsed.issues.map(issueText));
    return parsed.configurations;
  });
  const assembled = await assembleLayers({
    kartas,
    customizations: rics.map((r) => r.customization),
    webhooks: hooks,
    thirdparty: true,
    multiplePodTemplatesScheduling: source.multiplePodTemplatesScheduling,
  });
  for (const i of assembled.kartaIssues) (kartas.length > 0 ? errors : warnings).push(kartas.length > 0 ? `error: ${i}` : `bundled Kartas: ${i}`);
  warnings.push(...assembled.thirdpartyIssues.map((i) => `bundled customizations: ${issueText(i)}`));
  const { framework, kinds, needsWorker, close } = assembled;
  return { framework, kinds, errors, unreadable, warnings, needsWorker, close };
}

const INPUT_FILE = /\.(ya?ml|json)$/i;

/**
 * The input files under the given paths: a file as it is, a directory searched recursively for
 * .yaml/.yml/.json. Names starting with "." are skipped, which leaves out the `..data` and
 * `..<timestamp>` entries of a mounted ConfigMap (their files are reached through the visible
 * symlinks), so each file is read once.
 */
export function listConfigFiles(paths: readonly string[], options: { strict?: boolean } = {}): { files: string[]; errors: string[]; emptyDirectories: string[] } {
  const files: string[] = [];
  const errors: string[] = [];
  const emptyDirectories: string[] = [];
  const visit = (p: string, top: boolean, depth: number): void => {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (e) {
      // A server reading a directory that changes under it skips an entry that went away; a one-shot
      // command (strict) does not (a dangling link of an input file is unreadable input).
      if (top || (options.strict && INPUT_FILE.test(p))) errors.push(`${p}: error: cannot read: ${readErrorReason(e)}`);
      return;
    }
    if (!isDir) {
      if (top || INPUT_FILE.test(p)) files.push(p);
      return;
    }
    if (depth > 32) return;
    let names: string[];
    try {
      names = readdirSync(p).sort();
    } catch (e) {
      errors.push(`${p}: error: cannot read: ${readErrorReason(e)}`);
      return;
    }
    const before = { files: files.length, errors: errors.length };
    for (const name of names) if (!name.startsWith(".")) visit(path.join(p, name), false, depth + 1);
    // A directory given that holds nothing to read (and could be read through).
    if (top && files.length === before.files && errors.length === before.errors) emptyDirectories.push(p);
  };
  for (const p of paths) visit(p, true, 0);
  return { files, errors, emptyDirectories };
}

/** The server's view of its configuration: where to read, and what the last good read was. */
export interface ConfigPaths {
  definitions: string[];
  customizations: string[];
  multiplePodTemplatesScheduling: boolean;
}

/** The outcome of reading the configuration: a source and its fingerprint, or the errors found. */
export type ConfigRead =
  | { ok: true; source: FrameworkSource; fingerprint: string; warnings: string[]; built?: BuiltFramework }
  | { ok: false; errors: string[]; fingerprint: string }
  /** The files are those of the fingerprint given as `known`: nothing was built or checked. */
  | { ok: "unchanged"; fingerprint: string };

/**
 * Reads and checks the configuration files. The framework is built once to check them, then released,
 * or with `keep` returned as `built` (the caller closes it). With `known`, files whose fingerprint is
 * that one are not checked again (building takes the event loop a tenth of a second or more).
 */
export async function readConfig(paths: ConfigPaths, options: { keep?: boolean; known?: string } = {}): Promise<ConfigRead> {
  const errors: string[] = [];
  const read = (list: readonly string[]): SourceFile[] => {
    const found = listConfigFiles(list);
    errors.push(...found.errors);
    const out: SourceFile[] = [];
    for (const file of found.files) {
      try {
        out.push({ file, text: readFileSync(file, "utf8") });
      } catch (e) {
        errors.push(`${file}: error: cannot read: ${readErrorReason(e)}`);
      }
    }
    return out;
  };
  const source: FrameworkSource = {
    definitions: read(paths.definitions),
    customizations: read(paths.customizations),
    webhookConfigurations: [],
    multiplePodTemplatesScheduling: paths.multiplePodTemplatesScheduling,
  };
  const hash = createHash("sha256");
  for (const f of [...source.definitions, ...source.customizations]) hash.update(`${f.file}\0${f.text}\0`);
  const fingerprint = hash.digest("hex");
  if (errors.length > 0) return { ok: false, errors, fingerprint };
  if (fingerprint === options.known) return { ok: "unchanged", fingerprint };
  const built = await buildFramework(source, { checkLua: true });
  if (built.errors.length > 0 || !options.keep) built.close();
  if (built.errors.length > 0) return { ok: false, errors: built.errors, fingerprint };
  return options.keep ? { ok: true, source, fingerprint, warnings: built.warnings, built } : { ok: true, source, fingerprint, warnings: built.warnings };
}
