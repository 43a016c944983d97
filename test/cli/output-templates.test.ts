/**
 * kubectl's template formats on the commands that print live workloads and definitions, run as a user
 * runs them: `karta get -o jsonpath=…|jsonpath-as-json=…|jsonpath-file=…|custom-columns=…|custom-columns-file=…`,
 * `--no-headers` (also on get's table), `--allow-missing-template-keys`, against the fake API server
 * (test/support/fake-apiserver.ts: one PyTorchJob, llama-finetune, in namespace team); the template over
 * what `-o json` prints; kubectl's usage errors before the cluster is asked; `--watch` printing each
 * workload alone; `karta describe` and `karta definitions` alike.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { printWithTemplate, templatePrinter } from "../../src/cli/output-templates.js";
import { startFakeApiServer, type FakeApiServer } from "../support/fake-apiserver.js";
import { repoRoot } from "../support/conformance.js";

/** Runs `karta ARGS` in-process against the server; its exit code and output (warnings about the missing Karta CRD left out). */
async function karta(server: FakeApiServer | undefined, args: string[], files: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIO("", files);
  const code = await main([...args, ...(server ? ["--kubeconfig", server.kubeconfig] : [])], io);
  return { code, out: io.out, err: io.err.replace(/^karta (get|describe): warning: .*\n/gm, "") };
}

