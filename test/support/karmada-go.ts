/**
 * The karmada-go oracle (tools/karmada-go): what Karmada's Go code makes of a value, a webhook request
 * or a webhook answer (see the tool's main.go for its requests). One process answers a test file's
 * requests in order, over JSON lines.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { goTool } from "./go-tool.js";

/** A request to the oracle. */
export type KarmadaGoRequest =
  | { op: "yaml"; text: string }
  | { op: "result"; name: string; value: unknown }
  | { op: "request"; uid: string; operation: string; object: unknown; observed?: unknown; replicas: number; statusItems?: unknown }
  | { op: "response"; uid: string; operation: string; object: unknown; body: string };

/** The oracle's answer: a value, or Go's error text. */
export type KarmadaGoAnswer = { ok: true; value: unknown } | { ok: false; error: string };

/** A running oracle. */
export interface KarmadaGo {
  ask(request: KarmadaGoRequest): Promise<KarmadaGoAnswer>;
  /** The value, or throws with the oracle's error. */
  value(request: KarmadaGoRequest): Promise<unknown>;
  close(): void;
}

/** Starts the oracle, or returns the reason a test skips (printed by the caller). */
export function startKarmadaGo(): KarmadaGo | { skip: string } {
  const tool = goTool("karmada-go");
  if ("skip" in tool) return tool;
  const child: ChildProcessWithoutNullStreams = spawn(path.join(tool.dir, "karmada-go"), [], { stdio: ["pipe", "pipe", "pipe"] });
  const waiting: ((a: KarmadaGoAnswer) => void)[] = [];
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const r = JSON.parse(line) as { value?: unknown; error?: string };
    waiting.shift()?.(r.error !== undefined ? { ok: false, error: r.error } : { ok: true, value: r.value ?? null });
  });
  child.on("exit", (code) => {
    for (const w of waiting.splice(0)) w({ ok: false, error: `karmada-go exited (${code}): ${stderr}` });
  });
  const ask = (request: KarmadaGoRequest): Promise<KarmadaGoAnswer> =>
    new Promise((resolve) => {
      waiting.push(resolve);
      child.stdin.write(JSON.stringify(request) + "\n");
    });
  return {
    ask,
    async value(request) {
      const a = await ask(request);
      if (!a.ok) throw new Error(`karmada-go ${request.op}: ${a.error}`);
      return a.value;
    },
    close: () => {
      child.stdin.end();
      child.kill();
    },
  };
}
