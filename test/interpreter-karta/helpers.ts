/** Shared by the Karta layer tests: the bundled layer, conformance cases, and Karmada's comparison rules. */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { createKartaInterpreter, type KartaLayer } from "../../src/interpreter/karta/index.js";
import { parseYamlDocuments } from "../../src/interpreter/declarative/yaml-documents.js";
import type { JsonValue, KubeObject } from "../../src/interpreter/types.js";
import { Quantity } from "../../src/quantity/index.js";
import { conformanceRoot } from "../support/conformance.js";

export { repoRoot } from "../support/conformance.js";
import { repoRoot } from "../support/conformance.js";

let bundled: KartaLayer | undefined;

/** The layer over the bundled Kartas (loaded once). */
export function bundledLayer(): KartaLayer {
  if (!bundled) {
    const { interpreter, issues } = createKartaInterpreter();
    if (issues.length > 0) throw new Error(`bundled Kartas: ${issues.join("; ")}`);
    bundled = interpreter;
  }
  return bundled;
}

/** A bundled fixture's workload (test/fixtures/bundled/<name>/workload.yaml). */
export function fixtureWorkload(name: string): KubeObject {
  return parse(readFileSync(path.join(repoRoot, "test", "fixtures", "bundled", name, "workload.yaml"), "utf8")) as KubeObject;
}

/** The text of a bundled definition (definitions/<group>/<version>/<Kind>.yaml). */
export function readBundled(relative: string): string {
  return readFileSync(path.join(repoRoot, "definitions", relative), "utf8");
}

/** The Karmada thirdparty customizations folder of the conformance data, or undefined (with a notice). */
export function thirdpartyDir(): string | undefined {
  const base = conformanceRoot;
  const dir = path.join(base, "karmada-thirdparty", "resourcecustomizations");
  if (!existsSync(dir)) {
    console.log(`notice: conformance data ${dir} is absent; skipping`);
    return undefined;
  }
  return dir;
}

/** One case of a Karmada thirdparty testdata file. */
export interface ThirdpartyCase {
  name: string;
  desiredObj?: KubeObject;
  observedObj?: KubeObject;
  operation: string;
  output?: Record<string, JsonValue>;
}

/** The cases of one testdata file. */
export function readCases(file: string): ThirdpartyCase[] {
  const { documents, errors } = parseYamlDocuments(readFileSync(file, "utf8"));
  if (errors.length > 0) throw new Error(`${file}: ${errors[0]!.message}`);
  return documents.map((d) => d.value as unknown as ThirdpartyCase);
}

/** A quantity in canonical form, so that "1", 1 and "1000m" compare equal (Karmada compares quantities semantically). */
function canonicalQuantity(v: unknown): unknown {
  if (typeof v !== "string" && typeof v !== "number") return v;
  const q = Quantity.parse(String(v));
  return q.ok ? q.quantity.canonicalString() : v;
}

/** Sorted keys; resourceRequest quantities canonical; empty maps and lists dropped (Go's nil vs empty). */
function normalize(v: unknown, key = ""): unknown {
  if (Array.isArray(v)) return v.map((x) => normalize(x));
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      const n = key === "resourceRequest" ? canonicalQuantity(x) : normalize(x, k);
      if (n === undefined || n === null) continue;
      if (typeof n === "object" && Object.keys(n as object).length === 0) continue;
      out[k] = n;
    }
    return out;
  }
  return v;
}

/** Components as Karmada's thirdparty test compares them: sorted by name, quantities semantically. */
export function comparableComponents(list: unknown): unknown {
  const items = Array.isArray(list) ? [...(list as { name?: string }[])] : [];
  items.sort((a, b) => ((a.name ?? "") < (b.name ?? "") ? -1 : (a.name ?? "") > (b.name ?? "") ? 1 : 0));
  return normalize(items);
}

/** Dependencies as Karmada's thirdparty test compares them: sorted by apiVersion, kind, namespace, name. */
export function comparableDependencies(list: unknown): unknown {
  const items = Array.isArray(list) ? [...(list as Record<string, string | undefined>[])] : [];
  const k = (d: Record<string, string | undefined>): string => [d.apiVersion, d.kind, d.namespace ?? "", d.name ?? ""].join("\u0000");
  items.sort((a, b) => (k(a) < k(b) ? -1 : k(a) > k(b) ? 1 : 0));
  return normalize(items);
}