test("karta get -o jsonpath / jsonpath-as-json / jsonpath-file: the template over what -o json prints ({items, count}, or the object for one NAME)", async () => {
  const server = await startFakeApiServer({ named: true });
  try {
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", "jsonpath={.items[*].name}"]), { code: 0, out: "llama-finetune", err: "" });
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o=jsonpath={.count} {.items[0].type.kind}"]), { code: 0, out: "1 PyTorchJob", err: "" });
    const ranged = await karta(server, ["get", "pytorchjob", "-o", 'jsonpath={range .items[*]}{.namespace}/{.name}{"\\t"}{.pods.ready}/{.pods.total}{"\\n"}{end}']);
    assert.deepEqual(ranged, { code: 0, out: "team/llama-finetune\t0/0\n", err: "" });
    // One NAME: the workload alone, as -o json prints it.
    assert.deepEqual(await karta(server, ["get", "pytorchjob", "llama-finetune", "-o", "jsonpath={.name} {.type}"]), { code: 0, out: 'llama-finetune {"group":"kubeflow.org","kind":"PyTorchJob","version":"v1"}', err: "" });
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", "jsonpath-as-json={.items[*].name}"]), { code: 0, out: '[\n    "llama-finetune"\n]\n', err: "" });
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", "jsonpath-file=names.tmpl"], { "names.tmpl": "{.items[*].namespace}" }), { code: 0, out: "team", err: "" });
    // A key no workload has prints nothing, unless --allow-missing-template-keys=false.
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", "jsonpath=[{.items[*].nope}]"]), { code: 0, out: "[]", err: "" });
    const strict = await karta(server, ["get", "pytorchjobs", "-o", "jsonpath={.items[*].nope}", "--allow-missing-template-keys=false"]);
    assert.equal(strict.code, 2);
    assert.equal(strict.out, "");
    assert.match(strict.err, /^karta get: error executing jsonpath "\{\.items\[\*\]\.nope\}": Error executing template: nope is not found\. Printing more information for debugging the template:\n\ttemplate was:\n\t\t\{\.items\[\*\]\.nope\}\n\tobject given to jsonpath engine was:\n\t\tmap\[string\]interface \{\}\{"count":1, "items":\[\]interface \{\}\{map\[string\]interface \{\}\{/);
    const wrong = await karta(server, ["get", "pytorchjobs", "-o", "jsonpath={.count[0]}"]);
    assert.deepEqual([wrong.code, wrong.out], [2, ""]);
    assert.match(wrong.err, /Error executing template: int64 is not array or slice\./);
  } finally {
    server.close();
  }
});

test("karta get -o custom-columns / custom-columns-file, and --no-headers on them and on the table", async () => {
  const server = await startFakeApiServer();
  try {
    const spec = "NAME:.name,KIND:{.type.kind},READY:pods.ready,NODES:.nodes[*]";
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", `custom-columns=${spec}`]), { code: 0, out: "NAME             KIND         READY   NODES\nllama-finetune   PyTorchJob   0       <none>\n", err: "" });
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", `custom-columns=${spec}`, "--no-headers"]), { code: 0, out: "llama-finetune   PyTorchJob   0     <none>\n", err: "" });
    // A columns file always has its header, as kubectl prints it.
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", "custom-columns-file=cols", "--no-headers"], { cols: "NAME  NS\n.name .namespace\n" }), { code: 0, out: "NAME             NS\nllama-finetune   team\n", err: "" });
    const table = await karta(server, ["get", "pytorchjobs"]);
    // -o table, as kli names the default.
    assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", "table"]), table);
    const bare = await karta(server, ["get", "pytorchjobs", "--no-headers"]);
    assert.match(table.out, /^NAME {2,}NAMESPACE/);
    assert.equal(bare.code, 0);
    assert.match(bare.out, /^llama-finetune {3}team {3}/);
    assert.equal(bare.out.split("\n").length, 2);
    assert.match((await karta(server, ["get", "pytorchjobs", "-o", "wide", "--no-headers"])).out, /^llama-finetune .* catalog\n$/);
  } finally {
    server.close();
  }
});

test("a template that is missing, does not parse or cannot be read is a usage error in kubectl's words, before the cluster is asked", async () => {
  const server = await startFakeApiServer();
  try {
    for (const [output, message] of [
      ["jsonpath", "template format specified but no template given"],
      ["jsonpath=", "template format specified but no template given"],
      ["jsonpath-as-json={.a", "error parsing jsonpath {.a, unclosed action"],
      ["jsonpath={.items[?(@.x}", "error parsing jsonpath {.items[?(@.x}, unterminated filter"],
      ["jsonpath-file=/nonexistent/t", "error reading --template /nonexistent/t, open /nonexistent/t: no such file or directory"],
      ["custom-columns", "custom-columns format specified but no custom columns given"],
      ["custom-columns=NAME", "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"],
      ["custom-columns=A:{.a}{.b}", "unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or '{.name1.name2}'"],
      ["custom-columns=A:.a[", "unterminated array"],
      ["custom-columns-file=/nonexistent/c", "error reading template /nonexistent/c, open /nonexistent/c: no such file or directory"],
      ["go-template={{.x}}", "invalid value 'go-template={{.x}}' for -o: expected table, wide, json, yaml, name, jsonpath=..., jsonpath-as-json=..., jsonpath-file=..., custom-columns=... or custom-columns-file=..."],
    ]) {
      const before = server.urls.length;
      assert.deepEqual(await karta(server, ["get", "pytorchjobs", "-o", output!]), { code: 2, out: "", err: `karta get: ${message}\nRun 'karta get --help' for usage.\n` }, output);
      assert.equal(server.urls.length, before, `${output}: no request`);
    }
    assert.equal((await karta(undefined, ["get", "pytorchjobs", "-o", "custom-columns-file=c"], { c: "NAME\n" })).err, "karta get: invalid template, missing spec line. Expected format is one line of space separated headers, one line of space separated column specs.\nRun 'karta get --help' for usage.\n");
  } finally {
    server.close();
  }
});

test("karta get --watch -o jsonpath / custom-columns: each workload printed alone with the template, as kubectl prints each event's object", async () => {
  const server = await startFakeApiServer();
  try {
    // The fake API server refuses watches: the first list is printed, then --request-timeout ends the watch.
    const names = await karta(server, ["get", "pytorchjobs", "-w", "--request-timeout", "1s", "-o", 'jsonpath={.name}{"\\n"}']);
    assert.deepEqual([names.code, names.out], [0, "llama-finetune\n"], names.err);
    const columns = await karta(server, ["get", "pytorchjobs", "-w", "--request-timeout", "1s", "-o", "custom-columns=NAME:.name,READY:.pods.ready"]);
    assert.deepEqual([columns.code, columns.out], [0, "NAME             READY\nllama-finetune   0\n"], columns.err);
    const failing = await karta(server, ["get", "pytorchjobs", "-w", "--request-timeout", "1s", "-o", "jsonpath={.name[0]}"]);
    assert.equal(failing.code, 2);
    assert.match(failing.err, /^karta get: error executing jsonpath "\{\.name\[0\]\}": Error executing template: string is not array or slice\./);
  } finally {
    server.close();
  }
});

test("karta describe -o jsonpath / custom-columns over what its -o json prints (events included)", async () => {
  const server = await startFakeApiServer({ named: true });
  try {
    const one = await karta(server, ["describe", "pytorchjob/llama-finetune", "-o", "jsonpath={.name} {.phases[*]} {.events}"]);
    assert.deepEqual([one.code, one.out], [0, "llama-finetune Running []"], one.err);
    const all = await karta(server, ["describe", "pytorchjob", "-o", "custom-columns=NAME:.name,KARTA:.karta", "--no-headers"]);
    assert.deepEqual([all.code, all.out], [0, "llama-finetune   kubeflow-org-v1-pytorchjob\n"], all.err);
    assert.equal((await karta(server, ["describe", "pytorchjob", "-o", "jsonpath="])).err, "karta describe: template format specified but no template given\nRun 'karta describe --help' for usage.\n");
  } finally {
    server.close();
  }
});

test("karta definitions list and show -o jsonpath / custom-columns, and --no-headers on the list's table", async () => {
  const names = await karta(undefined, ["definitions", "list", "-o", "jsonpath={.kind} {.items[*].metadata.labels.run\\.ai/karta-kind}"]);
  assert.equal(names.code, 0, names.err);
  assert.match(names.out, /^List .*\bJobSet\b.*\bPyTorchJob\b/);
  const columns = await karta(undefined, ["definitions", "list", "-o", "custom-columns=NAME:.metadata.name", "--no-headers"]);
  assert.match(columns.out, /^apps\.kruise\.io-v1alpha1-advancedcronjob\n/);
  assert.doesNotMatch(columns.out, /^NAME/);
  const table = await karta(undefined, ["definitions", "list", "--no-headers"]);
  assert.match(table.out, /^AdvancedCronJob +apps\.kruise\.io\/v1alpha1 /);
  assert.deepEqual(await karta(undefined, ["definitions", "show", "PyTorchJob", "-o", 'jsonpath={.metadata.name}{"\\n"}']), { code: 0, out: "kubeflow-org-v1-pytorchjob\n", err: "" });
  assert.deepEqual(await karta(undefined, ["definitions", "show", "PyTorchJob", "-o", "custom-columns=ROOT:.spec.structureDefinition.rootComponent.name"]), { code: 0, out: "ROOT\npytorchjob\n", err: "" });
  assert.equal((await karta(undefined, ["definitions", "show", "PyTorchJob", "-o", "name"])).err, "karta definitions: invalid value 'name' for --output: show prints yaml, json or a template\nRun 'karta definitions --help' for usage.\n");
});

test("--template gives the template of -o jsonpath, jsonpath-as-json, jsonpath-file or custom-columns written without one, as kubectl takes it", async () => {
  const show = ["definitions", "show", "PyTorchJob"];
  assert.deepEqual(await karta(undefined, [...show, "-o", "jsonpath", "--template", "{.metadata.name}"]), { code: 0, out: "kubeflow-org-v1-pytorchjob", err: "" });
  assert.deepEqual(await karta(undefined, [...show, "-o", "jsonpath-as-json", "--template={.kind}"]), { code: 0, out: '[\n    "Karta"\n]\n', err: "" });
  assert.deepEqual(await karta(undefined, [...show, "-o", "jsonpath-file", "--template", "t.tmpl"], { "t.tmpl": "{.kind}" }), { code: 0, out: "Karta", err: "" });
  assert.deepEqual(await karta(undefined, [...show, "-o", "custom-columns", "--template", "K:.kind"]), { code: 0, out: "K\nKarta\n", err: "" });
  for (const [args, message] of [
    [["--template", "{.kind}"], "--template needs -o jsonpath, jsonpath-as-json, jsonpath-file, custom-columns or custom-columns-file (go-template is not supported)"],
    [["-o", "json", "--template", "{.kind}"], "--template needs -o jsonpath, jsonpath-as-json, jsonpath-file, custom-columns or custom-columns-file, not -o json"],
    [["-o", "jsonpath={.a}", "--template", "{.kind}"], "give the template once: -o jsonpath=TEMPLATE or -o jsonpath --template TEMPLATE"],
  ] as const) {
    assert.deepEqual(await karta(undefined, [...show, ...args]), { code: 2, out: "", err: `karta definitions: ${message}\nRun 'karta definitions --help' for usage.\n` }, args.join(" "));
  }
});

test("a jsonpath template that prints nothing because no value has a field it reads says so on standard error (kubectl's habit .metadata.name over Karta's rows)", async () => {
  const describe = ["describe", "-f", "examples/pytorchjob.yaml"];
  const cwd = process.cwd();
  process.chdir(repoRoot);
  try {
    assert.deepEqual(await karta(undefined, [...describe, "-o", "jsonpath={.metadata.name}"]), { code: 0, out: "", err: "karta describe: note: the template printed nothing: no value has 'metadata' (-o json shows the fields there are)\n" });
    // Something printed, or nothing missing: no note.
    assert.deepEqual(await karta(undefined, [...describe, "-o", "jsonpath={.name}{.nope}"]), { code: 0, out: "llama-finetune", err: "" });
    assert.deepEqual(await karta(undefined, [...describe, "-o", "jsonpath={.nodes[*]}"]), { code: 0, out: "", err: "" });
  } finally {
    process.chdir(cwd);
  }
  // Printed with one printer again and again, as --watch prints each event: the note once, and not after something printed.
  for (const [events, notes] of [[[{ name: "a" }, { name: "b" }, { name: "c" }], 1], [[{ name: "a", metadata: { name: "x" } }, { name: "b" }], 0]] as const) {
    const printer = templatePrinter(memoryIO(""), "jsonpath={.metadata.name}", { "no-headers": false });
    assert.ok(printer && !("error" in printer));
    const io = memoryIO("");
    for (const event of events) assert.equal(printWithTemplate(io, "get", printer, [event]), true);
    assert.equal(io.err.split("note: the template printed nothing").length - 1, notes, io.err);
  }
});
