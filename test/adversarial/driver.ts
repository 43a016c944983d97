/**
 * Runs one adversarial case through a library entry point, in a child process of the corpus test:
 * `node driver.js CASE`. Prints one JSON line: `{"outcome": "ok"|"error", "message": ...}`. Run without
 * an argument (as the test runner does with every file under test/) it does nothing.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { interpret, jq, JqError, loadDefinitions } from "../../src/index.js";
import { LuaVM } from "../../src/interpreter/lua/vm.js";
import { verifyResponse } from "../../src/interpreter/webhook/interpreter.js";
import { decodeJsonPatch } from "../../src/jsonpatch/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const corpus = (name: string): string => readFileSync(path.join(root, "test", "adversarial", "cases", name), "utf8");
const deployment = (): ReturnType<typeof loadDefinitions>["definitions"][number] => loadDefinitions(readFileSync(path.join(root, "definitions", "apps", "v1", "Deployment.yaml"), "utf8"), "Deployment.yaml").definitions[0]!;
const BOMB = "def f(n): if n == 0 then [1] else f(n-1) as $x | [$x,$x] end;";

function nested(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
}

type Outcome = { outcome: "ok" | "error"; message: string };

function jqOutcome(program: string, input: unknown): Outcome {
  try {
    return { outcome: "ok", message: JSON.stringify(jq(program, input)).slice(0, 200) };
  } catch (e) {
    if (e instanceof JqError) return { outcome: "error", message: e.message };
    throw e;
  }
}

function diagnosticsOutcome(diagnostics: { severity: string; message: string }[]): Outcome {
  const error = diagnostics.find((d) => d.severity === "error");
  return error ? { outcome: "error", message: error.message } : { outcome: "ok", message: "" };
}

const CASES: Record<string, () => Outcome | Promise<Outcome>> = {
  "jq-shared-structure-tostring": () => jqOutcome(`${BOMB} f(40) | tostring | length`, null),
  "jq-shared-structure-equals": () => jqOutcome(`${BOMB} f(40) as $a | f(40) | . == $a`, null),
  "jq-redos": () => jqOutcome('test("(a+)+$")', "a".repeat(36) + "!"),
  "jq-deep-fromjson": () => jqOutcome("fromjson", "[".repeat(100_000) + "]".repeat(100_000)),
  "definition-deep": () => diagnosticsOutcome(loadDefinitions(corpus("deep-1000.json"), "deep-1000.json").diagnostics),
  "definition-alias-bomb": () => diagnosticsOutcome(loadDefinitions(corpus("alias-bomb.yaml"), "alias-bomb.yaml").diagnostics),
  "interpret-no-kind": () => diagnosticsOutcome(interpret(deployment(), { spec: { replicas: 3 } }).diagnostics),
  "interpret-deep-object": () => diagnosticsOutcome(interpret(deployment(), { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" }, spec: nested(100_000) }).diagnostics),
  "webhook-deep-response": () => {
    const v = verifyResponse("uid", "InterpretReplica", 200, '{"response":'.repeat(100_000) + "{}" + "}".repeat(100_000));
    return v.ok ? { outcome: "ok", message: "" } : { outcome: "error", message: v.error };
  },
  "jsonpatch-deep": () => {
    const r = decodeJsonPatch('[{"op":"add","path":"/a","value":' + "[".repeat(100_000) + "]".repeat(100_000) + "}]");
    return r.ok ? { outcome: "ok", message: "" } : { outcome: "error", message: r.error };
  },
  "lua-deep-argument": async () => {
    const vm = await LuaVM.create();
    try {
      const compiled = vm.compile("function F(o) return o end");
      if (!compiled.ok) return { outcome: "error", message: compiled.error };
      const out = vm.call(compiled.script, "F", [nested(5000) as never], 1);
      return out.ok ? { outcome: "ok", message: JSON.stringify(out.results).slice(0, 200) } : { outcome: "error", message: out.error };
    } finally {
      vm.close();
    }
  },
};

const name = process.argv[2];
if (name !== undefined) {
  const run = CASES[name];
  if (!run) throw new Error(`unknown case ${name}`);
  const outcome = await run();
  process.stdout.write(JSON.stringify(outcome) + "\n");
}

export const LIBRARY_CASES = Object.keys(CASES);
