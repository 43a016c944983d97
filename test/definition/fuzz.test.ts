import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse, stringify } from "yaml";
import { validateText } from "../../src/definition/validate.js";
import { fixture } from "./helpers.js";

const SEVERITIES = new Set(["error", "warning", "notice"]);

function checkResult(text: string): void {
  const start = performance.now();
  const r = validateText(text, "fuzz.yaml");
  assert.ok(Array.isArray(r.diagnostics));
  for (const d of r.diagnostics) {
    assert.ok(SEVERITIES.has(d.severity));
    assert.equal(typeof d.message, "string");
    assert.notEqual(d.code, "internal", d.message);
  }
  assert.ok(performance.now() - start < 2000, "no hang");
}

/** Replaces the value at a random path of a plain JSON value. */
function mutate(value: unknown, choices: number[], replacement: unknown): unknown {
  if (choices.length === 0 || value === null || typeof value !== "object") return replacement;
  const [c, ...rest] = choices;
  if (Array.isArray(value)) {
    if (value.length === 0) return replacement;
    const i = c! % value.length;
    return value.map((v, j) => (j === i ? mutate(v, rest, replacement) : v));
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return replacement;
  const k = keys[c! % keys.length]!;
  return { ...(value as Record<string, unknown>), [k]: mutate((value as Record<string, unknown>)[k], rest, replacement) };
}

const jqish = fc.oneof(
  fc.constantFrom(".spec.replicas", ".a[", "..", "del(.a)", "$x", "spec.x", ".a // 1", ".[] | .x", "to_entries[] | .value", '"\\(.a)"', "{a}", "reduce .[] as $x (0; . + $x)", "def f: f; f", ".a as [$x, {b: $y}] | $y"),
  fc.string({ maxLength: 30 }),
);

describe("fuzz: the validator always returns diagnostics, never throws or hangs", () => {
  test("random YAML-ish text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => checkResult(s)),
      { numRuns: 300 },
    );
  });

  test("random JSON values as documents", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => checkResult(stringify(v))),
      { numRuns: 200 },
    );
  });

  test("random mutations of valid Kartas", () => {
    const bases = [parse(fixture("valid/pytorchjob.yaml")), parse(fixture("valid/jobset-fragment.yaml"))];
    fc.assert(
      fc.property(
        fc.constantFrom(...bases),
        fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        fc.oneof(fc.jsonValue({ maxDepth: 3 }), jqish, fc.constant(undefined)),
        (base, choices, replacement) => checkResult(stringify(mutate(base, choices, replacement) ?? null)),
      ),
      { numRuns: 200 },
    );
  });

  test("mutations of the text itself (truncation, inserted characters)", () => {
    const text = fixture("valid/pytorchjob.yaml");
    fc.assert(
      fc.property(fc.nat({ max: text.length }), fc.string({ maxLength: 5 }), (at, insert) => checkResult(text.slice(0, at) + insert + text.slice(at))),
      { numRuns: 120 },
    );
  });
});
