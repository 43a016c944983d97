/**
 * Durations against Go itself (tools/kubeprint): time.ParseDuration, which Kubernetes components use for
 * duration flags and the API server's ?timeout=, and client-go's ParseTimeout, kubectl's --request-timeout
 * (a bare number is seconds). Every accepted text gives the same nanoseconds, every refused one is refused.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { formatGoDuration, parseDuration, parseGoDuration, parseRequestTimeout } from "../../src/server/duration.js";
import { kubeprint, kubeprintSkip as skip } from "../support/kubeprint.js";

const CHOSEN = [
  "0", "+0", "-0", "00", "0s", "1", "30", "+5", "-1", "-1s", "1s", "10s", "500ms", "1m30s", "1.5h", "1h2m3s4ms5us6ns", ".5s", "1.s", ".s", "s", "1", "1.",
  "5µs", "5μs", "5us", "3ns", "1.5ns", "0.0000000001s", "1d", "1S", " 1s", "1s ", "1e3s", "1_000s", "--1s", "+-1s", "1.2.3s", "2562047h", "2562048h",
  "9223372036854775807ns", "9223372036854775808ns", "-9223372036854775808ns", "9223372036854775807", "9223372036854775808", "9223372036854", "18446744073709551616",
  "0.99999999999999999999999999s", "1.00000000000000000000000000000001h", "106751d", "15m0.000000001s", "", "m", "1m1", "1h-1m",
];

const SAMPLES = fc.sample(
  fc.oneof(
    fc.stringMatching(/^[+-]?([0-9]{0,4}(\.[0-9]{0,3})?(ns|us|ms|s|m|h|x)){1,3}$/),
    fc.stringMatching(/^[+-]?[0-9]{1,20}$/),
    fc.stringMatching(/^[0-9.smhnu+-]{0,8}$/),
  ),
  { numRuns: 2000, seed: 40 },
);

/** Nanosecond counts across every unit Duration.String() switches between, as `Nns` texts. */
const COUNTS = [
  ...["0", "1", "999", "1000", "1500", "999999", "1000000", "1234567", "999999999", "1000000000", "1000000001", "59999999999", "60000000000", "3599999999999", "3600000000000", "9223372036854775807", "-1", "-1500", "-9223372036854775808"].map((n) => `${n}ns`),
  ...fc.sample(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), { numRuns: 500, seed: 41 }).map((n) => `${n}ns`),
];

test("parseGoDuration is Go's time.ParseDuration, formatGoDuration its Duration.String(); parseDuration the non-negative values in ms", { skip }, async () => {
  const cases = [...CHOSEN, ...SAMPLES, ...COUNTS];
  const want = await kubeprint(cases.map((duration) => ({ duration })));
  let accepted = 0;
  cases.forEach((text, i) => {
    const got = parseGoDuration(text);
    const go = want[i]!;
    assert.equal(got === undefined ? "error" : String(got), go.error !== undefined ? "error" : go.text, JSON.stringify(text));
    if (got !== undefined) {
      accepted++;
      assert.equal(formatGoDuration(got), go.string, `String() of ${JSON.stringify(text)}`);
      assert.equal(parseDuration(text), got < 0n ? undefined : Number(got) / 1e6, JSON.stringify(text));
    } else assert.equal(parseDuration(text), undefined);
  });
  assert.ok(accepted > cases.length / 5 && accepted < (cases.length * 4) / 5, `${accepted} of ${cases.length} accepted`);
});

test("parseRequestTimeout is client-go's ParseTimeout (kubectl's --request-timeout)", { skip }, async () => {
  const cases = [...CHOSEN, ...SAMPLES];
  const want = await kubeprint(cases.map((timeout) => ({ timeout })));
  cases.forEach((text, i) => {
    const got = parseRequestTimeout(text);
    const go = want[i]!;
    assert.equal(got === undefined ? "error" : String(got), go.error !== undefined ? "error" : go.text, JSON.stringify(text));
  });
});
