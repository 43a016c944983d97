import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseJq } from "../../src/jq/index.js";
import { analyze, formatSteps, nonAssignablePart } from "../../src/definition/jq-analysis.js";

const reads = (e: string): string[] => analyze(parseJq(e)).reads.map((r) => formatSteps(r.steps));
const notPath = (e: string): string | undefined => {
  const n = nonAssignablePart(parseJq(e));
  return n && e.slice(n.span.start, n.span.end);
};

describe("the fields an expression reads", () => {
  test("plain paths, label keys and iteration", () => {
    assert.deepEqual(reads(".spec.pytorchReplicaSpecs.Worker.template"), [".spec.pytorchReplicaSpecs.Worker.template"]);
    assert.deepEqual(reads('.metadata.labels["training.kubeflow.org/replica-type"]'), ['.metadata.labels["training.kubeflow.org/replica-type"]']);
    assert.deepEqual(reads(".spec.replicatedJobs[].template.spec.template"), [".spec.replicatedJobs[].template.spec.template"]);
  });

  test("through pipes, defaults, functions and comparisons", () => {
    assert.deepEqual(reads(".spec.replicatedJobs[] | .replicas * (.template.spec.parallelism // 1)"), [
      ".spec.replicatedJobs[].replicas",
      ".spec.replicatedJobs[].template.spec.parallelism",
    ]);
    assert.deepEqual(reads("(.status.replicatedJobsStatus // []) | any(.active > 0) and all(.failed == 0)"), [
      ".status.replicatedJobsStatus[].active",
      ".status.replicatedJobsStatus[].failed",
    ]);
    assert.deepEqual(reads('any(.spec.jobs[].spec.containers[]; (.resources.limits["nvidia.com/gpu"] // 0) > 0)'), [
      '.spec.jobs[].spec.containers[].resources.limits["nvidia.com/gpu"]',
    ]);
  });

  test("through variables bound from the input and functions defined in the expression", () => {
    assert.deepEqual(reads(".spec.template as $t | $t.cliques[] | select(.name == \"a\") | .spec.podSpec.schedulerName"), [
      ".spec.template.cliques[].name",
      ".spec.template.cliques[].spec.podSpec.schedulerName",
    ]);
    assert.deepEqual(reads("def workers: .spec.workerGroupSpecs[]; workers | .groupName"), [".spec.workerGroupSpecs[].groupName"]);
  });

  test("what it cannot follow is marked dynamic; to_entries reads its input whole and is followed", () => {
    const a = analyze(parseJq(".spec.jobs | getpath([\"a\", \"b\"])"));
    assert.deepEqual(a.reads.map((r) => formatSteps(r.steps)), [".spec.jobs"]);
    assert.ok(a.dynamic.length > 0);
    const b = analyze(parseJq(".spec.jobs | to_entries[] | .key"));
    assert.deepEqual(b.consumed.map((r) => formatSteps(r.steps)), [".spec.jobs"]);
    assert.deepEqual(b.dynamic, []);
  });

  test("undefined functions (a path without its dot) and variables", () => {
    const a = analyze(parseJq("spec.replicas"));
    assert.deepEqual(a.undefinedFunctions.map((f) => `${f.name}/${f.arity}`), ["spec/0"]);
    const b = analyze(parseJq("$n > 0"));
    assert.deepEqual(b.undefinedVariables.map((v) => v.name), ["n"]);
    assert.deepEqual(analyze(parseJq("(.a // false) != true and .b == null | not")).undefinedFunctions, []);
  });

  test("null hazards: arithmetic and iteration on fields without default", () => {
    const a = analyze(parseJq("(.spec.replicas // 1) * .spec.size - 1"));
    assert.deepEqual(a.hazards.map((h) => `${h.kind} ${formatSteps(h.steps)}`), ["arithmetic .spec.size"]);
    const b = analyze(parseJq(".status.workers[] | .ready"));
    assert.deepEqual(b.hazards.map((h) => `${h.kind} ${formatSteps(h.steps)}`), ["iterate .status.workers"]);
    assert.deepEqual(analyze(parseJq(".status.workers[]? | .ready")).hazards, []);
    assert.deepEqual(analyze(parseJq("(.status.workers // [])[] | .ready")).hazards, []);
  });
});

