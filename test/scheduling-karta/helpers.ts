/** Shared helpers of the Karta bridge tests: bundled definitions, their fixtures, and the compile fixtures. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { parseObjects } from "../../src/cli/objects.js";
import { loadDefinitions, type Definition } from "../../src/definition/index.js";
import type { CompositePodGroup, PodGroup, Workload } from "../../src/scheduling/index.js";
import { validateCompositePodGroup, validatePodGroup, validateWorkload } from "../../src/scheduling/index.js";

export { repoRoot } from "../support/conformance.js";
import { repoRoot } from "../support/conformance.js";
export const compileFixtures = path.join(repoRoot, "test", "fixtures", "compile");
export const bundledFixtures = path.join(repoRoot, "test", "fixtures", "bundled");

/** A definition from a file (definitions/<rel> or an absolute path). */
export function definitionFile(file: string): Definition {
  const full = path.isAbsolute(file) ? file : path.join(repoRoot, file);
  const loaded = loadDefinitions(readFileSync(full, "utf8"), full);
  if (loaded.definitions.length !== 1) throw new Error(`${file}: expected one definition`);
  return loaded.definitions[0]!;
}

/** A definition from YAML text. */
export function definitionText(text: string): Definition {
  const loaded = loadDefinitions(text, "inline.yaml");
  if (loaded.definitions.length !== 1) throw new Error(`inline: expected one definition: ${JSON.stringify(loaded.diagnostics)}`);
  return loaded.definitions[0]!;
}

/** The workload object of a bundled fixture (test/fixtures/bundled/<Kind>/workload.yaml). */
export function bundledObject(kind: string): Record<string, unknown> {
  return parse(readFileSync(path.join(bundledFixtures, kind, "workload.yaml"), "utf8")) as Record<string, unknown>;
}

/** The pods of a bundled fixture. */
export function bundledPods(kind: string): Record<string, unknown>[] {
  const file = path.join(bundledFixtures, kind, "pods.yaml");
  return parseObjects(readFileSync(file, "utf8"), file) as Record<string, unknown>[];
}

/** A YAML file of the compile fixtures, as one object. */
export function compileFixture(name: string): Record<string, unknown> {
  return parse(readFileSync(path.join(compileFixtures, name), "utf8")) as Record<string, unknown>;
}

/** Every error our own validation finds in the emitted objects, as `Kind name: field: detail`. */
export function emittedErrors(objects: { workload?: Workload; compositePodGroups: CompositePodGroup[]; podGroups: PodGroup[] }): string[] {
  const out: string[] = [];
  if (objects.workload) for (const e of validateWorkload(objects.workload)) out.push(`Workload: ${e.field}: ${e.detail}`);
  for (const c of objects.compositePodGroups) for (const e of validateCompositePodGroup(c)) out.push(`CompositePodGroup ${c.metadata.name}: ${e.field}: ${e.detail}`);
  for (const g of objects.podGroups) for (const e of validatePodGroup(g)) out.push(`PodGroup ${g.metadata.name}: ${e.field}: ${e.detail}`);
  return out;
}

/** A JSON deep copy with a change applied, for variants of a fixture. */
export function variant<T>(value: T, change: (copy: T) => void): T {
  const copy = structuredClone(value);
  change(copy);
  return copy;
}
