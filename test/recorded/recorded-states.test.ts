/**
 * Conformance with real operators: every state upstream recorded from a live operator
 * (../shared/conformance/recorded, read there, skipped with a notice when absent) is run through
 * `karta inspect -o json`, once with the definition bundled for its kind and once with upstream's own
 * definition (`-d`), and judged as upstream's replay test judges it: the recorded state must be among the
 * statuses printed. States the recorder could not name (`Undefined`) are counted apart. Agreement is
 * reported per kind.
 *
 * - The bundled definitions must agree with at least 95% of the states that have a defined status, a kind
 *   they do not cover counting as disagreement, and must never print two statuses at once.
 * - Upstream's definitions through Karta's engine must agree with every state whose definition uses only
 *   the statuses of upstream's published CRD; a definition using others (`progressing`) is refused by
 *   `karta inspect` (exit 1, naming the status) and its states counted apart, as are states the definition
 *   matches nothing for (it makes no claim, as the recorder's `Undefined` makes none).
 * - The in-process runs print what the command prints: one state of every flow is also run through
 *   bin/karta.js in a child process, its stdout and exit code compared.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { conformanceDir, kartaBin } from "../support/conformance.js";
import { add, emptyTally, inspectStatuses, judge, percent, readRecordings, table, unpublishedStatuses, type Recording, type Tally } from "./recorded.js";

const dir = conformanceDir("recorded");
const recordings: Recording[] = dir ? readRecordings(dir) : [];
const skip = dir ? false : "conformance data absent";

function byKind(): Map<string, Recording[]> {
  const m = new Map<string, Recording[]>();
  for (const r of recordings) {
    const k = `${r.kind} ${r.apiVersion}`;
    m.set(k, [...(m.get(k) ?? []), r]);
  }
  return m;
}

function total(tallies: Tally[]): Tally {
  const t = emptyTally();
  for (const x of tallies) {
    t.agree += x.agree;
    t.disagree += x.disagree;
    t.several += x.several;
    for (const k of Object.keys(t.apart) as (keyof Tally["apart"])[]) t.apart[k] += x.apart[k];
    t.misses.push(...x.misses);
  }
  return t;
}

describe("recorded operator states through karta inspect", { skip }, () => {
  test("the bundled definitions agree with at least 95% of the recorded states, one status at a time", async (t) => {
    const rows: [string, Tally][] = [];
    for (const [kind, flows] of byKind()) {
      const tally = emptyTally();
      for (const r of flows) {
        for (const s of r.states) {
          const run = await inspectStatuses(s.object);
          add(tally, judge(s.expected, run, { upstream: false, unpublished: false }), run, `${r.id}#${s.index}`, s.expected);
        }
      }
      rows.push([kind, tally]);
    }
    const all = total(rows.map(([, x]) => x));
    for (const line of table([...rows, ["all", all]])) t.diagnostic(line);
    for (const m of all.misses) t.diagnostic(`miss ${m}`);
    const scored = all.agree + all.disagree;
    t.diagnostic(`bundled definitions: ${all.agree}/${scored} recorded states with a defined status agree (${percent(all.agree, scored)})`);
    assert.ok(scored > 0);
    assert.ok(all.agree >= 0.95 * scored, `${all.agree}/${scored} = ${percent(all.agree, scored)} < 95%`);
    assert.equal(all.several, 0, "a workload is in one state at a time");
  });

  test("upstream's own definitions through Karta's engine agree with every state their published statuses allow", async (t) => {
    const rows: [string, Tally][] = [];
    const unpublished = new Map<string, string[]>();
    for (const [kind, flows] of byKind()) {
      const tally = emptyTally();
      for (const r of flows) {
        if (!unpublished.has(r.upstreamDefinition)) unpublished.set(r.upstreamDefinition, unpublishedStatuses(r.upstreamDefinition));
        const names = unpublished.get(r.upstreamDefinition)!;
        for (const s of r.states) {
          const run = await inspectStatuses(s.object, r.upstreamDefinition);
          if (names.length > 0) {
            // Refused, naming the status and what the published CRD accepts.
            assert.equal(run.code, 1, `${r.id}#${s.index}: ${run.err}`);
            assert.equal(run.out, "");
            for (const n of names) assert.match(run.err, new RegExp(`unknown status "${n}": the published Karta CRD \\(run\\.ai/v1alpha1\\) accepts initializing, running, completed, failed, degraded, suspended, suspending, resuming; the closest is "\\w+"`));
          }
          add(tally, judge(s.expected, run, { upstream: true, unpublished: names.length > 0 }), run, `${r.id}#${s.index}`, s.expected);
        }
      }
      rows.push([kind, tally]);
    }
    const all = total(rows.map(([, x]) => x));
    for (const line of table([...rows, ["all", all]])) t.diagnostic(line);
    for (const m of all.misses) t.diagnostic(`miss ${m}`);
    for (const [file, names] of unpublished) if (names.length > 0) t.diagnostic(`counted apart: ${path.basename(file)} uses ${names.join(", ")}, not in the published CRD`);
    const scored = all.agree + all.disagree;
    t.diagnostic(`upstream's definitions: ${all.agree}/${scored} agree (${percent(all.agree, scored)}); apart: ${all.apart["unpublished-status"]} states of definitions with unpublished statuses, ${all.apart["undefined-matched"]} the definition matches nothing for`);
    assert.deepEqual(all.misses, []);
  });

  test("the in-process runs print what bin/karta.js prints (one state of every flow)", async () => {
    const work = mkdtempSync(path.join(tmpdir(), "karta-recorded-"));
    const run = promisify(execFile);
    try {
      const jobs = recordings.map((r, i) => async () => {
        const s = r.states.find((x) => x.expected !== "Undefined") ?? r.states[0]!;
        const file = path.join(work, `${i}.json`);
        writeFileSync(file, JSON.stringify(s.object));
        const child = await run(process.execPath, [kartaBin, "inspect", "-f", file, "-o", "json"], { encoding: "utf8" }).then(
          (p) => ({ code: 0, out: p.stdout }),
          (e: { code?: number; stdout?: string }) => ({ code: e.code ?? -1, out: e.stdout ?? "" }),
        );
        const inProcess = await inspectStatuses(s.object);
        assert.deepEqual(child, { code: inProcess.code, out: inProcess.out }, `${r.id}#${s.index}`);
      });
      // Two at a time: the machine has two cores.
      const queue = [...jobs];
      await Promise.all([0, 1].map(async () => {
        for (let job = queue.shift(); job; job = queue.shift()) await job();
      }));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
