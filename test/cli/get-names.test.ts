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
    // Of several types, as kubectl get pod/a deploy/b: each type read with its names; one type spelled
    // two ways (kind, resource.group) is one type.
    const mixed = await run(["pytorchjob/a", "pod/b", "pytorchjobs.kubeflow.org/c"]);
    assert.deepEqual([mixed.code, mixed.err], [3, 'karta get: PyTorchJob "a" not found in namespace team\nkarta get: PyTorchJob "c" not found in namespace team\nkarta get: Pod "b" not found in namespace team\n']);
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
