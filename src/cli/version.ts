/** `karta version`: Karta's version (from its package.json) and the Node.js running it. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { packageRoot } from "../files/package.js";
import { parseCommand, type Flags } from "./args.js";
import type { CliIO } from "./io.js";

export const VERSION_HELP = `Usage: karta version [-o json|yaml]

Prints Karta's version and the Node.js version running it.

  -o, --output FORMAT   json or yaml (default: one line)
  -h, --help            show this help

Example:
  karta version
  karta version -o json
`;

export const FLAGS = {
  output: { type: "string", short: "o", choices: ["json", "yaml"] },
} as const satisfies Flags;

/** The version in Karta's package.json. */
export function kartaVersion(): string {
  const root = packageRoot();
  if (root === undefined) return "unknown";
  try {
    const v = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version?: unknown }).version;
    return typeof v === "string" ? v : "unknown";
  } catch {
    return "unknown";
  }
}

/** Runs `karta version`. */
export async function runVersion(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "version", args, FLAGS, VERSION_HELP);
  if (typeof p === "number") return p;
  const info = { kartaVersion: kartaVersion(), nodeVersion: process.version, platform: `${process.platform}/${process.arch}` };
  if (p.values.output === "json") io.stdout(JSON.stringify(info, null, 2) + "\n");
  else if (p.values.output === "yaml") io.stdout(`kartaVersion: ${info.kartaVersion}\nnodeVersion: ${info.nodeVersion}\nplatform: ${info.platform}\n`);
  else io.stdout(`karta ${info.kartaVersion} (node ${info.nodeVersion}, ${info.platform})\n`);
  return 0;
}
