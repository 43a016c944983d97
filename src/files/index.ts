/**
 * Input files named on a command line: a file as it is, a directory as the YAML and JSON files in it
 * (sorted; sub-directories only when recursive). A path that cannot be read is kept, so that reading
 * it reports the problem where the caller reports problems.
 */
import { lstatSync, readdirSync, statSync, type Stats } from "node:fs";
import path from "node:path";

const INPUT_FILE = /\.(ya?ml|json)$/i;

function isSymbolicLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function statOf(p: string): Stats | undefined {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Expands files and directories (`-` for stdin passes through). Inside a directory only regular files
 * are read (not a FIFO that would block), and a symbolic link to a directory is not followed, as
 * kubectl's -R (filepath.Walk) does not follow one (a link out of the tree, to /proc or /, would read
 * what was never meant); a directory named on the command line is read once, whatever its names. A
 * directory that cannot be listed is kept as an input, so that reading it says why (permission
 * denied). A file named twice (`a.yaml ./a.yaml`, or a file and its directory) is listed once, by its
 * first name: reading it twice would count it twice.
 */
export function listInputFiles(paths: readonly string[], options: { recursive: boolean }): string[] {
  return expandInputs(paths, options).files;
}

/** What `expandInputs` found: the files, and the directories named on the command line that hold none. */
export interface ExpandedInputs {
  files: string[];
  /** Directories given that yielded no .yaml, .yml or .json file (at their top only, unless recursive). */
  empty: string[];
}

/**
 * Why a directory `expandInputs` found empty has nothing to read, for the command's message; reading
 * recursively is suggested only when its sub-directories hold such files (read without -R=false).
 */
export function noInputFiles(dir: string, recursive: boolean): string {
  const why = recursive ? ", searched recursively" : expandInputs([dir], { recursive: true }).files.length > 0 ? "; its sub-directories hold some, read without -R=false" : "";
  return `no definition files in this directory (.yaml, .yml or .json${why})`;
}

/** `listInputFiles`, with the directories given that hold no input file (`kubectl apply -f emptydir/` refuses: "no objects passed"). */
export function expandInputs(paths: readonly string[], options: { recursive: boolean }): ExpandedInputs {
  const out: string[] = [];
  const empty: string[] = [];
  const seen = new Set<string>();
  /** Input files met, duplicates included: a directory whose files were all listed under another name is not empty. */
  let found = 0;
  const add = (p: string, st: Stats | undefined): void => {
    found++;
    const id = st?.isFile() ? `${st.dev}:${st.ino}` : undefined;
    if (id !== undefined && seen.has(id)) return;
    if (id !== undefined) seen.add(id);
    out.push(p);
  };
  const visit = (p: string, top: boolean): void => {
    const st = p === "-" ? undefined : statOf(p);
    if (st === undefined || !st.isDirectory()) {
      if (top || INPUT_FILE.test(p)) add(p, st);
      return;
    }
    if (!top && !options.recursive) return;
    const id = `${st.dev}:${st.ino}`;
    if (seen.has(id)) {
      found++;
      return;
    }
    seen.add(id);
    let names: string[];
    try {
      names = readdirSync(p).sort();
    } catch {
      add(p, undefined);
      return;
    }
    for (const name of names) {
      const child = path.join(p, name);
      const cs = statOf(child);
      if (cs?.isDirectory()) {
        if (!isSymbolicLink(child)) visit(child, false);
      } else if (INPUT_FILE.test(name) && (cs === undefined || cs.isFile())) add(child, cs);
    }
  };
  for (const p of paths) {
    const before = found;
    visit(p, true);
    if (found === before) empty.push(p);
  }
  return { files: out, empty };
}
