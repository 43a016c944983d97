/**
 * The playground in a real browser: Debian's Chromium driven by playwright-core, the page built by
 * scripts/build-playground.mjs and served by `karta playground`'s server on loopback. Skips with a
 * notice when there is no Chromium (scripts/install-browser installs it; `npm test` runs that first).
 * Screenshots go to test-artifacts/playground/ (gitignored).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { parse } from "yaml";
import { startPlaygroundServer, type PlaygroundServer } from "../../src/cli/playground.js";
import { repoRoot } from "../support/conformance.js";

const CHROMIUM = process.env["KARTA_CHROMIUM"] ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
export const ARTIFACTS = path.join(repoRoot, "test-artifacts", "playground");
const PYTORCH = "kubeflow.org/v1/PyTorchJob.yaml";

const available = existsSync(CHROMIUM);
if (!available) console.log(`notice: no Chromium at ${CHROMIUM} (run scripts/install-browser); skipping the playground browser tests`);

/** Builds the page, serves it, and starts Chromium with a fresh profile. */
export async function openPlayground(): Promise<{ server: PlaygroundServer; context: BrowserContext; profile: string; close(): Promise<void> }> {
  // Built into a folder of its own: other test files may be reading dist/playground-page meanwhile.
  const build = (await import(pathToFileURL(path.join(repoRoot, "scripts", "build-playground.mjs")).href)) as { buildPlayground(o: { outdir: string }): Promise<{ outdir: string }> };
  const site = mkdtempSync(path.join(os.tmpdir(), "karta-playground-site-"));
  const { outdir } = await build.buildPlayground({ outdir: site });
  const server = await startPlaygroundServer({ root: outdir, port: 0 });
  const profile = mkdtempSync(path.join(os.tmpdir(), "karta-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1500, height: 1000 } });
  return {
    server,
    context,
    profile,
    async close() {
      await context.close();
      await server.close();
      rmSync(profile, { recursive: true, force: true });
      rmSync(site, { recursive: true, force: true });
    },
  };
}

/** A page that records console errors and uncaught exceptions. */
export async function newPage(context: BrowserContext, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  return page;
}

interface Texts {
  karta: string;
  object: string;
  pods: string;
}

/** What the page exposes to scripts (playground/src/main.ts). */
interface Playground {
  location: { hash: string };
  kartaPlayground: { metrics: { runs: number }; shared: boolean; texts(): Texts; setTexts(t: Texts): number };
}

async function ready(page: Page): Promise<void> {
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
}

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

async function texts(page: Page): Promise<{ karta: string; object: string; pods: string }> {
  return page.evaluate("window.kartaPlayground.texts()") as Promise<{ karta: string; object: string; pods: string }>;
}

async function runs(page: Page): Promise<number> {
  return (await page.evaluate("window.kartaPlayground.metrics.runs")) as number;
}

/** Waits until the page has re-run the library after `before` runs. */
async function rerun(page: Page, before: number): Promise<void> {
  await page.waitForFunction((n) => (globalThis as unknown as Playground).kartaPlayground.metrics.runs > n, before, { timeout: 10_000 });
}

describe("playground in Chromium", { skip: !available }, () => {
  let env: Awaited<ReturnType<typeof openPlayground>>;
  before(async () => {
    env = await openPlayground();
  });
  after(async () => {
    await env?.close();
  });

  test("pick PyTorchJob, typo a field name, see the diagnostic with its did-you-mean, fix it, see one group of minMember 2", async () => {
    const errors: string[] = [];
    const page = await newPage(env.context, errors);
    await page.goto(env.server.url);
    await ready(page);
    await shot(page, "01-loaded");

    // Pick another definition, then PyTorchJob: the picker loads the definition with its example.
    let n = await runs(page);
    await page.selectOption("#picker", "apps/v1/Deployment.yaml");
    await rerun(page, n);
    assert.match((await texts(page)).karta, /kind: Deployment/);
    n = await runs(page);
    await page.selectOption("#picker", PYTORCH);
    await rerun(page, n);
    const t = await texts(page);
    assert.equal(t.karta, readFileSync(path.join(repoRoot, "definitions", PYTORCH), "utf8"));
    assert.match(t.object, /kind: PyTorchJob/);
    assert.match(t.pods, /kind: Pod/);
    assert.equal(await page.locator("#problems .problem").count(), 0, "the bundled PyTorchJob validates clean");

    // Typo: childComponents -> childComponent, typed as a user would (to the line, to the end of the name).
    const line = t.karta.split("\n").findIndex((l) => l.trim() === "childComponents:") + 1;
    assert.ok(line > 0);
    await page.locator("#karta-editor .cm-line").first().click();
    await page.keyboard.press("Control+Home");
    for (let i = 1; i < line; i++) await page.keyboard.press("ArrowDown");
    await page.keyboard.press("End");
    await page.keyboard.press("ArrowLeft");
    n = await runs(page);
    await page.keyboard.press("Backspace");
    await rerun(page, n);
    const problem = page.locator("#problems .problem.sev-error");
    await problem.first().waitFor();
    // The typo comes first; the subgroups that name the components it hid follow it (one each).
    assert.equal(await problem.count(), 3, (await page.locator("#problems").textContent()) ?? "");
    assert.match((await problem.nth(1).textContent()) ?? "", /subgroup component 'master' is not defined/);
    const text = await problem.first().textContent();
    assert.equal(text, `karta ${line}:5: error: spec.structureDefinition.childComponent: unknown field "childComponent"; did you mean "childComponents"?`);
    assert.equal(await problem.first().getAttribute("data-line"), String(line));
    // The inline mark is on that line, over the field name.
    // (CodeMirror draws only the lines in view: the subgroups' marks further down may not be drawn yet.)
    const marks = page.locator(".cm-lintRange-error");
    assert.ok((await marks.count()) >= 1);
    const mark = marks.first();
    assert.equal(await mark.textContent(), "childComponent");
    const markedLine = await mark.evaluate((el) => (el.closest(".cm-line") as { textContent: string | null } | null)?.textContent ?? "");
    assert.equal(markedLine.trim(), "childComponent:");
    assert.match(await page.locator("#groups").textContent() ?? "", /fix them first/);
    await mark.hover();
    await page.locator(".cm-tooltip-lint").waitFor();
    assert.match((await page.locator(".cm-tooltip-lint").textContent()) ?? "", /did you mean "childComponents"\?/);
    await shot(page, "02-typo-diagnostic");
    // The problem in the list takes the cursor to the field (Enter on the focused button).
    await problem.first().focus();
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate("document.activeElement.className.includes('cm-content') && getSelection().toString()"), "childComponent");
    await page.keyboard.press("ArrowRight");

    // Fix it (the cursor is still after the typo): one gang group of minMember 2 (elasticPolicy.minReplicas), four pods.
    n = await runs(page);
    await page.keyboard.type("s");
    await rerun(page, n);
    assert.equal(await page.locator("#problems .problem").count(), 0);
    assert.equal(await page.locator(".cm-lintRange-error").count(), 0);
    const groups = page.locator("#groups svg g.group");
    assert.equal(await groups.count(), 1);
    assert.equal(await groups.first().getAttribute("data-min-member"), "2");
    assert.match((await groups.first().textContent()) ?? "", /minMember 2/);
    assert.equal(await page.locator("#groups svg g.group g.pod").count(), 4);
    assert.equal(await page.locator("#groups svg g.unmatched").count(), 0);
    assert.equal(await page.locator("#status-value").textContent(), "Running");
    assert.match((await page.locator("#components").textContent()) ?? "", /total \(3 replicas\): cpu 48, memory 384Gi, nvidia\.com\/gpu 24/);
    // The other panes.
    await page.locator("#pane-workload summary").click();
    assert.match((await page.locator("#workload").textContent()) ?? "", /kind: Workload[\s\S]*kind: CompositePodGroup[\s\S]*minGroupCount: 2[\s\S]*kind: PodGroup/);
    await page.locator("#pane-karmada summary").click();
    await page.locator('#karmada .op[data-op="InterpretComponent"]').waitFor();
    // As `karta interpret -d`: a job of several components has components, not one replica count.
    assert.match((await page.locator('#karmada .op[data-op="InterpretComponent"]').textContent()) ?? "", /layer: karta[\s\S]*name: master[\s\S]*name: worker/);
    assert.match((await page.locator('#karmada .op[data-op="InterpretReplica"]').textContent()) ?? "", /default InterpretReplica interpreter for "kubeflow.org\/v1, Kind=PyTorchJob" not found/);
    assert.match((await page.locator('#karmada .op[data-op="InterpretHealth"]').textContent()) ?? "", /layer: karta[\s\S]*true/);
    // ReviseComponents gets each component's replicas plus one, and writes them back into the job.
    assert.match((await page.locator('#karmada .op[data-op="ReviseComponents"]').textContent()) ?? "", /layer: karta · desired master=\d+, worker=\d+[\s\S]*pytorchReplicaSpecs/);
    await page.locator("#pane-patches summary").click();
    assert.match((await page.locator("#patches").textContent()) ?? "", /"path": "\/spec\/runPolicy\/suspend"[\s\S]*"path": "\/spec\/pytorchReplicaSpecs\/Master\/template\/spec\/schedulerName"/);
    await shot(page, "03-fixed-groups");

    const metrics = (await page.evaluate("window.kartaPlayground.metrics")) as { firstDiagnosticsMs?: number; lastDiagnosticsMs?: number };
    assert.ok(typeof metrics.firstDiagnosticsMs === "number" && typeof metrics.lastDiagnosticsMs === "number");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("a Karta in JSON: JSON editing, its diagnostic at the field with the did-you-mean", async () => {
    const errors: string[] = [];
    const page = await newPage(env.context, errors);
    await page.goto(env.server.url);
    await ready(page);
    const t = await texts(page);
    const karta = JSON.stringify(parse(t.karta), null, 2).replace('"childComponents":', '"childComponent":');
    const line = karta.split("\n").findIndex((l) => l.includes('"childComponent":')) + 1;
    const n = await runs(page);
    await page.evaluate((k) => (globalThis as unknown as Playground).kartaPlayground.setTexts(k), { ...t, karta });
    await rerun(page, n);
    assert.equal(await page.locator("#karta-lang").textContent(), "JSON");
    const problems = page.locator("#problems .problem.sev-error");
    assert.equal(await problems.count(), 3);
    const problem = problems.first();
    assert.equal(await problem.getAttribute("data-line"), String(line));
    assert.match((await problem.textContent()) ?? "", /unknown field "childComponent"; did you mean "childComponents"\?/);
    await problem.click();
    assert.equal(await page.evaluate("getSelection().toString()"), '"childComponent"');
    assert.equal(await page.locator(".cm-lintRange-error").textContent(), '"childComponent"');
    await shot(page, "09-json-karta");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("an unmatched pod is flagged in the picture", async () => {
    const errors: string[] = [];
    const page = await newPage(env.context, errors);
    await page.goto(env.server.url);
    await ready(page);
    const n = await runs(page);
    // A stray pod owned by nothing of the job.
    await page.evaluate(() => {
      const k = (globalThis as unknown as Playground).kartaPlayground;
      k.setTexts({ ...k.texts(), pods: k.texts().pods + "\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: stray, namespace: ml-team}\nspec: {containers: [{name: c, image: busybox}]}\n" });
    });
    await rerun(page, n);
    await page.locator("#groups svg g.unmatched").waitFor();
    assert.equal(await page.locator("#groups svg g.unmatched").getAttribute("data-pod"), "stray");
    await shot(page, "04-unmatched-pod");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("where the Karta leaves a question open, Karta's Lua customization answers in the browser (wasmoon)", async () => {
    const errors: string[] = [];
    const page = await newPage(env.context, errors);
    await page.goto(env.server.url);
    await ready(page);
    const fixture = (name: string): string => readFileSync(path.join(repoRoot, "test", "fixtures", "playground", name), "utf8");
    const n = await runs(page);
    await page.evaluate((t) => (globalThis as unknown as Playground).kartaPlayground.setTexts(t), { karta: fixture("workflow-karta.yaml"), object: fixture("workflow.yaml"), pods: "" });
    await rerun(page, n);
    await page.locator("#pane-karmada summary").click();
    const health = page.locator('#karmada .op[data-op="InterpretHealth"]');
    await page.waitForFunction(() => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('#karmada .op[data-op="InterpretHealth"]')?.textContent.includes("thirdparty") ?? false, undefined, { timeout: 20_000 });
    assert.match((await health.textContent()) ?? "", /layer: thirdparty[\s\S]*healthy:\s*true/);
    assert.match((await page.locator('#karmada .op[data-op="InterpretReplica"]').textContent()) ?? "", /layer: karta[\s\S]*replica:\s*3[\s\S]*cpu: 100m/);
    await shot(page, "08-lua-layer");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("keyboard only: picker, editors with completion and hover, panes", async () => {
    const errors: string[] = [];
    const page = await newPage(env.context, errors);
    await page.goto(env.server.url);
    await ready(page);
    const focused = (): Promise<string> => page.evaluate("document.activeElement ? (document.activeElement.id || document.activeElement.className) : ''") as Promise<string>;
    // Tab to the picker and change it with the arrow keys.
    for (let i = 0; i < 4 && (await focused()) !== "picker"; i++) await page.keyboard.press("Tab");
    assert.equal(await focused(), "picker");
    const before = await page.evaluate("document.getElementById('picker').value");
    const n = await runs(page);
    await page.keyboard.press("ArrowDown");
    await rerun(page, n);
    const after = await page.evaluate("document.getElementById('picker').value");
    assert.notEqual(after, before);
    assert.notEqual((await texts(page)).karta, readFileSync(path.join(repoRoot, "definitions", PYTORCH), "utf8"));
    await page.keyboard.press("ArrowUp");
    // Tab past the share button into the Karta editor.
    await page.keyboard.press("Tab");
    assert.equal(await focused(), "share");
    await page.keyboard.press("Tab");
    assert.match(await focused(), /cm-content/);
    // Complete a root field: at the end, on a new line, 'sta' + Ctrl-Space offers 'status'.
    await page.keyboard.press("Control+End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("sta");
    await page.keyboard.press("Control+Space");
    const option = page.locator(".cm-tooltip-autocomplete li", { hasText: "status" });
    await option.first().waitFor();
    await shot(page, "05-completion");
    await page.keyboard.press("Escape");
    for (let i = 0; i < 4; i++) await page.keyboard.press("Backspace");
    const kartaText = (await texts(page)).karta;
    assert.equal(kartaText, readFileSync(path.join(repoRoot, "definitions", PYTORCH), "utf8"));
    // Hover over a field name shows the schema's description.
    await page.keyboard.press("Control+Home");
    await page.locator(".cm-line", { hasText: /^\s*structureDefinition:$/ }).first().getByText("structureDefinition", { exact: true }).hover();
    await page.locator(".karta-hover").waitFor();
    assert.match((await page.locator(".karta-hover").textContent()) ?? "", /spec\.structureDefinition.*StructureDefinition.*component hierarchy/);
    await shot(page, "06-hover");
    // Tab on through the other editors to the panes; Enter opens a closed pane.
    for (let i = 0; i < 12 && !(await focused()).includes("pane-workload"); i++) {
      await page.keyboard.press("Tab");
      const id = (await page.evaluate("document.activeElement && document.activeElement.parentElement ? document.activeElement.parentElement.id : ''")) as string;
      if (id === "pane-workload") break;
    }
    assert.equal(await page.evaluate("document.activeElement.parentElement.id"), "pane-workload");
    await page.keyboard.press("Enter");
    assert.equal(await page.evaluate("document.getElementById('pane-workload').open"), true);
    assert.match((await page.locator("#workload").textContent()) ?? "", /kind: Workload/);
    await shot(page, "07-keyboard-panes");
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("the state travels in the URL fragment", async () => {
    const errors: string[] = [];
    const page = await newPage(env.context, errors);
    await page.goto(env.server.url);
    await ready(page);
    const n = await runs(page);
    await page.evaluate(() => {
      const k = (globalThis as unknown as Playground).kartaPlayground;
      k.setTexts({ ...k.texts(), object: k.texts().object.replace("name: llama-finetune", "name: shared-link-job") });
    });
    await rerun(page, n);
    await page.waitForFunction(() => (globalThis as unknown as Playground).location.hash.startsWith("#s=") && (globalThis as unknown as Playground).kartaPlayground.shared, undefined, { timeout: 10_000 });
    const url = page.url();
    const original = await texts(page);
    assert.match(original.object, /shared-link-job/);
    const other = await newPage(env.context, errors);
    await other.goto(url);
    await ready(other);
    assert.deepEqual(await texts(other), original);
    assert.match((await other.locator("#groups").textContent()) ?? "", /minMember 2/);
    // A damaged link says so and falls back to the default example.
    const broken = await newPage(env.context, errors);
    await broken.goto(env.server.url + "#s=not-deflate-data");
    await ready(broken);
    assert.match((await broken.locator("#problems").textContent()) ?? "", /link could not be opened/);
    assert.deepEqual(errors, []);
    await Promise.all([page.close(), other.close(), broken.close()]);
  });
});
