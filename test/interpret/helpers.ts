/** Shared helpers of the interpretation tests: fixtures, catalog definitions, YAML. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { loadDefinitions, type Definition, type Karta } from "../../src/definition/index.js";
import { parseObjects } from "../../src/cli/objects.js";
import { conformanceDir } from "../support/conformance.js";

export { repoRoot } from "../support/conformance.js";
import { repoRoot } from "../support/conformance.js";
export const fixturesDir = path.join(repoRoot, "test", "fixtures", "interpret");

/** A workload object from test/fixtures/interpret. */
export function fixtureObject(name: string): Record<string, unknown> {
  return parse(readFileSync(path.join(fixturesDir, name), "utf8")) as Record<string, unknown>;
}

/** The pods of a fixture (a v1 List). */
export function fixturePods(name: string): Record<string, unknown>[] {
  return parseObjects(readFileSync(path.join(fixturesDir, name), "utf8"), name) as Record<string, unknown>[];
}

/** The catalog's definition `name` (without .yaml), or undefined when the conformance data is absent. */
export function catalogDefinition(name: string): Definition | undefined {
  const dir = conformanceDir("karta-catalog");
  if (!dir) return undefined;
  const file = path.join(dir, `${name}.yaml`);
  const loaded = loadDefinitions(readFileSync(file, "utf8"), file);
  return loaded.definitions[0];
}

/** A Karta from YAML text (for the small definitions the tests write themselves). */
export function karta(text: string): Karta {
  const loaded = loadDefinitions(text, "test.yaml");
  if (loaded.definitions.length !== 1) throw new Error(`expected one definition: ${JSON.stringify(loaded.diagnostics)}`);
  return loaded.definitions[0]!.karta;
}

/** A deep copy with changes at dotted paths. */
export function clone<T>(v: T): T {
  return structuredClone(v);
}
