import { test } from "node:test";
import assert from "node:assert/strict";
import { liveTarget, parseLiveRef } from "../../src/cli/live-ref.js";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";

test("KIND/NAME and KIND NAME, as kubectl takes them", () => {
  assert.equal(parseLiveRef([]), undefined);
  assert.deepEqual(parseLiveRef(["pytorchjob/bert"]), { kind: "pytorchjob", name: "bert" });
  assert.deepEqual(parseLiveRef(["pytorchjobs.kubeflow.org/bert"]), { kind: "pytorchjobs.kubeflow.org", name: "bert" });
  assert.deepEqual(parseLiveRef(["PyTorchJob", "bert"]), { kind: "PyTorchJob", name: "bert" });
  for (const bad of [["bert"], ["a/b/c"], ["/x"], ["x/"], ["a/b", "c"], ["a", "b", "c"]]) assert.ok(parseLiveRef(bad) && "error" in parseLiveRef(bad)!, bad.join(" "));
});

test("a file and KIND/NAME, pod files with KIND/NAME, or cluster flags without it are usage errors", async () => {
  assert.deepEqual(liveTarget(["job/x"], { namespace: "a" }, { object: false, podFlags: [] }), { ref: { kind: "job", name: "x" }, namespace: "a" });
  assert.equal(liveTarget([], {}, { object: true, podFlags: [] }), undefined);
  for (const [args, message] of [
    [["compile", "job/x", "-f", "job.yaml"], "give the workload as -f FILE or as KIND/NAME, not both"],
    [["compile", "job/x", "--pods", "p.yaml"], "with KIND/NAME the pods are read from the cluster: leave out --pods"],
    [["inspect", "job/x", "--children", "c.yaml"], "with KIND/NAME the pods are read from the cluster: leave out --children"],
    [["inspect", "-f", "job.yaml", "-n", "team"], "--namespace reads the workload from a cluster: give it as KIND/NAME"],
    [["compile", "-f", "job.yaml", "--context", "prod"], "--context reads the workload from a cluster: give it as KIND/NAME"],
    [["compile"], "a workload object is required (-f FILE, or KIND/NAME from a cluster)"],
  ] as const) {
    const io = memoryIO();
    assert.equal(await main([...args], io), 2, args.join(" "));
    assert.equal(io.err.split("\n")[0], `karta ${args[0]}: ${message}`);
  }
});
