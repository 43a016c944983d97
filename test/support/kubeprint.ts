/**
 * tools/kubeprint (built by scripts/go-tool), the oracle for what kubectl and client-go compute: ages,
 * column layouts, the proxy from the environment. One process answers a batch of JSON-line cases.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { goTool } from "./go-tool.js";

const tool = goTool("kubeprint");

/** The skip reason (printed) when kubeprint is not built, else false. */
export const kubeprintSkip: string | false = "skip" in tool ? tool.skip : false;
if (kubeprintSkip) console.log(kubeprintSkip);

/** Sends every case to one kubeprint process; its answers in order. */
export async function kubeprint(cases: object[]): Promise<{ text?: string; string?: string; error?: string }[]> {
  const child = spawn(path.join((tool as { dir: string }).dir, "kubeprint"), { stdio: ["pipe", "pipe", "inherit"] });
  const answers: { text?: string; string?: string; error?: string }[] = [];
  const done = new Promise<void>((resolve) => createInterface({ input: child.stdout }).on("line", (l) => answers.push(JSON.parse(l) as { text?: string; string?: string; error?: string })).on("close", resolve));
  child.stdin.end(cases.map((c) => JSON.stringify(c)).join("\n") + "\n");
  await done;
  return answers;
}
