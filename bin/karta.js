#!/usr/bin/env node
// Entry point of the `karta` command (and of `kubectl-karta`): the compiled CLI does the work. It is the
// bundle in dist/cli when that was built from exactly the modules in dist/src (same sizes and times, or
// else the same contents); otherwise those modules themselves, so a later `tsc` never leaves a stale
// bundle running (scripts/bundle-cli.mjs). An installed package has no src/ beside dist/: nothing
// rebuilds its modules, its bundle was built with them (`prepare`), and it runs without the check (npm
// gives the files new times, and comparing contents cost every command ~13 ms).
import { readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new globalThis.URL("../", import.meta.url));

/** true: the bundle is current; false: it is not; undefined: sizes agree but times differ (compare contents). */
function bundleIsCurrent() {
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(root + "dist/cli/inputs.json", "utf8"));
  } catch {
    return false;
  }
  if (statSync(root + "src", { throwIfNoEntry: false }) === undefined) return true;
  let times = true;
  for (let i = 0; i < inputs.length; i += 3) {
    const s = statSync(root + inputs[i], { throwIfNoEntry: false });
    if (s === undefined || s.size !== inputs[i + 1]) return false;
    if (s.mtimeMs !== inputs[i + 2]) times = false;
  }
  return times ? true : undefined;
}

async function contentsMatch() {
  const { createHash } = await import("node:crypto");
  const hashes = JSON.parse(readFileSync(root + "dist/cli/hashes.json", "utf8"));
  return Object.entries(hashes).every(([file, hash]) => createHash("sha256").update(readFileSync(root + file)).digest("hex") === hash);
}

const current = bundleIsCurrent();
const { main } = current === true || (current === undefined && (await contentsMatch())) ? await import("../dist/cli/main.js") : await import("../dist/src/cli/main.js");

process.exitCode = await main(process.argv.slice(2));
