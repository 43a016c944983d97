/**
 * Input files named on a command line: a file as it is, a directory as the YAML and JSON files in it
 * (sorted; sub-directories only when recursive). A path that cannot be read is kept, so that reading
 * it reports the problem where the caller reports problems.
 */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";

const INPUT_FILE = /\.(ya?ml|json)$/i;

function isDirectory(p: string): boolean | undefined {
  try {
    return statSync(p).isDirectory();
  } catch {
    return undefined;
  }
}

/** Expands files and directories (`-` for stdin passes through). */
export function listInputFiles(paths: readonly string[], options: { recursive: boolean }): string[] {
  const out: string[] = [];
  const visit = (p: string, top: boolean): void => {
    if (p === "-" || isDirectory(p) !== true) {
      if (top || INPUT_FILE.test(p)) out.push(p);
      return;
    }
    if (!top && !options.recursive) return;
    for (const name of readdirSync(p).sort()) {
      const child = path.join(p, name);
      if (isDirectory(child) === true) visit(child, false);
      else if (INPUT_FILE.test(name)) out.push(child);
    }
  };
  for (const p of paths) visit(p, true);
  return out;
}
