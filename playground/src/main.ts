/**
 * The playground page: three CodeMirror editors (the Karta, the workload object, its pods), the
 * library run on every change (debounced), and panes for what each consumer sees. Nothing leaves
 * the browser; the state lives in the URL fragment.
 */
import { basicSetup } from "codemirror";
import { Compartment, EditorState, type Extension } from "@codemirror/state";
import { EditorView, hoverTooltip } from "@codemirror/view";
import { yaml } from "@codemirror/lang-yaml";
import { json } from "@codemirror/lang-json";
import { lintGutter, setDiagnostics, type Diagnostic as CmDiagnostic } from "@codemirror/lint";
import type { CompletionContext, CompletionResult } from "@codemirror/autocomplete";
import { customizations, definitions, type BundledDefinition } from "virtual:bundled";
import schemaJson from "../../schema/karta.schema.json";
import type { Diagnostic } from "../../src/definition/diagnostic.js";
import type { Interpretation, PatchResult } from "../../src/interpret/types.js";
import { analyze, check, toYaml, PATCH_SCHEDULER, type Analysis, type Checked, type TextProblem } from "./engine.js";
import { karmadaAnswers, luaStarted } from "./karmada.js";
import { componentColours, escapeXml, groupsPicture } from "./picture.js";
import { completionsFor, hoverFor, jsonContext, keyAt, yamlContext, type JsonSchema } from "./schema-assist.js";
import { decodeState, encodeState, type SharedState } from "./share.js";

// Start-up milestones, for the benchmark and for anyone profiling the page (Performance panel).
performance.mark("karta:module");
const schema = schemaJson as unknown as JsonSchema;
const DEBOUNCE_MS = 120;
const DEFAULT_PICK = "kubeflow.org/v1/PyTorchJob.yaml";

/** Figures the page measures (shown in the status line; read by the browser test and the benchmark). */
interface Metrics {
  /** Milliseconds from navigation start to the frame that paints the first diagnostics. */
  firstDiagnosticsMs?: number;
  /** Milliseconds from the (debounced) edit to its diagnostics handed to the editors, last run. */
  lastDiagnosticsMs?: number;
  /** Milliseconds from the (debounced) edit to the frame that paints its diagnostics, last run. */
  lastShownMs?: number;
  /** Milliseconds the library spent validating the Karta, last run. */
  lastValidateMs?: number;
  /** Milliseconds from the edit to every pane drawn (Karmada's answers follow asynchronously), last run. */
  lastPanesMs?: number;
  /** Runs completed (diagnostics and panes shown). */
  runs: number;
  /** Karmada answers completed. */
  karmadaRuns: number;
}

const metrics: Metrics = { runs: 0, karmadaRuns: 0 };
/** A notice about the link the page was opened with (shown with the problems). */
let linkNotice: string | undefined;

const $ = (id: string): HTMLElement => document.getElementById(id)!;

