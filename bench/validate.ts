/**
 * Validating the published Karta catalog (../shared/conformance/karta-catalog, read in place): the
 * issue's target is all 15 files in under one second. Baseline: parsing the same files as YAML.
 */
import { readdirSync, readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { validateText } from "../src/definition/index.js";
import { conformanceRoot, type BenchResult } from "./harness.js";


export function benchValidate(): BenchResult[] {
  const dir = path.join(conformanceRoot, "karta-catalog");
  if (!existsSync(dir)) return [{ name: "validate the Karta catalog", opsPerSec: 0, note: `${dir} absent: skipped` }];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => ({ file: path.join(dir, f), text: readFileSync(path.join(dir, f), "utf8") }));
  const time = (fn: () => void): number => {
    fn();
    let best = Infinity;
    for (let i = 0; i < 5; i++) {
      const start = performance.now();
      fn();
      best = Math.min(best, performance.now() - start);
    }
    return best;
  };
  let errors = 0;
  const validateMs = time(() => {
    errors = 0;
    for (const { file, text } of files) errors += validateText(text, file).diagnostics.filter((d) => d.severity === "error").length;
  });
  const parseMs = time(() => {
    for (const { text } of files) parseAllDocuments(text);
  });
  return [
    { name: `YAML parse of ${files.length} catalog files`, opsPerSec: 1000 / parseMs, note: `${parseMs.toFixed(1)} ms` },
    {
      name: `validate ${files.length} catalog files (rules, jq, lint)`,
      opsPerSec: 1000 / validateMs,
      baseline: "YAML parse",
      ratio: parseMs / validateMs,
      note: `${validateMs.toFixed(1)} ms, ${errors} errors; target under 1 s: ${validateMs < 1000 ? "met" : "MISSED"}`,
    },
  ];
}
