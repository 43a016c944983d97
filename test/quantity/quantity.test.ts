// Quantity semantics checked against the cases of Kubernetes' own quantity tests
// (k8s.io/apimachinery/pkg/api/resource/quantity_test.go), restated here as tables.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { Quantity, parseQuantity, mustParseQuantity, QUANTITY_ERROR_MESSAGES } from "../../src/quantity/index.js";
import type { QuantityFormat } from "../../src/quantity/index.js";

const q = (s: string): Quantity => mustParseQuantity(s);
const dec = (u: bigint | number, e: number, f: QuantityFormat = "DecimalSI"): Quantity => Quantity.scaled(BigInt(u), e, f);

describe("parse: value and format", () => {
  const table: [string, Quantity][] = [
    ["0", dec(0, 0)],
    ["0n", dec(0, 0)],
    ["0u", dec(0, 0)],
    ["0m", dec(0, 0)],
    ["0Ki", dec(0, 0, "BinarySI")],
    ["0k", dec(0, 0)],
    ["0Mi", dec(0, 0, "BinarySI")],
    ["0M", dec(0, 0)],
    ["0Gi", dec(0, 0, "BinarySI")],
    ["0G", dec(0, 0)],
    ["0Ti", dec(0, 0, "BinarySI")],
    ["0T", dec(0, 0)],
    ["1", dec(1, 0)],
    ["1Ki", dec(1024, 0, "BinarySI")],
    ["8Ki", dec(8 * 1024, 0, "BinarySI")],
    ["7Mi", dec(7 * 1024 * 1024, 0, "BinarySI")],
    ["6Gi", dec(6n * 1024n ** 3n, 0, "BinarySI")],
    ["5Ti", dec(5n * 1024n ** 4n, 0, "BinarySI")],
    ["4Pi", dec(4n * 1024n ** 5n, 0, "BinarySI")],
    ["3Ei", dec(3n * 1024n ** 6n, 0, "BinarySI")],
    ["10Ti", dec(10n * 1024n ** 4n, 0, "BinarySI")],
    ["100Ti", dec(100n * 1024n ** 4n, 0, "BinarySI")],
    ["5n", dec(5, -9)],
    ["4u", dec(4, -6)],
    ["3m", dec(3, -3)],
    ["9", dec(9, 0)],
    ["8k", dec(8, 3)],
    ["50k", dec(5, 4)],
    ["7M", dec(7, 6)],
    ["6G", dec(6, 9)],
    ["5T", dec(5, 12)],
    ["40T", dec(4, 13)],
    ["300T", dec(3, 14)],
    ["2P", dec(2, 15)],
    ["1E", dec(1, 18)],
    ["1E-3", dec(1, -3, "DecimalExponent")],
    ["1e3", dec(1, 3, "DecimalExponent")],
    ["1E6", dec(1, 6, "DecimalExponent")],
    ["1e9", dec(1, 9, "DecimalExponent")],
    ["1E12", dec(1, 12, "DecimalExponent")],
    ["1e15", dec(1, 15, "DecimalExponent")],
    ["1E18", dec(1, 18, "DecimalExponent")],
    ["1e14", dec(1, 14, "DecimalExponent")],
    ["1e13", dec(1, 13, "DecimalExponent")],
    ["100.035k", dec(100035, 0)],
    ["0.001", dec(1, -3)],
    ["0.0005k", dec(5, -1)],
    ["0.005", dec(5, -3)],
    ["0.05", dec(5, -2)],
    ["0.5", dec(5, -1)],
    ["0.00050k", dec(5, -1)],
    ["0.00500", dec(5, -3)],
    ["0.05000", dec(5, -2)],
    ["0.50000", dec(5, -1)],
    ["0.5e0", dec(5, -1, "DecimalExponent")],
    ["0.5e-1", dec(5, -2, "DecimalExponent")],
    ["0.5e-2", dec(5, -3, "DecimalExponent")],
    ["10.035M", dec(10035, 3)],
    ["1.2e3", dec(12, 2, "DecimalExponent")],
    ["1.3E+6", dec(13, 5, "DecimalExponent")],
    ["1.40e9", dec(14, 8, "DecimalExponent")],
    ["1.53E12", dec(153, 10, "DecimalExponent")],
    ["1.6e15", dec(16, 14, "DecimalExponent")],
    ["1.7E18", dec(17, 17, "DecimalExponent")],
    ["9.01", dec(901, -2)],
    ["8.1k", dec(81, 2)],
    ["7.123456M", dec(7123456, 0)],
    ["6.987654321G", dec(6987654321, 0)],
    ["5.444T", dec(5444, 9)],
    ["40.1T", dec(401, 11)],
    ["300.2T", dec(3002, 11)],
    ["2.5P", dec(25, 14)],
    ["1.01E", dec(101, 16)],
    // rounding up to nano, saturation of binary quantities
    ["3.001n", dec(4, -9)],
    ["1.1E-9", dec(2, -9, "DecimalExponent")],
    ["0.0000000001", dec(1, -9)],
    ["0.0000000005", dec(1, -9)],
    ["0.00000000050", dec(1, -9)],
    ["0.5e-9", dec(1, -9, "DecimalExponent")],
    ["0.9n", dec(1, -9)],
    ["0.00000012345", dec(124, -9)],
    ["0.00000012354", dec(124, -9)],
    ["9Ei", dec((1n << 63n) - 1n, 0, "BinarySI")],
    ["9223372036854775807Ki", dec((1n << 63n) - 1n, 0, "BinarySI")],
    ["12E", dec(12, 18)],
    ["100.035Ki", dec(10243584, -2, "BinarySI")],
    ["0.5Mi", dec(512 * 1024, 0, "BinarySI")],
    ["0.05Gi", dec(536870912, -1, "BinarySI")],
    ["0.025Ti", dec(274877906944, -1, "BinarySI")],
    ["0.000000000001Ki", dec(2, -9)],
    [".001", dec(1, -3)],
    [".0001k", dec(100, -3)],
    ["1.", dec(1, 0)],
    ["1.G", dec(1, 9)],
  ];
  for (const [input, expect] of table) {
    test(input, () => {
      const got = q(input);
      assert.equal(got.cmp(expect), 0, `${input}: value ${got.canonicalString()} ≠ ${expect.canonicalString()}`);
      assert.equal(got.format, expect.format);
      const negative = q("-" + input);
      assert.equal(negative.cmp(expect.neg()), 0);
      assert.equal(negative.format, expect.format);
      const plus = q("+" + input);
      assert.equal(plus.cmp(expect), 0);
      assert.equal(plus.format, expect.format);
    });
  }
});

