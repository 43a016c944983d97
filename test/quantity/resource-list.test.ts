import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  parseResourceList,
  addResourceLists,
  maxResourceLists,
  multiplyResourceList,
  dropZeroResources,
  formatResourceList,
  canonicalizeResourceList,
} from "../../src/quantity/index.js";

const rl = (v: Record<string, unknown>) => parseResourceList(v).list;

describe("resource lists", () => {
  test("parse reports bad entries with their path and keeps the rest", () => {
    const { list, issues } = parseResourceList(
      { cpu: "500m", memory: "1Gi", "nvidia.com/gpu": "one" },
      "spec.containers[0].resources.limits",
    );
    assert.deepEqual(Object.keys(list), ["cpu", "memory"]);
    assert.deepEqual(issues, [
      {
        path: 'spec.containers[0].resources.limits["nvidia.com/gpu"]',
        message: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      },
    ]);
    assert.equal(parseResourceList([], "x").issues.length, 1);
    assert.deepEqual(parseResourceList(undefined).list, {});
  });
  test("add, max, multiply, drop zeros, with sorted keys", () => {
    const a = rl({ memory: "1Gi", cpu: "250m" });
    const b = rl({ cpu: 1.5, "nvidia.com/gpu": 1, memory: "512Mi" });
    assert.deepEqual(formatResourceList(addResourceLists(a, b)), {
      cpu: "1750m",
      memory: "1536Mi",
      "nvidia.com/gpu": "1",
    });
    assert.deepEqual(formatResourceList(maxResourceLists(a, b)), {
      cpu: "1500m",
      memory: "1Gi",
      "nvidia.com/gpu": "1",
    });
    assert.deepEqual(formatResourceList(multiplyResourceList(a, 4)), { cpu: "1", memory: "4Gi" });
    assert.deepEqual(formatResourceList(dropZeroResources(rl({ cpu: "0", memory: "0Mi", pods: "1" }))), { pods: "1" });
    assert.deepEqual(formatResourceList(dropZeroResources(rl({ cpu: "-1", pods: "1" }), true)), { pods: "1" });
  });
  test("canonicalize", () => {
    assert.deepEqual(canonicalizeResourceList({ memory: "1024Mi", cpu: "0.1", "ephemeral-storage": "+10Gi" }).list, {
      cpu: "100m",
      "ephemeral-storage": "10Gi",
      memory: "1Gi",
    });
  });
});
