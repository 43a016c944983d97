/**
 * Quantities parsed and printed as Go's resource.Quantity does, checked against apimachinery itself (the
 * karmada-go oracle decodes a ResourceList and marshals it): spellings across every suffix, fractions,
 * signs, exponents and magnitudes past int64, including the ones Go prints without a suffix ("1000E").
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { Quantity } from "../../src/quantity/index.js";
import { startKarmadaGo, type KarmadaGoAnswer } from "../support/karmada-go.js";

const digits = fc.oneof(
  fc.constantFrom("0", "1", "3", "7", "10", "100", "250", "1000", "1024", "1536", "5000", "0001", "999999999", "524288"),
  fc.constantFrom("123456789012345678", "9223372036854775807", "18446744073709551616", "99999999999999999999999"),
  fc.bigInt({ min: 0n, max: 10n ** 20n }).map(String),
);
const quantityText = fc
  .tuple(
    fc.constantFrom("", "", "", "-", "+"),
    digits,
    fc.option(fc.oneof(fc.constantFrom("5", "25", "000", "6", "600000", "0001"), fc.stringMatching(/^[0-9]{1,12}$/)), { nil: undefined }),
    fc.constantFrom("", "m", "u", "n", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e3", "E-2", "e-9", "e18", "e21", "e+5", "e-10"),
  )
  .map(([sign, int, frac, suffix]) => `${sign}${int}${frac === undefined ? "" : `.${frac}`}${suffix}`);

test("every quantity prints as resource.Quantity prints it (apimachinery as the oracle)", async (t) => {
  const go = startKarmadaGo();
  if ("skip" in go) {
    console.log(go.skip);
    return void t.skip(go.skip);
  }
  try {
    const samples = fc.sample(quantityText, { numRuns: 3000, seed: 2028 });
    for (const text of [...samples, "1000E", "5000E", "1E", "1000P", "1433.600000Mi", "100Ei", "1024Ei", ".000000000001Ki", "0.0"]) {
      const theirs: KarmadaGoAnswer = await go.ask({ op: "result", name: "requires", value: { resourceRequest: { q: text } } });
      const parsed = Quantity.parse(text);
      if (!theirs.ok) {
        assert.ok(!parsed.ok, `${text}: Go refuses it (${theirs.error}); Karta read ${parsed.ok ? parsed.quantity.toString() : ""}`);
        continue;
      }
      const printed: string | undefined = (theirs.value as { resourceRequest?: { q?: string } }).resourceRequest?.q;
      assert.ok(parsed.ok, `${text}: Go reads it as ${printed}; Karta refuses it`);
      assert.equal(parsed.quantity.toString(), printed, `${text}`);
    }
  } finally {
    go.close();
  }
});
