/**
 * Karmada's thirdparty test cases (../shared/conformance/karmada-thirdparty), read as Karmada's
 * thirdparty_test.go reads them (each document by sigs.k8s.io/yaml, through the karmada-go oracle), with
 * the text of each object and status item as the file writes it (what a user gives `karta interpret`),
 * and compared with what Karmada computes, exactly: each expected output decoded into the Go type of its
 * result and marshalled as karmadactl prints it (nil is not [], absent is not empty, a Quantity as
 * resource.Quantity prints it), `{{EXCLUDE}}` fields removed on both sides, components sorted by name and
 * dependencies in Karmada's order (apiVersion, kind, namespace, name), and quantities of a resource request
 * by value (as Karmada's test compares them) but each printed as Go prints its own value.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { TestContext } from "node:test";
import { Quantity } from "../../src/quantity/index.js";
import { conformanceDir } from "../support/conformance.js";
import { startKarmadaGo, type KarmadaGo } from "../support/karmada-go.js";

/** One test case. */
export interface ThirdpartyCase {
  /** `<group>/<version>/<Kind>` */
  kind: string;
  /** The kind's directory (holding customizations.yaml). */
  dir: string;
  /** The test file, relative to the kind's directory. */
  file: string;
  name: string;
  /** The operation as the case spells it (any case). */
  operation: string;
  /** The document as Go reads it (the oracle's sigs.k8s.io/yaml). */
  value: { desiredObj?: unknown; observedObj?: unknown; statusItems?: unknown; inputReplicas?: number; output?: Record<string, unknown> };
  /** The YAML text of desiredObj and observedObj as the file writes them (de-indented). */
  desiredText?: string;
  observedText?: string;
  /** Each status item's YAML text (undefined: the case has none, which is nil; [] is an empty list). */
  statusItemTexts?: string[];
  /** The expected results, each as Go marshals its typed value. */
  expected: Record<string, unknown>;
}

/**
 * The suite's `resourcecustomizations` directory and a running oracle; or undefined, the test skipped
 * with a printed notice (the conformance data or Go absent).
 */
export function openSuite(t: TestContext): { base: string; go: KarmadaGo } | undefined {
  const root = conformanceDir("karmada-thirdparty");
  if (root === undefined) return void t.skip("conformance data absent");
  const go = startKarmadaGo();
  if ("skip" in go) {
    console.log(go.skip);
    return void t.skip(go.skip);
  }
  return { base: path.join(root, "resourcecustomizations"), go };
}

/** A file's YAML documents as text (split at `---` lines), without the empty ones. */
function documentTexts(text: string): string[] {
  return text
    .split(/^---[ \t]*$/m)
    .filter((d) => d.split("\n").some((l) => l.trim() !== "" && !l.trimStart().startsWith("#")));
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Lines de-indented by their common indentation (blank and comment lines do not count). */
function dedent(lines: string[]): string {
  const content = lines.filter((l) => l.trim() !== "" && !l.trimStart().startsWith("#"));
  const n = Math.min(...content.map(indentOf));
  return lines.map((l) => (indentOf(l) >= n ? l.slice(n) : l.trimStart())).join("\n") + "\n";
}

/** The lines of a top-level key's block value (undefined when the key is absent or its value is inline). */
function blockLines(doc: string, key: string): string[] | undefined {
  const lines = doc.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^${key}:\\s*(#.*)?$`).test(l));
  if (start < 0) return undefined;
  const out: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i]!;
    // The block ends at the next top-level key (a sequence may sit at the key's own column).
    if (/^[^\s#-]/.test(l)) break;
    out.push(l);
  }
  while (out.length > 0 && out[out.length - 1]!.trim() === "") out.pop();
  return out;
}

/** The items of a block sequence, each as its own de-indented text. */
function sequenceItems(lines: string[]): string[] {
  const dashes = lines.filter((l) => /^\s*-(\s|$)/.test(l));
  if (dashes.length === 0) return [];
  const n = Math.min(...dashes.map(indentOf));
  const items: string[][] = [];
  for (const l of lines) {
    if (indentOf(l) === n && /^-(\s|$)/.test(l.slice(n))) items.push([" ".repeat(n) + " " + l.slice(n + 1)]);
    else items.at(-1)?.push(l);
  }
  return items.map(dedent);
}

/** Reads every case of a kind, and normalises its expected outputs with the oracle. */
export async function readKindCases(dir: string, root: string, go: KarmadaGo): Promise<ThirdpartyCase[]> {
  const out: ThirdpartyCase[] = [];
  const testdata = path.join(dir, "testdata");
  if (!existsSync(testdata)) return out;
  for (const name of readdirSync(testdata).sort()) {
    const file = path.join(testdata, name);
    for (const doc of documentTexts(readFileSync(file, "utf8"))) {
      const value = (await go.value({ op: "yaml", text: doc })) as ThirdpartyCase["value"] & { name: string; operation: string };
      const desired = blockLines(doc, "desiredObj");
      const observed = blockLines(doc, "observedObj");
      const items = value.statusItems === undefined || value.statusItems === null ? undefined : blockLines(doc, "statusItems");
      const c: ThirdpartyCase = {
        kind: path.relative(root, dir),
        dir,
        file: path.relative(dir, file),
        name: value.name,
        operation: value.operation,
        value,
        expected: {},
      };
      if (value.desiredObj !== undefined && value.desiredObj !== null) c.desiredText = desired ? dedent(desired) : JSON.stringify(value.desiredObj);
      if (value.observedObj !== undefined && value.observedObj !== null) c.observedText = observed ? dedent(observed) : JSON.stringify(value.observedObj);
      if (value.statusItems !== undefined && value.statusItems !== null) {
        const texts = items ? sequenceItems(items) : (value.statusItems as unknown[]).map((i) => JSON.stringify(i) + "\n");
        if (texts.length !== (value.statusItems as unknown[]).length) throw new Error(`${file}: ${value.name}: ${texts.length} status item texts for ${(value.statusItems as unknown[]).length} items`);
        c.statusItemTexts = texts;
      }
      for (const [key, expected] of Object.entries(value.output ?? {})) c.expected[key] = await go.value({ op: "result", name: key, value: expected });
      out.push(c);
    }
  }
  return out;
}

/** The case's label in messages. */
export function caseLabel(c: ThirdpartyCase): string {
  return `${c.kind}/${c.file}: ${c.name}`;
}

/** Exact equality of JSON values: null, absent, [] and {} all differ; numbers by value. */
export function jsonIdentical(a: unknown, b: unknown): boolean {
  return equalJson(a, b, false, false);
}

/**
 * {@link jsonIdentical}, but under a `resourceRequest` key quantities compare by value, as Karmada's
 * test compares them (its expected outputs spell a quantity any way: `2048m` where Karmada prints
 * `2.048`); how each is printed is checked apart (see differences).
 */
function sameWithQuantities(a: unknown, b: unknown): boolean {
  return equalJson(a, b, true, false);
}

function equalJson(a: unknown, b: unknown, byValue: boolean, quantity: boolean): boolean {
  if (a === b) return true;
  if (quantity && typeof a === "string" && typeof b === "string") {
    const qa = Quantity.parse(a);
    const qb = Quantity.parse(b);
    return qa.ok && qb.ok && qa.quantity.equals(qb.quantity);
  }
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => equalJson(x, b[i], byValue, false));
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && equalJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], byValue, byValue && (quantity || k === "resourceRequest")));
}

