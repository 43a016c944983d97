/**
 * The gopher-lua differential: every customization of Karmada's thirdparty suite, and Karta's bundled
 * interpreter-customizations, run through Karta's declarative layer and through the reference VM
 * (tools/karmada-luavm: Karmada's luavm on gopher-lua v1.1.2), on the suite's test objects and on
 * generated variants of them (fields missing, null or emptied, odd quantities, numbers and strings,
 * status items absent, empty or partial), every operation the kind customizes on every object. Results
 * must be equal as Karmada's types marshal them (nil is not [], a quantity prints as Go prints it),
 * and errors must carry the same text.
 *
 * Skips with a notice when the suite's data is absent or the tool is not built (Go missing).
 */
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { loadCustomizationFiles } from "../../src/interpreter/declarative/load.js";
import { createDeclarativeInterpreter, type DeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import type { MergedRules } from "../../src/interpreter/declarative/customization.js";
import { parseYamlDocuments } from "../../src/interpreter/declarative/yaml-documents.js";
import { parseOperation, type AggregatedStatusItem, type JsonValue, type KubeObject, type Operation, type Outcome } from "../../src/interpreter/types.js";
import { conformanceDir, repoRoot, thirdpartyKindDirectories } from "../support/conformance.js";
import { karmadaLuaVM, runKarmadaLuaVM, type LuaOracleAnswer, type LuaOracleCase } from "../support/karmada-luavm.js";
import { statusItemVariants, variantsOf } from "./lua-variants.js";
import { PROBE_OBJECT, PROBES } from "./lua-probes.js";
import { customizationOf } from "../../src/interpreter/declarative/customization.js";
import type { ResourceInterpreterCustomization } from "../../src/interpreter/types.js";

/** The clock both VMs read (os.time, os.date): 2026-01-01T00:00:00Z. */
const NOW = 1767225600;

/** How many generated variants of each object run (every customized operation on each). */
const VARIANTS_PER_OBJECT = 4;

/** The operations a declarative customization answers, by rule field. */
const FIELDS: [Operation, keyof MergedRules["scripts"] | "dependencyInterpretation"][] = [
  ["InterpretReplica", "replicaResource"],
  ["InterpretComponent", "componentResource"],
  ["ReviseReplica", "replicaRevision"],
  ["Retain", "retention"],
  ["AggregateStatus", "statusAggregation"],
  ["InterpretStatus", "statusReflection"],
  ["InterpretHealth", "healthInterpretation"],
  ["InterpretDependency", "dependencyInterpretation"],
];

interface TestdataCase {
  desiredObj?: KubeObject;
  observedObj?: KubeObject;
  statusItems?: AggregatedStatusItem[];
  inputReplicas?: number;
  operation: string;
}

/** One comparison: which layer runs it, and what the reference VM is given. */
interface DiffCase {
  set: "suite" | "bundled" | "probes";
  kind: string;
  origin: string;
  oracle: LuaOracleCase;
  /** A difference Karta keeps (see Probe.known). */
  known?: string;
}

function readTestdata(dir: string): TestdataCase[] {
  const out: TestdataCase[] = [];
  const td = path.join(dir, "testdata");
  if (!existsSync(td)) return out;
  for (const name of readdirSync(td).sort()) {
    const { documents } = parseYamlDocuments(readFileSync(path.join(td, name), "utf8"));
    for (const doc of documents) if (doc.value && typeof doc.value === "object") out.push(doc.value as unknown as TestdataCase);
  }
  return out;
}

/** The cases of one kind: its testdata as written, then every customized operation on every object and variant. */
function casesOfKind(set: DiffCase["set"], rules: MergedRules, testdata: TestdataCase[], nextId: () => string): DiffCase[] {
  const kind = `${rules.apiVersion}/${rules.kind}`;
  const ops = FIELDS.filter(([, field]) => (field === "dependencyInterpretation" ? rules.dependencyScripts.length > 0 : !!rules.scripts[field]));
  const scriptOf = (op: Operation): Pick<LuaOracleCase, "script" | "scripts"> => {
    const field = FIELDS.find(([o]) => o === op)![1];
    return field === "dependencyInterpretation" ? { scripts: rules.dependencyScripts } : { script: rules.scripts[field]! };
  };
  const out: DiffCase[] = [];
  const push = (origin: string, op: Operation, object: JsonValue, extra: Partial<LuaOracleCase> = {}): void => {
    out.push({ set, kind, origin, oracle: { id: nextId(), operation: op, ...scriptOf(op), object, now: NOW, ...extra } });
  };
  const customized = new Set(ops.map(([op]) => op));
  const objects = new Map<string, JsonValue>();
  const itemLists: (JsonValue[] | undefined)[] = [];
  for (const c of testdata) {
    const op = parseOperation(c.operation);
    for (const o of [c.desiredObj, c.observedObj]) if (o) objects.set(JSON.stringify(o), o);
    if (c.statusItems) itemLists.push(c.statusItems as unknown as JsonValue[]);
    if (!op || !customized.has(op)) continue;
    const object = (c.desiredObj ?? c.observedObj) as JsonValue | undefined;
    if (!object) continue;
    if (op === "Retain") {
      if (c.desiredObj && c.observedObj) push("testdata", op, c.desiredObj as JsonValue, { observed: c.observedObj as JsonValue });
    } else {
      push("testdata", op, object, { replicas: c.inputReplicas ?? 0, items: (c.statusItems as unknown as JsonValue[] | undefined) ?? null });
    }
  }
  const items = itemLists[0] ?? null;
  const all = (origin: string, object: JsonValue): void => {
    for (const [op] of ops) {
      if (op === "Retain") push(origin, op, object, { observed: object });
      else if (op === "ReviseReplica") push(origin, op, object, { replicas: 3 });
      else if (op === "AggregateStatus") push(origin, op, object, { items });
      else push(origin, op, object);
    }
  };
  // Every object as written; then a share of its variants, taken in turn across the kind's objects
  // so that every kind of variant runs on some object of the kind.
  let turn = 0;
  for (const object of objects.values()) {
    all("object", object);
    const variants = variantsOf(object);
    for (let j = 0; j < VARIANTS_PER_OBJECT && j < variants.length; j++) {
      const v = variants[(turn + j) % variants.length]!;
      all(v.mutation, v.value);
    }
    turn += VARIANTS_PER_OBJECT;
  }
  const first = objects.values().next().value as JsonValue | undefined;
  if (first !== undefined) {
    // Retain with the observed object varied; AggregateStatus with the items varied.
    if (customized.has("Retain")) for (const v of variantsOf(first)) push(`observed: ${v.mutation}`, "Retain", first, { observed: v.value });
    if (customized.has("AggregateStatus")) {
      for (const list of itemLists.length > 0 ? itemLists : [undefined]) {
        for (const v of statusItemVariants(list)) push(v.mutation, "AggregateStatus", first, { items: v.items });
        const status = list?.[0] && typeof list[0] === "object" && !Array.isArray(list[0]) ? list[0].status : undefined;
        if (status !== undefined && status !== null) {
          for (const v of variantsOf(status, 2)) push(`first item's status: ${v.mutation}`, "AggregateStatus", first, { items: [{ ...(list![0] as object), status: v.value }, ...list!.slice(1)] });
        }
      }
    }
  }
  return out;
}

/** The probes: each its own kind, customized by its one script. */
function probeCases(nextId: () => string): { customizations: ResourceInterpreterCustomization[]; cases: DiffCase[] } {
  const customizations: ResourceInterpreterCustomization[] = [];
  const cases: DiffCase[] = [];
  PROBES.forEach((p, i) => {
    const kind = `Probe${i}`;
    const apiVersion = "probe.karta.dev/v1";
    const field = FIELDS.find(([op]) => op === p.operation)![1];
    customizations.push(customizationOf(`probe-${i}`, { apiVersion, kind }, { [field]: p.script }));
    const withKind = (o: JsonValue): JsonValue => ({ ...(o as object), kind });
    const oracle: LuaOracleCase = { id: nextId(), operation: p.operation, object: withKind(p.object ?? PROBE_OBJECT), now: NOW };
    if (p.operation === "InterpretDependency") oracle.scripts = [p.script];
    else oracle.script = p.script;
    if (p.operation === "Retain") oracle.observed = withKind(p.observed ?? p.object ?? PROBE_OBJECT);
    if (p.operation === "ReviseReplica") oracle.replicas = p.replicas ?? 0;
    if (p.operation === "AggregateStatus") oracle.items = p.items ?? null;
    cases.push({ set: "probes", kind: `${apiVersion}/${kind}`, origin: p.name, oracle, ...(p.known ? { known: p.known } : {}) });
  });
  return { customizations, cases };
}

/** Karta's answer in the reference's terms: the result as Karmada's types marshal, or the error text. */
function kartaAnswer(ipt: DeclarativeInterpreter, c: LuaOracleCase): { result: JsonValue } | { error: string } {
  const object = c.object as KubeObject;
  const answer = <T>(o: Outcome<T>, shape: (v: T) => JsonValue): { result: JsonValue } | { error: string } => (o.ok ? { result: shape(o.value) } : { error: o.error.message });
  switch (c.operation as Operation) {
    case "InterpretReplica":
      return answer(ipt.interpretReplica(object), (v) => ({ replicas: v.replicas, requires: (v.replicaRequirements ?? null) as JsonValue }));
    case "InterpretComponent":
      return answer(ipt.interpretComponent(object), (v) => v as unknown as JsonValue);
    case "ReviseReplica":
      return answer(ipt.reviseReplica(object, c.replicas ?? 0), (v) => v);
    case "Retain":
      return answer(ipt.retain(object, c.observed as KubeObject), (v) => v);
    case "AggregateStatus":
      return answer(ipt.aggregateStatus(object, c.items as unknown as AggregatedStatusItem[] | null), (v) => v);
    case "InterpretStatus":
      return answer(ipt.interpretStatus(object), (v) => v ?? null);
    case "InterpretHealth":
      return answer(ipt.interpretHealth(object), (v) => v);
    case "InterpretDependency":
      return answer(ipt.interpretDependency(object), (v) => v as unknown as JsonValue);
    default:
      throw new Error(`no operation ${c.operation}`);
  }
}

/** Exact JSON equality (object key order aside). */
function jsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (a && b && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

/**
 * Karmada orders dependencies equal on apiVersion, kind, namespace and name at random: compare them in
 * one order. Components it surfaces only in the ResourceBinding and the webhook response, both
 * `omitempty`: no components (nil) and an empty list are the same there.
 */
function canonical(c: LuaOracleCase, v: JsonValue): JsonValue {
  if (c.operation === "InterpretComponent" && v === null) return [];
  if (c.operation !== "InterpretDependency" || !Array.isArray(v)) return v;
  return [...v].sort((x, y) => {
    const kx = JSON.stringify(x);
    const ky = JSON.stringify(y);
    return kx < ky ? -1 : kx > ky ? 1 : 0;
  });
}

interface Difference {
  c: DiffCase;
  karta: { result: JsonValue } | { error: string };
  karmada: LuaOracleAnswer;
}

const oracle = karmadaLuaVM();
const data = conformanceDir("karmada-thirdparty");

describe("gopher-lua differential (Karmada's luavm on gopher-lua v1.1.2 against Karta's Lua layer)", () => {
  const cases: DiffCase[] = [];
  let answers: LuaOracleAnswer[] = [];
  const interpreters = new Map<DiffCase["set"], DeclarativeInterpreter>();
  let skip: string | undefined;

  before(async () => {
    if ("skip" in oracle) {
      skip = oracle.skip;
      return;
    }
    if (!data) {
      skip = "notice: the thirdparty conformance data is absent: the gopher-lua differential is skipped";
      return;
    }
    const root = path.join(data, "resourcecustomizations");
    const dirs = thirdpartyKindDirectories(root);
    const suite = loadCustomizationFiles(dirs.map((d) => path.join(d, "customizations.yaml")));
    assert.deepEqual(suite.issues, []);
    const bundled = loadCustomizationFiles([path.join(repoRoot, "interpreter-customizations")], { recursive: true });
    assert.deepEqual(bundled.issues, []);
    const clock = (): number => NOW * 1000;
    // The customizations' scripts never loop: a generous deadline keeps a busy machine from failing a
    // case by time (the probes keep Karmada's 1 s, which one of them runs into on purpose).
    const limits = { timeoutMs: 30_000 };
    interpreters.set("suite", await createDeclarativeInterpreter(suite.customizations, { clock, limits }));
    interpreters.set("bundled", await createDeclarativeInterpreter(bundled.customizations, { layer: "thirdparty", clock, limits }));
    const testdata = new Map<string, TestdataCase[]>();
    for (const d of dirs) {
      const rel = path.relative(root, d).split(path.sep); // group/version/Kind
      testdata.set(`${rel.slice(0, -1).join("/")}/${rel[rel.length - 1]}`, readTestdata(d));
    }
    let n = 0;
    const nextId = (): string => String(n++);
    for (const [set, ipt] of interpreters) {
      for (const rules of ipt.targets) cases.push(...casesOfKind(set, rules, testdata.get(`${rules.apiVersion}/${rules.kind}`) ?? [], nextId));
    }
    const probes = probeCases(nextId);
    // Karmada's 1 s deadline, as Karmada runs it; Karta's own instruction budget (a bound gopher-lua
    // does not have) lifted, since an endless loop meets it at about the same second and the probe is
    // about the deadline's error.
    interpreters.set("probes", await createDeclarativeInterpreter(probes.customizations, { clock, limits: { instructionBudget: Number.MAX_SAFE_INTEGER } }));
    cases.push(...probes.cases);
    const started = Date.now();
    answers = await runKarmadaLuaVM(oracle.binary, cases.map((c) => c.oracle));
    const invalid = answers.filter((a) => "invalid" in a);
    assert.deepEqual(invalid, [], "every case is one the reference reads");
    console.log(`# gopher-lua differential: ${cases.length} cases (${cases.filter((c) => c.origin === "testdata").length} testdata, ${cases.filter((c) => c.set !== "probes" && c.origin !== "testdata").length} generated, ${probes.cases.length} probes) over ${new Set(cases.map((c) => `${c.set} ${c.kind}`)).size} customized kinds; reference run ${Date.now() - started} ms`);
  });

  test("every customization and generated case gives Karmada's result or error", async (t) => {
    if (skip) {
      console.log(skip);
      t.skip(skip);
      return;
    }
    const differences: Difference[] = [];
    const knownButEqual: string[] = [];
    for (const [i, c] of cases.entries()) {
      const karmada = answers[i]!;
      const karta = kartaAnswer(interpreters.get(c.set)!, c.oracle);
      const equal = "error" in karmada ? "error" in karta && karta.error === karmada.error : "result" in karmada && "result" in karta && jsonEqual(canonical(c.oracle, karta.result), canonical(c.oracle, karmada.result));
      if (c.known !== undefined) {
        if (equal) knownButEqual.push(c.origin);
        else console.log(`# known difference (${c.origin}): ${c.known}`);
      } else if (!equal) {
        differences.push({ c, karta, karmada });
      }
    }
    assert.deepEqual(knownButEqual, [], "probes listed as known differences now agree with Karmada: drop their `known`");
    for (const ipt of interpreters.values()) ipt.close();
    if (process.env["DUMP_LUA_DIFF"]) (await import("node:fs")).writeFileSync(process.env["DUMP_LUA_DIFF"], differences.map((d) => JSON.stringify({ set: d.c.set, kind: d.c.kind, op: d.c.oracle.operation, origin: d.c.origin, id: d.c.oracle.id, karmada: d.karmada, karta: d.karta })).join("\n"));
    const report = differences.slice(0, 15).map((d) => `- ${d.c.set} ${d.c.kind} ${d.c.oracle.operation} (${d.c.origin}):\n    Karmada: ${JSON.stringify(d.karmada).slice(0, 600)}\n    Karta:   ${JSON.stringify(d.karta).slice(0, 600)}`);
    const known = cases.filter((c) => c.known !== undefined).length;
    console.log(`# gopher-lua differential: ${cases.length - known - differences.length} of ${cases.length - known} cases equal (and ${known} known differences)`);
    assert.equal(differences.length, 0, `${differences.length} of ${cases.length} cases differ:\n${report.join("\n")}`);
  });
});