describe("parse: rejected inputs carry upstream's messages", () => {
  const invalid: [string, keyof typeof QUANTITY_ERROR_MESSAGES][] = [
    ["", "format"],
    ["1.1.M", "format"],
    ["1+1.0M", "format"],
    ["0.1mi", "suffix"],
    ["0.1am", "format"],
    ["aoeu", "format"],
    [".5i", "suffix"],
    ["1i", "suffix"],
    ["-3.01i", "suffix"],
    ["-3.01e-", "suffix"],
    [" 1", "format"],
    ["1 ", "format"],
    ["Non-Numeric", "format"],
    ["1K", "suffix"],
  ];
  for (const [input, code] of invalid) {
    test(JSON.stringify(input), () => {
      const r = parseQuantity(input);
      assert.equal(r.ok, false);
      if (!r.ok) {
        assert.equal(r.error.code, code);
        assert.equal(r.error.message, QUANTITY_ERROR_MESSAGES[code]);
      }
    });
  }
  test("the format message names the regular expression", () => {
    const r = parseQuantity("2 cores");
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(
        r.error.message,
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      );
    }
    assert.throws(() => mustParseQuantity("abc"), /quantities must match/);
  });
});

describe("canonical strings", () => {
  const table: [Quantity, string, string][] = [
    [dec(1024n ** 3n, 0, "BinarySI"), "1Gi", "1024Mi"],
    [dec(300 * 1024 * 1024, 0, "BinarySI"), "300Mi", "307200Ki"],
    [dec(6 * 1024, 0, "BinarySI"), "6Ki", ""],
    [dec(1001n * 1024n ** 3n, 0, "BinarySI"), "1001Gi", "1025024Mi"],
    [dec(1024n ** 4n, 0, "BinarySI"), "1Ti", "1024Gi"],
    [dec(5, 0, "BinarySI"), "5", "5000m"],
    [dec(500, -3, "BinarySI"), "500m", "0.5"],
    [dec(1, 9), "1G", "1000M"],
    [dec(1000, 6), "1G", "0.001T"],
    [dec(1000000, 3), "1G", ""],
    [dec(1000000000, 0), "1G", ""],
    [dec(1, -3), "1m", "1000u"],
    [dec(80, -3), "80m", ""],
    [dec(1080, -3), "1080m", "1.08"],
    [dec(108, -2), "1080m", "1080000000n"],
    [dec(10800, -4), "1080m", ""],
    [dec(300, 6), "300M", ""],
    [dec(1, 12), "1T", ""],
    [dec(1234567, 6), "1234567M", ""],
    [dec(1234567, -3, "BinarySI"), "1234567m", ""],
    [dec(3, 3), "3k", ""],
    [dec(1025, 0, "BinarySI"), "1025", ""],
    [dec(0, 0), "0", ""],
    [dec(0, 0, "BinarySI"), "0", ""],
    [dec(1, 9, "DecimalExponent"), "1e9", ".001e12"],
    [dec(1, -3, "DecimalExponent"), "1e-3", "0.001e0"],
    [dec(1, -9, "DecimalExponent"), "1e-9", "1000e-12"],
    [dec(80, -3, "DecimalExponent"), "80e-3", ""],
    [dec(300, 6, "DecimalExponent"), "300e6", ""],
    [dec(1, 12, "DecimalExponent"), "1e12", ""],
    [dec(1, 3, "DecimalExponent"), "1e3", ""],
    [dec(3, 3, "DecimalExponent"), "3e3", ""],
    [dec(0, 0, "DecimalExponent"), "0", "00"],
    [dec(1, -9), "1n", ""],
    [dec(80, -9), "80n", ""],
    [dec(1080, -9), "1080n", ""],
    [dec(108, -8), "1080n", ""],
    [dec(10800, -10), "1080n", ""],
    [dec(1, -6), "1u", ""],
    [dec(80, -6), "80u", ""],
    [dec(1080, -6), "1080u", ""],
  ];
  for (const [value, expect, alternate] of table) {
    test(`${expect}${alternate ? ` (from ${alternate})` : ""}`, () => {
      assert.equal(value.toString(), expect);
      const parsed = q(expect);
      assert.equal(parsed.parsedString, expect, "a canonical literal is kept as written");
      assert.equal(parsed.toString(), expect);
      if (alternate) {
        const alt = q(alternate);
        assert.equal(alt.parsedString, undefined, "a non-canonical literal is not kept");
        assert.equal(alt.toString(), expect);
      }
      if (!value.isZero()) assert.equal(value.neg().toString(), "-" + expect);
    });
  }

  const emitted: [string, string][] = [
    ["1Ki", "1Ki"],
    ["1Mi", "1Mi"],
    ["1Gi", "1Gi"],
    ["1024Mi", "1Gi"],
    ["1000M", "1G"],
    [".001Ki", "1024m"],
    [".000001Ki", "1024u"],
    [".000000001Ki", "1024n"],
    [".000000000001Ki", "2n"],
    // the usual Kubernetes spellings
    ["1.5", "1500m"],
    ["1.5Gi", "1536Mi"],
    ["0.1", "100m"],
    ["1500m", "1500m"],
    ["3Gi", "3Gi"],
    ["2048Mi", "2Gi"],
    ["0.5Gi", "512Mi"],
    ["1000m", "1"],
    ["2000Mi", "2000Mi"],
    ["1.5k", "1500"],
    // Past E, apimachinery has no suffix and prints the digits alone (checked against resource.MustParse).
    ["1000E", "1"],
    ["5000E", "5"],
    ["0.0", "0"],
  ];
  for (const [input, expect] of emitted) {
    test(`${input} → ${expect}`, () => {
      assert.equal(q(input).toString(), expect);
      const neg = q("-" + input);
      if (!neg.isZero()) assert.equal(neg.toString(), "-" + expect);
    });
  }

  const large: [string, string][] = [
    ["999999999999999999", "999999999999999999"],
    ["-999999999999999999.0", "-999999999999999999"],
    ["999999999999999999.1", "999999999999999999100m"],
    ["9999999999999999999", "9999999999999999999"],
    ["1E", "1E"],
    ["1000000000000000000", "1E"],
    ["-1.0E", "-1E"],
    ["9999999999999999999000m", "9999999999999999999"],
    ["1.0000000000000000001E", "1000000000000000000100m"],
    ["1.000000000000000001E", "1000000000000000001"],
    ["10E", "10E"],
    ["10000000000000000000", "10E"],
    ["-10000000000000000000000m", "-10E"],
    ["10.0000000000000000001E", "10000000000000000000100m"],
    ["9223372036854775807", "9223372036854775807"],
    ["-9223372036854775808.1", "-9223372036854775808100m"],
    ["9223372036854775808000m", "9223372036854775808"],
  ];
  for (const [input, expect] of large) {
    test(`large ${input}`, () => assert.equal(q(input).toString(), expect));
  }

  test("literals kept verbatim by upstream's fast path", () => {
    // Upstream keeps the input of a fast-path parse when it looks canonical, sign included.
    assert.equal(q("+1").toString(), "+1");
    assert.equal(q("-0").toString(), "0");
    assert.equal(q("+1").canonicalString(), "1");
    assert.equal(q("100m").toString(), "100m");
    // Arithmetic always re-canonicalises.
    assert.equal(Quantity.zero().add(q("+1")).toString(), "1");
  });
});

