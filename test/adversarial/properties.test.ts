/**
 * "Returns, or fails with our error, within the budget": fast-check properties over the jq parser and
 * evaluator, the YAML and definition loader, the object reader, the Lua value conversion and the
 * webhook response decoder. Any other exception (a TypeError, a RangeError from the engine) fails them.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { InputError, parseObjects } from "../../src/cli/objects.js";
import { loadDefinitions } from "../../src/definition/index.js";
import { MAX_NESTING_DEPTH } from "../../src/input/index.js";
import { LuaVM } from "../../src/interpreter/lua/vm.js";
import { OPERATIONS } from "../../src/interpreter/types.js";
import { verifyResponse } from "../../src/interpreter/webhook/interpreter.js";
import { compileJq, JqError, JqSyntaxError } from "../../src/jq/index.js";

const TOKENS = [
  ".", ".a", ".[]", ".[0]", "..", "[", "]", "{", "}", "(", ")", "|", ",", "?", "//", "+", "-", "*", "/", "%", "==", "<", "and", "or", "not",
  "1", "1e400", "-0", '"s"', '"\\(.)"', "null", "$x", "as $x |", "if . then 1 else 2 end", "try", "catch .", "reduce .[] as $i (0; . + 1)",
  "def f: .; f", "def g(x): x | x; g(.)", "tostring", "tojson", "fromjson", "@base64", "@text", "sort", "unique", "min", "max", "contains(.)",
  "flatten", "tostream", "[paths]", "leaf_paths", "keys", "length", "add", "range(5)", "limit(3; repeat(.))", "recurse", 'test("a+")',
  '[match("(a|b)*c"; "g")]', 'splits(", *")', 'sub("a"; "b")', "ltrimstr(\"a\")", "implode", "explode", "input", "error", "halt_error",
  "setpath([1]; 1)", "getpath([\"a\"])", "to_entries", "with_entries(.)", "walk(.)", "env", "$__loc__", "@json", "ascii", "splits(\"(a+)+$\")",
];

const program = fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 12 }).map((ts) => ts.join(" "));
const json = fc.jsonValue({ maxDepth: 5 });

test("jq: any token soup parses or fails with a syntax error, and runs or fails with a jq error", () => {
  fc.assert(
    fc.property(program, json, (src, input) => {
      let p;
      try {
        p = compileJq(src, { limits: { maxSteps: 20_000, maxDepth: 100, maxOutputs: 1000 } });
      } catch (e) {
        assert.ok(e instanceof JqSyntaxError, `${src}: ${String(e)}`);
        return;
      }
      try {
        p.run(input);
      } catch (e) {
        assert.ok(e instanceof JqError, `${src} on ${JSON.stringify(input)}: ${String(e)}`);
        assert.doesNotMatch(e.message, /Maximum call stack|is not a function|undefined/);
      }
    }),
    { numRuns: 600 },
  );
});

/** A value nested `n` deep (arrays and objects alternating) around `leaf`. */
const deepValue = fc.tuple(fc.integer({ min: 0, max: 2 * MAX_NESTING_DEPTH }), json).map(([n, leaf]) => {
  let v: unknown = leaf;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
});

/** Texts as users and clusters send them: JSON, YAML, with aliases, deep, cut short. */
const text = fc.oneof(
  deepValue.map((v) => JSON.stringify(v)),
  deepValue.map((v) => stringify(v)),
  fc.tuple(deepValue, fc.nat()).map(([v, cut]) => { const t = JSON.stringify(v); return t.slice(0, cut % (t.length + 1)); }),
  fc.integer({ min: 1, max: 9 }).map((n) => { let t = 'a: &a ["x","x"]\n'; for (let i = 1; i <= n; i++) t += `l${i}: &l${i} [${Array(9).fill(i === 1 ? "*a" : `*l${i - 1}`).join(",")}]\n`; return t; }),
  fc.string({ unit: fc.constantFrom("[", "]", "{", "}", ":", " ", "\n", "-", "&a", "*a", "'", '"', "#", "|", "a", "1") , maxLength: 400 }),
);

test("object reader: every text gives objects or an InputError", () => {
  fc.assert(
    fc.property(text, (t) => {
      try {
        parseObjects(t, "in.yaml");
      } catch (e) {
        assert.ok(e instanceof InputError, `${JSON.stringify(t.slice(0, 200))}: ${String(e)}`);
        assert.match(e.message, /^in\.yaml/);
      }
    }),
    { numRuns: 400 },
  );
});

test("definition loader: every text gives definitions or diagnostics, never an exception", () => {
  fc.assert(
    fc.property(text, (t) => {
      const loaded = loadDefinitions(t, "k.yaml");
      for (const d of loaded.diagnostics) assert.doesNotMatch(d.message, /Maximum call stack|RangeError|TypeError/);
    }),
    { numRuns: 300 },
  );
});

test("webhook response decoder: every body is a response or an error value", () => {
  const body = fc.oneof(text, json.map((v) => JSON.stringify({ apiVersion: "config.karmada.io/v1alpha1", kind: "ResourceInterpreterContext", response: v })));
  fc.assert(
    fc.property(body, fc.constantFrom(...OPERATIONS), fc.constantFrom(200, 500), (b, op, status) => {
      const r = verifyResponse("uid-1", op, status, b);
      if (!r.ok) assert.equal(typeof r.error, "string");
    }),
    { numRuns: 400 },
  );
});

let vm: LuaVM | undefined;
after(() => vm?.close());

test("Lua value conversion: a value in and back out is equal, or the call fails in our words", async () => {
  vm = await LuaVM.create();
  const compiled = vm.compile("function F(o) return o end");
  assert.ok(compiled.ok);
  fc.assert(
    fc.property(deepValue, (v) => {
      const out = vm!.call(compiled.script, "F", [v as never], 1);
      if (!out.ok) {
        assert.match(out.error, /nested deeper than 256 levels/);
        return;
      }
      const r = out.results[0]!;
      if (r.encodeError !== undefined) assert.match(r.encodeError, /^json: /);
    }),
    { numRuns: 200 },
  );
});
