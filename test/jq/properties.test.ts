/** Properties of the engine over random JSON values (fast-check). */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { compileJq } from "../../src/jq/index.js";
import { compare } from "../../src/jq/values.js";

const json = fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<unknown>;
const run = (program: string) => {
  const p = compileJq(program);
  return (input: unknown) => p.run(input);
};

test("tojson | fromjson is the identity", () => {
  const roundTrip = run("tojson | fromjson");
  fc.assert(fc.property(json, (v) => assert.deepEqual(roundTrip(v), [v])), { numRuns: 300 });
});

test("every path from paths leads to a value, and there is one per node", () => {
  const paths = run("[paths]");
  const getAll = compileJq("[paths as $p | getpath($p)]");
  const countNodes = (v: unknown): number =>
    1 + (Array.isArray(v) ? v.reduce((n: number, x) => n + countNodes(x), 0) : v && typeof v === "object" ? Object.values(v).reduce((n: number, x) => n + countNodes(x), 0) : 0);
  fc.assert(
    fc.property(json, (v) => {
      const ps = paths(v)[0] as unknown[];
      assert.equal(ps.length, countNodes(v) - 1);
      assert.equal((getAll.run(v)[0] as unknown[]).length, ps.length);
    }),
    { numRuns: 300 },
  );
});

test("sort orders by jq's total order and keeps every element", () => {
  const sort = run("sort");
  fc.assert(
    fc.property(fc.array(json, { maxLength: 12 }), (xs) => {
      const [sorted] = sort(xs) as [unknown[]];
      assert.equal(sorted.length, xs.length);
      for (let i = 1; i < sorted.length; i++) assert.ok(compare(sorted[i - 1], sorted[i]) <= 0);
      for (const x of xs) assert.ok(sorted.some((y) => compare(x, y) === 0));
    }),
    { numRuns: 300 },
  );
});

test("to_entries | from_entries is the identity on objects; with_entries(.) too", () => {
  const a = run("to_entries | from_entries");
  const b = run("with_entries(.)");
  fc.assert(
    fc.property(fc.dictionary(fc.string(), json, { maxKeys: 8 }), (generated) => {
      // As a plain object from JSON (fast-check may hand out null-prototype objects), `__proto__` keys included.
      const o = JSON.parse(JSON.stringify(generated));
      assert.deepEqual(a(o), [o]);
      assert.deepEqual(b(o), [o]);
    }),
    { numRuns: 200 },
  );
});

test("setpath then getpath returns what was set, without touching the input", () => {
  const p = compileJq("setpath($p; $v) | getpath($p)", { variables: ["p", "v"] });
  const path = fc.array(fc.oneof(fc.string({ maxLength: 4 }), fc.nat({ max: 4 })), { maxLength: 4 });
  fc.assert(
    fc.property(path, json, (ps, v) => {
      // Start from null so every path is valid (containers are created as needed).
      assert.deepEqual(p.run(null, { vars: { p: ps, v } }), [v]);
    }),
    { numRuns: 300 },
  );
});
