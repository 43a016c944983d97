/** karta get with several TYPE/NAME arguments, as kubectl get pod/a pod/b deploy/c takes them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { startFakeApiServer } from "../support/fake-apiserver.js";

const withoutWarnings = (err: string): string => err.replace(/^karta get: warning: .*\n/gm, "");

test("several TYPE/NAME read each NAME, as TYPE NAME NAME does, also of several types; other mixes are usage errors that say what was given", async () => {
  const server = await startFakeApiServer();
  try {
    const run = async (args: string[]) => {
      const io = memoryIO();
      const code = await main(["get", ...args, "--kubeconfig", server.kubeconfig], io);
      return { code, out: io.out, err: withoutWarnings(io.err) };
    };
    // The fake API server answers lists only: each named read is a 404, reported per NAME.
    const typed = await run(["pytorchjob/llama-finetune", "PyTorchJob/x"]);
    assert.deepEqual(typed, await run(["pytorchjob", "llama-finetune", "x"]));
    assert.equal(typed.code, 3);
    assert.equal(typed.err, 'karta get: PyTorchJob "llama-finetune" not found in namespace team\nkarta get: PyTorchJob "x" not found in namespace team\n');
    // Of several types, as kubectl get pod/a deploy/b: each read in the order given, as kubectl visits
    // its arguments; one type spelled two ways (kind, resource.group) is one type.
    const mixed = await run(["pytorchjob/a", "pod/b", "pytorchjobs.kubeflow.org/c"]);
    assert.deepEqual([mixed.code, mixed.err], [3, 'karta get: PyTorchJob "a" not found in namespace team\nkarta get: Pod "b" not found in namespace team\nkarta get: PyTorchJob "c" not found in namespace team\n']);
    // One type written two ways is one type: --watch takes it.
    assert.equal((await run(["pytorchjob/a", "pytorchjobs.kubeflow.org/b", "-w"])).code, 3);
    for (const [args, message] of [
      [["pytorchjob/a", "b"], "'b' is a NAME after TYPE/NAME: give every workload as TYPE/NAME, or TYPE NAME..."],
      [["pytorchjob", "a", "pytorchjob/b"], "'pytorchjob/b' is a TYPE/NAME after TYPE: give every workload as TYPE/NAME, or TYPE NAME..."],
      [["pytorchjob/a", "pod/b", "-w"], "--watch takes one TYPE, not TYPE/NAME arguments of 2 types"],
      [["pytorchjob/a", "pytorchjob/"], "expected TYPE/NAME (e.g. jobset/llm-pretrain), not 'pytorchjob/'"],
    ] as const) {
      const r = await run([...args]);
      assert.equal(r.code, 2, args.join(" "));
      assert.equal(r.err, `karta get: ${message}\nRun 'karta get --help' for usage.\n`);
    }
  } finally {
    server.close();
  }
});

test("describe takes kubectl describe's forms: TYPE alone, a NAME as a prefix, several TYPE/NAME; events for one workload only", async () => {
  const server = await startFakeApiServer({ named: true });
  try {
    const run = async (...args: string[]) => {
      const io = memoryIO();
      const code = await main(["describe", ...args, "--kubeconfig", server.kubeconfig], io);
      return { code, out: io.out, err: io.err.replace(/^karta describe: warning: the cluster serves no Karta.*\n/gm, "") };
    };
    const header = /^PyTorchJob\/llama-finetune {3}namespace: team {3}definition: kubeflow-org-v1-pytorchjob \(catalog\)/;
    // The fake API server serves no Events: one workload asks for them, and says why they are not shown.
    const all = await run("pytorchjob");
    assert.equal(all.code, 0, all.err);
    assert.match(all.out, header);
    assert.match(all.out, /\nEvents: {2}<none>\n$/);
    assert.match(all.err, /^karta describe: warning: events not shown: /);
    const prefix = await run("pytorchjob", "llama");
    assert.deepEqual([prefix.code, prefix.err], [0, ""]);
    assert.match(prefix.out, header);
    assert.doesNotMatch(prefix.out, /Events:/, "names matched by prefix: no events, as kubectl describe");
    assert.match((await run("pytorchjob", "llama", "--show-events")).out, /\nEvents: {2}<none>\n$/);
    const json = JSON.parse((await run("pytorchjob", "llama", "-o", "json")).out) as { count: number; items: { name: string }[] };
    assert.deepEqual([json.count, json.items.map((i) => i.name)], [1, ["llama-finetune"]]);
    assert.deepEqual(await run("pytorchjob", "zzz"), { code: 3, out: "", err: 'karta describe: PyTorchJob "zzz" not found in namespace team\n' });
    const some = await run("pytorchjob/llama-finetune", "pod/x");
    assert.equal(some.code, 3);
    assert.match(some.out, header);
    assert.doesNotMatch(some.out, /Events:/, "one found and one missing: no events, as kubectl describe");
    assert.equal(some.err, 'karta describe: Pod "x" not found in namespace team\n');
  } finally {
    server.close();
  }
});
