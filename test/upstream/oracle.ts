/**
 * The upstream Karta oracle (tools/karta-upstream, built by scripts/go-tool): every request as one JSON
 * line in, one answer line out, in one process per run. What each op answers: tools/karta-upstream/main.go.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { goTool } from "../support/go-tool.js";

export type UpstreamOp = "validate" | "components" | "status" | "pods" | "gang" | "canonical";

export interface UpstreamRequest {
  id: string;
  op: UpstreamOp;
  karta?: unknown;
  object?: unknown;
  pods?: readonly unknown[];
  /** canonical only: the core/v1 type to decode `value` into. */
  kind?: "PodTemplateSpec" | "PodSpec" | "ObjectMeta";
  value?: unknown;
}

export interface UpstreamAnswer {
  id: string;
  result?: any;
  panic?: string;
}

/** The oracle's binary, or the reason it is missing (printed by the caller as a notice). */
export function upstreamOracle(): { bin: string } | { skip: string } {
  const tool = goTool("karta-upstream");
  if ("skip" in tool) return tool;
  return { bin: path.join(tool.dir, "karta-upstream-oracle") };
}

/** Runs the requests through the oracle: answers by request id. */
export async function askUpstream(bin: string, requests: readonly UpstreamRequest[]): Promise<Map<string, UpstreamAnswer>> {
  const child = spawn(bin, [], { stdio: ["pipe", "pipe", "pipe"] });
  const out: string[] = [];
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => out.push(d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const done = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
  for (const r of requests) child.stdin.write(`${JSON.stringify(r)}\n`);
  child.stdin.end();
  const code = await done;
  if (code !== 0) throw new Error(`karta-upstream-oracle exited with ${code}: ${err.slice(-2000)}`);
  const answers = new Map<string, UpstreamAnswer>();
  for (const line of out.join("").split("\n")) {
    if (line.trim() === "") continue;
    const a = JSON.parse(line) as UpstreamAnswer;
    answers.set(a.id, a);
  }
  return answers;
}
