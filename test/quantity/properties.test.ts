// Round-trip properties of canonical quantity strings (as upstream's TestJSON fuzzing checks).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Quantity } from "../../src/quantity/index.js";
import type { QuantityFormat } from "../../src/quantity/index.js";

const formats: QuantityFormat[] = ["DecimalSI", "BinarySI", "DecimalExponent"];

// Kept within int64, beyond which upstream caps binary quantities when parsing.
const quantities = fc
  .tuple(fc.bigInt({ min: -(1n << 40n), max: 1n << 40n }), fc.integer({ min: -9, max: 6 }), fc.constantFrom(...formats))
  .map(([u, e, f]) => Quantity.scaled(u, e, f));

test("the canonical string parses back to the same value, and re-printing is stable", () => {
  fc.assert(
    fc.property(quantities, (q) => {
      const s = q.toString();
      const back = Quantity.mustParse(s);
      assert.equal(back.cmp(q), 0, `${s}`);
      // A BinarySI value printed without a suffix (e.g. "-2000") reads back as DecimalSI ("-2k"),
      // as upstream; from then on the string is a fixpoint.
      const again = back.canonicalString();
      assert.equal(Quantity.mustParse(again).canonicalString(), again);
      if (q.format !== "BinarySI") assert.equal(again, s);
    }),
    { numRuns: 500 },
  );
});

test("addition and subtraction cancel", () => {
  fc.assert(
    fc.property(quantities, quantities, (a, b) => {
      assert.equal(a.add(b).sub(b).cmp(a), 0);
      assert.equal(a.add(b).cmp(b.add(a)), 0);
    }),
    { numRuns: 300 },
  );
});

test("a string parsed again gives the same answer, past the memo's size too, and errors stay errors", () => {
  const texts = Array.from({ length: 3000 }, (_, i) => `${i}${["", "m", "Ki", "Gi", "e3"][i % 5]}`);
  const first = texts.map((t) => Quantity.parse(t));
  const again = texts.map((t) => Quantity.parse(t));
  for (let i = 0; i < texts.length; i++) {
    const a = first[i]!;
    const b = again[i]!;
    assert.ok(a.ok && b.ok);
    assert.equal(b.quantity.toString(), a.quantity.toString());
    assert.equal(b.quantity.canonicalString(), a.quantity.canonicalString());
  }
  for (let round = 0; round < 2; round++) {
    const bad = Quantity.parse("1x");
    assert.ok(!bad.ok && bad.error.input === "1x");
  }
});