function isJson(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

// --- The editors -----------------------------------------------------------------------------------

interface Pane {
  view: EditorView;
  language: Compartment;
  json: boolean;
  langLabel: HTMLElement;
}

function languageFor(jsonMode: boolean): Extension {
  return jsonMode ? json() : yaml();
}

function kartaCompletions(context: CompletionContext): CompletionResult | null {
  const text = context.state.doc.toString();
  const jsonMode = isJson(text);
  const ctx = jsonMode ? jsonContext(text, context.pos) : yamlContext(text, context.pos);
  if (!ctx) return null;
  if (!context.explicit && ctx.partial === "" && ctx.mode === "key" && !/\n\s*(-\s+)?$/.test(text.slice(0, context.pos))) return null;
  const options = completionsFor(schema, ctx, jsonMode);
  if (options.length === 0) return null;
  return {
    from: ctx.from,
    options: options.map((o) => ({ label: o.label, detail: o.detail, info: o.info || undefined, apply: o.apply, type: ctx.mode === "key" ? "property" : "enum" })),
    validFor: /^["\w.$-]*$/,
  };
}

const kartaHover = hoverTooltip((view, pos) => {
  const text = view.state.doc.toString();
  const hit = keyAt(text, pos, isJson(text));
  if (!hit) return null;
  const h = hoverFor(schema, hit);
  if (!h) return null;
  return {
    pos: hit.from,
    end: hit.to,
    above: true,
    create() {
      const dom = document.createElement("div");
      dom.className = "karta-hover";
      dom.innerHTML = `<div class="t">${escapeXml(h.title)}</div><div class="ty">${escapeXml(h.type)}</div><div>${escapeXml(h.description)}</div>`;
      return { dom };
    },
  };
});

function makeEditor(id: string, labelId: string, extra: Extension[]): Pane {
  const language = new Compartment();
  const pane: Pane = { view: undefined as unknown as EditorView, language, json: false, langLabel: $(id.replace("-editor", "-lang")) };
  pane.view = new EditorView({
    parent: $(id),
    state: EditorState.create({
      doc: "",
      extensions: [
        basicSetup,
        language.of(languageFor(false)),
        lintGutter(),
        EditorView.contentAttributes.of({ "aria-labelledby": labelId }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) changed(pane);
        }),
        ...extra,
      ],
    }),
  });
  return pane;
}

const karta = makeEditor("karta-editor", "karta-label", [EditorState.languageData.of(() => [{ autocomplete: kartaCompletions }]), kartaHover]);
const object = makeEditor("object-editor", "object-label", []);
const pods = makeEditor("pods-editor", "pods-label", []);
const panes = [karta, object, pods];
performance.mark("karta:editors");

let setting = false;
let timer: ReturnType<typeof setTimeout> | undefined;
let picked: string | undefined;

function changed(pane: Pane): void {
  const jsonMode = isJson(pane.view.state.doc.toString());
  if (jsonMode !== pane.json) {
    pane.json = jsonMode;
    pane.langLabel.textContent = jsonMode ? "JSON" : "YAML";
    queueMicrotask(() => pane.view.dispatch({ effects: pane.language.reconfigure(languageFor(jsonMode)) }));
  }
  if (setting) return;
  if (timer !== undefined) clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    run();
  }, DEBOUNCE_MS);
}

function setTexts(state: SharedState): void {
  setting = true;
  try {
    for (const [pane, text] of [
      [karta, state.karta],
      [object, state.object],
      [pods, state.pods],
    ] as const) {
      pane.view.dispatch({ changes: { from: 0, to: pane.view.state.doc.length, insert: text } });
    }
  } finally {
    setting = false;
  }
  // The picker names the bundled definition the Karta editor holds, if it holds one unchanged.
  picked = (definitions.find((x) => x.id === state.picked && x.text === state.karta) ?? definitions.find((x) => x.text === state.karta))?.id;
  ($("picker") as HTMLSelectElement).value = picked ?? "";
}

// --- Diagnostics in the editors ---------------------------------------------------------------------

function rangeAt(view: EditorView, line: number, column: number): { from: number; to: number } {
  const doc = view.state.doc;
  const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
  const from = Math.min(l.from + Math.max(column - 1, 0), l.to);
  const rest = doc.sliceString(from, l.to);
  const m = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s:,{}[\]]+)/.exec(rest);
  const to = m ? from + m[0].length : Math.min(from + 1, l.to);
  return to > from ? { from, to } : { from: l.from, to: l.to };
}

function cmSeverity(s: Diagnostic["severity"]): CmDiagnostic["severity"] {
  return s === "notice" ? "info" : s;
}

function kartaDiagnostics(view: EditorView, ds: readonly Diagnostic[]): CmDiagnostic[] {
  return ds.map((d) => {
    const r = d.source ? rangeAt(view, d.source.line, d.source.column) : { from: 0, to: Math.min(1, view.state.doc.length) };
    return { ...r, severity: cmSeverity(d.severity), message: d.path ? `${d.path}: ${d.message}` : d.message, source: d.code ?? "karta validate" };
  });
}

function textDiagnostics(view: EditorView, ps: readonly TextProblem[]): CmDiagnostic[] {
  return ps.map((p) => ({ ...rangeAt(view, p.line, p.column), severity: p.severity, message: p.message }));
}

