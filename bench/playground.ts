/**
 * The playground: the size of what a browser downloads (gzip -9), and the time from an edit to its
 * diagnostics in Chromium for every bundled definition with its example (target: under 50 ms), with
 * the time to the first diagnostics after loading the page. Baseline: the same check (validate the
 * Karta, parse the object and pods) under Node in the same run. Skipped with a note without Chromium.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium, type Page } from "playwright-core";
import { check } from "../playground/src/engine.js";
import { startPlaygroundServer } from "../src/cli/playground.js";
import { median, repoRoot, type BenchResult } from "./harness.js";

const CHROMIUM = process.env["KARTA_CHROMIUM"] ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const TARGET_MS = 50;

interface Texts {
  karta: string;
  object: string;
  pods: string;
}

interface PageApi {
  kartaPlayground: { metrics: { runs: number; firstDiagnosticsMs?: number; lastDiagnosticsMs?: number; lastShownMs?: number }; setTexts(t: Texts): number; texts(): Texts };
  document: { body: { dataset: { ready?: string } } };
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? files(path.join(dir, n)).map((f) => path.join(n, f)) : [n]));
}

function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`;
}

/** The bundled definitions with their examples, as the page's picker has them. */
function examples(): { name: string; texts: Texts }[] {
  const fixtures = path.join(repoRoot, "test", "fixtures", "bundled");
  const out: { name: string; texts: Texts }[] = [];
  for (const dir of readdirSync(fixtures).sort()) {
    const expected = readFileSync(path.join(fixtures, dir, "expected.yaml"), "utf8");
    const def = /^definition: (.*)$/m.exec(expected)?.[1];
    const workload = /^workloadFile: (.*)$/m.exec(expected)?.[1];
    const pods = /^podsFile: (.*)$/m.exec(expected)?.[1];
    if (!def) continue;
    const read = (rel: string | undefined, own: string): string => (rel ? readFileSync(path.join(repoRoot, rel), "utf8") : existsSync(path.join(fixtures, dir, own)) ? readFileSync(path.join(fixtures, dir, own), "utf8") : "");
    out.push({ name: dir, texts: { karta: readFileSync(path.join(repoRoot, "definitions", def), "utf8"), object: read(workload, "workload.yaml"), pods: read(pods, "pods.yaml") } });
  }
  return out;
}

/**
 * Types one character at the end of the Karta (a comment line) and waits for its run; returns the
 * milliseconds from the debounced run's start to the frame painting the diagnostics, and to their
 * dispatch to the editors.
 */
async function keystroke(page: Page, ch: string): Promise<{ shown: number; dispatched: number }> {
  const before = await page.evaluate(() => (globalThis as unknown as PageApi).kartaPlayground.metrics.runs);
  await page.keyboard.type(ch);
  await page.waitForFunction((n) => (globalThis as unknown as PageApi).kartaPlayground.metrics.runs > n, before);
  return page.evaluate(() => {
    const m = (globalThis as unknown as PageApi).kartaPlayground.metrics;
    return { shown: m.lastShownMs!, dispatched: m.lastDiagnosticsMs! };
  });
}