const EXCLUDE = "{{EXCLUDE}}";

/** `{{EXCLUDE}}` fields of `expected` removed from both values (paths include array indices), as Karmada's test does. */
function excluding(expected: unknown, actual: unknown): [unknown, unknown] {
  const paths = new Set<string>();
  const walk = (v: unknown, p: string, collect: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${p}.${i}`, collect));
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const kp = p === "" ? k : `${p}.${k}`;
      if (collect ? x === EXCLUDE && paths.add(kp) : paths.has(kp)) continue;
      out[k] = walk(x, kp, collect);
    }
    return out;
  };
  const e = walk(expected, "", true);
  return [e, walk(actual, "", false)];
}

function sortedBy<T>(list: unknown, key: (x: T) => string[]): unknown {
  if (!Array.isArray(list)) return list;
  return [...(list as T[])].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
    return 0;
  });
}

type Dependency = { apiVersion?: string; kind?: string; namespace?: string; name?: string };

/** Whether a result equals the expected one (`expected` as the oracle marshalled it), as described above. */
export function sameResult(name: string, expected: unknown, actual: unknown): boolean {
  switch (name) {
    case "retained":
    case "revised":
    case "aggregatedStatus": {
      const [e, a] = excluding(expected, actual);
      return jsonIdentical(e, a);
    }
    case "components":
      // Karmada's order is the script's (pairs() is unordered): compared sorted by name, as its test does.
      return sameWithQuantities(sortedBy<{ name?: string }>(expected, (c) => [c.name ?? ""]), sortedBy<{ name?: string }>(actual, (c) => [c.name ?? ""]));
    case "dependencies":
      // Karmada sorts them: the answer must be in that order already.
      return jsonIdentical(sortedBy<Dependency>(expected, (d) => [d.apiVersion ?? "", d.kind ?? "", d.namespace ?? "", d.name ?? ""]), actual);
    case "requires":
      return sameWithQuantities(expected, actual);
    default:
      return jsonIdentical(expected, actual);
  }
}

/** The results Karmada holds in a Go type: their printed form is the type's marshalling. */
const TYPED = new Set(["replica", "requires", "components", "dependencies", "healthy", "status"]);

/**
 * The differences between a run's results and the case's expected ones (none: the case passes). A
 * typed result must also be printed exactly as Go marshals its own value (decoded into the type and
 * marshalled again by the oracle, it is unchanged): no `[]` Go would omit, no quantity Go would print
 * another way (`1433.6Mi`, which Go prints `1503238553600m`).
 */
export async function differences(go: KarmadaGo, c: ThirdpartyCase, results: Record<string, unknown>): Promise<string[]> {
  const bad: string[] = [];
  for (const [key, expected] of Object.entries(c.expected)) {
    if (!Object.hasOwn(results, key)) {
      bad.push(`no result '${key}' (got ${Object.keys(results).join(", ") || "none"})`);
      continue;
    }
    const actual = results[key];
    if (TYPED.has(key)) {
      const asGo = await go.ask({ op: "result", name: key, value: actual });
      if (!asGo.ok) bad.push(`${key}: Go cannot hold ${JSON.stringify(actual)}: ${asGo.error}`);
      else if (!jsonIdentical(asGo.value, actual)) bad.push(`${key}: printed ${JSON.stringify(actual)}\n      where Go prints ${JSON.stringify(asGo.value)}`);
    }
    if (!sameResult(key, expected, actual)) bad.push(`${key}: expected ${JSON.stringify(expected)}\n      got ${JSON.stringify(actual)}`);
  }
  return bad;
}
