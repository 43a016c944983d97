/* global URL */
// The compiled command line for bin/karta.js and bin/kubectl-karta.js: the bundle in dist/cli when it
// was built from exactly the modules in dist/src (same sizes and times, or else the same contents, as
// after `npm pack` resets times), otherwise those modules themselves.
import { readFileSync, statSync } from "node:fs";

const root = new URL("../", import.meta.url);

function bundleIsCurrent() {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(new URL("dist/cli/inputs.json", root), "utf8")).files;
  } catch {
    return false;
  }
  const changed = [];
  for (const [file, size, mtimeMs] of inputs) {
    let s;
    try {
      s = statSync(new URL(file, root));
    } catch {
      return false;
    }
    if (s.size !== size) return false;
    if (s.mtimeMs !== mtimeMs) changed.push(file);
  }
  return changed.length === 0 ? true : undefined;
}

async function contentsMatch() {
  const { createHash } = await import("node:crypto");
  const inputs = JSON.parse(readFileSync(new URL("dist/cli/inputs.json", root), "utf8")).files;
  return inputs.every(([file, , , hash]) => createHash("sha256").update(readFileSync(new URL(file, root))).digest("hex") === hash);
}

const current = bundleIsCurrent();
export const { main } = current === true || (current === undefined && (await contentsMatch())) ? await import("../dist/cli/main.js") : await import("../dist/src/cli/main.js");
