/**
 * The inputs the upstream differential test runs on both sides, only from the files named here:
 * - `catalog`: the published Karta catalog (../shared/conformance/karta-catalog), each definition alone
 *   (validate) and with every examples/ workload of its root kind (and that workload's pods);
 * - `bundled`: the project's definitions/** with the examples/ workloads of their kind and their pods;
 * - `recorded`: every recorded state (../shared/conformance/recorded, `states[].object`) with the upstream
 *   definition the recording names (recorded/upstream-definitions); upstream recorded no pods;
 * - `generated`: seeded variants of the above: replica counts changed (0, negative, strings, fractions,
 *   null), fields removed, instances added (an array element or map entry copied), pod labels dropped or
 *   changed; and, for validate, definitions broken in the ways the upstream validator checks.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { repoRoot } from "../support/conformance.js";
import { prng, seedOf } from "../support/random.js";

type Json = Record<string, any>;

/** One definition and, for the object ops, a workload object and its pods. */
export interface UpstreamCase {
  id: string;
  source: "catalog" | "bundled" | "recorded" | "generated";
  /** The Karta as JSON (what the API server stores). */
  karta: Json;
  object?: Json;
  pods?: Json[];
  /** What was done to a generated case. */
  mutation?: string;
}

const clone = <T>(v: T): T => structuredClone(v);

function readYaml(file: string): unknown {
  return parse(readFileSync(file, "utf8"));
}

function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion.includes("/") ? apiVersion : `core/${apiVersion}`}/${kind}`;
}

function rootKindKey(karta: Json): string | undefined {
  const k = karta?.spec?.structureDefinition?.rootComponent?.kind;
  if (!k || typeof k.kind !== "string") return undefined;
  return `${k.group ? k.group : "core"}/${k.version}/${k.kind}`;
}

/** examples/*.yaml workloads (not the -pods files) with their pods, by kind key. */
export function exampleWorkloads(): Map<string, { name: string; object: Json; pods: Json[] }[]> {
  const dir = path.join(repoRoot, "examples");
  const out = new Map<string, { name: string; object: Json; pods: Json[] }[]>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".yaml") && !n.endsWith("-pods.yaml")).sort()) {
    const object = readYaml(path.join(dir, name)) as Json;
    if (!object || typeof object.kind !== "string" || typeof object.apiVersion !== "string") continue;
    const podsFile = path.join(dir, name.replace(/\.yaml$/, "-pods.yaml"));
    const pods = existsSync(podsFile) ? ((readYaml(podsFile) as { items?: Json[] }).items ?? []) : [];
    const key = kindKey(object.apiVersion, object.kind);
    out.set(key, [...(out.get(key) ?? []), { name: name.replace(/\.yaml$/, ""), object, pods }]);
  }
  return out;
}

function definitionsUnder(dir: string): { name: string; karta: Json }[] {
  const out: { name: string; karta: Json }[] = [];
  const walk = (d: string): void => {
    for (const n of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(d, n.name);
      if (n.isDirectory()) walk(full);
      else if (n.name.endsWith(".yaml") && n.name !== "README.md") {
        const karta = readYaml(full) as Json;
        if (karta?.kind === "Karta") out.push({ name: path.relative(dir, full).replace(/\.yaml$/, ""), karta });
      }
    }
  };
  walk(dir);
  return out;
}

function withExamples(source: "catalog" | "bundled", defs: { name: string; karta: Json }[], examples: ReturnType<typeof exampleWorkloads>): UpstreamCase[] {
  const out: UpstreamCase[] = [];
  for (const d of defs) {
    out.push({ id: `${source}/${d.name}`, source, karta: d.karta });
    const key = rootKindKey(d.karta);
    for (const ex of (key && examples.get(key)) || []) {
      out.push({ id: `${source}/${d.name}@${ex.name}`, source, karta: d.karta, object: ex.object, pods: ex.pods });
    }
  }
  return out;
}

export function catalogCases(dir: string, examples: ReturnType<typeof exampleWorkloads>): UpstreamCase[] {
  return withExamples("catalog", definitionsUnder(dir), examples);
}

export function bundledCases(examples: ReturnType<typeof exampleWorkloads>): UpstreamCase[] {
  return withExamples("bundled", definitionsUnder(path.join(repoRoot, "definitions")), examples);
}

export function recordedCases(dir: string): UpstreamCase[] {
  const out: UpstreamCase[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".json")).sort()) {
    const raw = JSON.parse(readFileSync(path.join(dir, f), "utf8")) as { id: string; upstreamDefinition: { file: string }; states: { index: number; object: Json }[] };
    const karta = readYaml(path.join(dir, raw.upstreamDefinition.file)) as Json;
    for (const s of raw.states) out.push({ id: `recorded/${raw.id}#${s.index}`, source: "recorded", karta, object: s.object });
  }
  return out;
}

