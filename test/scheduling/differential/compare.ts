/**
 * Karta's answer against Go's, equal up to the encoding differences docs/workload-api.md lists (and only
 * those):
 * - object keys in any order;
 * - a member Go prints as `null` (a nil pointer or slice whose field has no `omitempty`) is absent in Karta;
 * - an empty list and no list are one value (Go leaves an empty `omitempty` list out; Karta may copy the
 *   `[]` it was given);
 * - the empty `status: {}` Go prints for a PodGroup (a struct-valued field) is absent in Karta;
 * - Karta's Workload API objects carry `apiVersion` and `kind`; the typed Go objects the builder returns
 *   leave them empty (Go's client fills them when it sends the object);
 * - field errors are compared by type, field, detail, origin and their `Error()` text (the bad value as
 *   the text shows it).
 */
import type { Assertion, Case, ErrorJSON, StepResult } from "./cases.js";

/** A JSON value with the members Go prints as null (and empty lists) removed, keys sorted. */
export function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x === null || x === undefined || (Array.isArray(x) && x.length === 0)) continue;
      out[k] = canonical(x);
    }
    return out;
  }
  return v;
}

/** A Workload API object of either side, as compared. */
function object(o: unknown, goHasTypeMeta: boolean): unknown {
  if (o === null || typeof o !== "object") return o;
  const copy = { ...(o as Record<string, unknown>) };
  if (!goHasTypeMeta) {
    delete copy.apiVersion;
    delete copy.kind;
  }
  const status = copy.status;
  if (status !== null && typeof status === "object" && Object.keys(status).length === 0) delete copy.status;
  return canonical(copy);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function errorsDiff(where: string, go: ErrorJSON[] | undefined, karta: ErrorJSON[] | undefined, out: string[]): void {
  const pick = (e: ErrorJSON) => ({ type: e.type, field: e.field, detail: e.detail, origin: e.origin ?? "", error: e.error });
  const g = (go ?? []).map(pick);
  const k = (karta ?? []).map(pick);
  if (!same(g, k)) out.push(`${where}: errors differ\n      go:    ${JSON.stringify(g.map((e) => e.error))}\n      karta: ${JSON.stringify(k.map((e) => e.error))}${same(g.map((e) => e.error), k.map((e) => e.error)) ? `\n      go:    ${JSON.stringify(g)}\n      karta: ${JSON.stringify(k)}` : ""}`);
}

function valueDiff(where: string, go: unknown, karta: unknown, out: string[]): void {
  if (!same(go, karta)) out.push(`${where} differs\n      go:    ${JSON.stringify(go)}\n      karta: ${JSON.stringify(karta)}`);
}

type Answer = { result?: unknown; panic?: string };

/** What differs between Go's and Karta's answers to one case (empty when they are equal). */
export function compareAnswers(c: Case, go: Answer, karta: Answer): string[] {
  const out: string[] = [];
  if (go.panic !== undefined || karta.panic !== undefined) {
    if (go.panic === undefined || karta.panic === undefined) out.push(`only one side failed: go ${go.panic ?? "answered"}; karta ${karta.panic ?? "answered"}`);
    return out;
  }
  const g = go.result as Record<string, unknown>;
  const k = karta.result as Record<string, unknown>;
  switch (c.op) {
    case "builder": {
      const gs = g.steps as StepResult[];
      const ks = k.steps as StepResult[];
      gs.forEach((gstep, i) => {
        const kstep = ks[i] ?? {};
        const step = c.steps[i]!;
        const where = `step ${i} (${step.do})`;
        if (step.do === "validate") return errorsDiff(where, gstep.errors, kstep.errors, out);
        valueDiff(`${where} error`, gstep.error, kstep.error, out);
        const hasTypeMeta = gstep.object !== undefined && (gstep.object as Record<string, unknown>).apiVersion !== undefined;
        valueDiff(`${where} object`, object(gstep.object, hasTypeMeta), object(kstep.object, hasTypeMeta), out);
        valueDiff(`${where} same`, gstep.same, kstep.same, out);
      });
      valueDiff("marks", g.marks, k.marks, out);
      valueDiff("inputs after the calls", canonical(g.inputsAfter), canonical(k.inputsAfter), out);
      break;
    }
    case "resolve":
      valueDiff("resolved config", canonical(g.config), canonical(k.config), out);
      valueDiff("marks", g.marks, k.marks, out);
      break;
    case "names":
      (go.result as { name: string }[]).forEach((n, i) => valueDiff(`name ${i} (${JSON.stringify(c.names[i])})`, n.name, (karta.result as { name: string }[])[i]?.name, out));
      break;
    case "jobCompile": {
      if (typeof g.syncError === "string") {
        valueDiff("compile error", g.syncError, k.error, out);
        break;
      }
      // Karta's error is the controller creating nothing (a Job it does not manage, a parent not there yet).
      if (typeof k.error === "string") {
        if (((g.podGroups as unknown[]) ?? []).length > 0 || ((g.workloads as unknown[]) ?? []).length > 0) out.push(`karta refuses (${k.error}) where the controller creates objects`);
        break;
      }
      const objects = (list: unknown) => ((list as unknown[]) ?? []).map((o) => object(o, true));
      valueDiff("workloads", objects(g.workloads), objects(k.workloads), out);
      valueDiff("podGroups", objects(g.podGroups), objects(k.podGroups), out);
      if ((g.pods as number) > 0) valueDiff("pods' schedulingGroup", g.podSchedulingGroups, [k.podSchedulingGroup], out);
      break;
    }
    case "jobValidate":
      errorsDiff("Job validation", g.errors as ErrorJSON[], k.errors as ErrorJSON[], out);
      for (const layer of ["handwritten", "declarative"] as const) {
        if (k[layer] !== undefined) errorsDiff(`Job validation (${layer} layer)`, g[layer] as ErrorJSON[], k[layer] as ErrorJSON[], out);
      }
      break;
  }
  return out;
}

/** The value at a path such as `steps[1].object.spec.podGroupTemplates[0].name`. */
export function at(v: unknown, p: string): unknown {
  let cur = v;
  for (const part of p.match(/[^.[\]]+/g) ?? []) {
    if (cur === null || cur === undefined) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** The assertions of a case that fail on an answer. */
export function failedAssertions(asserts: readonly Assertion[] | undefined, answer: Answer): string[] {
  const out: string[] = [];
  const root = { ...(answer.result as object), panic: answer.panic };
  for (const a of asserts ?? []) {
    const raw = at(root, a.at);
    const v = raw === null ? undefined : raw;
    const fail = (why: string) => out.push(`${a.at}: ${why} (got ${JSON.stringify(v)})`);
    if (a.equals !== undefined && !same(canonical(v), canonical(a.equals))) fail(`expected ${JSON.stringify(a.equals)}`);
    if (a.absent && v !== undefined && !(Array.isArray(v) && v.length === 0)) fail("expected absent");
    if (a.present && v === undefined) fail("expected present");
    // No list and an empty one are the same (Go's omitempty).
    if (a.length !== undefined && (Array.isArray(v) ? v.length : v === undefined ? 0 : -1) !== a.length) fail(`expected ${a.length} items`);
    if (a.contains !== undefined && (typeof v !== "string" || !v.includes(a.contains))) fail(`expected to contain ${JSON.stringify(a.contains)}`);
    if (a.startsWith !== undefined && (typeof v !== "string" || !v.startsWith(a.startsWith))) fail(`expected to start with ${JSON.stringify(a.startsWith)}`);
    if (a.maxBytes !== undefined && (typeof v !== "string" || Buffer.byteLength(v) > a.maxBytes)) fail(`expected at most ${a.maxBytes} bytes`);
    if (a.sameAs !== undefined && !same(v, at(root, a.sameAs))) fail(`expected to equal ${a.sameAs}`);
    if (a.differsFrom !== undefined && same(v, at(root, a.differsFrom))) fail(`expected to differ from ${a.differsFrom}`);
  }
  return out;
}