describe("assignable paths", () => {
  test("paths, select, alternatives of paths and optional iteration are assignable", () => {
    for (const e of [".spec.schedulerName", ".spec.components[] | .podTemplate.spec.containers[] | select(.name == \"main\") | .image", ".spec.predictor | (.[]? | select(type == \"object\"))", ".spec.a // .spec.b", "first(.spec.containers[])"]) {
      assert.equal(notPath(e), undefined, e);
    }
  });
  test("literals, variables and computed values are not", () => {
    assert.equal(notPath('.spec.x // "y"'), '"y"');
    assert.equal(notPath(".spec.t as $t | $t.labels"), "$t");
    assert.equal(notPath(".spec.replicas + 1"), ".spec.replicas + 1");
    assert.equal(notPath(".spec.jobs | to_entries[] | .value"), "to_entries");
  });
});

describe("builtins from the engine", () => {
  test("a function the engine does not define is undefined even if jq 1.8 has it", () => {
    const engine = new Set(["length/0", "select/1"]);
    const a = analyze(parseJq(".spec.replicas | toarray | length"), (name, arity) => engine.has(`${name}/${arity}`));
    assert.deepEqual(a.undefinedFunctions.map((f) => `${f.name}/${f.arity}`), ["toarray/0"]);
  });
  test("by default the engine's own list decides, arity included", () => {
    const undefinedOf = (e: string): string[] => analyze(parseJq(e)).undefinedFunctions.map((f) => `${f.name}/${f.arity}`);
    assert.deepEqual(undefinedOf('.metadata.name | ltrimstr("tf-job-") | ascii_downcase'), []);
    assert.deepEqual(undefinedOf(".metadata.name | ltrimstr"), ["ltrimstr/0"]);
    assert.deepEqual(undefinedOf(".status.conditions | map(select(.type == \"Ready\")) | first"), []);
    assert.deepEqual(undefinedOf(".spec.replicas | toarray"), ["toarray/0"]);
  });
});

describe("the paths an expression uses whole", () => {
  const consumed = (e: string): string[] => [...new Set(analyze(parseJq(e)).consumed.map((r) => formatSteps(r.steps)))].sort();
  test("its outputs, operands, builtins' inputs and arguments, interpolations, formats, array and object contents", () => {
    assert.deepEqual(consumed(".spec.template"), [".spec.template"]);
    assert.deepEqual(consumed("."), ["."]);
    assert.deepEqual(consumed('has("status")'), ["."]);
    assert.deepEqual(consumed(".spec | tojson"), [".spec"]);
    assert.deepEqual(consumed('"\\(.metadata.name)-x"'), [".metadata.name"]);
    assert.deepEqual(consumed("@json"), ["."]);
    assert.deepEqual(consumed("(.spec.replicas // 1) * 2"), [".spec.replicas"]);
    assert.deepEqual(consumed("[.spec.a, .spec.b]"), [".spec.a", ".spec.b"]);
    assert.deepEqual(consumed("{n: .metadata.name}"), [".metadata.name"]);
    assert.deepEqual(consumed(".spec.x = 1"), ["."], "an assignment's output is its whole input");
  });
  test("navigation alone uses nothing whole but what it gives", () => {
    assert.deepEqual(consumed(".spec.jobs[] | select(.name == \"a\") | .template"), [".spec.jobs[].name", ".spec.jobs[].template"]);
    assert.deepEqual(consumed("if .spec.x then .spec.y else .spec.z end"), [".spec.x", ".spec.y", ".spec.z"]);
  });
});
