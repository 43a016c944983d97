// Builds the playground (playground/) into static files under dist/playground-page/: index.html, app.js,
// app.css and wasmoon's glue.wasm (the Lua VM, fetched only when a Lua layer is asked). The bundled
// definitions, their examples and Karta's own interpreter customizations are embedded as texts.
// Run by `npm run build`, `prepare` and the playground test; `karta playground` serves the result.
/* global process, console */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { parse } from "yaml";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function walk(dir, ext) {
  const out = [];
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...walk(full, ext));
    else if (ext.test(name)) out.push(full);
  }
  return out;
}

const rel = (file) => path.relative(root, file).split(path.sep).join("/");
const read = (file) => readFileSync(file, "utf8");

/** Each bundled definition with an example workload and pods: the README's where there is one, else the test fixture's. */
function bundledDefinitions() {
  const fixturesDir = path.join(root, "test", "fixtures", "bundled");
  const fixtures = [];
  for (const dir of existsSync(fixturesDir) ? readdirSync(fixturesDir).sort() : []) {
    const expected = path.join(fixturesDir, dir, "expected.yaml");
    if (!existsSync(expected)) continue;
    const e = parse(read(expected)) ?? {};
    const workload = e.workloadFile ? path.join(root, e.workloadFile) : path.join(fixturesDir, dir, "workload.yaml");
    const pods = e.podsFile ? path.join(root, e.podsFile) : path.join(fixturesDir, dir, "pods.yaml");
    if (typeof e.definition === "string" && existsSync(workload)) fixtures.push({ definition: e.definition, workload, pods, readme: !!e.workloadFile });
  }
  const defsDir = path.join(root, "definitions");
  return walk(defsDir, /\.ya?ml$/).map((file) => {
    const id = path.relative(defsDir, file).split(path.sep).join("/");
    const candidates = fixtures.filter((f) => f.definition === id).sort((a, b) => Number(b.readme) - Number(a.readme));
    const ex = candidates[0];
    return {
      id,
      kind: path.basename(file).replace(/\.ya?ml$/, ""),
      file: rel(file),
      text: read(file),
      example: ex ? { objectFile: rel(ex.workload), object: read(ex.workload), podsFile: existsSync(ex.pods) ? rel(ex.pods) : "", pods: existsSync(ex.pods) ? read(ex.pods) : "" } : undefined,
    };
  });
}

function customizations() {
  return walk(path.join(root, "interpreter-customizations"), /\.ya?ml$/).map((file) => ({ file: rel(file), text: read(file) }));
}

/** Resolves the modules the browser cannot have: Node builtins the page never calls, and the embedded data. */
const browserPlugin = {
  name: "karta-playground",
  setup(build) {
    build.onResolve({ filter: /^node:util$/ }, () => ({ path: path.join(root, "playground", "shims", "util.ts") }));
    build.onResolve({ filter: /^node:module$/ }, () => ({ path: path.join(root, "playground", "shims", "module.ts") }));
    build.onResolve({ filter: /^(node:)?(fs|path|url|buffer|crypto|https|tls|os|process|worker_threads)$/ }, () => ({ path: path.join(root, "playground", "shims", "unavailable.cjs") }));
    // wasmoon's Node branch imports 'module' dynamically; the browser never takes it.
    build.onResolve({ filter: /^module$/ }, () => ({ path: "module", external: true }));
    build.onResolve({ filter: /^virtual:bundled$/ }, () => ({ path: "bundled", namespace: "virtual" }));
    build.onLoad({ filter: /.*/, namespace: "virtual" }, () => ({
      contents: `export const definitions = ${JSON.stringify(bundledDefinitions())};\nexport const customizations = ${JSON.stringify(customizations())};\n`,
      loader: "js",
    }));
  },
};

/** Builds the page; returns the output directory and the files written with their sizes. */
export async function buildPlayground({ outdir = path.join(root, "dist", "playground-page"), minify = true } = {}) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { app: path.join(root, "playground", "src", "main.ts") },
    bundle: true,
    platform: "browser",
    format: "esm",
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    target: ["chrome110", "firefox115", "safari16"],
    outdir,
    minify,
    sourcemap: "linked",
    legalComments: "linked",
    metafile: true,
    logLevel: "silent",
    plugins: [browserPlugin],
    define: { "process.env.NODE_ENV": '"production"' },
  });
  for (const w of result.warnings) console.error(`playground build: warning: ${w.text}`);
  // The chunks app.js imports statically are fetched with it, not after it has been parsed.
  const app = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint?.endsWith("main.ts"));
  const eager = (app?.[1].imports ?? []).filter((i) => i.kind === "import-statement").map((i) => path.relative(outdir, path.resolve(root, i.path)).split(path.sep).join("/"));
  const preload = eager.map((f) => `<link rel="modulepreload" href="${f}">`).join("\n");
  writeFileSync(path.join(outdir, "index.html"), read(path.join(root, "playground", "index.html")).replace('<script type="module" src="app.js"></script>', `${preload}\n<script type="module" src="app.js"></script>`));
  copyFileSync(path.join(root, "playground", "style.css"), path.join(outdir, "style.css"));
  copyFileSync(path.join(root, "node_modules", "wasmoon", "dist", "glue.wasm"), path.join(outdir, "glue.wasm"));
  // esbuild's metafile (what went into each chunk, for size analysis) is returned, not written into the
  // page: nothing reads it at run time, so 'karta playground' does not serve it nor the npm package ship it.
  return { outdir, metafile: result.metafile };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { outdir, metafile } = await buildPlayground();
    writeFileSync(`${outdir}.meta.json`, JSON.stringify(metafile));
    console.log(`playground built in ${rel(outdir)}/`);
  } catch (err) {
    console.error(`playground build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
