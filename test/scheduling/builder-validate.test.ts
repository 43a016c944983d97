import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { fromExistingWorkload, newBuilder, validateWorkloadTree } from "../../src/scheduling/index.js";
import { createCases, jobItem, updateCases } from "./builder-cases.js";
import { allOptions, pipelineTree, render } from "./fixtures.js";

describe("WorkloadBuilder.validate on create", () => {
  for (const c of createCases) {
    test(c.name, () => {
      const options = c.options ?? allOptions();
      assert.deepEqual(render(newBuilder(c.root, options).validate()), c.want, "the builder");
      assert.deepEqual(render(validateWorkloadTree(c.root, options)), c.tree ?? [], "the Workload API on the compiled tree");
    });
  }

  test("errors carry upstream's type, path and origin", () => {
    const [e] = newBuilder(jobItem({ policy: { gang: { minCount: 0 } } }), allOptions()).validate();
    assert.deepEqual(e, {
      type: "Invalid",
      field: "spec.scheduling.schedulingPolicy.gang.minCount",
      value: 0,
      detail: "must be greater than or equal to 1",
      origin: "minimum",
    });
  });

  test("a builder over an existing Workload refuses to validate, at Go's nil path", () => {
    const b = newBuilder(pipelineTree(), allOptions());
    const wl = b.buildWorkload();
    assert.ok(wl.ok);
    const errs = fromExistingWorkload(wl.value, allOptions()).validate();
    assert.deepEqual(render(errs), ["<nil>: Internal error: cannot validate a builder constructed from an existing workload"]);
  });
});

describe("WorkloadBuilder.validate on update", () => {
  for (const c of updateCases) {
    test(c.name, () => {
      const options = c.options ?? allOptions();
      assert.deepEqual(render(newBuilder(c.root, options).validate({ oldRoot: c.oldRoot })), c.want, "the builder");
      assert.deepEqual(render(validateWorkloadTree(c.root, options, { oldRoot: c.oldRoot })), c.tree ?? [], "the Workload API on the compiled trees");
    });
  }
});
