/**
 * Go test tooling built by scripts/go-tool (reference oracles, prometheus, helm): where a tool's binaries
 * are, or a skip reason the caller prints (`t.skip(reason)`) when Go or the build is missing.
 */
import { execFileSync } from "node:child_process";
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
