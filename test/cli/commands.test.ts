/** `karta definitions`, `completion`, `version`, definitions found by kind, and interpret's karmadactl parity. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { parse } from "yaml";
import { tabulate } from "../../src/cli/interpret.js";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { repoRoot } from "../support/conformance.js";

async function karta(args: string[], stdin = "", files: Record<string, string> = {}) {
  const io = memoryIO(stdin, files);
  const cwd = process.cwd();
  process.chdir(repoRoot);
  try {
    const code = await main(args, io);
    return { code, out: io.out, err: io.err };
  } finally {
    process.chdir(cwd);
  }
}

const has = (tool: string): boolean => spawnSync(tool, ["--version"], { stdio: "ignore" }).status === 0;

describe("karta definitions", () => {
  test("list: one row per bundled definition with its kind, components, gang format and file", async () => {
    const r = await karta(["definitions", "list"]);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.trimEnd().split("\n");
    assert.match(lines[0]!, /^KIND +APIVERSION +COMPONENTS +GANG +FILE$/);
    assert.ok(lines.some((l) => /^PyTorchJob +kubeflow\.org\/v1 +pytorchjob,master,worker +podGroup\+subGroups +definitions\/kubeflow\.org\/v1\/PyTorchJob\.yaml$/.test(l)), r.out);
    assert.ok(lines.length >= 11);
  });

  test("list --component-limit (3 by default, 0 all) and --group, --kind, --version filters, as upstream's kli", async () => {
    const row = (out: string, kind: string): string => out.split("\n").find((l) => l.startsWith(`${kind} `)) ?? "";
    const table = await karta(["definitions", "list"]);
    assert.match(row(table.out, "LLMInferenceService"), / llminferenceservice,main,group,\+7 more +podGroup/);
    assert.match(row((await karta(["definitions", "list", "--component-limit", "0"])).out, "LLMInferenceService"), / llminferenceservice,main,group,leader,worker,prefill,prefill-group,prefill-leader,prefill-worker,router-scheduler +podGroup/);
    assert.match(row((await karta(["definitions", "list", "--component-limit=1"])).out, "PyTorchJob"), / pytorchjob,\+2 more +podGroup/);
    const names = async (...args: string[]): Promise<string> => (await karta(["definitions", "list", "-o", "name", ...args])).out;
    // -o in any case, as kubectl reads -o JSON, -o YAML and -o NAME.
    assert.equal((await karta(["definitions", "list", "-o", "NAME", "--group", "batch"])).out, "CronJob.v1.batch\nJob.v1.batch\n");
    assert.equal((await karta(["definitions", "show", "job", "-oJSON"])).out, (await karta(["definitions", "show", "job", "-o", "json"])).out);
    // Folded only to one of the command's own formats: describe has no -o name, in any case.
    for (const o of ["name", "NAME"]) {
      const r = await karta(["describe", "-f", "examples/pytorchjob.yaml", "-o", o]);
      assert.deepEqual([r.code, r.out], [2, ""], o);
      assert.match(r.err, new RegExp(`^karta describe: invalid value '${o}' for -o: expected table, json, yaml, `));
    }
    assert.equal(await names("--group", "Kubeflow.org", "--kind", "mpijob"), "MPIJob.v1.kubeflow.org\nMPIJob.v2beta1.kubeflow.org\n");
    assert.equal(await names("--group", "kubeflow.org", "--kind", "MPIJob", "--version", "v2beta1"), "MPIJob.v2beta1.kubeflow.org\n");
    assert.equal(await names("--group", ""), "Pod.v1\n");
    const none = await karta(["definitions", "list", "--group", "nope.example.com"]);
    assert.deepEqual(none, { code: 0, out: "", err: "No definitions found in the bundled definitions.\n" });
    for (const [args, message] of [
      [["--kind", "Job"], "--kind needs --group"],
      [["--group", "batch", "--version", "v1"], "--version needs --kind"],
    ] as const) {
      const r = await karta(["definitions", "list", ...args]);
      assert.equal(r.code, 2);
      assert.match(r.err, new RegExp(`^karta definitions: ${message}\n`));
    }
    assert.equal((await karta(["definitions", "show", "Job", "--group", "batch"])).code, 2);
  });

  test("list -o name|json; show by Kind, Kind.version or Kind.version.group in any case", async () => {
    const names = (await karta(["definitions", "list", "-oname"])).out.trimEnd().split("\n");
    assert.ok(names.includes("PyTorchJob.v1.kubeflow.org") && names.includes("Job.v1.batch"), names.join(" "));
    const list = JSON.parse((await karta(["definitions", "list", "-o=json"])).out) as { kind: string; items: { kind: string }[] };
    assert.equal(list.kind, "List");
    assert.equal(list.items.length, names.length);
    for (const q of ["PyTorchJob", "pytorchjob.v1", "PyTorchJob.v1.kubeflow.org", "pytorchjobs", "pytorchjobs.kubeflow.org", "PyTorchJobs.v1.kubeflow.org"]) {
      const r = await karta(["definitions", "show", q]);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.out, readFileSync(path.join(repoRoot, "definitions/kubeflow.org/v1/PyTorchJob.yaml"), "utf8"));
    }
    const json = JSON.parse((await karta(["definitions", "show", "job.v1.batch", "-o", "json"])).out) as { kind: string };
    assert.equal(json.kind, "Karta");
  });

  test("a kind without a definition exits 4 (no Karta covers it); an unknown subcommand is a usage error", async () => {
    const r = await karta(["definitions", "show", "Nothing"]);
    assert.equal(r.code, 4);
    assert.match(r.err, /^karta definitions: no definition for 'Nothing' in the bundled definitions/);
    assert.equal((await karta(["definitions", "frobnicate"])).code, 2);
    assert.equal((await karta(["definitions", "show"])).code, 2);
    const empty = await karta(["definitions", "show", ""]);
    assert.equal(empty.code, 2);
    assert.match(empty.err, /^karta definitions: show needs a KIND/);
  });

  test("a kind a built-in group shares with a CRD is the built-in one, as kubectl resolves it; CRDs' kinds of one name stay ambiguous", async () => {
    const rootKind = (out: string) => (JSON.parse(out) as { spec: { structureDefinition: { rootComponent: { kind: { group: string; version: string; kind: string } } } } }).spec.structureDefinition.rootComponent.kind;
    for (const [query, want] of [["job", "Job.v1.batch"], ["jobs", "Job.v1.batch"], ["statefulset", "StatefulSet.v1.apps"], ["StatefulSets", "StatefulSet.v1.apps"], ["daemonset", "DaemonSet.v1.apps"], ["job.batch.volcano.sh", "Job.v1alpha1.batch.volcano.sh"], ["statefulset.apps.kruise.io", "StatefulSet.v1beta1.apps.kruise.io"]] as const) {
      const r = await karta(["definitions", "show", query, "-o", "json"]);
      assert.equal(r.code, 0, `${query}: ${r.err}`);
      const k = rootKind(r.out);
      assert.equal([k.kind, k.version, k.group].filter((x) => x !== "").join("."), want, query);
    }
    // Among CRDs only, the ambiguity is still an error.
    const dir = mkdtempSync(path.join(tmpdir(), "karta-ambiguous-"));
    try {
      for (const f of ["apps.kruise.io/v1beta1/StatefulSet.yaml", "apps/v1/StatefulSet.yaml"]) mkdirSync(path.join(dir, path.dirname(f)), { recursive: true });
      copyFileSync(path.join(repoRoot, "definitions/apps.kruise.io/v1beta1/StatefulSet.yaml"), path.join(dir, "apps.kruise.io/v1beta1/StatefulSet.yaml"));
      const other = readFileSync(path.join(repoRoot, "definitions/apps.kruise.io/v1beta1/StatefulSet.yaml"), "utf8").replaceAll("apps.kruise.io", "apps.example.com").replace(/name: [^\n]+/, "name: example-statefulset");
      writeFileSync(path.join(dir, "other.yaml"), other);
      const r = await karta(["definitions", "show", "statefulset", "-d", dir]);
      assert.equal(r.code, 2);
      assert.match(r.err, /^karta definitions: 'statefulset' names 2 definitions: StatefulSet\.v1beta1\.apps\.example\.com, StatefulSet\.v1beta1\.apps\.kruise\.io; give KIND\.VERSION\.GROUP\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("-d names a directory of definitions", async () => {
    const r = await karta(["definitions", "list", "-d", "definitions/kubeflow.org/v2beta1", "-o", "name"]);
    assert.equal(r.out, "MPIJob.v2beta1.kubeflow.org\n");
  });
});

describe("definition files as kubectl reads them", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-defs-"));
  const bundled = (file: string) => JSON.parse(JSON.stringify((parse(readFileSync(path.join(repoRoot, "definitions", file), "utf8")) as object))) as { spec: { structureDefinition: { rootComponent: Record<string, unknown> } } };
  const write = (name: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };

  test("JSON Lines and concatenated JSON are a stream of definitions (kubectl get kartas -o json | jq -c '.items[]')", async () => {
    const lines = write("defs.jsonl", `${JSON.stringify(bundled("kubeflow.org/v1/PyTorchJob.yaml"))}\n${JSON.stringify(bundled("batch/v1/Job.yaml"))}\n`);
    const v = await karta(["validate", lines]);
    assert.equal(v.code, 0, v.out + v.err);
    assert.match(v.out, /^1 file, 2 definitions: 0 errors/m);
    assert.equal((await karta(["definitions", "list", "-d", lines, "-o", "name"])).out, "Job.v1.batch\nPyTorchJob.v1.kubeflow.org\n");
    // Pretty-printed values one after another: a finding in the second points at its own line.
    const job = bundled("batch/v1/Job.yaml");
    job.spec.structureDefinition.rootComponent.podTemplatePath = ".spec.template";
    const first = JSON.stringify(bundled("kubeflow.org/v1/PyTorchJob.yaml"), null, 2);
    const second = JSON.stringify(job, null, 2);
    const pretty = write("defs.json", `${first}${second}\n`);
    const line = first.split("\n").length - 1 + second.split("\n").findIndex((l) => l.includes('"podTemplatePath"')) + 1;
    const bad = await karta(["validate", pretty]);
    assert.equal(bad.code, 1, bad.out + bad.err);
    assert.match(bad.out, new RegExp(`^${pretty.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:${line}:\\d+: error: spec\\.structureDefinition\\.rootComponent\\.podTemplatePath: unknown field`, "m"));
  });

  test("a file that does not parse is unreadable input (exit 2, as upstream's validate); one that parses with errors exits 1", async () => {
    const broken = write("broken.yaml", "apiVersion: x\n  bad: [\n");
    const notKarta = write("cm.yaml", "kind: ConfigMap\n");
    const example = path.join(repoRoot, "examples/pytorchjob.yaml");
    for (const args of [["validate", broken], ["definitions", "list", "-d", broken], ["inspect", "-d", broken, "-f", example], ["compile", "-d", broken, "-f", example], ["rbac", "-d", broken], ["interpret", "-d", broken, "--operation", "InterpretReplica", "--desired-file", example]]) {
      const r = await karta(args);
      assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
      assert.match(r.out + r.err, /broken\.yaml:1:\d+: error: /);
    }
    for (const args of [["validate", notKarta], ["definitions", "list", "-d", notKarta], ["inspect", "-d", notKarta, "-f", example], ["rbac", "-d", notKarta]]) {
      assert.equal((await karta(args)).code, 1, args.join(" "));
    }
    // No table without rows, as kubectl get: the reason goes to stderr.
    const list = await karta(["definitions", "list", "-d", notKarta]);
    assert.equal(list.out, "");
    assert.match(list.err, /^No definitions found in .*cm\.yaml\.$/m);
    // rbac reads its CRDs the same way: one that does not parse is not skipped.
    const rbac = await karta(["rbac", "-d", path.join(repoRoot, "definitions/kubeflow.org/v1/PyTorchJob.yaml"), "--crd", broken]);
    assert.equal(rbac.code, 2);
    assert.equal(rbac.out, "");
    assert.match(rbac.err, /broken\.yaml:1:\d+: error: .*\nkarta rbac: the input has \d+ errors?; nothing printed\n$/s);
  });

  test("a --crd file named on the command line that holds no CRD is an error (exit 1); in a --crd directory, such a file is a notice", async () => {
    const pytorch = path.join(repoRoot, "definitions/kubeflow.org/v1/PyTorchJob.yaml");
    const cm = write("crd-dir/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n");
    const crd = write("crd-dir/crd.yaml", readFileSync(path.join(repoRoot, "examples/crds/kubeflow.org_pytorchjobs.yaml"), "utf8"));
    for (const args of [["validate", "--crd", cm, pytorch], ["rbac", "-d", pytorch, "--crd", cm]]) {
      const r = await karta(args);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.out}${r.err}`);
      assert.match(r.out + r.err, new RegExp(`cm\\.yaml:1:1: error: no CustomResourceDefinition found \\(a --crd file holds CRD manifests\\)\n`));
    }
    const dir = await karta(["validate", "--crd", path.dirname(crd), pytorch]);
    assert.equal(dir.code, 0, dir.out);
    assert.match(dir.out, /cm\.yaml:1:1: notice: not a CustomResourceDefinition \(kind "ConfigMap"\); skipped\n/);
  });

  test("definitions show does not print a definition whose file has errors (exit 1, nothing on stdout); list still lists it, as kubectl get prints what it can", async () => {
    const broken = write("broken-jq.yaml", readFileSync(path.join(repoRoot, "definitions/batch/v1/Job.yaml"), "utf8").replace(/replicasPath: [^\n]+/, "replicasPath: 'if .spec.parallelism'"));
    const show = await karta(["definitions", "show", "Job", "-d", broken]);
    assert.deepEqual([show.code, show.out], [1, ""]);
    assert.match(show.err, /: error: .*replicasPath: failed to parse JQ expression/);
    assert.match(show.err, new RegExp(`karta definitions: Job\\.v1\\.batch not shown: .*broken-jq\\.yaml has errors \\('karta validate .*broken-jq\\.yaml' lists them\\)\n$`));
    const list = await karta(["definitions", "list", "-d", broken, "-o", "name"]);
    assert.deepEqual([list.code, list.out], [1, "Job.v1.batch\n"]);
  });

  test("definitions list leaves out a definition without a kind: its errors on stderr, the others listed (exit 1)", async () => {
    const both = path.join(dir, "with-kindless");
    mkdirSync(both, { recursive: true });
    copyFileSync(path.join(repoRoot, "definitions/batch/v1/Job.yaml"), path.join(both, "Job.yaml"));
    writeFileSync(path.join(both, "kindless.yaml"), "apiVersion: run.ai/v1alpha1\nkind: Karta\nmetadata:\n  name: kindless\nspec: {}\n");
    const names = await karta(["definitions", "list", "-d", both, "-o", "name"]);
    assert.equal(names.code, 1);
    assert.equal(names.out, "Job.v1.batch\n");
    assert.match(names.err, /kindless\.yaml:\d+:\d+: error: /);
    const table = await karta(["definitions", "list", "-d", both]);
    assert.deepEqual(table.out.trimEnd().split("\n").map((l) => l.split(/\s+/)[0]), ["KIND", "Job"]);
    const json = await karta(["definitions", "list", "-d", both, "-o", "json"]);
    assert.deepEqual((JSON.parse(json.out) as { items: { metadata: { name: string } }[] }).items.map((k) => k.metadata.name), ["batch-v1-job"]);
  });

  test("a definition whose jq does not compile is an error (exit 1) in definitions list and rbac, as in validate", async () => {
    const job = readFileSync(path.join(repoRoot, "definitions/batch/v1/Job.yaml"), "utf8");
    const badJq = write("bad-jq.yaml", job.replace(/^(\s+replicasPath:).*$/m, "$1 .spec | ["));
    for (const args of [["validate", badJq], ["definitions", "list", "-d", badJq], ["rbac", "-d", badJq]]) {
      const r = await karta(args);
      assert.equal(r.code, 1, `${args.join(" ")}: ${r.err}`);
      assert.match(r.out + r.err, /bad-jq\.yaml:\d+:\d+: error: spec\.structureDefinition\.rootComponent\.scaleDefinition\.replicasPath: failed to parse JQ expression '\.spec \| \['/, args.join(" "));
    }
  });

  after(() => rmSync(dir, { recursive: true, force: true }));
});

describe("inspect and compile find the definition by kind", () => {
  test("without -d, the bundled definition for the object's kind; -d a directory picks it too", async () => {
    const bundled = await karta(["inspect", "-f", "examples/pytorchjob.yaml", "--pods", "examples/pytorchjob-pods.yaml"]);
    const file = await karta(["inspect", "-d", "definitions/kubeflow.org/v1/PyTorchJob.yaml", "-f", "examples/pytorchjob.yaml", "--pods", "examples/pytorchjob-pods.yaml"]);
    const dir = await karta(["inspect", "-d", "definitions", "-f", "examples/pytorchjob.yaml", "--pods", "examples/pytorchjob-pods.yaml"]);
    assert.equal(bundled.code, 0, bundled.err);
    assert.equal(bundled.out, file.out);
    assert.equal(dir.out, file.out);
    const c1 = await karta(["compile", "-f", "examples/pytorchjob.yaml"]);
    const c2 = await karta(["compile", "-d", "definitions/kubeflow.org/v1/PyTorchJob.yaml", "-f", "examples/pytorchjob.yaml"]);
    assert.equal(c1.code, 0, c1.err);
    assert.equal(c1.out, c2.out);
  });

  test("a kind without a definition names the kind and where it looked, and exits 4", async () => {
    const r = await karta(["inspect", "-d", "definitions/apps", "-f", "examples/pytorchjob.yaml"]);
    assert.equal(r.code, 4);
    assert.match(r.err, /^karta inspect: no definition for PyTorchJob kubeflow\.org\/v1 in definitions\/apps; give one with -d FILE/);
  });

  test("an object without a kind names its file in kubectl's words (exit 2) when the definition is looked up by kind", async () => {
    for (const command of ["inspect", "compile"]) {
      const r = await karta([command, "-f", "o.yaml"], "", { "o.yaml": "metadata: {name: x}\nspec: {}\n" });
      assert.deepEqual([r.code, r.out], [2, ""], command);
      assert.equal(r.err, `karta ${command}: o.yaml: Object 'Kind' is missing (the definition is found by the object's kind; give one with -d FILE)\n`);
    }
  });

  test("an object without an apiVersion that no definition takes says so (exit 2), not that the kind has no definition", async () => {
    for (const command of ["inspect", "compile"]) {
      const r = await karta([command, "-f", "o.yaml"], "", { "o.yaml": "kind: PyTorchJob\nmetadata: {name: x}\n" });
      assert.deepEqual([r.code, r.out], [2, ""], command);
      assert.equal(r.err, `karta ${command}: o.yaml: Object 'apiVersion' is missing (the definition is found by the object's apiVersion and kind; give one with -d FILE)\n`);
    }
  });

  test("two definitions of the object's kind are ambiguous (exit 2); a file of the directory that did not load is named when none is found", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "karta-ambiguous-"));
    try {
      const karta1 = readFileSync(path.join(repoRoot, "definitions/kubeflow.org/v1/PyTorchJob.yaml"), "utf8");
      writeFileSync(path.join(dir, "a.yaml"), karta1);
      writeFileSync(path.join(dir, "b.yaml"), karta1.replace("name: kubeflow-org-v1-pytorchjob", "name: my-pytorchjob"));
      for (const command of ["inspect", "compile"]) {
        const r = await karta([command, "-d", dir, "-f", "examples/pytorchjob.yaml"]);
        assert.equal(r.code, 2, r.err);
        assert.match(r.err, new RegExp(`^karta ${command}: 2 definitions for PyTorchJob kubeflow\\.org/v1 in .*a\\.yaml, .*b\\.yaml \\(kubeflow-org-v1-pytorchjob, my-pytorchjob\\): which to use is ambiguous; keep one\\n$`));
      }
      writeFileSync(path.join(dir, "b.yaml"), "apiVersion: run.ai/v1alpha1\nkind: Karta\nkind: Karta\n");
      rmSync(path.join(dir, "a.yaml"));
      const r = await karta(["inspect", "-d", dir, "-f", "examples/pytorchjob.yaml"]);
      assert.equal(r.code, 4);
      assert.match(r.err, /b\.yaml:3:1: error: key "kind" is given twice in this mapping.*\nkarta inspect: no definition for PyTorchJob/s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("karta interpret as karmadactl prints it", () => {
  test("the tab writer pads column cells over consecutive rows (min width 6, padding 3)", () => {
    assert.equal(tabulate([["TARGET: apps/v1 Deployment", ""]]), "TARGET: apps/v1 Deployment   \n");
    assert.equal(
      tabulate([
        ["    Retain:", "UNSET"],
        ["    InterpretReplica:", "ERROR: bad", ""],
        ["    ReviseReplica:", "ERROR: worse one", ""],
        ["    InterpretHealth:", "PASS"],
      ]),
      ["    Retain:             UNSET", "    InterpretReplica:   ERROR: bad         ", "    ReviseReplica:      ERROR: worse one   ", "    InterpretHealth:    PASS", ""].join("\n"),
    );
    assert.equal(tabulate([["a", "b"]]), "a     b\n");
  });

  test("-o json and -o yaml print the results as one object", async () => {
    const json = await karta(["interpret", "--operation", "InterpretReplica", "--desired-file", "examples/deployment.yaml", "-ojson"]);
    assert.equal(json.code, 0, json.err);
    const v = JSON.parse(json.out) as { replica: number; requires: unknown };
    assert.equal(typeof v.replica, "number");
    assert.ok("requires" in v);
    const yaml = await karta(["interpret", "--operation", "InterpretHealth", "--observed-file", "examples/deployment.yaml", "-o", "yaml"]);
    assert.equal(yaml.out, "healthy: true\n");
  });

  test("--show-doc documents every rule, and with -f shows each customization's scripts", async () => {
    const r = await karta(["interpret", "--show-doc"]);
    assert.equal(r.code, 0, r.err);
    for (const op of ["Retain", "InterpretReplica", "InterpretComponent", "ReviseReplica", "InterpretStatus", "AggregateStatus", "InterpretHealth", "InterpretDependency"]) assert.match(r.out, new RegExp(`^---@rule: ${op}\\n-- `, "m"));
    const c = await karta(["interpret", "--show-doc", "-f", "interpreter-customizations", "-R"]);
    assert.equal(c.code, 0, c.err);
    assert.match(c.out, /^---@name: karta-thirdparty-argoproj\.io-v1alpha1-workflow\n---@apiVersion: argoproj\.io\/v1alpha1\n---@kind: Workflow\n/m);
    assert.match(c.out, /function GetReplicas\(/);
  });
});

describe("karta version and completion", () => {
  test("version prints the package's version", async () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { version: string };
    assert.match((await karta(["version"])).out, new RegExp(`^karta ${pkg.version.replace(/\./g, "\\.")} \\(node v`));
    assert.equal((JSON.parse((await karta(["version", "-o", "json"])).out) as { kartaVersion: string }).kartaVersion, pkg.version);
    assert.match((await karta(["--version"])).out, /^karta /);
  });

  test("bash completes commands, flags and flag values", async () => {
    const script = (await karta(["completion", "bash"])).out;
    const dir = mkdtempSync(path.join(tmpdir(), "karta-completion-"));
    try {
      writeFileSync(path.join(dir, "karta.bash"), script);
      const complete = (words: string[]): string => {
        const r = spawnSync("bash", ["-c", `source ${dir}/karta.bash; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _karta; echo "\${COMPREPLY[*]}"`], { encoding: "utf8" });
        assert.equal(r.status, 0, r.stderr);
        return r.stdout.trim();
      };
      assert.equal(complete(["karta", "def"]), "definitions");
      assert.equal(complete(["karta", "inspect", "-o", ""]), "tree yaml json");
      assert.equal(complete(["karta", "interpret", "--show"]), "--show-doc --show-layer");
      assert.equal(complete(["karta", "completion", ""]), "bash zsh fish");
      // Every command's flags, from the table it parses with.
      assert.equal(complete(["karta", "serve", "--secure"]), "--secure-port");
      assert.equal(complete(["karta", "controller", "--leader-elect-"]).split(" ").sort().join(" "), "--leader-elect-lease-duration --leader-elect-renew-deadline --leader-elect-resource-name --leader-elect-resource-namespace --leader-elect-retry-period");
      assert.equal(complete(["karta", "rbac", "--c"]), "--crd");
      assert.equal(complete(["karta", "rbac", "-o", ""]), "yaml json");
      // kubectl's template formats, which take their template after `=`.
      assert.equal(complete(["karta", "get", "-o", "j"]), "json jsonpath= jsonpath-as-json= jsonpath-file=");
      assert.equal(complete(["karta", "get", "--no"]), "--no-headers");
      assert.equal(complete(["karta", "playground", "--p"]), "--port");
      assert.equal(complete(["karta", "webhook-config", "--adm"]), "--admission");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("zsh and fish scripts parse, and fish completes flag values", async (t) => {
    for (const shell of ["zsh", "fish"]) {
      if (!has(shell)) {
        t.diagnostic(`${shell} is not installed: its script is not checked`);
        console.log(`# skipped: ${shell} is not installed`);
        continue;
      }
      const script = (await karta(["completion", shell])).out;
      const dir = mkdtempSync(path.join(tmpdir(), "karta-completion-"));
      try {
        const file = path.join(dir, shell === "zsh" ? "_karta" : "karta.fish");
        writeFileSync(file, script);
        const check = spawnSync(shell, ["-n", file], { encoding: "utf8" });
        assert.equal(check.status, 0, check.stderr);
        if (shell === "fish") {
          const r = spawnSync("fish", ["-c", `source ${file}; complete -C 'karta inspect -o '`], { encoding: "utf8" });
          assert.deepEqual(r.stdout.trim().split("\n").sort(), ["json", "tree", "yaml"]);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    assert.equal((await karta(["completion", "tcsh"])).code, 2);
  });

  test("zsh completes -o's template formats without a space after their '=', so the template follows in the same word", async () => {
    const script = (await karta(["completion", "zsh"])).out;
    const get = script.split("\n").find((l) => l.startsWith("    get) "))!;
    assert.ok(get.includes(`{-o,--output}':output:{compadd -- table wide json yaml name; compadd -S "" -- jsonpath= jsonpath-as-json= jsonpath-file= custom-columns= custom-columns-file=}'`), get);
    // A flag whose choices take nothing after them keeps the plain list.
    assert.ok(script.includes(`{-o,--output}':output:(tree yaml json)'`));
  });
});

describe("interpret -d takes a directory", () => {
  test("the Kartas of a directory answer for their kinds", async () => {
    const r = await karta(["interpret", "-d", "definitions/ray.io", "--operation", "InterpretHealth", "--observed-file", "examples/raycluster.yaml", "--show-layer"]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, "# layer: karta\n---\n# [1/1] healthy:\ntrue\n");
  });
});

describe("karta controller flags", () => {
  test("--concurrent-workload-syncs takes a whole number from 1 up; anything else is a usage error naming it", async () => {
    for (const v of ["0", "-1", "two", "1.5"]) {
      const r = await karta(["controller", "--concurrent-workload-syncs", v]);
      assert.equal(r.code, 2, v);
      assert.match(r.err, new RegExp(`^karta controller: invalid value '${v.replace(".", "\\.")}' for --concurrent-workload-syncs: expected an integer from 1 to 1000`), v);
    }
  });
  test("--leader-elect takes the values strconv.ParseBool reads, as a Kubernetes component's flag does", async () => {
    for (const v of ["F", "0", "False", "T", "1"]) {
      const r = await karta(["controller", `--leader-elect=${v}`, "--kubeconfig", "/nonexistent/kubeconfig"]);
      // Past the flags: the kubeconfig is what stops it.
      assert.equal(r.code, 1, v);
      assert.match(r.err, /cannot read the kubeconfig/, v);
    }
    const r = await karta(["controller", "--leader-elect=maybe"]);
    assert.equal(r.code, 2);
    assert.match(r.err, /^karta controller: invalid value 'maybe' for --leader-elect: expected true or false/);
  });
  test("the Lease's namespace and name are checked as the API server checks them: a usage error naming the flag", async () => {
    for (const [flag, v, rule] of [
      ["--leader-elect-resource-namespace", "../../api/v1", "a lowercase RFC 1123 label"],
      ["--leader-elect-resource-namespace", "Karta", "a lowercase RFC 1123 label"],
      ["--leader-elect-resource-name", "a/b", "a lowercase RFC 1123 subdomain"],
      ["--leader-elect-resource-name", "..", "a lowercase RFC 1123 subdomain"],
    ] as const) {
      const r = await karta(["controller", `${flag}=${v}`, "--kubeconfig", "/nonexistent/kubeconfig"]);
      assert.equal(r.code, 2, r.err);
      assert.ok(r.err.startsWith(`karta controller: invalid value '${v}' for ${flag}: ${rule}`), r.err);
    }
  });
});

describe("karta help", () => {
  test("help COMMAND is COMMAND --help (as kubectl help get); help alone is the list of commands", async () => {
    for (const command of ["inspect", "jq", "get"]) {
      const viaHelp = await karta(["help", command]);
      const viaFlag = await karta([command, "--help"]);
      assert.deepEqual(viaHelp, viaFlag, command);
      assert.equal(viaHelp.code, 0);
    }
    assert.match((await karta(["help"])).out, /^Usage: karta <command> \[options\]/);
    assert.equal((await karta(["help", "nope"])).code, 2);
  });

  test("a path that cannot be read is said in words, not Node's error codes", async () => {
    const cases: [string, string][] = [
      ["/nonexistent/x.yaml", "no such file"],
      [path.join(repoRoot, "package.json", "x.yaml"), "not a directory"],
      [path.join(tmpdir(), "a".repeat(300)), "file name too long"],
    ];
    for (const [file, reason] of cases) {
      const r = await karta(["validate", file]);
      assert.equal(r.code, 2, file);
      assert.ok(r.err.includes(`cannot read ${file}: ${reason}\n`), r.err);
      const w = await karta(["webhook-config", "--definitions", file]);
      assert.ok(w.err.includes(`${file}: error: cannot read: ${reason}`), w.err);
    }
  });

  test("a flag before any command is an unknown flag (as kubectl says), an unknown word an unknown command", async () => {
    for (const flag of ["-v", "--bogus", "--bogus=1"]) {
      const r = await karta([flag]);
      assert.deepEqual([r.code, r.out, r.err], [2, "", `karta: unknown flag: ${flag.replace(/=.*/, "")}\nRun 'karta --help' for usage.\n`], flag);
    }
    const r = await karta(["inspec"]);
    assert.deepEqual([r.code, r.out, r.err], [2, "", "karta: unknown command 'inspec' (did you mean inspect?)\nRun 'karta --help' for usage.\n"]);
    const nope = await karta(["nope"]);
    assert.deepEqual([nope.code, nope.out, nope.err], [2, "", "karta: unknown command 'nope'\nRun 'karta --help' for usage.\n"]);
  });
});
