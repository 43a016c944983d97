/**
 * The playground's engine: the three editors' texts in, everything the library sees in them out. It
 * imports the library's pure modules directly (never src/index.ts, whose CLI and file loaders need
 * Node), so the same code runs in the browser bundle and under Node in the tests.
 */
import { parseAllDocuments, stringify } from "yaml";
import { validateText } from "../../src/definition/validate.js";
import type { Definition } from "../../src/definition/load.js";
import type { Diagnostic } from "../../src/definition/diagnostic.js";
import { compileInterpreter, type CompiledInterpreter } from "../../src/interpret/interpret.js";
import type { Interpretation, PatchResult } from "../../src/interpret/types.js";
import { compileKarta, type WorkloadCompilation } from "../../src/scheduling/karta.js";
import { kaiGroupsNotice } from "../../src/scheduling/kai-plugins.js";
import { lineStarts, positionIn } from "../../src/interpreter/declarative/text-position.js";

/** A problem in the workload object's or the pods' editor, at a 1-based line and column. */
export interface TextProblem {
  line: number;
  column: number;
  message: string;
  severity: "error" | "warning";
}

/** Parsed YAML or JSON documents of one editor, with the problems found. */
export interface ParsedDocuments {
  values: unknown[];
  problems: TextProblem[];
}

/** What the library makes of the three editors. */
export interface Analysis {
  /** `karta validate`'s diagnostics of the Karta editor (loading, rules, jq, lint), positioned. */
  diagnostics: Diagnostic[];
  /** The definition interpreted (the one whose root kind is the object's, else the first). */
  definition?: Definition;
  object?: Record<string, unknown>;
  objectProblems: TextProblem[];
  pods: unknown[];
  podProblems: TextProblem[];
  /** Why nothing was interpreted (the definition has errors, no object...). */
  blocked?: string;
  interpreter?: CompiledInterpreter;
  interpretation?: Interpretation;
  /** The lines of the notice beside the groups when KAI Scheduler would not use them (as `karta inspect` prints it). */
  kaiNotice?: string[];
  compilation?: WorkloadCompilation;
  patches?: { suspend: PatchResult; resume: PatchResult; setScheduler: PatchResult };
  /** Milliseconds spent validating the Karta (what the editor's diagnostics wait for). */
  validateMs: number;
  /** Milliseconds spent on everything after the check (interpretation, compilation, patches). */
  totalMs: number;
}

/** The scheduler name the set-scheduler patch sets. */
export const PATCH_SCHEDULER = "kai-scheduler";

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Parses YAML (one or more documents) or JSON; a line-positioned problem per parse error. */
export function parseDocuments(text: string): ParsedDocuments {
  const out: ParsedDocuments = { values: [], problems: [] };
  const starts = lineStarts(text);
  const at = (offset: number): { line: number; column: number } => positionIn(starts, offset);
  for (const doc of parseAllDocuments(text, { uniqueKeys: true })) {
    if (!("errors" in doc)) continue;
    for (const e of doc.errors) out.problems.push({ ...at(e.pos[0]), message: e.message.split("\n")[0]!, severity: "error" });
    if (doc.errors.length > 0) continue;
    if (doc.contents === null) continue;
    out.values.push(doc.toJS({ maxAliasCount: 100 }));
  }
  return out;
}

/** The pods of the pods editor: documents, `List`s (as `kubectl get pods -o yaml` prints) or arrays. */
export function podsOf(parsed: ParsedDocuments): unknown[] {
  const pods: unknown[] = [];
  const add = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(add);
    else if (isObject(v) && Array.isArray(v.items) && typeof v.kind === "string" && v.kind.endsWith("List")) v.items.forEach(add);
    else if (v !== null && v !== undefined) pods.push(v);
  };
  parsed.values.forEach(add);
  return pods;
}

function rootKindOf(d: Definition): { group: string; version: string; kind: string } | undefined {
  return d.karta.spec?.structureDefinition?.rootComponent?.kind as { group: string; version: string; kind: string } | undefined;
}

function matchesObject(d: Definition, o: Record<string, unknown>): boolean {
  const k = rootKindOf(d);
  if (!k) return false;
  const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
  return o.kind === k.kind && o.apiVersion === apiVersion;
}

/** Validates the Karta only: what the editor's inline diagnostics show. */
export function validateKarta(text: string, file = "karta.yaml"): { definitions: Definition[]; diagnostics: Diagnostic[] } {
  return validateText(text, file);
}