// ------------------------------------------------------------------------------------------ generator

const SCALE_KEYS = new Set(["replicas", "minReplicas", "maxReplicas", "parallelism", "completions", "numOfHosts", "minAvailable", "size"]);
const SCALE_VALUES: unknown[] = [0, 1, 2, 3, 7, -1, "2", 1.5, null];

/** Every (parent, key) below `root` whose value satisfies `keep`, depth first. */
function slots(root: unknown, keep: (key: string, value: unknown) => boolean, depth = 0, out: [Json, string | number][] = []): [Json, string | number][] {
  if (depth > 12 || root === null || typeof root !== "object") return out;
  const entries: [string | number, unknown][] = Array.isArray(root) ? root.map((v, i) => [i, v]) : Object.entries(root);
  for (const [k, v] of entries) {
    if (keep(String(k), v)) out.push([root as Json, k]);
    slots(v, keep, depth + 1, out);
  }
  return out;
}

const isPlain = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

function pick<T>(rnd: () => number, xs: readonly T[]): T | undefined {
  return xs.length === 0 ? undefined : xs[Math.floor(rnd() * xs.length)];
}

/** One object mutation, or undefined when the object offers nothing for it. */
function mutateObject(rnd: () => number, object: Json, pods: Json[]): { object: Json; pods: Json[]; mutation: string } | undefined {
  const o = clone(object);
  const p = clone(pods);
  const kind = Math.floor(rnd() * 4);
  const spec = o.spec;
  if (kind === 0) {
    const s = pick(rnd, slots(spec, (k, v) => SCALE_KEYS.has(k) && (typeof v === "number" || typeof v === "string")));
    if (!s) return undefined;
    const value = pick(rnd, SCALE_VALUES);
    s[0][s[1]] = value;
    return { object: o, pods: p, mutation: `scale ${String(s[1])} = ${JSON.stringify(value)}` };
  }
  if (kind === 1) {
    const s = pick(rnd, slots(spec, () => true).filter(([parent]) => !Array.isArray(parent)));
    if (!s) return undefined;
    delete s[0][s[1]];
    return { object: o, pods: p, mutation: `removed field ${String(s[1])}` };
  }
  if (kind === 2) {
    // An extra instance: an array of objects gets a copy of an element (its name changed), a map of
    // objects holding pod templates a copy of an entry under a new key.
    const arrays = slots(spec, (_k, v) => Array.isArray(v) && v.length > 0 && v.every(isPlain));
    const maps = slots(spec, (_k, v) => isPlain(v) && Object.keys(v).length > 0 && Object.values(v).every((x) => isPlain(x) && ("template" in x || "replicas" in x)));
    const s = pick(rnd, [...arrays, ...maps]);
    if (!s) return undefined;
    const target = s[0][s[1]];
    if (Array.isArray(target)) {
      const copy = clone(pick(rnd, target) as Json);
      if (typeof copy.name === "string") copy.name = `${copy.name}-extra`;
      target.push(copy);
      return { object: o, pods: p, mutation: `extra element in ${String(s[1])}` };
    }
    const key = pick(rnd, Object.keys(target))!;
    target[`${key}Extra`] = clone(target[key]);
    return { object: o, pods: p, mutation: `extra entry in ${String(s[1])}` };
  }
  const pod = pick(rnd, p);
  const labels = pod?.metadata?.labels;
  if (!isPlain(labels) || Object.keys(labels).length === 0) return undefined;
  const key = pick(rnd, Object.keys(labels))!;
  if (rnd() < 0.5) {
    delete labels[key];
    return { object: o, pods: p, mutation: `pod ${String(pod!.metadata.name)}: label ${key} removed` };
  }
  labels[key] = rnd() < 0.5 ? "" : "7";
  return { object: o, pods: p, mutation: `pod ${String(pod!.metadata.name)}: label ${key} = ${JSON.stringify(labels[key])}` };
}

