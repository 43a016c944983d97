/** The nesting limit checked before any parser sees a text, and the shared YAML value reading. */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseDocument, stringify } from "yaml";
import { findDeepNesting, MAX_NESTING_DEPTH, MAX_YAML_ALIAS_COUNT, yamlDocumentValue } from "../../src/input/index.js";

/** A value nested `n` deep: arrays and objects alternating. */
function nested(n: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
}

test("JSON at the limit passes, one level deeper is refused with its line and offset", () => {
  assert.equal(findDeepNesting(JSON.stringify(nested(MAX_NESTING_DEPTH))), undefined);
  const p = findDeepNesting("\n" + JSON.stringify(nested(MAX_NESTING_DEPTH + 1)));
  assert.ok(p);
  assert.equal(p.line, 2);
  assert.match(p.message, /nested deeper than 256 levels/);
  assert.equal(findDeepNesting(JSON.stringify(nested(MAX_NESTING_DEPTH + 1), null, 2)) !== undefined, true);
});

test("block YAML deeper than the limit is refused; the same depth in flow style too", () => {
  assert.ok(findDeepNesting(stringify(nested(MAX_NESTING_DEPTH + 20))));
  assert.equal(findDeepNesting(stringify(nested(100))), undefined);
  let text = "";
  for (let i = 0; i < 300; i++) text += " ".repeat(i) + "a:\n";
  assert.equal(findDeepNesting(text)?.line, 257);
  let seq = "";
  for (let i = 0; i < 300; i++) seq += " ".repeat(2 * i) + "-\n";
  assert.ok(findDeepNesting(seq));
  assert.ok(findDeepNesting("- ".repeat(300) + "x\n"));
});

test("brackets in strings, comments and block scalars do not count", () => {
  const open = "[".repeat(400);
  assert.equal(findDeepNesting(`a: "${open}"\nb: '${open}'\n# ${open}\nc: x ${open}\n`), undefined);
  assert.equal(findDeepNesting(`script: |\n  ${open}\n  ${open}\nnext: 1\n`), undefined);
  assert.equal(findDeepNesting(JSON.stringify({ s: open, t: "\\\"" + open })), undefined);
  assert.equal(findDeepNesting(`["it's", "${open}"]`), undefined);
});

test("property: a value's JSON and YAML texts are refused exactly when (JSON) or only when (YAML) it is too deep", () => {
  const depthOf = (v: unknown): number => (v !== null && typeof v === "object" ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
  const limit = 6;
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 9 }), (v) => {
      const d = depthOf(v);
      assert.equal(findDeepNesting(JSON.stringify(v), limit) !== undefined, d > limit, JSON.stringify(v));
      assert.equal(findDeepNesting(JSON.stringify(v, null, 1), limit) !== undefined, d > limit);
      // Block YAML may count a level more (the scalar after a key), never less.
      if (d > limit + 1) assert.ok(findDeepNesting(stringify(v), limit), stringify(v));
      if (d < limit - 1) assert.equal(findDeepNesting(stringify(v), limit), undefined, stringify(v));
    }),
    { numRuns: 500 },
  );
});

test("an alias bomb is our error; ordinary aliases expand", () => {
  let bomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n';
  for (const [k, p] of [["b", "a"], ["c", "b"], ["d", "c"], ["e", "d"]]) bomb += `${k}: &${k} [${Array(9).fill("*" + p).join(",")}]\n`;
  const r = yamlDocumentValue(parseDocument(bomb));
  assert.ok("error" in r);
  assert.match(r.error, new RegExp(`too many YAML alias expansions \\(more than ${MAX_YAML_ALIAS_COUNT}`));
  assert.deepEqual(yamlDocumentValue(parseDocument("a: &x {b: 1}\nc: *x\n")), { value: { a: { b: 1 }, c: { b: 1 } } });
});
