/**
 * The npm package is the repository: `npm pack` holds everything `karta` reads at run time, and the
 * tarball installed in an empty directory runs every README example (from the repository, so that the
 * files the examples name are there) with its own bundled definitions and customizations, found from
 * the installed package and never from the working directory. It reads a cluster with nothing but its
 * own dependencies.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { run as runAsync } from "../support/cluster.js";
import { repoRoot } from "../support/conformance.js";
import { FAKE_GET_OUTPUT, startFakeApiServer } from "../support/fake-apiserver.js";
import { matches, readmeExamples, words } from "../cli/readme-examples.js";
import { contextBody, eventually, request, spawnServe } from "../server/helpers.js";

const npm = process.platform === "win32" ? "npm.cmd" : "npm";
let dir = "";
let tarball = "";
let installed: string | undefined;
let skipped: string | undefined;

before(() => {
  dir = mkdtempSync(path.join(tmpdir(), "karta-pack-"));
  // Packs what `npm run build` made (dist/ exists: these tests run from it).
  const pack = spawnSync(npm, ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], { cwd: repoRoot, encoding: "utf8" });
  assert.equal(pack.status, 0, pack.stderr);
  const info = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = path.join(dir, info[0]!.filename);
  writeFileSync(path.join(dir, "files.json"), JSON.stringify(info[0]!.files.map((f) => f.path)));
  const app = path.join(dir, "app");
  const install = spawnSync(npm, ["install", "--prefix", app, "--no-audit", "--no-fund", "--prefer-offline", "--omit=dev", tarball], { encoding: "utf8", timeout: 300_000 });
  if (install.status === 0) installed = path.join(app, "node_modules", ".bin");
  else {
    skipped = `npm install of the tarball failed (no registry?): ${install.stderr.trim().split("\n").pop()}`;
    console.log(`# skipped: ${skipped}`);
  }
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(bin: string, args: string[], cwd: string) {
  const r = spawnSync(path.join(installed!, bin), args, { cwd, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("the npm package", () => {
  test("holds what karta reads at run time, the LICENSE and both commands", () => {
    const files = new Set(JSON.parse(readFileSync(path.join(dir, "files.json"), "utf8")) as string[]);
    for (const f of ["LICENSE", "README.md", "package.json", "bin/karta.js", "bin/kubectl-karta.js", "dist/src/cli/main.js", "definitions/kubeflow.org/v1/PyTorchJob.yaml", "interpreter-customizations/argoproj.io/v1alpha1/Workflow.yaml", "examples/pytorchjob.yaml", "schema/karta.schema.json"]) {
      assert.ok(files.has(f), `${f} is not in the package`);
    }
    assert.ok(![...files].some((f) => f.startsWith("test/") || f.startsWith("src/") || f.startsWith("dist/test/")), "tests or sources are packed");
    assert.match(readFileSync(path.join(repoRoot, "LICENSE"), "utf8"), /Apache License\s+Version 2\.0, January 2004/);
  });

  test("ships no source map pointing at a source it does not hold, and no build metadata (esbuild's meta.json)", () => {
    const files = JSON.parse(readFileSync(path.join(dir, "files.json"), "utf8")) as string[];
    const packed = new Set(files);
    assert.deepEqual(files.filter((f) => path.basename(f) === "meta.json" || f.endsWith(".meta.json")), [], "build metadata is packed");
    // tsc's maps of dist/src name ../../src/*.ts, which the package does not hold: left out, not shipped broken.
    assert.deepEqual(files.filter((f) => f.startsWith("dist/src/") && f.endsWith(".map")), []);
    for (const f of files.filter((x) => x.endsWith(".map"))) {
      const map = JSON.parse(readFileSync(path.join(repoRoot, f), "utf8")) as { sources: string[]; sourcesContent?: (string | null)[] };
      const missing = map.sources.filter((s, i) => typeof map.sourcesContent?.[i] !== "string" && !packed.has(path.posix.join(path.posix.dirname(f), s)));
      assert.deepEqual(missing, [], `${f} names sources the package does not hold`);
    }
  });

  test("the installed karta runs every README example that needs no cluster", (t) => {
    if (!installed) return t.skip(skipped);
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    // get and describe read a cluster: test/cluster/cli-get.test.ts runs those.
    const all = readmeExamples(readme, "offline");
    assert.ok(all.length > 10);
    for (const example of all) {
      const r = run("karta", words(example.command).slice(1), repoRoot);
      const actual = (r.out + r.err).split("\n").filter((l) => l !== "");
      if (example.exitCode !== undefined) assert.equal(r.code, example.exitCode, `${example.command}: ${r.err}`);
      else assert.ok(r.code === 0 || r.code === 1, `${example.command}: exit code ${r.code}: ${r.err}`);
      assert.ok(matches(actual, example.expected), `${example.command}: output differs:\n${actual.join("\n")}\n--- expected ---\n${example.expected.join("\n")}`);
    }
  });

  test("the installed karta get reads a cluster with its own client: client-node is not installed", async (t) => {
    if (!installed) return t.skip(skipped);
    assert.ok(!existsSync(path.join(installed, "..", "@kubernetes", "client-node")), "@kubernetes/client-node is installed with karta");
    const server = await startFakeApiServer();
    try {
      // Asynchronously: the server answers on this process's event loop.
      const r = await runAsync(path.join(installed, "karta"), ["get", "pytorchjobs", "--kubeconfig", server.kubeconfig]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, FAKE_GET_OUTPUT);
    } finally {
      server.close();
    }
  });

  test("the installed karta serve starts its serving processes from the package", async (t) => {
    if (!installed) return t.skip(skipped);
    const certs = mkdtempSync(path.join(tmpdir(), "karta-pack-serve-"));
    const served = spawnServe(["--cert-dir", certs, "--processes", "2", "--workers", "1", "--secure-port", "0", "--bind-address", "127.0.0.1", "--metrics-bind-address", "127.0.0.1:0"], { bin: path.join(installed, "karta"), cwd: certs });
    const { child, exited } = served;
    try {
      const ports = await served.serving();
      await eventually(async () => (await fetch(`http://127.0.0.1:${ports.metricsPort}/readyz`)).status === 200, 60_000, "readiness");
      assert.match(await (await fetch(`http://127.0.0.1:${ports.metricsPort}/readyz?verbose`)).text(), /\[\+\]processes ok: 2\/2 serving/);
      const answer = await request(`https://127.0.0.1:${ports.port}/interpret`, readFileSync(path.join(certs, "ca.crt"), "utf8"), contextBody("packed", "InterpretReplica", { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" }, spec: { replicas: 4 } }));
      assert.deepEqual((answer.json() as { response: unknown }).response, { uid: "packed", successful: true, replicas: 4 });
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
    } finally {
      child.kill("SIGKILL");
      rmSync(certs, { recursive: true, force: true });
    }
  });

  test("outside the repository it uses its own bundled definitions and customizations, without a warning", (t) => {
    if (!installed) return t.skip(skipped);
    const elsewhere = mkdtempSync(path.join(tmpdir(), "karta-elsewhere-"));
    try {
      writeFileSync(
        path.join(elsewhere, "workflow.yaml"),
        "apiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: etl, namespace: data}\nspec:\n  parallelism: 4\n  entrypoint: main\n  templates:\n    - name: main\n      container: {image: busybox}\n",
      );
      // Argo Workflow: answered by the Lua customization bundled with the package.
      const flow = run("karta", ["interpret", "--operation", "InterpretReplica", "--desired-file", "workflow.yaml", "--show-layer"], elsewhere);
      assert.equal(flow.code, 0, flow.err);
      assert.equal(flow.err, "");
      assert.match(flow.out, /^# layer: thirdparty\n---\n# \[1\/2\] replica:\n4\n/);
      const pytorch = readFileSync(path.join(repoRoot, "examples", "pytorchjob.yaml"), "utf8");
      writeFileSync(path.join(elsewhere, "job.yaml"), pytorch);
      const inspect = run("karta", ["inspect", "-f", "job.yaml"], elsewhere);
      assert.equal(inspect.code, 0, inspect.err);
      assert.match(inspect.out, /\[definitions\/kubeflow\.org\/v1\/PyTorchJob\.yaml\]/);
      const plugin = run("kubectl-karta", ["definitions", "list", "-o", "name"], elsewhere);
      assert.equal(plugin.code, 0, plugin.err);
      assert.match(plugin.out, /^PyTorchJob\.v1\.kubeflow\.org$/m);
      // kubectl finds the plugin on the PATH: `kubectl karta ...` needs no cluster.
      const kubectl = spawnSync("kubectl", ["karta", "inspect", "-f", "job.yaml", "-o", "json"], { cwd: elsewhere, encoding: "utf8", env: { ...process.env, PATH: `${installed}${path.delimiter}${process.env["PATH"] ?? ""}` } });
      if (kubectl.error) console.log("# skipped: kubectl is not installed: `kubectl karta` not run");
      else {
        assert.equal(kubectl.status, 0, kubectl.stderr);
        assert.equal((JSON.parse(kubectl.stdout) as { root: { kind: string } }).root.kind, "PyTorchJob");
      }
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