export async function benchPlayground(): Promise<BenchResult[]> {
  const build = (await import(pathToFileURL(path.join(repoRoot, "scripts", "build-playground.mjs")).href)) as { buildPlayground(o: { outdir: string }): Promise<{ outdir: string }> };
  const site = mkdtempSync(path.join(os.tmpdir(), "karta-bench-site-"));
  const profile = mkdtempSync(path.join(os.tmpdir(), "karta-bench-chromium-"));
  try {
    const { outdir } = await build.buildPlayground({ outdir: site });
    // Sizes: what the first visit loads, and what only a Lua layer loads.
    const all = files(outdir).filter((f) => !f.endsWith(".map") && f !== "meta.json");
    const lazy = all.filter((f) => /^chunks\/interpreter-/.test(f) || f === "glue.wasm");
    const eager = all.filter((f) => !lazy.includes(f) && !f.endsWith(".txt"));
    const size = (list: string[]): { raw: number; gz: number } =>
      list.reduce((s, f) => {
        const b = readFileSync(path.join(outdir, f));
        return { raw: s.raw + b.length, gz: s.gz + gzipSync(b, { level: 9 }).length };
      }, { raw: 0, gz: 0 });
    const e = size(eager);
    const l = size(lazy);
    console.log("\n## playground: what a browser downloads (gzip -9)");
    console.log(`| part | files | raw | gzip |\n|---|---|---|---|`);
    console.log(`| first visit | ${eager.join(", ")} | ${kb(e.raw)} | ${kb(e.gz)} |`);
    console.log(`| Lua layer, on demand | ${lazy.join(", ")} | ${kb(l.raw)} | ${kb(l.gz)} |`);

    const cases = examples();
    // Baseline: the same check under Node.
    const nodeMs = new Map<string, number>();
    for (let round = 0; round < 3; round++) for (const c of cases) check(c.texts.karta + `\n# warm ${round}`, c.texts.object, c.texts.pods);
    for (const c of cases) {
      const xs: number[] = [];
      for (let i = 0; i < 21; i++) {
        const t0 = performance.now();
        check(c.texts.karta + `\n# ${i}`, c.texts.object, c.texts.pods);
        xs.push(performance.now() - t0);
      }
      nodeMs.set(c.name, median(xs));
    }
    if (!existsSync(CHROMIUM)) return [{ name: "playground in Chromium", opsPerSec: 0, note: `no Chromium at ${CHROMIUM} (scripts/install-browser): skipped` }];

    const server = await startPlaygroundServer({ root: outdir, port: 0 });
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1500, height: 1000 } });
    const results: BenchResult[] = [];
    try {
      // Time to first diagnostics after navigation, fresh page each time (the default example: PyTorchJob).
      const first: number[] = [];
      const marks: Record<string, number[]> = {};
      for (let i = 0; i < 5; i++) {
        const page = await context.newPage();
        await page.goto(server.url);
        await page.waitForFunction(() => (globalThis as unknown as PageApi).document.body.dataset.ready === "true");
        first.push(await page.evaluate(() => (globalThis as unknown as PageApi).kartaPlayground.metrics.firstDiagnosticsMs!));
        const m = await page.evaluate(() => (globalThis as unknown as { performance: { getEntriesByType(t: string): { name: string; startTime: number }[] } }).performance.getEntriesByType("mark").map((e) => [e.name, e.startTime] as const));
        for (const [name, at] of m) (marks[name] ??= []).push(at);
        await page.close();
      }
      const firstMs = median(first);
      const at = (name: string): string => (marks[name] ? `${median(marks[name]!).toFixed(0)}` : "?");
      results.push({
        name: "page load → first diagnostics (PyTorchJob, median of 5 loads)",
        opsPerSec: 1000 / firstMs,
        note: `${firstMs.toFixed(0)} ms after navigation start: script runs at ${at("karta:module")}, editors at ${at("karta:editors")}, first check done at ${at("karta:first-check")} ms`,
      });

      const page = await context.newPage();
      await page.goto(server.url);
      await page.waitForFunction(() => (globalThis as unknown as PageApi).document.body.dataset.ready === "true");
      let worst = 0;
      for (const c of cases) {
        await page.evaluate((t) => (globalThis as unknown as PageApi).kartaPlayground.setTexts(t), { ...c.texts, karta: c.texts.karta.replace(/\n*$/, "\n#") });
        await page.locator("#karta-editor .cm-content").focus();
        await page.keyboard.press("Control+End");
        for (let i = 0; i < 3; i++) await keystroke(page, "w");
        const xs: { shown: number; dispatched: number }[] = [];
        for (let i = 0; i < 15; i++) xs.push(await keystroke(page, i % 2 ? "x" : "y"));
        const ms = median(xs.map((x) => x.shown));
        const dispatched = median(xs.map((x) => x.dispatched));
        worst = Math.max(worst, ms);
        const base = nodeMs.get(c.name)!;
        results.push({
          name: `keystroke → diagnostics: ${c.name}`,
          opsPerSec: 1000 / ms,
          baseline: "same check, Node",
          ratio: base / dispatched,
          note: `${ms.toFixed(1)} ms to the painting frame (${dispatched.toFixed(1)} ms to dispatch; Node ${base.toFixed(1)} ms), median of 15; target under ${TARGET_MS} ms: ${ms < TARGET_MS ? "met" : "MISSED"}`,
        });
      }
      results.push({ name: "keystroke → diagnostics: slowest example", opsPerSec: 1000 / worst, note: `${worst.toFixed(1)} ms; target under ${TARGET_MS} ms on every bundled example: ${worst < TARGET_MS ? "met" : "MISSED"}` });
      await page.close();
    } finally {
      await context.close();
      await server.close();
    }
    return results;
  } finally {
    rmSync(site, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
}