describe("arithmetic", () => {
  test("adding or subtracting zero keeps the suffix", () => {
    for (const s of ["100m", "1Gi"]) {
      const zero = q("0");
      assert.equal(q(s).add(zero).toString(), s);
      assert.equal(zero.add(q(s)).toString(), s);
      assert.equal(q(s).sub(zero).toString(), s);
      assert.equal(zero.sub(q(s)).toString(), q(s).neg().toString());
    }
  });
  test("add", () => {
    assert.equal(dec(10, 0).add(dec(1, 1)).cmp(dec(20, 0)), 0);
    const mixed = dec(10, 0).add(dec(1, 0, "BinarySI"));
    assert.equal(mixed.cmp(dec(11, 0)), 0);
    assert.equal(mixed.format, "DecimalSI");
    assert.equal(dec(10, 0, "BinarySI").add(dec(1, 0)).format, "BinarySI");
    assert.equal(Quantity.zero("DecimalSI").add(dec(50, 0)).cmp(dec(50, 0)), 0);
    assert.equal(q("1Gi").add(q("512Mi")).toString(), "1536Mi");
    assert.equal(q("250m").add(q("1.75")).toString(), "2");
    assert.equal(q("1Gi").add(q("1")).toString(), "1073741825");
    assert.equal(q("100m").add(q("1Gi")).toString(), "1073741824100m");
  });
  test("sub", () => {
    assert.equal(dec(10, 0).sub(dec(1, 1)).cmp(dec(0, 0)), 0);
    assert.equal(dec(10, 0).sub(dec(1, 0, "BinarySI")).cmp(dec(9, 0)), 0);
    assert.equal(dec(10, 0, "BinarySI").sub(dec(1, 0)).format, "BinarySI");
    assert.equal(Quantity.zero("DecimalSI").sub(dec(50, 0)).cmp(dec(-50, 0)), 0);
    assert.equal(q("2Gi").sub(q("512Mi")).toString(), "1536Mi");
  });
  test("mul", () => {
    const max = (1n << 63n) - 1n;
    const min = -(1n << 63n);
    const table: [Quantity, bigint, Quantity][] = [
      [dec(10, 0), 10n, dec(100, 0)],
      [dec(10, 0), 1n, dec(10, 0)],
      [dec(10, 0, "BinarySI"), 1n, dec(10, 0, "BinarySI")],
      [Quantity.zero("DecimalSI"), 50n, dec(0, 0)],
      [dec(50, 0), 0n, dec(0, 0)],
      [dec(10, 0), -10n, dec(-100, 0)],
      [dec(-50, 0), -50n, dec(2500, 0)],
      [dec(max, 0), 2n, dec(max * 2n, 0)],
      [dec(max, 0), 10n, dec(max, 1)],
      [dec(min, 0), -1n, dec(-min, 0)],
      [dec(min, 0), -10n, dec(-min, 1)],
    ];
    for (const [a, b, expect] of table) assert.equal(a.mul(b).cmp(expect), 0, `${a.toString()} × ${b}`);
    assert.equal(q("1536Mi").mul(4).toString(), "6Gi");
    assert.equal(q("250m").mul(3).toString(), "750m");
  });
  test("cmp", () => {
    assert.equal(q("0").cmp(q("0")), 0);
    assert.equal(q("100m").cmp(q("50m")), 1);
    assert.equal(q("50m").cmp(q("100m")), -1);
    assert.equal(q("10000T").cmp(q("100Gi")), 1);
    assert.ok(q("1Gi").equals(q("1024Mi")));
    assert.ok(q("1G").cmp(q("1Gi")) < 0);
  });
  test("isZero and sign", () => {
    assert.ok(q("0Mi").isZero());
    assert.ok(q("0.0").isZero());
    assert.equal(q("-1m").sign(), -1);
  });
});