// --- Running the library -----------------------------------------------------------------------------

let karmadaSeq = 0;
let shareTimer: ReturnType<typeof setTimeout> | undefined;

let runSeq = 0;

/**
 * Analyses the editors now; returns the milliseconds from start to diagnostics dispatched. The
 * editors' marks come first (validation and parsing only) and are painted before the panes are
 * worked out, in a later task, so that what the author is typing is never kept waiting by them.
 */
function run(): number {
  const t0 = performance.now();
  const seq = ++runSeq;
  const texts = [karta, object, pods].map((p) => p.view.state.doc.toString()) as [string, string, string];
  const checked = check(...texts);
  if (metrics.firstDiagnosticsMs === undefined) performance.mark("karta:first-check");
  karta.view.dispatch(setDiagnostics(karta.view.state, kartaDiagnostics(karta.view, checked.diagnostics)));
  object.view.dispatch(setDiagnostics(object.view.state, textDiagnostics(object.view, checked.objectParsed.problems)));
  pods.view.dispatch(setDiagnostics(pods.view.state, textDiagnostics(pods.view, checked.podsParsed.problems)));
  const ms = performance.now() - t0;
  metrics.lastDiagnosticsMs = ms;
  metrics.lastValidateMs = checked.validateMs;
  api.shared = false;
  fragmentSeq++;
  // The frame that paints the marks, then the panes.
  requestAnimationFrame(() => {
    metrics.lastShownMs = performance.now() - t0;
    if (metrics.firstDiagnosticsMs === undefined) performance.mark("karta:first-diagnostics");
    metrics.firstDiagnosticsMs ??= performance.now();
    setTimeout(() => {
      if (seq === runSeq) finish(texts, checked, t0);
    }, 0);
  });
  return ms;
}

function finish(texts: [string, string, string], checked: Checked, t0: number): void {
  const a = analyze(...texts, checked);
  // Problems found past parsing (an object that is not one, items that are not Pods) mark too.
  if (a.objectProblems.length > checked.objectParsed.problems.length) object.view.dispatch(setDiagnostics(object.view.state, textDiagnostics(object.view, a.objectProblems)));
  if (a.podProblems.length > checked.podsParsed.problems.length) pods.view.dispatch(setDiagnostics(pods.view.state, textDiagnostics(pods.view, a.podProblems)));
  renderPanes(a);
  metrics.lastPanesMs = performance.now() - t0;
  metrics.runs++;
  $("status").textContent = `diagnostics shown in ${metrics.lastShownMs!.toFixed(1)} ms (validation ${a.validateMs.toFixed(1)} ms), panes in ${metrics.lastPanesMs.toFixed(1)} ms · first diagnostics ${metrics.firstDiagnosticsMs!.toFixed(0)} ms after load`;
  void runKarmada(a);
  if (shareTimer !== undefined) clearTimeout(shareTimer);
  shareTimer = setTimeout(() => void updateFragment(), 400);
}

async function runKarmada(a: Analysis): Promise<void> {
  const seq = ++karmadaSeq;
  const el = $("karmada");
  if (!a.definition || a.blocked || !a.object) {
    el.innerHTML = `<p class="blocked">${escapeXml(a.blocked ?? "nothing to interpret")}</p>`;
    metrics.karmadaRuns++;
    return;
  }
  try {
    const answers = await karmadaAnswers(a.definition, a.object as never, customizations);
    if (seq !== karmadaSeq) return;
    el.innerHTML =
      `<p class="muted">Layers as <code>karta interpret -d</code> stacks them: your Karta, Karta's bundled customizations (Lua${luaStarted() ? ", started" : ", started only for their kinds"}), Karmada's built-in interpreters.</p>` +
      answers
        .map((o) => {
          const head = `<h3>${escapeXml(o.operation)} <span class="layer">${o.layer ? `layer: ${escapeXml(o.layer)}` : ""}${o.input ? ` · ${escapeXml(o.input)}` : ""}</span></h3>`;
          const body = o.ok ? o.results!.map(([n, v]) => `<div class="muted">${escapeXml(n)}:</div><pre>${escapeXml(toYaml(v))}</pre>`).join("") : `<pre class="sev-error">${escapeXml(o.error ?? "")}</pre>`;
          return `<div class="op" data-op="${escapeXml(o.operation)}">${head}${body}</div>`;
        })
        .join("");
  } catch (err) {
    if (seq !== karmadaSeq) return;
    el.innerHTML = `<pre class="sev-error">${escapeXml(err instanceof Error ? err.message : String(err))}</pre>`;
  }
  metrics.karmadaRuns++;
}

