/** karta get with several TYPE/NAME arguments, as kubectl get pod/a pod/b takes them (of one TYPE here). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { startFakeApiServer } from "../support/fake-apiserver.js";

const withoutWarnings = (err: string): string => err.replace(/^karta get: warning: .*\n/gm, "");

test("several TYPE/NAME of one TYPE read each NAME, as TYPE NAME NAME does; other mixes are usage errors that say what was given", async () => {
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
    for (const [args, message] of [
      [["pytorchjob/a", "b"], "'b' is a NAME after TYPE/NAME: give every workload as TYPE/NAME, or TYPE NAME..."],
      [["pytorchjob", "a", "pytorchjob/b"], "'pytorchjob/b' is a TYPE/NAME after TYPE: give every workload as TYPE/NAME, or TYPE NAME..."],
      [["pytorchjob/a", "jobset/b"], "TYPE/NAME arguments of different types ('pytorchjob/a', 'jobset/b'): give one TYPE at a time"],
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
