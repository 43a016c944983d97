// Bundles the command line compiled by tsc (dist/src) into dist/cli/ with esbuild: one chunk per
// command and the modules they share, so that a command loads a few files instead of sixty (Node's
// module loader costs more than the code at start-up). bin/karta.js uses the bundle only while every
// file it was built from is unchanged (dist/cli/inputs.json and hashes.json record their sizes, times and hashes), so a
// later `tsc` never leaves it running stale code. Run by `npm run build`, `prepare`, `npm test` and
// `npm run bench`.
/* global process, console */
import { createHash } from "node:crypto";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const src = path.join(root, "dist", "src");
const outdir = path.join(root, "dist", "cli");
const shim = path.join(root, "scripts", "cli-module-shim.mjs");

/** `node:module` imported by Karta's modules resolves to the shim; everything else of Node stays external. */
const modulePlugin = {
  name: "karta-cli-module",
  setup(build) {
    build.onResolve({ filter: /^node:module$/ }, (args) => (args.importer.startsWith(src + path.sep) ? { path: shim } : { path: "node:module", external: true }));
  },
};

/**
 * `yaml` is some sixty CommonJS files, each resolved, read and compiled when a command first reads YAML
 * with positions; the bundle imports it from one file beside the chunks instead (yaml.cjs, built below;
 * the shim answers the modules that require it lazily).
 */
const yamlPlugin = {
  name: "karta-cli-yaml",
  setup(build) {
    build.onResolve({ filter: /^yaml$/ }, () => ({ path: "./yaml.cjs", external: true }));
  },
};

export async function bundleCli() {
  rmSync(outdir, { recursive: true, force: true });
  const result = await esbuild.build({
    entryPoints: {
      main: path.join(src, "cli", "main.js"),
      // Worker threads are started from files beside the module that starts them.
      worker: path.join(src, "server", "worker.js"),
      "regex-worker": path.join(src, "jq", "native", "regex-worker.js"),
      // So are the serving processes of `karta serve --processes`.
      "serving-process": path.join(src, "cli", "serving-process.js"),
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    splitting: true,
    chunkNames: "chunk-[hash]",
    packages: "external",
    outdir,
    metafile: true,
    logLevel: "silent",
    plugins: [modulePlugin, yamlPlugin],
  });
  const yaml = await esbuild.build({
    entryPoints: { yaml: createRequire(import.meta.url).resolve("yaml") },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    outExtension: { ".js": ".cjs" },
    outdir,
    logLevel: "silent",
  });
  for (const w of [...result.warnings, ...yaml.warnings]) console.error(`cli bundle: warning: ${w.text}`);
  const files = Object.keys(result.metafile.inputs)
    .map((f) => path.resolve(root, f))
    .filter((f) => f.startsWith(src + path.sep))
    .sort();
  // bin/karta.js reads inputs.json at every start: a flat [file, size, mtimeMs, ...] list; the hashes
  // are read only when times differ.
  const inputs = [];
  const hashes = {};
  for (const f of files) {
    const s = statSync(f);
    const name = path.relative(root, f).split(path.sep).join("/");
    inputs.push(name, s.size, s.mtimeMs);
    hashes[name] = createHash("sha256").update(readFileSync(f)).digest("hex");
  }
  writeFileSync(path.join(outdir, "inputs.json"), JSON.stringify(inputs));
  writeFileSync(path.join(outdir, "hashes.json"), JSON.stringify(hashes));
  return { outdir, inputs: files.length };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { inputs } = await bundleCli();
    console.log(`command line bundled in dist/cli/ (${inputs} modules)`);
  } catch (err) {
    console.error(`cli bundle failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
