/**
 * jq 1.7.1's own test suites (jq.test and the manual's examples), read from ../shared/conformance/jq.
 * Prints per suite `N passed, N failed, N skipped`; set KARTA_JQ_FAILURES=1 to list the failures.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { conformanceDir } from "../support/conformance.js";
import { readSuite, runCase } from "./suite.js";

const dir = conformanceDir("jq");

for (const suite of ["jq-1.7.1.test", "man-1.7.1.test"]) {
  test(`jq conformance: ${suite}`, { skip: dir === undefined }, () => {
    const cases = readSuite(path.join(dir!, suite));
    let passed = 0;
    const failed: string[] = [];
    const skipped: string[] = [];
    for (const c of cases) {
      const outcome = runCase(c);
      if (outcome.status === "pass") passed++;
      else if (outcome.status === "skip") skipped.push(`${suite}:${c.line}: ${outcome.reason}`);
      else failed.push(`${suite}:${c.line}: ${c.program}\n    ${outcome.reason}`);
    }
    console.log(`${suite}: ${passed} passed, ${failed.length} failed, ${skipped.length} skipped`);
    if (process.env["KARTA_JQ_FAILURES"]) console.log(failed.join("\n"));
    const runnable = passed + failed.length;
    assert.ok(passed / runnable >= 0.97, `${suite}: ${passed}/${runnable} runnable cases pass, below 97%:\n${failed.join("\n")}`);
  });
}
