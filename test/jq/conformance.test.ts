/**
 * jq 1.8.2's own test suites (jq.test, the manual's examples, the regular expression, URI, base64 and
 * optional suites), read from ../shared/conformance/jq. Every runnable case must pass; each suite
 * prints `N passed, N failed, N skipped` and the reason of every skip. KARTA_JQ_FAILURES=1 lists the
 * failures as well.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { conformanceDir } from "../support/conformance.js";
import { readSuite, runCase } from "./suite.js";

const dir = conformanceDir("jq");

const SUITES = ["jq", "man", "onig", "manonig", "uri", "base64", "optional"].map((name) => `${name}-1.8.2.test`);

for (const suite of SUITES) {
  test(`jq conformance: ${suite}`, { skip: dir === undefined }, () => {
    const cases = readSuite(path.join(dir!, suite));
    let passed = 0;
    const failed: string[] = [];
    const skipped: string[] = [];
    for (const c of cases) {
      const outcome = runCase(c);
      if (outcome.status === "pass") passed++;
      else if (outcome.status === "skip") skipped.push(`${suite}:${c.line}: skipped (${outcome.reason}): ${c.program}`);
      else failed.push(`${suite}:${c.line}: ${c.program}\n    ${outcome.reason}`);
    }
    console.log(`${suite}: ${passed} passed, ${failed.length} failed, ${skipped.length} skipped`);
    for (const s of skipped) console.log(`  ${s}`);
    if (process.env["KARTA_JQ_FAILURES"]) console.log(failed.join("\n"));
    assert.ok(passed > 0, `${suite}: no case ran`);
    assert.deepEqual(failed, [], `${suite}: ${failed.length} of ${passed + failed.length} runnable cases fail`);
  });
}
