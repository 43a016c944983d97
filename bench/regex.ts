/**
 * Bounded regular expressions: jq's `test` through Karta's matcher against the unbounded V8 RegExp
 * on the same translated pattern (what every call cost before the bound). Patterns without nested or
 * repeated unbounded quantifiers run in the calling thread; the others in the regex worker under a
 * deadline, which costs a thread round trip per call. Also the time a catastrophic pattern takes to fail.
 */
import { compileJq, JqError } from "../src/jq/index.js";
import { patternRisk } from "../src/jq/native/regex.js";
import { BenchResult, opsPerSecond } from "./harness.js";

const NAMES = ["llama-finetune-worker-3", "training.kubeflow.org/replica-type", "nvidia.com/gpu", "ghcr.io/example/llama-finetune:2.3.0"];

interface Case {
  label: string;
  /** The pattern as jq sees it (Oniguruma). */
  pattern: string;
  /** The same as a JS RegExp, for the unbounded baseline. */
  js: RegExp;
}

const CASES: Case[] = [
  { label: "DNS label", pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", js: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/u },
  { label: "suffix", pattern: "(worker|master)-[0-9]+$", js: /(worker|master)-[0-9]+$/u },
  { label: "literal", pattern: "gpu", js: /gpu/u },
  { label: "alternation under *", pattern: "^(?:[a-z0-9]|[-.:/])*$", js: /^(?:[a-z0-9]|[-.:/])*$/u },
];

export function benchRegex(): BenchResult[] {
  const results: BenchResult[] = [];
  for (const c of CASES) {
    let i = 0;
    const base = opsPerSecond(() => c.js.test(NAMES[i++ & 3]!));
    const program = compileJq(`test(${JSON.stringify(c.pattern)})`);
    const karta = opsPerSecond(() => program.run(NAMES[i++ & 3]!));
    const risk = patternRisk(c.pattern);
    results.push({ name: `RegExp.test: ${c.label}`, opsPerSec: base });
    results.push({
      name: `jq test(): ${c.label}`,
      opsPerSec: karta,
      baseline: `RegExp.test: ${c.label}`,
      ratio: karta / base,
      note: risk === "unbounded" ? "in the regex worker (deadline)" : `in thread (${risk})`,
    });
  }
  // The catastrophic case: V8 alone does not finish (2^36 backtracking paths); Karta stops it.
  const evil = compileJq('test("(a+)+$")');
  const input = "a".repeat(36) + "!";
  const t = performance.now();
  let message = "";
  try {
    evil.run(input);
  } catch (e) {
    message = e instanceof JqError ? e.kind : String(e);
  }
  const ms = performance.now() - t;
  results.push({ name: 'jq test("(a+)+$") on 36 a + "!"', opsPerSec: 1000 / ms, note: `fails (${message}) after ${ms.toFixed(0)} ms; RegExp alone does not finish` });
  return results;
}
