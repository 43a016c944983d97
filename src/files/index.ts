/**
 * Input files named on a command line: a file as it is, a directory as the YAML and JSON files in it
 * (sorted; sub-directories only when recursive). A path that cannot be read is kept, so that reading
 * it reports the problem where the caller reports problems.
 */
import { readdirSync, statSync, type Stats } from "node:fs";
import path from "node:path";

const INPUT_FILE = /\.(ya?ml|json)$/i;

function statOf(p: string): Stats | undefined {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Expands files and directories (`-` for stdin passes through). Inside a directory only regular files
 * are read (not a FIFO that would block), and a directory reached again through a symbolic link (a
 * loop, or two links to one place) is read once.
 */
export function listInputFiles(paths: readonly string[], options: { recursive: boolean }): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (p: string, top: boolean): void => {
    const st = p === "-" ? undefined : statOf(p);
    if (st === undefined || !st.isDirectory()) {
      if (top || INPUT_FILE.test(p)) out.push(p);
      return;
    }
    if (!top && !options.recursive) return;
    const id = `${st.dev}:${st.ino}`;
    if (seen.has(id)) return;
    seen.add(id);
    for (const name of readdirSync(p).sort()) {
      const child = path.join(p, name);
      const cs = statOf(child);
      if (cs?.isDirectory()) visit(child, false);
      else if (INPUT_FILE.test(name) && (cs === undefined || cs.isFile())) out.push(child);
    }
  };
  for (const p of paths) visit(p, true);
  return out;
}