/** The first stage: what the editors' inline diagnostics show (validation, parse problems). */
export interface Checked {
  definitions: Definition[];
  diagnostics: Diagnostic[];
  objectParsed: ParsedDocuments;
  podsParsed: ParsedDocuments;
  validateMs: number;
}

/** Validates the Karta and parses the object and pods: everything the editors mark. */
export function check(kartaText: string, objectText: string, podsText: string): Checked {
  const t0 = now();
  const { definitions, diagnostics } = validateKarta(kartaText);
  const validateMs = now() - t0;
  return { definitions, diagnostics, objectParsed: parseCached(objectText), podsParsed: parseCached(podsText), validateMs };
}

// Typing changes one editor at a time: the others' texts parse once, not on every keystroke.
const parsedTexts = new Map<string, ParsedDocuments>();

function parseCached(text: string): ParsedDocuments {
  let parsed = parsedTexts.get(text);
  if (!parsed) {
    parsed = parseDocuments(text);
    if (parsedTexts.size >= 8) parsedTexts.delete(parsedTexts.keys().next().value!);
    parsedTexts.set(text, parsed);
  }
  // A copy: nothing downstream may change what the next run reads.
  return { values: structuredClone(parsed.values), problems: parsed.problems };
}

/**
 * Runs everything on the three texts (or on a {@link check} already made of them). Never throws: a
 * library bug becomes the `blocked` reason.
 */
export function analyze(kartaText: string, objectText: string, podsText: string, checked: Checked = check(kartaText, objectText, podsText)): Analysis {
  const t0 = now();
  const { definitions, diagnostics, objectParsed, podsParsed, validateMs } = checked;
  const out: Analysis = { diagnostics, objectProblems: [...objectParsed.problems], pods: podsOf(podsParsed), podProblems: [...podsParsed.problems], validateMs, totalMs: 0 };
  const objects = objectParsed.values.filter((v) => v !== null && v !== undefined);
  if (objects.length > 1) out.objectProblems.push({ line: 1, column: 1, message: `expected one workload object, found ${objects.length}`, severity: "error" });
  const object = objects[0];
  if (object !== undefined && !isObject(object)) out.objectProblems.push({ line: 1, column: 1, message: "the workload must be an object (apiVersion, kind, metadata, spec...)", severity: "error" });
  else if (object !== undefined) out.object = object;
  out.pods.forEach((p, i) => {
    if (!isObject(p) || p.kind !== "Pod") out.podProblems.push({ line: 1, column: 1, message: `item ${i + 1} is not a Pod (kind: Pod)`, severity: "warning" });
  });
  try {
    const definition = out.object ? (definitions.find((d) => matchesObject(d, out.object!)) ?? definitions[0]) : definitions[0];
    if (definition) out.definition = definition;
    const errors = diagnostics.filter((d) => d.severity === "error" && (!definition || !d.source || d.source.file === definition.file));
    const loadErrors = diagnostics.filter((d) => d.severity === "error").length;
    if (!definition) out.blocked = loadErrors > 0 ? `the Karta does not load: ${loadErrors} error${loadErrors === 1 ? "" : "s"} (see Problems)` : "no Karta definition in the editor";
    else if (errors.length > 0) out.blocked = `the definition has ${errors.length} error${errors.length === 1 ? "" : "s"}; fix them first`;
    else if (!out.object) out.blocked = "no workload object";
    else if (out.objectProblems.some((p) => p.severity === "error")) out.blocked = "the workload object does not parse";
    if (!out.blocked && definition && out.object) {
      const interpreter = compileInterpreter(definition);
      out.interpreter = interpreter;
      out.interpretation = interpreter.interpret(out.object, { pods: out.pods });
      const notice = kaiGroupsNotice(out.interpretation, definition.karta, out.object).notice;
      if (notice.length > 0) out.kaiNotice = notice;
      out.compilation = compileKarta(interpreter, out.object, { pods: out.pods });
      out.patches = {
        suspend: interpreter.suspendPatch(out.object, "suspend"),
        resume: interpreter.suspendPatch(out.object, "resume"),
        setScheduler: interpreter.setPodFieldPatch(out.object, { field: "schedulerName", value: PATCH_SCHEDULER }),
      };
    }
  } catch (err) {
    out.blocked = `internal error: ${err instanceof Error ? err.message : String(err)}`;
  }
  out.totalMs = now() - t0;
  return out;
}

/** YAML as kubectl prints it (block style, no line folding). */
export function toYaml(v: unknown): string {
  return stringify(JSON.parse(JSON.stringify(v ?? null)), { aliasDuplicateObjects: false, lineWidth: 0 });
}