// --- Panes ---------------------------------------------------------------------------------------------

function resources(list: Record<string, string> | undefined): string {
  if (!list || Object.keys(list).length === 0) return "none";
  return Object.entries(list)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}

function problemButton(where: "karta" | "object" | "pods", line: number | undefined, column: number | undefined, severity: string, text: string): string {
  const pos = line !== undefined ? `${line}:${column ?? 1}: ` : "";
  return `<button type="button" class="problem sev-${severity}" data-editor="${where}" data-line="${line ?? ""}" data-column="${column ?? ""}">${escapeXml(`${where} ${pos}${severity}: ${text}`)}</button>`;
}

function renderProblems(a: Analysis): void {
  const items = [
    ...a.diagnostics.map((d) => problemButton("karta", d.source?.line, d.source?.column, d.severity, d.path ? `${d.path}: ${d.message}` : d.message)),
    ...a.objectProblems.map((p) => problemButton("object", p.line, p.column, p.severity, p.message)),
    ...a.podProblems.map((p) => problemButton("pods", p.line, p.column, p.severity, p.message)),
    ...(a.interpretation?.diagnostics ?? []).map((d) => problemButton("karta", undefined, undefined, d.severity, `interpretation: ${d.path ? `${d.path}: ` : ""}${d.message}`)),
  ];
  $("problems-count").textContent = `(${items.length})`;
  // Screen readers hear the count when it changes, not the timings on every keystroke.
  const said = items.length === 0 ? "No problems" : `${items.length} problem${items.length === 1 ? "" : "s"}`;
  if ($("announce").textContent !== said) $("announce").textContent = said;
  const notice = linkNotice ? `<p class="blocked">${escapeXml(linkNotice)}</p>` : "";
  $("problems").innerHTML = notice + (items.length > 0 ? items.join("") : `<p class="muted">No problems: <code>karta validate</code> finds nothing.</p>`);
}

function renderComponents(r: Interpretation): string {
  const colours = componentColours(r);
  const byName = new Map(r.components.map((c) => [c.name, c]));
  const seen = new Set<string>();
  const item = (name: string): string => {
    const c = byName.get(name);
    if (!c || seen.has(name)) return "";
    seen.add(name);
    const kind = c.kind ? `${c.kind.kind} ${c.kind.group ? `${c.kind.group}/` : ""}${c.kind.version}` : "";
    let html = `<li data-component="${escapeXml(c.name)}"><span class="swatch" style="background:${colours.get(c.name)}"></span><span class="comp-name">${escapeXml(c.name)}</span> <span class="muted">${escapeXml(kind)} · subtree scale ${c.subtreeScale}</span>`;
    for (const inst of c.instances) {
      const scale = inst.scale ? [inst.scale.replicas !== undefined ? `replicas ${inst.scale.replicas}` : "", inst.scale.minReplicas !== undefined ? `min ${inst.scale.minReplicas}` : "", inst.scale.maxReplicas !== undefined ? `max ${inst.scale.maxReplicas}` : ""].filter(Boolean).join(", ") : "";
      const label = inst.id ? `instance ${escapeXml(inst.id)}: ` : "";
      if (scale) html += `<div class="res">${label}${escapeXml(scale)}</div>`;
      if (inst.podTemplate) html += `<div class="res">${inst.id ? label : ""}per replica: ${escapeXml(resources(inst.replicaRequirements?.resourceRequest))}${inst.replicaRequirements?.priorityClassName ? ` · priority class ${escapeXml(inst.replicaRequirements.priorityClassName)}` : ""}</div>`;
      if (inst.totalRequests) html += `<div class="res">total (${inst.countedReplicas ?? "?"} replica${inst.countedReplicas === 1 ? "" : "s"}): ${escapeXml(resources(inst.totalRequests))}</div>`;
    }
    if (c.children.length > 0) html += `<ul>${c.children.map(item).join("")}</ul>`;
    return html + "</li>";
  };
  const roots = r.components.filter((c) => c.parent === undefined || !byName.has(c.parent)).map((c) => item(c.name));
  return `<ul class="tree">${roots.join("")}</ul><p><strong>Total requests:</strong> ${escapeXml(resources(r.totalRequests))}</p>`;
}

