/**
 * Go test tooling built by scripts/go-tool (reference oracles, prometheus, helm): where a tool's binaries
 * are, or a skip reason the caller prints (`t.skip(reason)`) when Go or the build is missing.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./conformance.js";

export const goToolScript = path.join(repoRoot, "scripts", "go-tool");

/** The tool's binary directory when `scripts/go-tool build NAME` has built it, else a skip reason. */
export function goTool(name: string): { dir: string } | { skip: string } {
  let dir: string;
  try {
    dir = execFileSync(goToolScript, ["path", name], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  } catch (err) {
    return { skip: `notice: Go tool '${name}' is not defined: ${String((err as { stderr?: string }).stderr ?? err).trim()}` };
  }
  if (existsSync(path.join(dir, ".built"))) return { dir };
  return { skip: `notice: Go tool '${name}' is not built (run 'scripts/go-tool build ${name}'; CI builds every tool): skipped` };
}

/**
 * Runs one oracle process over `requests`: each as a JSON line in, one answer line out carrying its `id`.
 * Answers by id; a process that exits otherwise than 0 is an error with its standard error's end.
 */
export async function askJsonLines<A extends { id: string }>(bin: string, requests: readonly unknown[]): Promise<Map<string, A>> {
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
  if (code !== 0) throw new Error(`${path.basename(bin)} exited with ${code}: ${err.slice(-2000)}`);
  const answers = new Map<string, A>();
  for (const line of out.join("").split("\n")) {
    if (line.trim() === "") continue;
    const a = JSON.parse(line) as A;
    answers.set(a.id, a);
  }
  return answers;
}
