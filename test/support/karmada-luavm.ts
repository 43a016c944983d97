/**
 * The reference Lua VM (tools/karmada-luavm: Karmada's luavm semantics on gopher-lua v1.1.2): one
 * process answers a batch of cases, one JSON line each way.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { JsonValue } from "../../src/input/index.js";
import { goTool } from "./go-tool.js";

/** One script call, as the driver reads it. */
export interface LuaOracleCase {
  id: string;
  /** InterpretReplica, InterpretComponent, ReviseReplica, Retain, AggregateStatus, InterpretStatus, InterpretHealth or InterpretDependency. */
  operation: string;
  script?: string;
  /** InterpretDependency: every dependency script of the kind. */
  scripts?: string[];
  object: JsonValue;
  observed?: JsonValue;
  replicas?: number;
  /** AggregateStatus: the status items; null passes nil. */
  items?: JsonValue[] | null;
  /** The clock of os.time/os.date, in Unix seconds. */
  now?: number;
}

/** The driver's answer: Karmada's result as its types marshal, its error text, or why the case could not be read. */
export type LuaOracleAnswer = { id: string; result: JsonValue } | { id: string; error: string } | { id: string; invalid: string };

/** The driver's path, or a skip notice when Go or the tool's build is missing. */
export function karmadaLuaVM(): { binary: string } | { skip: string } {
  const tool = goTool("karmada-luavm");
  return "dir" in tool ? { binary: path.join(tool.dir, "karmada-luavm") } : tool;
}

/** Runs the cases through one driver process; answers come back in the cases' order. */
export function runKarmadaLuaVM(binary: string, cases: readonly LuaOracleCase[]): Promise<LuaOracleAnswer[]> {
  return new Promise((resolve, reject) => {
    // The same time zone as this process, for os.date's local time.
    const child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, TZ: process.env["TZ"] ?? Intl.DateTimeFormat().resolvedOptions().timeZone } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) {
        reject(new Error(`karmada-luavm exited with ${code}: ${Buffer.concat(err).toString("utf8").slice(-2000)}`));
        return;
      }
      const lines = Buffer.concat(out).toString("utf8").split("\n").filter((l) => l !== "");
      const answers = lines.map((l) => JSON.parse(l) as LuaOracleAnswer);
      if (answers.length !== cases.length) {
        reject(new Error(`karmada-luavm answered ${answers.length} of ${cases.length} cases`));
        return;
      }
      resolve(answers);
    });
    const input = cases.map((c) => JSON.stringify(c)).join("\n") + "\n";
    if (process.env["DUMP_LUA_CASES"]) writeFileSync(process.env["DUMP_LUA_CASES"], input);
    child.stdin.end(input);
  });
}