function renderStatus(r: Interpretation): string {
  const s = r.status;
  let html = `<p>Status: <span class="status-value" id="status-value">${escapeXml(s.statuses.join(", ") || "none")}</span></p>`;
  if (s.matches.length === 0) html += `<p class="muted">No matcher matched${s.phase ? ` (phase ${escapeXml(s.phase)})` : ""}.</p>`;
  for (const m of s.matches) {
    const why: string[] = [];
    if (m.phase !== undefined) why.push(`phase ${m.phase}`);
    for (const c of m.conditions ?? []) why.push(`${c.type}=${c.status ?? "?"}${c.reason ? ` (${c.reason})` : ""}${c.message ? `: ${c.message}` : ""}`);
    html += `<div class="res"><strong>${escapeXml(m.status)}</strong> decided by <code>${escapeXml(m.path)}</code>: ${escapeXml(why.join("; ") || JSON.stringify(m.matcher))}</div>`;
  }
  if (s.conditions.length > 0) html += `<p class="muted">Observed conditions: ${escapeXml(s.conditions.map((c) => `${c.type}=${c.status ?? "?"}`).join(", "))}</p>`;
  return html;
}

function renderPatches(p: { suspend: PatchResult; resume: PatchResult; setScheduler: PatchResult }): string {
  const one = (title: string, r: PatchResult): string =>
    `<h3 class="muted">${escapeXml(title)}</h3>` + (r.diagnostics.length > 0 ? r.diagnostics.map((d) => `<div class="sev-${d.severity}">${escapeXml(`${d.severity}: ${d.path ? `${d.path}: ` : ""}${d.message}`)}</div>`).join("") : "") + `<pre>${escapeXml(JSON.stringify(r.patch, null, 2))}</pre>`;
  return one("suspend", p.suspend) + one("resume", p.resume) + one(`set-scheduler ${PATCH_SCHEDULER}`, p.setScheduler);
}

function renderPanes(a: Analysis): void {
  renderProblems(a);
  const blocked = `<p class="blocked">${escapeXml(a.blocked ?? "")}</p>`;
  const r = a.interpretation;
  $("components").innerHTML = r ? renderComponents(r) : blocked;
  $("statusPane").innerHTML = r ? renderStatus(r) : blocked;
  const kaiNotice = a.kaiNotice ? `<p class="blocked">${escapeXml(a.kaiNotice.join(" "))}</p>` : "";
  $("groups").innerHTML = r ? kaiNotice + groupsPicture(r) : blocked;
  const c = a.compilation;
  if (c) {
    const issues = c.issues.map((i) => `<div class="sev-${i.severity}">${escapeXml(`${i.severity}: ${i.input}${i.path ? ` ${i.path}` : ""}: ${i.message}`)}</div>`).join("");
    const objects = [c.workload, ...c.compositePodGroups, ...c.podGroups].filter((o) => o !== undefined);
    $("workload").innerHTML = issues + (c.ok ? `<pre>${escapeXml(objects.map((o) => toYaml(o)).join("---\n"))}</pre>` : `<p class="blocked">Nothing compiled.</p>`);
  } else $("workload").innerHTML = blocked;
  $("patches").innerHTML = a.patches ? renderPatches(a.patches) : blocked;
}

