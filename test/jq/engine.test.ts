/** The jq engine on the expressions Karta definitions really use, over realistic objects. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { builtinNames, compileJq, jq, JqError } from "../../src/jq/index.js";
import { jobSet, lwsWorkerPod, pytorchJob, pytorchWorkerPod } from "../fixtures/objects.js";

describe("Karta expressions from the seed and the catalog", () => {
  test("replica-type label of a training-operator pod", () => {
    const p = compileJq('.metadata.labels["training.kubeflow.org/replica-type"]', { safe: true });
    assert.equal(p.first(pytorchWorkerPod()), "worker");
  });
  test("instance ids of a map of jobs", () => {
    const obj = { spec: { jobs: { prefill: { replicas: 2 }, decode: { replicas: 4 } } } };
    assert.deepEqual(jq(".spec.jobs | to_entries[] | .key", obj), ["prefill", "decode"]);
  });
  test("instance ids of an array of jobs", () => {
    const obj = { spec: { jobs: [{ name: "driver" }, { name: "loader" }] } };
    assert.deepEqual(jq(".spec.jobs[].name", obj), ["driver", "loader"]);
  });
  test("LeaderWorkerSet group index with a default", () => {
    const p = compileJq('.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"] // "0"', { safe: true });
    assert.equal(p.first(lwsWorkerPod()), "3");
    const leaderless = lwsWorkerPod();
    delete leaderless.metadata.labels["leaderworkerset.sigs.k8s.io/group-index"];
    assert.equal(p.first(leaderless), "0");
  });
  test("GPU filter over a JobSet's jobs", () => {
    const js = { spec: { jobs: jobSet().spec.replicatedJobs.map((j: any) => ({ spec: j.template.spec.template.spec })) } };
    const gpu = compileJq('any(.spec.jobs[].spec.containers[]; (.resources.limits["nvidia.com/gpu"] // 0) > 0)', { safe: true });
    const noGpu = compileJq('any(.spec.jobs[].spec.containers[]; (.resources.limits["nvidia.com/gpu"] // 0) == 0)', { safe: true });
    // "8" is a string: strings sort above numbers in jq, so the comparison is true, as with real jq.
    assert.equal(gpu.first(js), true);
    assert.equal(noGpu.first(js), true);
    js.spec.jobs.pop();
    assert.equal(noGpu.first(js), false);
  });
  test("pod template and spec paths of a PyTorchJob", () => {
    const job = pytorchJob();
    assert.equal((jq(".spec.pytorchReplicaSpecs.Worker.template", job)[0] as any).spec.priorityClassName, "training-high");
    assert.deepEqual(jq(".spec.pytorchReplicaSpecs.Master.replicas", job), [1]);
  });
  test("a status condition by type", () => {
    assert.deepEqual(jq('.status.conditions[] | select(.type == "Running") | .status', pytorchJob()), ["True"]);
    assert.deepEqual(jq('.status.conditions[] | select(.type == "Succeeded") | .status', pytorchJob()), []);
  });
  test("missing optional fields are null, not errors", () => {
    assert.deepEqual(jq(".spec.pytorchReplicaSpecs.Launcher.replicas // 0", pytorchJob()), [0]);
    assert.deepEqual(jq(".status.replicaStatuses.Worker.succeeded", pytorchJob()), [null]);
  });
});

describe("semantics", () => {
  test("first output only: the rest is never computed", () => {
    let calls = 0;
    const p = compileJq("first(range(1; 1000000000) | select(. > 3))");
    assert.equal(p.first(null), 4);
    const q = compileJq("limit(2; repeat(1))");
    assert.deepEqual(q.run(null), [1, 1]);
    compileJq(".[]").forEach([1, 2, 3], () => {
      calls++;
      return false;
    });
    assert.equal(calls, 1);
  });
  test("paths, assignment and update operators", () => {
    const job = pytorchJob();
    const out = jq('.spec.pytorchReplicaSpecs[].template.spec.schedulerName = "kai-scheduler"', job)[0] as any;
    assert.equal(out.spec.pytorchReplicaSpecs.Worker.template.spec.schedulerName, "kai-scheduler");
    assert.equal(job.spec.pytorchReplicaSpecs.Worker.template.spec.schedulerName, undefined, "input is not mutated");
    assert.deepEqual(jq(".spec.pytorchReplicaSpecs.Worker.replicas += 1 | .spec.pytorchReplicaSpecs.Worker.replicas", job), [4]);
    assert.deepEqual(jq("[paths(type == \"number\")]", { a: [1, { b: 2 }] }), [[["a", 0], ["a", 1, "b"]]]);
    assert.deepEqual(jq("del(.metadata.labels) | .metadata | keys", pytorchWorkerPod()), [["name", "namespace", "ownerReferences"]]);
  });
  test("destructuring with alternatives", () => {
    assert.deepEqual(jq(". as [$a, {b: $c}] ?// $a | [$a, $c]", [1, { b: 2 }]), [[1, 2]]);
    assert.deepEqual(jq(". as [$a, {b: $c}] ?// $a | [$a, $c]", "x"), [["x", null]]);
  });
  test("try/catch sees jq's messages; errors after outputs keep the outputs", () => {
    assert.deepEqual(jq('try (.spec | .foo) catch .', { spec: 1 }), ['Cannot index number with string ("foo")']);
    assert.throws(
      () => jq(".[] | if . == 2 then error(\"two\") else . end", [1, 2, 3]),
      (e: unknown) => e instanceof JqError && e.message === "two" && (e.outputs as unknown[]).length === 1,
    );
  });
  test("jq's ordering across types and number printing", () => {
    assert.deepEqual(jq("sort", [{}, [], "a", 1, true, false, null]), [[null, false, true, 1, "a", [], {}]]);
    assert.deepEqual(jq("[.[] | tojson]", [1.5, 1e100, 3, 1e-5, 100000000000000000000]), [["1.5", "1e+100", "3", "1e-05", "1e+20"]]);
  });
  test("regular expressions, dates and formats", () => {
    assert.deepEqual(jq('capture("(?<name>[a-z-]+)-(?<index>[0-9]+)$")', "llama-finetune-worker-3"), [{ name: "llama-finetune-worker", index: "3" }]);
    assert.deepEqual(jq('.status.startTime | fromdate | todate', pytorchJob()), ["2026-11-29T22:10:04Z"]);
    assert.deepEqual(jq("@base64 \"\\(.)\" | @base64d", "kai"), ["kai"]);
    assert.deepEqual(jq('[.[] | @sh "echo \\(.)"]', ["a'b"]), [["echo 'a'\\''b'"]]);
  });
  test("isfinite and format/1, as in jq 1.7.1", () => {
    assert.deepEqual(jq("map(isfinite)", [1, Infinity, "1"]), [[true, false, false]]);
    assert.deepEqual(jq('[.metadata.name, .metadata.namespace] | format("csv"), format("tsv")', pytorchWorkerPod()), ['"llama-finetune-worker-0","ml-team"', "llama-finetune-worker-0\tml-team"]);
    assert.throws(() => jq('format("yaml")', 1), /yaml is not a valid format/);
  });
  test("variables passed at run time", () => {
    const p = compileJq(".metadata.labels[$key]", { variables: ["key"] });
    assert.equal(p.first(pytorchWorkerPod(), { vars: { key: "training.kubeflow.org/replica-index" } }), "0");
  });
  test("env and $ENV are empty unless the caller passes an environment", () => {
    assert.deepEqual(jq("env, $ENV", null), [{}, {}]);
    assert.deepEqual(compileJq("$ENV.HOME", { env: { HOME: "/home/k" } }).run(null), ["/home/k"]);
  });
});

describe("the builtin list", () => {
  test("builtinNames() is what `builtins` lists, every entry compiles, internals excluded", () => {
    const listed = jq("builtins", null)[0] as string[];
    assert.deepEqual([...builtinNames()].sort(), [...listed].sort());
    assert.ok(builtinNames().has("ltrimstr/1") && builtinNames().has("getpath/1") && !builtinNames().has("ltrimstr/0"));
    assert.ok([...builtinNames()].every((n) => !n.startsWith("_")));
    for (const entry of builtinNames()) {
      const [name, arity] = entry.split("/") as [string, string];
      const args = Array.from({ length: Number(arity) }, () => "empty").join("; ");
      assert.doesNotThrow(() => compileJq(Number(arity) === 0 ? name : `${name}(${args})`), entry);
    }
  });
});

describe("jq 1.8.2 semantics of less-used builtins", () => {
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "mnist-worker-0", labels: { "training.kubeflow.org/replica-type": "worker" } },
    spec: { containers: [{ name: "pytorch", image: "kubeflow/pytorch-dist-mnist:latest" }] },
    status: { phase: "Running" },
  };
  test("getpath through a value that cannot be indexed fails; through null it is null", () => {
    assert.deepEqual(jq('try getpath(["spec","containers",0,"name","x"]) catch .', pod), ['Cannot index string with string ("x")']);
    assert.deepEqual(jq('try getpath(["status","phase",0]) catch .', pod), ["Cannot index string with number (0)"]);
    assert.deepEqual(jq('getpath(["status","conditions",0,"type"])', pod), [null]);
    assert.deepEqual(jq('getpath(["spec","containers",5])', pod), [null]);
    assert.throws(() => jq('path(getpath(["metadata","name","x"]))', pod), /Cannot index string with string \("x"\)/);
    assert.deepEqual(jq('path(getpath(["metadata","annotations","x"]))', pod), [["metadata", "annotations", "x"]]);
  });
  test("range with a zero step yields nothing", () => {
    assert.deepEqual(jq("[range(0; 3; 0)]", null), [[]]);
    assert.deepEqual(jq("[range(3; 0; 0)]", null), [[]]);
    assert.deepEqual(jq("[range(0; 5; 2)]", null), [[0, 2, 4]]);
  });
  test("sub/gsub with several replacements zip them over the matches", () => {
    assert.deepEqual(jq('.metadata.name | [gsub("-"; "_", ".")]', pod), [["mnist_worker_0", "mnist.worker.0"]]);
    assert.deepEqual(jq('[.metadata.name | gsub("(?<c>[a-z])[a-z]*"; "\\(.c|ascii_upcase)", "\\(.c)")]', pod), [["M-W-0", "m-w-0"]]);
    assert.deepEqual(jq('.metadata.name | [sub("worker"; "launcher", "master")]', pod), [["mnist-launcher-0", "mnist-master-0"]]);
    assert.deepEqual(jq('.metadata.name | [sub("-"; empty)]', pod), [["mnist-worker-0"]]);
    assert.deepEqual(jq('.metadata.name | gsub("^mnist-"; "")', pod), ["worker-0"]);
    assert.deepEqual(jq('.spec.containers[0].image | sub(":.*$"; "")', pod), ["kubeflow/pytorch-dist-mnist"]);
  });
  test("object construction with a key that is not a string fails with jq's message", () => {
    assert.deepEqual(jq("try {(.metadata.labels.team): .status.phase} catch .", pod), ["Cannot use null (null) as object key"]);
    assert.deepEqual(jq("try {(.spec.containers): 1} catch .", pod), ['Cannot use array ([{"name":"pytorch","image...]) as object key']);
    assert.deepEqual(jq('{(.metadata.labels["training.kubeflow.org/replica-type"]): .status.phase}', pod), [{ worker: "Running" }]);
  });
  test("from_entries takes key/Key/name/Name and value/Value, as jq 1.7.1", () => {
    const env = [
      { name: "MASTER_ADDR", value: "mnist-master-0" },
      { Name: "WORLD_SIZE", Value: "2" },
      { key: "RANK", value: "1" },
    ];
    assert.deepEqual(jq("from_entries", env), [{ MASTER_ADDR: "mnist-master-0", WORLD_SIZE: "2", RANK: "1" }]);
    assert.deepEqual(jq(".metadata.labels | with_entries(.key |= ltrimstr(\"training.kubeflow.org/\"))", pod), [{ "replica-type": "worker" }]);
    assert.deepEqual(jq("try from_entries catch .", [{ key: 0, value: "a" }]), ["Cannot use number (0) as object key"]);
    assert.deepEqual(jq("try from_entries catch .", [{ k: "a", v: 1 }]), ["Cannot use null (null) as object key"]);
    assert.deepEqual(jq("from_entries", []), [{}]);
  });
  test("reduce and foreach take ?// alternatives; an update with no output leaves null (jq 1.7.1)", () => {
    const replicaSpecs = { Master: { replicas: 1 }, Worker: { replicas: 3 } };
    // Entries given as [name, spec] pairs or as {name, spec} objects.
    const mixed = [["Master", replicaSpecs.Master], { name: "Worker", spec: replicaSpecs.Worker }];
    assert.deepEqual(jq("reduce .[] as [$n, $s] ?// {name: $n, spec: $s} (0; . + $s.replicas)", mixed), [4]);
    assert.deepEqual(jq("[foreach .[] as [$n, $s] ?// {name: $n, spec: $s} (0; . + $s.replicas; [$n, .])]", mixed), [[["Master", 1], ["Worker", 4]]]);
    assert.deepEqual(jq("reduce .[] as $x (0; if $x == 2 then empty else . + $x end)", [1, 2, 3]), [3]);
    assert.deepEqual(jq("[foreach .[] as $x (0; if $x == 2 then empty else . + $x end)]", [1, 2, 3]), [[1, 3]]);
    // Each output of the update becomes the state; the next item starts from the last one.
    assert.deepEqual(jq("[foreach .[] as $x (0; . + $x, . * 10)]", [1, 2]), [[1, 0, 2, 0]]);
    assert.throws(() => jq("reduce .[] as [$a] ?// {a: $a} (0; error(\"stop\"))", [{ a: 1 }]), /stop/);
  });
  test("?// alternatives in path expressions", () => {
    const doc = { spec: { ports: [[8080], { containerPort: 9090 }] } };
    assert.deepEqual(jq("[.spec.ports[] as [$p] ?// {containerPort: $p} | $p]", doc), [[8080, 9090]]);
    assert.deepEqual(jq("[path(.spec.ports[] as [$p] ?// {containerPort: $p} | .spec)]", doc), [[["spec"], ["spec"]]]);
  });
  test("abs is jq 1.7.1's `if . < 0 then - . else . end`", () => {
    const pod = { status: { containerStatuses: [{ restartCount: 2 }], startTime: null } };
    assert.deepEqual(jq(".status.containerStatuses[0].restartCount - 5 | abs", pod), [3]);
    assert.deepEqual(jq("try (.status.startTime | abs) catch .", pod), ["null (null) cannot be negated"]);
    assert.deepEqual(jq('"Running" | abs', pod), ["Running"]);
  });
});
