/**
 * The Go oracle (tools/workloadbuilder, built by scripts/go-tool): every case as one JSON line in, one
 * answer line out, in one process per run.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { goTool } from "../../support/go-tool.js";
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
  const bin = path.join(tool.dir, "workloadbuilder-oracle");
  const child = spawn(bin, [], { stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const done = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
  for (const c of cases) child.stdin.write(`${JSON.stringify(c)}\n`);
  child.stdin.end();
  const code = await done;
  if (code !== 0) throw new Error(`workloadbuilder-oracle exited with ${code}: ${err.slice(-2000)}`);
  const answers = new Map<string, OracleAnswer>();
  for (const line of out.split("\n")) {
    if (line.trim() === "") continue;
    const a = JSON.parse(line) as OracleAnswer;
    answers.set(a.id, a);
  }
  return answers;
}