// --- Picker, problems, sharing ---------------------------------------------------------------------

function stateOf(d: BundledDefinition): SharedState {
  return { picked: d.id, karta: d.text, object: d.example?.object ?? "", pods: d.example?.pods ?? "" };
}

const picker = $("picker") as HTMLSelectElement;
for (const d of [...definitions].sort((a, b) => a.kind.localeCompare(b.kind))) {
  const o = document.createElement("option");
  o.value = d.id;
  o.textContent = `${d.kind} (${d.id.split("/").slice(0, -1).join("/")})${d.example ? "" : " — no example"}`;
  picker.append(o);
}
picker.addEventListener("change", () => {
  const d = definitions.find((x) => x.id === picker.value);
  if (!d) return;
  setTexts(stateOf(d));
  run();
});

$("problems").addEventListener("click", (e) => {
  const b = (e.target as HTMLElement).closest("button.problem") as HTMLButtonElement | null;
  if (!b || b.dataset.line === "") return;
  const pane = b.dataset.editor === "object" ? object : b.dataset.editor === "pods" ? pods : karta;
  const r = rangeAt(pane.view, Number(b.dataset.line), Number(b.dataset.column || 1));
  pane.view.dispatch({ selection: { anchor: r.from, head: r.to }, scrollIntoView: true });
  pane.view.focus();
});

let fragmentSeq = 0;

async function updateFragment(): Promise<void> {
  const state: SharedState = { karta: karta.view.state.doc.toString(), object: object.view.state.doc.toString(), pods: pods.view.state.doc.toString() };
  // The picker names the bundled definition the Karta editor holds, if it holds one unchanged.
  const d = definitions.find((x) => x.id === picked && x.text === state.karta) ?? definitions.find((x) => x.text === state.karta);
  picked = d?.id;
  if (d) state.picked = d.id;
  picker.value = state.picked ?? "";
  const seq = ++fragmentSeq;
  const fragment = await encodeState(state);
  // An edit made while encoding has its own update coming: this one is stale.
  if (seq !== fragmentSeq || api.texts().karta !== state.karta || api.texts().object !== state.object || api.texts().pods !== state.pods) return;
  history.replaceState(null, "", fragment);
  api.shared = true;
}

$("share").addEventListener("click", () => {
  void (async () => {
    if (shareTimer !== undefined) clearTimeout(shareTimer);
    await updateFragment();
    try {
      await navigator.clipboard.writeText(location.href);
      $("status").textContent = "Link copied: it holds the three editors' texts.";
    } catch {
      $("status").textContent = "Link in the address bar (copying was refused): it holds the three editors' texts.";
    }
  })();
});

// For scripts and tests driving the page: the editors' texts, and the figures above.
const api = {
  metrics,
  /** Whether the URL fragment holds the current texts. */
  shared: false,
  texts: (): SharedState => ({ karta: karta.view.state.doc.toString(), object: object.view.state.doc.toString(), pods: pods.view.state.doc.toString() }),
  /** Replaces the texts and runs the library at once; returns the milliseconds to diagnostics (panes follow). */
  setTexts: (state: SharedState): number => {
    setTexts(state);
    return run();
  },
};
(window as unknown as { kartaPlayground: typeof api }).kartaPlayground = api;

async function start(): Promise<void> {
  let state: SharedState | undefined;
  if (location.hash.length > 1) {
    const decoded = await decodeState(location.hash);
    if ("error" in decoded) linkNotice = `The link could not be opened: ${decoded.error}; showing the default example.`;
    else state = decoded;
  }
  if (!state) {
    const d = definitions.find((x) => x.id === DEFAULT_PICK) ?? definitions[0];
    state = d ? stateOf(d) : { karta: "", object: "", pods: "" };
  }
  setTexts(state);
  for (const p of panes) changed(p);
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  run();
  // Ready once the first run has drawn the panes.
  const wait = (): void => {
    if (metrics.runs > 0) document.body.dataset.ready = "true";
    else setTimeout(wait, 10);
  };
  wait();
}

void start();
