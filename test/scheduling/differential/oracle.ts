/**
 * The Go oracle (tools/workloadbuilder, built by scripts/go-tool): every case as one JSON line in, one
 * answer line out, in one process per run.
 */
import path from "node:path";
import { askJsonLines, goTool } from "../../support/go-tool.js";
import type { Case } from "./cases.js";

export interface OracleAnswer {
  id: string;
  result?: unknown;
  panic?: string;
}

/** Runs the cases through the oracle: answers by case id, or the reason the oracle is missing. */
export async function askOracle(cases: readonly Case[]): Promise<Map<string, OracleAnswer> | { skip: string }> {
  const tool = goTool("workloadbuilder");
  if ("skip" in tool) return tool;
  return askJsonLines<OracleAnswer>(path.join(tool.dir, "workloadbuilder-oracle"), cases);
}
