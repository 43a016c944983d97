/** Loading the bundled definitions and their fixtures for the tests. */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { CrdIndex, loadCrds, loadDefinitions, type Definition } from "../../src/definition/index.js";

/** The repository root (tests run from dist/test/bundled). */
export { repoRoot } from "../support/conformance.js";
import { repoRoot } from "../support/conformance.js";
export const definitionsDir = path.join(repoRoot, "definitions");
export const fixturesDir = path.join(repoRoot, "test", "fixtures", "bundled");

/** Every .yaml file under definitions/, as paths relative to it (group/version/Kind.yaml). */
export function definitionFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".yaml")) out.push(path.relative(definitionsDir, full).split(path.sep).join("/"));
    }
  };
  walk(definitionsDir);
  return out;
}

/** The single definition of a bundled file (fails the test if the file holds anything else). */
export function loadBundled(relative: string): { text: string; definition: Definition } {
  const file = path.join(definitionsDir, relative);
  const text = readFileSync(file, "utf8");
  const loaded = loadDefinitions(text, file);
  if (loaded.definitions.length !== 1) throw new Error(`${relative}: expected one definition, found ${loaded.definitions.length}`);
  return { text, definition: loaded.definitions[0]! };
}

/** The CRD manifests the definition tests keep (PyTorchJob, JobSet, RayCluster), to check workload paths. */
export function crdIndex(): CrdIndex {
  const dir = path.join(repoRoot, "test", "fixtures", "definition", "crds");
  const crds = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .flatMap((f) => loadCrds(readFileSync(path.join(dir, f), "utf8"), f).crds);
  return new CrdIndex(crds);
}

/** A scale entry of an expected component instance. */
export interface ExpectedInstance {
  id?: string;
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
}

/** An expected gang group; with subgroups (newer format) also minSubGroup and each subgroup's minimum and pods. */
export interface ExpectedGroup {
  name: string;
  minMember: number;
  members: string[];
  minSubGroup?: number;
  subGroups?: { name: string; minMember: number; members: string[] }[];
}

/** A fixture's expected.yaml: what the definition must see in the workload and its pods. */
export interface Expected {
  /** The definition, relative to definitions/. */
  definition: string;
  /** The workload and pods, relative to the repository root, when not the fixture's own workload.yaml/pods.yaml. */
  workloadFile?: string;
  podsFile?: string;
  statuses: string[];
  /** Per component: its instances' scale (absent: the component has no scale). */
  components: Record<string, { instances?: ExpectedInstance[] }>;
  podComponents: Record<string, { component: string; instance?: string }>;
  groups: ExpectedGroup[];
}

/** One fixture case: the expected result, the workload object and its pods. */
export interface FixtureCase {
  name: string;
  expected: Expected;
  workload: Record<string, unknown>;
  pods: Record<string, unknown>[];
}

export function fixtureCases(): FixtureCase[] {
  return readdirSync(fixturesDir)
    .filter((d) => statSync(path.join(fixturesDir, d)).isDirectory())
    .sort()
    .map((name) => {
      const dir = path.join(fixturesDir, name);
      const expected = parse(readFileSync(path.join(dir, "expected.yaml"), "utf8")) as Expected;
      const workloadFile = expected.workloadFile ? path.join(repoRoot, expected.workloadFile) : path.join(dir, "workload.yaml");
      const podsFile = expected.podsFile ? path.join(repoRoot, expected.podsFile) : path.join(dir, "pods.yaml");
      const workload = parse(readFileSync(workloadFile, "utf8")) as Record<string, unknown>;
      const list = parse(readFileSync(podsFile, "utf8")) as { kind: string; items: Record<string, unknown>[] };
      if (list.kind !== "List") throw new Error(`${podsFile}: expected a List of pods`);
      return { name, expected, workload, pods: list.items };
    });
}

/** A deep copy to mutate a fixture object in a test. */
export function clone<T>(value: T): T {
  return structuredClone(value);
}