describe("conversions", () => {
  test("scaled values round up", () => {
    const scales = [-9, -6, -3, 0];
    const expected = [
      [1n, 1n, 1n, 1n],
      [1000n, 1n, 1n, 1n],
      [1000000n, 1000n, 1n, 1n],
      [1000000000n, 1000000n, 1000n, 1n],
    ];
    scales.forEach((from, i) =>
      scales.forEach((to, j) => assert.equal(Quantity.scaled(1n, from).scaledValue(to), expected[i]?.[j], `${from}→${to}`)),
    );
    assert.equal(Quantity.scaled(1n, 2).scaledValue(-2), 10000n);
    assert.equal(q("1.5").value(), 2n);
    assert.equal(q("100m").value(), 1n);
    assert.equal(q("100m").milliValue(), 100n);
    assert.equal(q("1.5Gi").value(), 1610612736n);
    assert.equal(q("0.1m").milliValue(), 1n);
    assert.equal(q("-1.5").value(), -2n);
  });
  test("approximate floats", () => {
    assert.equal(q("2Ki").asApproximateFloat64(), 2048);
    assert.equal(q("1.1Ki").asApproximateFloat64(), 1126.4);
    assert.equal(q("1Mi").asApproximateFloat64(), 1.048576e6);
    assert.equal(q("2Gi").asApproximateFloat64(), 2.147483648e9);
    assert.equal(q("100m").asApproximateFloat64(), 0.1);
    assert.equal(q("1500m").asApproximateFloat64(), 1.5);
    assert.equal(q("1k").asApproximateFloat64(), 1000);
    assert.equal(q("12e6").asApproximateFloat64(), 12e6);
    assert.equal(q("-0.5").asApproximateFloat64(), -0.5);
  });
  test("JSON values are read as upstream's UnmarshalJSON reads them", () => {
    const read = (v: unknown): string => {
      const r = Quantity.fromJSON(v);
      assert.ok(r.ok);
      return r.ok ? r.quantity.toString() : "";
    };
    assert.equal(read(" 1"), "1");
    assert.equal(read("1 "), "1");
    assert.equal(read(1), "1");
    assert.equal(read(10), "10");
    assert.equal(read(-1), "-1");
    assert.equal(read(0.5), "500m");
    assert.equal(read(2.5), "2500m");
    // 1e-7 is spelled with an exponent, so it keeps the DecimalExponent format.
    assert.equal(read(1e-7), "100e-9");
    assert.equal(read(null), "0");
    assert.equal(JSON.stringify({ cpu: q("1.5") }), '{"cpu":"1500m"}');
    assert.equal(Quantity.fromJSON({}).ok, false);
  });
  test("integer and milli constructors print as Karmada's resource lists do", () => {
    assert.equal(Quantity.fromMilli(1500n, "DecimalSI").toString(), "1500m");
    assert.equal(Quantity.fromMilli(2000n, "DecimalSI").toString(), "2");
    assert.equal(Quantity.fromInteger(3n * 1024n ** 3n, "BinarySI").toString(), "3Gi");
    assert.equal(Quantity.fromInteger(1000000000n, "BinarySI").toString(), "1000000000");
    assert.equal(Quantity.fromInteger(8, "DecimalSI").toString(), "8");
  });
});
