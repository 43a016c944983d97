/**
 * Karta's Workload API building blocks against the Go libraries they follow (tools/workloadbuilder: the
 * workloadbuilder of k8s.io/component-helpers v0.37.2, and the Job controller's naming, compilation and
 * Job validation of k8s.io/kubernetes v1.37.2): upstream's own unit-test cases ported as data, and a
 * seeded generator's cases. Every case's answers must be equal up to the encoding differences
 * docs/workload-api.md lists; the figures per function are printed. Upstream's ported assertions must
 * hold for Karta (also without Go) and for Go.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Case, CaseFunction } from "./differential/cases.js";
import { compareAnswers, failedAssertions } from "./differential/compare.js";
import { generatedCases } from "./differential/generator.js";
import { kartaAnswer } from "./differential/karta-side.js";
import { askOracle } from "./differential/oracle.js";
import { upstreamCases } from "./differential/upstream.js";

/** The generator's seed: KARTA_DIFFERENTIAL_SEED runs another set of cases. */
const SEED = Number(process.env["KARTA_DIFFERENTIAL_SEED"] ?? 26);
const upstream = upstreamCases();
const cases: Case[] = [...upstream, ...generatedCases(SEED)];
const answers = await askOracle(cases);
const skip = "skip" in answers ? (answers.skip as string) : false;

describe("upstream's ported assertions hold for Karta", () => {
  for (const c of upstream) {
    test(c.id, () => {
      assert.deepEqual(failedAssertions(c.expect, kartaAnswer(c)), [], c.source);
    });
  }
});

describe("the differential against the Go libraries", { skip }, () => {
  const go = answers as Exclude<typeof answers, { skip: string }>;

  test("upstream's ported assertions hold for Go (the port is faithful)", () => {
    const failures = upstream.flatMap((c) => failedAssertions(c.expect, go.get(c.id) ?? { panic: "no answer" }).map((f) => `${c.id}: ${f}`));
    assert.deepEqual(failures, []);
  });

  const byFunction = new Map<CaseFunction, { upstream: [number, number]; generated: [number, number]; failures: string[] }>();
  for (const c of cases) {
    const diffs = compareAnswers(c, go.get(c.id) ?? { panic: "the oracle gave no answer" }, kartaAnswer(c));
    const row = byFunction.get(c.fn) ?? { upstream: [0, 0], generated: [0, 0], failures: [] };
    const bucket = c.id.startsWith("upstream/") ? row.upstream : row.generated;
    bucket[1]++;
    if (diffs.length === 0) bucket[0]++;
    else row.failures.push(`${c.id} (${c.source})\n    ${diffs.join("\n    ")}`);
    byFunction.set(c.fn, row);
  }

  test("figures", () => {
    const lines = [`differential (seed ${SEED}): equal / cases, upstream's and generated`];
    let eq = 0;
    let all = 0;
    for (const [fn, r] of byFunction) {
      const e = r.upstream[0] + r.generated[0];
      const n = r.upstream[1] + r.generated[1];
      eq += e;
      all += n;
      lines.push(`  ${fn.padEnd(24)} ${String(e).padStart(4)}/${String(n).padEnd(4)} (upstream ${r.upstream[0]}/${r.upstream[1]}, generated ${r.generated[0]}/${r.generated[1]})`);
    }
    lines.push(`  ${"all".padEnd(24)} ${String(eq).padStart(4)}/${all}`);
    console.log(lines.join("\n"));
  });

  for (const [fn, r] of byFunction) {
    test(`${fn}: every case equals Go's`, () => {
      assert.equal(r.failures.length, 0, `${r.failures.length} cases differ:\n${r.failures.slice(0, 8).join("\n")}`);
    });
  }
});
