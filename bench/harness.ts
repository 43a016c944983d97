/** Benchmark helpers: measure operations per second, print results as a table of ratios, load the bundled Kartas. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { loadDefinitions, type Definition } from "../src/definition/index.js";

/** The repository (this file runs from dist/bench/). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/**
 * The Node.js options of a `karta controller` a benchmark starts: those in the environment variable
 * `variable` (space-separated) when it is set, else the NODE_OPTIONS deploy/controller/deployment.yaml
 * gives the controller, so that the benchmarks run it as it is deployed.
 */
export function nodeOptions(variable: string): string[] {
  const given = process.env[variable];
  if (given !== undefined) return given.split(" ").filter(Boolean);
  const file = path.join(repoRoot, "deploy", "controller", "deployment.yaml");
  const deployment = parse(readFileSync(file, "utf8")) as { spec: { template: { spec: { containers: { env?: { name: string; value?: string }[] }[] } } } };
  const value = deployment.spec.template.spec.containers[0]?.env?.find((e) => e.name === "NODE_OPTIONS")?.value;
  if (value === undefined) throw new Error(`${file}: no NODE_OPTIONS in the controller's container`);
  return value.split(" ").filter(Boolean);
}

/** The middle value of `xs` (the mean of the two middle ones when their number is even); NaN when empty. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

/** `../shared/conformance` beside the repository (KARTA_CONFORMANCE overrides it); it may be absent. */
export const conformanceRoot: string = process.env["KARTA_CONFORMANCE"] ?? path.resolve(repoRoot, "..", "shared", "conformance");

/** A Karta bundled under definitions/, e.g. `kubeflow.org/v1/PyTorchJob.yaml`: benchmarks measure what users run. */
export function bundledDefinition(file: string): Definition {
  const at = path.join(repoRoot, "definitions", file);
  const definition = loadDefinitions(readFileSync(at, "utf8"), at).definitions[0];
  if (!definition) throw new Error(`${at}: no definition`);
  return definition;
}

export interface BenchResult {
  /** What was measured. */
  name: string;
  /** Operations per second (or, for whole-command timings, 1 / seconds). */
  opsPerSec: number;
  /** Name of the baseline this result is compared with, measured in the same run. */
  baseline?: string;
  /** `opsPerSec / baseline's opsPerSec`: above 1 means faster than the baseline. */
  ratio?: number;
  /** Target and verdict, or any remark. */
  note?: string;
}

/** Runs `fn` repeatedly for about `ms` milliseconds (after a warm-up) and returns calls per second. */
export function opsPerSecond(fn: () => unknown, ms = 300): number {
  const warmEnd = performance.now() + ms / 3;
  let sink: unknown;
  while (performance.now() < warmEnd) sink = fn();
  let n = 0;
  let batch = 1;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < batch; i++) sink = fn();
    n += batch;
    batch = Math.min(batch * 2, 1 << 14);
    elapsed = performance.now() - start;
  }
  void sink;
  return (n * 1000) / elapsed;
}

export function formatOps(ops: number): string {
  if (ops >= 1e6) return `${(ops / 1e6).toFixed(2)}M/s`;
  if (ops >= 1e3) return `${(ops / 1e3).toFixed(1)}k/s`;
  return `${ops.toFixed(2)}/s`;
}

/** Prints results as an aligned table. */
export function printTable(title: string, results: BenchResult[]): void {
  console.log(`\n## ${title}`);
  const rows = results.map((r) => [
    r.name,
    formatOps(r.opsPerSec),
    r.baseline ?? "",
    r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}x`,
    r.note ?? "",
  ]);
  const header = ["measure", "rate", "baseline", "ratio", "note"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
  console.log(line(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const r of rows) console.log(line(r));
}