/** One definition mutation among the rules the upstream validator checks. */
function mutateDefinition(rnd: () => number, karta: Json): { karta: Json; mutation: string } | undefined {
  const k = clone(karta);
  const sd = k.spec?.structureDefinition;
  if (!isPlain(sd) || !isPlain(sd.rootComponent)) return undefined;
  const root = sd.rootComponent;
  const children: Json[] = Array.isArray(sd.childComponents) ? sd.childComponents : [];
  const child = pick(rnd, children);
  const jqFields = slots(k.spec, (key, v) => typeof v === "string" && /Path$|^path$|^keyPath$|^idPath$|^expression$/.test(key));
  const choices: (() => string | undefined)[] = [
    () => (isPlain(root.kind) ? (delete root.kind.group, "root kind without group") : undefined),
    () => ((root.ownerRef = "someone"), "root with an ownerRef"),
    () => (delete root.statusDefinition, "root without statusDefinition"),
    () => (child ? ((child.name = root.name), "child named as the root") : undefined),
    () => (child ? (delete child.ownerRef, "child without ownerRef") : undefined),
    () => (child ? ((child.ownerRef = "missing"), "child owned by a missing component") : undefined),
    () => {
      if (children.length < 2) return undefined;
      children[0]!.ownerRef = children[1]!.name;
      children[1]!.ownerRef = children[0]!.name;
      return "ownership cycle";
    },
    () => {
      const c = child ?? root;
      c.specDefinition = { podTemplateSpecPath: ".spec.template", podSpecPath: ".spec.template.spec" };
      return "two pod spec definitions";
    },
    () => {
      const c = child ?? root;
      c.instanceIdPath = ".spec.items[].name";
      if (isPlain(c.podSelector)) delete c.podSelector.componentInstanceSelector;
      return "instanceIdPath without an instance selector";
    },
    () => {
      const s = pick(rnd, jqFields);
      if (!s) return undefined;
      const bad = pick(rnd, ["..", "del(.a)", ".a = 1", "[paths]", "recurse", ".a |= 1", "range(3)", ".[", "walk(.)", "nosuchfn(1)"])!;
      s[0][s[1]] = bad;
      return `jq ${String(s[1])} = ${bad}`;
    },
  ];
  for (let tries = 0; tries < 5; tries++) {
    const m = pick(rnd, choices)!();
    if (m) return { karta: k, mutation: m };
  }
  return undefined;
}

/** Seeded variants of the base cases: `perCase` object variants of each case with an object, one definition variant of each definition. */
export function generatedCases(base: readonly UpstreamCase[], seed: string, perCase = 3): UpstreamCase[] {
  const out: UpstreamCase[] = [];
  for (const c of base) {
    if (c.source === "recorded") continue;
    const rnd = prng(seedOf(`${seed}/${c.id}`));
    if (!c.object) {
      const m = mutateDefinition(rnd, c.karta);
      if (m) out.push({ id: `generated/${c.id}~def`, source: "generated", karta: m.karta, mutation: m.mutation });
      continue;
    }
    for (let i = 0; i < perCase; i++) {
      const m = mutateObject(rnd, c.object, c.pods ?? []);
      if (m) out.push({ id: `generated/${c.id}~${i}`, source: "generated", karta: c.karta, object: m.object, pods: m.pods, mutation: m.mutation });
    }
  }
  return out;
}
