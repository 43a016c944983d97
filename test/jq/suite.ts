/**
 * Reads jq's own test-suite format (jq.test, man.test) and scores our engine on it with the rules in
 * the README beside the suites.
 */
import { readFileSync } from "node:fs";
import { compileJq, JqError, JqSyntaxError } from "../../src/jq/index.js";
import { parseJsonText } from "../../src/jq/native/json.js";

export interface SuiteCase {
  line: number;
  program: string;
  input: string;
  expected: string[];
  /** For `%%FAIL`: the program must fail to compile. */
  fail?: { message: string; ignoreMessage: boolean };
}

export function readSuite(file: string): SuiteCase[] {
  const lines = readFileSync(file, "utf8").split("\n");
  const cases: SuiteCase[] = [];
  let i = 0;
  const isBlank = (l: string | undefined) => l === undefined || l.trim() === "";
  while (i < lines.length) {
    const l = lines[i]!;
    if (isBlank(l) || l.startsWith("#")) {
      i++;
      continue;
    }
    const start = i + 1;
    if (l.startsWith("%%FAIL")) {
      const ignoreMessage = l.includes("IGNORE MSG");
      const program = lines[i + 1] ?? "";
      const message = lines[i + 2] ?? "";
      cases.push({ line: start, program, input: "null", expected: [], fail: { message, ignoreMessage } });
      i += 3;
      while (!isBlank(lines[i])) i++;
      continue;
    }
    const program = l;
    const input = lines[i + 1] ?? "null";
    i += 2;
    const expected: string[] = [];
    while (!isBlank(lines[i]) && !lines[i]!.startsWith("#")) expected.push(lines[i++]!);
    while (!isBlank(lines[i])) i++;
    cases.push({ line: start, program, input, expected });
  }
  return cases;
}

/**
 * Why a case is not run, per the suite README's rules; undefined when it is runnable. Inputs are read
 * as `karta jq` reads them (jq's extensions `nan`, `Infinity` and a byte-order mark included), and a
 * case runs without further inputs, as in jq's test runner (`input` raises "break"), so only module
 * loading is left out.
 */
export function skipReason(c: SuiteCase): string | undefined {
  if (/\b(import|include)\s+"|\bmodulemeta\b|\bget_search_list\b/.test(c.program)) {
    // A module directive that fails to compile before any module is loaded (constant metadata, constant
    // path) is a plain compile error; one that names a module file needs the modules.
    if (!c.fail || /modules\/|module not found/.test(c.fail.message)) return "modules";
  }
  return undefined;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === "number" && typeof b === "number") return a === b || (a !== a && b !== b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameValue(x, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue((a as any)[k], (b as any)[k]));
}

export type Outcome = { status: "pass" } | { status: "skip"; reason: string } | { status: "fail"; reason: string };

export function runCase(c: SuiteCase): Outcome {
  const skip = skipReason(c);
  if (skip) return { status: "skip", reason: skip };
  if (c.fail) {
    try {
      compileJq(c.program);
      return { status: "fail", reason: "compiled, but should fail to compile" };
    } catch (e) {
      if (c.fail.ignoreMessage) return { status: "pass" };
      if (!(e instanceof JqSyntaxError)) return { status: "fail", reason: `${(e as Error).name}: ${(e as Error).message}` };
      // jq's test runner compares the last error it reports (with its position) with the expected line.
      const msg = `jq: error: ${e.messages().at(-1)}`;
      return msg === c.fail.message ? { status: "pass" } : { status: "fail", reason: `error message ${JSON.stringify(msg)}, expected ${JSON.stringify(c.fail.message)}` };
    }
  }
  let input: unknown;
  let expected: unknown[];
  try {
    input = parseJsonText(c.input);
    expected = c.expected.map((e) => parseJsonText(e));
  } catch (e) {
    return { status: "skip", reason: `unparsable test data: ${(e as Error).message}` };
  }
  let outputs: unknown[];
  let error: string | undefined;
  try {
    // The suite runs with PAGER=less in the environment, as jq's own test script does.
    outputs = compileJq(c.program, { env: { PAGER: "less" } }).run(input);
  } catch (e) {
    if (e instanceof JqError) {
      outputs = e.outputs;
      error = e.message;
    } else {
      return { status: "fail", reason: `${(e as Error).name}: ${(e as Error).message}` };
    }
  }
  // An error after all expected outputs is allowed, as jq's own runner does.
  if (outputs.length === expected.length && outputs.every((o, i) => sameValue(o, expected[i]))) return { status: "pass" };
  return {
    status: "fail",
    reason: `got ${JSON.stringify(outputs)}${error ? ` then error ${JSON.stringify(error)}` : ""}, expected ${JSON.stringify(expected)}`,
  };
}
