/**
 * tools/kubeprint (built by scripts/go-tool), the oracle for what kubectl and client-go compute: ages,
 * column layouts, the proxy from the environment, the JSONPath and custom-columns printers. One process answers a batch of JSON-line cases.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { goTool } from "./go-tool.js";

const tool = goTool("kubeprint");

/** The skip reason (printed) when kubeprint is not built, else false. */
export const kubeprintSkip: string | false = "skip" in tool ? tool.skip : false;
if (kubeprintSkip) console.log(kubeprintSkip);

/** An answer: the text printed, the error (with the text printed before it, for custom columns), or a panic's message. */
export interface KubeprintAnswer {
  text?: string;
  string?: string;
  error?: string;
  panic?: string;
}

/** Sends every case to one kubeprint process; its answers in order. */
export async function kubeprint(cases: object[]): Promise<KubeprintAnswer[]> {
  const child = spawn(path.join((tool as { dir: string }).dir, "kubeprint"), { stdio: ["pipe", "pipe", "inherit"] });
  const answers: KubeprintAnswer[] = [];
  const done = new Promise<void>((resolve) => createInterface({ input: child.stdout }).on("line", (l) => answers.push(JSON.parse(l) as KubeprintAnswer)).on("close", resolve));
  child.stdin.end(cases.map((c) => JSON.stringify(c)).join("\n") + "\n");
  await done;
  return answers;
}
