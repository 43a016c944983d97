/** The rules of interpretation on small definitions written for the purpose (karta.md, "Semantics"). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileInterpreter, dns1123Safe, dns1123SubdomainErrors, type Interpretation } from "../../src/interpret/index.js";
import { karta } from "./helpers.js";
import { checkKarta } from "../../src/definition/index.js";

const errors = (r: Interpretation) => r.diagnostics.filter((d) => d.severity === "error");

/** A TFJob-like workload with a chief and workers, roles told apart by a label. */
const TRAINING = `
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: tfjob}
spec:
  structureDefinition:
    rootComponent:
      name: tfjob
      kind: {group: kubeflow.org, version: v1, kind: TFJob}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions, typeFieldName: type, statusFieldName: status, messageFieldName: message, reasonFieldName: reason}
        statusMappings:
          initializing: [{byConditions: [{type: Created, status: "True"}, {type: Running, status: "False"}]}]
          running:
          - byConditions: [{type: Running, status: "True"}]
          - byExpression: {expression: '(.status.replicaStatuses.Worker.active // 0) > 0', expectedResult: "true"}
          failed: [{byConditions: [{type: Failed, status: "True", reason: BackoffLimitExceeded}]}]
          suspended: [{byPhase: Suspended}]
      suspendDefinition:
        suspendActions: [{path: .spec.runPolicy.suspend, value: "true"}]
        resumeActions: [{path: .spec.runPolicy.suspend, value: "false"}]
    childComponents:
    - name: chief
      ownerRef: tfjob
      specDefinition: {podTemplateSpecPath: .spec.tfReplicaSpecs.Chief.template}
      scaleDefinition: {replicasPath: .spec.tfReplicaSpecs.Chief.replicas // 1}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: chief}}
    - name: worker
      ownerRef: tfjob
      specDefinition: {podTemplateSpecPath: .spec.tfReplicaSpecs.Worker.template}
      scaleDefinition: {replicasPath: .spec.tfReplicaSpecs.Worker.replicas // 1}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: worker}}
  optimizationInstructions:
    gangScheduling:
      podGroups:
      - name: job
        members:
        - componentName: tfjob
          groupByKeyPaths: ['.metadata.labels["training.kubeflow.org/job-name"]']
`;

function tfjob(conditions: object[] = [], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: "kubeflow.org/v1",
    kind: "TFJob",
    metadata: { name: "mnist", namespace: "ml", uid: "d2b1c0a9-8f7e-4d6c-9b5a-4f3e2d1c0b9a" },
    spec: {
      runPolicy: { suspend: false },
      tfReplicaSpecs: {
        Chief: { replicas: 1, template: { spec: { containers: [{ name: "tensorflow", image: "tf:2.15", resources: { requests: { cpu: "1", memory: "4Gi" } } }] } } },
        Worker: { replicas: 2, template: { spec: { containers: [{ name: "tensorflow", image: "tf:2.15", resources: { requests: { cpu: "2" } } }] } } },
      },
    },
    status: { conditions, ...extra },
  };
}

function tfPod(name: string, role: string, labels: Record<string, string> = {}): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "ml", labels: { "training.kubeflow.org/job-name": "mnist", "training.kubeflow.org/replica-type": role, ...labels } },
    spec: { containers: [{ name: "tensorflow", image: "tf:2.15" }] },
  };
}

describe("status", () => {
  const interpreter = compileInterpreter(karta(TRAINING));
  test("conditions of one matcher are ANDed, an absent condition does not match", () => {
    const r = interpreter.interpret(tfjob([{ type: "Created", status: "True" }]));
    assert.deepEqual(r.status.statuses, ["Undefined"]);
    const r2 = interpreter.interpret(tfjob([{ type: "Created", status: "True", reason: "TFJobCreated", message: "created" }, { type: "Running", status: "False" }]));
    assert.deepEqual(r2.status.statuses, ["Initializing"]);
    assert.deepEqual(r2.status.matches[0]!.conditions![0], { type: "Created", status: "True", reason: "TFJobCreated", message: "created" });
  });
  test("matchers of one status are ORed; the matcher that matched is named", () => {
    const r = interpreter.interpret(tfjob([], { replicaStatuses: { Worker: { active: 2 } } }));
    assert.deepEqual(r.status.statuses, ["Running"]);
    assert.equal(r.status.matches[0]!.path, "spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[1]");
  });
  test("reasons must equal when given", () => {
    const failed = [{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }];
    assert.deepEqual(interpreter.interpret(tfjob(failed)).status.statuses, ["Failed"]);
    assert.deepEqual(interpreter.interpret(tfjob([{ type: "Failed", status: "True", reason: "Evicted" }])).status.statuses, ["Undefined"]);
  });
  test("several statuses can hold at once, in the reference's order (Suspended before Running)", () => {
    const obj = tfjob([{ type: "Running", status: "True" }]);
    (obj.status as Record<string, unknown>).phase = "Suspended";
    const def = karta(TRAINING.replace("suspended: [{byPhase: Suspended}]", "suspended: [{byExpression: {expression: .status.phase, expectedResult: Suspended}}]"));
    assert.deepEqual(compileInterpreter(def).interpret(obj).status.statuses, ["Suspended", "Running"]);
  });
  test("an expectedResult with a quote or backslash is compared as the reference's jq text reads it", () => {
    const withExpected = (expected: string) =>
      compileInterpreter(karta(TRAINING.replace(`expression: '(.status.replicaStatuses.Worker.active // 0) > 0', expectedResult: "true"`, `expression: .status.message, expectedResult: '${expected}'`)));
    const obj = (message: string) => ({ ...tfjob([]), status: { message } });
    // "C:\tmp" in the text is C, colon, tab, m, p: the message must hold a tab to match.
    assert.deepEqual(withExpected("C:\\tmp").interpret(obj("C:\tmp")).status.statuses, ["Running"]);
    assert.deepEqual(withExpected("C:\\tmp").interpret(obj("C:\\tmp")).status.statuses, ["Undefined"]);
    // A quote ends the string early: the text does not parse, and the status fails with jq's error.
    const r = withExpected('serving "llama"').interpret(obj('serving "llama"'));
    assert.deepEqual(r.status.statuses, ["Undefined"]);
    assert.match(errors(r)[0]?.message ?? "", /^failed to evaluate ByExpression: /);
    assert.equal(errors(r)[0]?.path, "spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[1].byExpression.expression");
    // validate says so.
    assert.ok(checkKarta(karta(TRAINING.replace(`expectedResult: "true"`, `expectedResult: 'a"b'`))).some((d) => d.code === "expected-result-text"));
  });
  test("conditions: null is a condition of type \"\", another non-object fails the status; a field name \"\" reads the key \"\"", () => {
    const r = interpreter.interpret(tfjob([null, { type: "Running", status: "True" }] as never));
    assert.deepEqual(errors(r), []);
    assert.deepEqual(r.status.conditions.map((c) => c.type), ["", "Running"]);
    const bad = interpreter.interpret(tfjob(["Running", { type: "Running", status: "True" }] as never));
    assert.match(errors(bad)[0]?.message ?? "", /^conditions\[0\] must be an object, got "Running"/);
    const blank = compileInterpreter(karta(TRAINING.replace("typeFieldName: type,", 'typeFieldName: "",')));
    assert.deepEqual(blank.interpret(tfjob([{ "": "Running", type: "Created", status: "True" }] as never)).status.statuses, ["Running"]);
  });
  test("a later condition of the same type wins", () => {
    const r = interpreter.interpret(tfjob([{ type: "Running", status: "False" }, { type: "Running", status: "True" }]));
    assert.deepEqual(r.status.statuses, ["Running"]);
  });
});

describe("pods", () => {
  const interpreter = compileInterpreter(karta(TRAINING));
  test("each pod gets the leaf whose type selector matches; unmatched pods say why", () => {
    const r = interpreter.interpret(tfjob(), { pods: [tfPod("mnist-chief-0", "chief"), tfPod("mnist-worker-0", "worker"), tfPod("mnist-ps-0", "ps")] });
    assert.deepEqual(
      r.pods.map((p) => p.component),
      ["chief", "worker", undefined],
    );
    assert.match(r.pods[2]!.reason!, /no component found for pod mnist-ps-0: it matches none of chief/);
  });
  test("a pod that matches two components is the first's (the reference's InferPodComponent), with a warning naming both", () => {
    const def = karta(
      TRAINING.replace(
        `podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: worker}}`,
        `podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/job-name"]'}}`,
      ),
    );
    const r = compileInterpreter(def).interpret(tfjob(), { pods: [tfPod("mnist-chief-0", "chief")] });
    assert.equal(r.pods[0]!.component, "chief");
    assert.deepEqual(r.pods[0]!.matched, ["chief", "worker"]);
    assert.deepEqual(errors(r), []);
    const w = r.diagnostics.filter((d) => d.code === "pod-ambiguous");
    assert.equal(w.length, 1);
    assert.equal(w[0]!.severity, "warning");
    assert.match(w[0]!.message, /matches 2 components .*taken for the first, chief.*mutually exclusive/);
    assert.equal(w[0]!.path, "spec.structureDefinition.childComponents[1].podSelector.componentTypeSelector");
  });
  test("a type selector that fails on a pod fails the pod, as the reference does; later components are not tried", () => {
    const def = karta(
      TRAINING.replace(
        `podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: chief}}`,
        `podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["example.com/tier"] | ascii_downcase', value: chief}}`,
      ),
    );
    const r = compileInterpreter(def).interpret(tfjob(), { pods: [tfPod("mnist-worker-0", "worker")] });
    assert.equal(r.pods[0]!.component, undefined);
    assert.match(r.pods[0]!.reason!, /^pod mnist-worker-0: failed to check if pod matches component chief: explode input must be a string$/);
    assert.equal(errors(r)[0]!.code, "jq-eval");
  });
  test("a type selector with a value is the reference's text KEYPATH == \"VALUE\" (so `A // \"x\"` compares the default only)", () => {
    const def = karta(
      TRAINING.replace(
        `podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: worker}}`,
        `podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"] // "none"', value: worker}}`,
      ),
    );
    // `.role // ("none" == "worker")` yields the label "worker", which is not true: no component.
    const r = compileInterpreter(def).interpret(tfjob(), { pods: [tfPod("mnist-worker-0", "worker")] });
    assert.equal(r.pods[0]!.component, undefined);
    assert.match(r.pods[0]!.reason!, /no component found for pod mnist-worker-0/);
  });
  test("matchLabels must all be equal", () => {
    const def = karta(TRAINING.replace(`{componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: chief}}`, `{componentTypeSelector: {matchLabels: {"training.kubeflow.org/replica-type": chief, "training.kubeflow.org/job-role": master}}}`));
    const it = compileInterpreter(def);
    const r = it.interpret(tfjob(), { pods: [tfPod("a", "chief"), tfPod("b", "chief", { "training.kubeflow.org/job-role": "master" })] });
    assert.deepEqual(
      r.pods.map((p) => p.component),
      [undefined, "chief"],
    );
  });
});

describe("gang groups (older podGroups)", () => {
  test("a member on an ancestor groups all its descendants' pods; minMember is the subtree scale", () => {
    const r = compileInterpreter(karta(TRAINING)).interpret(tfjob(), { pods: [tfPod("c0", "chief"), tfPod("w0", "worker"), tfPod("w1", "worker")] });
    assert.deepEqual(errors(r), []);
    assert.equal(r.groups.length, 1);
    assert.equal(r.groups[0]!.name, "pg-d2b1c0a9-8f7e-4d6c-9b5a-4f3e2d1c0b9a-mnist");
    assert.equal(r.groups[0]!.minMember, 3);
    assert.ok(r.groups[0]!.members.every((m) => m.memberComponent === "tfjob"));
  });
  test("a grouping key that yields nothing or two values is an error for that pod", () => {
    const none = compileInterpreter(karta(TRAINING.replace(`groupByKeyPaths: ['.metadata.labels["training.kubeflow.org/job-name"]']`, `groupByKeyPaths: ['.metadata.labels["missing"]']`)));
    const r = none.interpret(tfjob(), { pods: [tfPod("c0", "chief")] });
    assert.equal(r.groups.length, 0);
    const e = errors(r);
    assert.equal(e.length, 1);
    assert.equal(e[0]!.path, "spec.optimizationInstructions.gangScheduling.podGroups[0].members[0].groupByKeyPaths[0]");
    assert.match(e[0]!.message, /pod c0: failed to extract group key from path "\.metadata\.labels\["missing"\]": query result is empty/);

    const two = compileInterpreter(karta(TRAINING.replace(`groupByKeyPaths: ['.metadata.labels["training.kubeflow.org/job-name"]']`, `groupByKeyPaths: ['.metadata.labels[]']`)));
    const r2 = two.interpret(tfjob(), { pods: [tfPod("c0", "chief")] });
    assert.match(errors(r2)[0]!.message, /expected single query result, got 2/);
  });
  test("a grouping key that is not a string is printed as upstream's %v prints it: a path's numbers float64, gojq's ints, map[k:v], [a b]", () => {
    const keyed = (path: string) => compileInterpreter(karta(TRAINING.replace(`groupByKeyPaths: ['.metadata.labels["training.kubeflow.org/job-name"]']`, `groupByKeyPaths: ['${path}']`)));
    const pod = { ...tfPod("c0", "chief"), spec: { priority: 1000000, ratio: 0.00001, small: 42, tags: ["b", 2], sel: { zone: "a", gpu: true, n: null } } };
    // The key as KAI reads it: in the group's name, or in the error of a name that is no DNS subdomain (KAI rejects the pod).
    const key = (path: string) => {
      const r = keyed(path).interpret(tfjob(), { pods: [pod] });
      return /grouping keys \[(.*)\] produce invalid/.exec(r.diagnostics.map((d) => d.message).join("\n"))?.[1] ?? r.groups[0]?.name.replace(/^pg-[0-9a-f-]{36}-/, "");
    };
    assert.equal(key(".spec.priority"), "1e+06");
    assert.equal(key(".spec.ratio"), "1e-05");
    assert.equal(key(".spec.small"), "42");
    // gojq's own numbers are ints.
    assert.equal(key("1000000"), "1000000");
    assert.equal(key(".spec.tags | length * 500000"), "1000000");
    assert.equal(key(".spec.tags"), "[b 2]");
    assert.equal(key(".spec.sel"), "map[gpu:true n:<nil> zone:a]");
  });
  test("a bare word is a literal key; filters pick the member", () => {
    const def = karta(
      TRAINING.replace(
        `      - name: job
        members:
        - componentName: tfjob
          groupByKeyPaths: ['.metadata.labels["training.kubeflow.org/job-name"]']`,
        `      - name: gpu
        members:
        - componentName: worker
          filters: ['(.metadata.labels["accelerator"] // "none") != "none"']
          groupByKeyPaths: [gpu]
      - name: cpu
        members:
        - componentName: worker
          groupByKeyPaths: [no-gpu]
        - componentName: chief
          groupByKeyPaths: [no-gpu]`,
      ),
    );
    const it = compileInterpreter(def);
    assert.deepEqual(it.diagnostics, []);
    const r = it.interpret(tfjob(), { pods: [tfPod("w0", "worker", { accelerator: "a100" }), tfPod("w1", "worker"), tfPod("c0", "chief")] });
    assert.deepEqual(errors(r), []);
    assert.deepEqual(
      r.groups.map((g) => [g.name, g.definition, g.members.map((m) => m.pod)]),
      [
        ["pg-d2b1c0a9-8f7e-4d6c-9b5a-4f3e2d1c0b9a-gpu", "gpu", ["w0"]],
        ["pg-d2b1c0a9-8f7e-4d6c-9b5a-4f3e2d1c0b9a-no-gpu", "cpu", ["w1", "c0"]],
      ],
    );
  });
  test("no grouping keys: one group per owner, named by the root's UID", () => {
    const def = karta(TRAINING.replace(`\n          groupByKeyPaths: ['.metadata.labels["training.kubeflow.org/job-name"]']`, ""));
    const r = compileInterpreter(def).interpret(tfjob(), { pods: [tfPod("c0", "chief")] });
    assert.equal(r.groups[0]!.name, "pg-d2b1c0a9-8f7e-4d6c-9b5a-4f3e2d1c0b9a");
  });
  test("keys that are not DNS-1123 make a safe name and a warning", () => {
    const r = compileInterpreter(karta(TRAINING)).interpret(tfjob(), { pods: [tfPod("c0", "chief", { "training.kubeflow.org/job-name": "MNIST_Run" })] });
    assert.equal(r.groups[0]!.name, "pg-d2b1c0a9-8f7e-4d6c-9b5a-4f3e2d1c0b9a-mnist-run");
    const w = r.diagnostics.find((d) => d.code === "gang-name");
    assert.ok(w);
    assert.match(w.message, /produce invalid Kubernetes PodGroup name "pg-d2b1c0a9-8f7e-4d6c-9b5a-4f3e2d1c0b9a-MNIST_Run"/);
  });
  test("DNS-1123 helpers", () => {
    assert.deepEqual(dns1123SubdomainErrors("pg-abc-0"), []);
    assert.equal(dns1123SubdomainErrors("pg-ABC").length, 1);
    assert.equal(dns1123Safe("-Pg_A..b-"), "pg-a.b");
    assert.equal(dns1123Safe("x".repeat(300)).length, 253);
  });
});

/** A workload whose pods are described in an array, one instance per entry. */
const ARRAY = `
spec:
  structureDefinition:
    rootComponent:
      name: pipeline
      kind: {group: example.com, version: v1, kind: Pipeline}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
    childComponents:
    - name: step
      ownerRef: pipeline
      instanceIdPath: .spec.steps[].name
      specDefinition: {podTemplateSpecPath: '.spec.steps[].template'}
      scaleDefinition: {replicasPath: '.spec.steps[] | (.replicas // 1)'}
      podSelector:
        componentInstanceSelector: {idPath: '.metadata.labels["example.com/step"]'}
  optimizationInstructions:
    gangScheduling:
      podGroups:
      - name: step
        members: [{componentName: step, groupByKeyPaths: ['.metadata.labels["example.com/step"]']}]
`;

function pipeline(steps: { name?: string; replicas?: number }[]): Record<string, unknown> {
  return {
    apiVersion: "example.com/v1",
    kind: "Pipeline",
    metadata: { name: "etl", uid: "aa11bb22-cc33-4d44-8e55-ff6677889900" },
    spec: { steps: steps.map((s) => ({ ...s, template: { spec: { containers: [{ name: "main", image: "etl:1", resources: { requests: { cpu: "250m" } } }] } } })) },
    status: { phase: "Running" },
  };
}

describe("instances", () => {
  const it = compileInterpreter(karta(ARRAY));
  test("one instance per array entry, with its own scale and totals", () => {
    const r = it.interpret(pipeline([{ name: "extract", replicas: 2 }, { name: "load" }]));
    assert.deepEqual(errors(r), []);
    const step = r.components[1]!;
    assert.deepEqual(
      step.instances.map((i) => [i.id, i.scale?.replicas, i.totalRequests]),
      [
        ["extract", 2, { cpu: "500m" }],
        ["load", 1, { cpu: "250m" }],
      ],
    );
    assert.equal(step.subtreeScale, 3);
  });
  test("a negative replica count is kept, as the reference keeps an int32, with a warning; it is no scale", () => {
    const r = it.interpret(pipeline([{ name: "extract", replicas: -2 }, { name: "load" }]));
    assert.deepEqual(errors(r), []);
    const warning = r.diagnostics.find((d) => d.code === "scale-negative");
    assert.match(warning?.message ?? "", /yields a negative replica count \(-2\) on this object \(a scale counts only above 0\)$/);
    assert.deepEqual(r.components[1]!.instances.map((i) => i.scale?.replicas), [-2, 1]);
    assert.equal(r.components[1]!.subtreeScale, 1);
  });
  test("an error the object causes names the object's field it was read from, when the expression is a path there", () => {
    const located = it.interpret(pipeline([{ name: "extract", replicas: 1.5 }, { name: "load", replicas: 2 }]));
    assert.deepEqual(
      errors(located).filter((d) => d.path.endsWith("replicasPath")).map((d) => d.message),
      ["'.spec.steps[] | (.replicas // 1)' must yield an integer replica count, got 1.5 (the object's spec.steps[0].replicas)"],
    );
    // `// 1` is no path where it gives 1 (jq: "Invalid path expression"): the other outputs cannot be placed either.
    const unplaced = it.interpret(pipeline([{ name: "extract", replicas: "x" as unknown as number }, { name: "load" }]));
    assert.deepEqual(
      errors(unplaced).filter((d) => d.path.endsWith("replicasPath")).map((d) => d.message),
      [`'.spec.steps[] | (.replicas // 1)' must yield an integer replica count, got "x"`],
    );
  });
  test("instance ids that do not match the spec count give the reference's error", () => {
    // A definition that reads only the first id: tested with one instance, wrong with two.
    const r = compileInterpreter(karta(ARRAY.replace("instanceIdPath: .spec.steps[].name", "instanceIdPath: .spec.steps[0].name"))).interpret(pipeline([{ name: "extract" }, { name: "load" }]));
    const e = errors(r).find((d) => d.code === "instances");
    assert.ok(e);
    assert.equal(e.message, "instance ids count (1) does not match results count (2)");
    assert.equal(e.path, "spec.structureDefinition.childComponents[0].specDefinition.podTemplateSpecPath");
  });
  test("an instance without an id is refused as the reference does", () => {
    const r = it.interpret(pipeline([{ name: "extract" }, {}]));
    assert.ok(errors(r).some((d) => d.message === "instance id path contained empty string values [extract,]"));
  });
  test("a pod's instance comes from its idPath; a pod of an unknown instance is an error", () => {
    const pod = (name: string, step: string) => ({ metadata: { name, labels: { "example.com/step": step } } });
    const r = it.interpret(pipeline([{ name: "extract", replicas: 2 }, { name: "load" }]), { pods: [pod("e0", "extract"), pod("x0", "transform")] });
    assert.equal(r.pods[0]!.instance, "extract");
    assert.match(r.pods[1]!.reason!, /could not match instance id "transform". existing instance ids \[extract load\]/);
    // The group of an instance counts that instance's scale only.
    assert.equal(r.groups[0]!.minMember, 2);
  });
});

/** A serving workload whose optional roles are chosen by select(): present on some objects, absent on others. */
const OPTIONAL_ROLES = `
spec:
  structureDefinition:
    rootComponent:
      name: service
      kind: {group: example.com, version: v1, kind: Service}
      statusDefinition:
        phaseDefinition: {path: .status.phase}
        statusMappings:
          running: [{byPhase: Running}]
    childComponents:
    - name: single
      ownerRef: service
      specDefinition: {podSpecPath: '(select(.spec.worker == null) | .spec.template)'}
      scaleDefinition: {replicasPath: '(select(.spec.worker == null) | .spec.replicas)'}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["example.com/role"]', value: single}}
    - name: leader
      ownerRef: service
      specDefinition: {podSpecPath: '(select(.spec.worker != null) | .spec.template)'}
      scaleDefinition: {replicasPath: '(select(.spec.worker != null) | .spec.replicas)'}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["example.com/role"]', value: leader}}
    - name: worker
      ownerRef: service
      specDefinition: {podSpecPath: .spec.worker}
      scaleDefinition: {replicasPath: '(select(.spec.worker != null) | .spec.replicas)'}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["example.com/role"]', value: worker}}
    - name: shard
      ownerRef: service
      instanceIdPath: '.spec.shards[]? | select(.enabled) | .name'
      specDefinition: {podSpecPath: '.spec.shards[]? | select(.enabled) | .template'}
      scaleDefinition: {replicasPath: '.spec.shards[]? | select(.enabled) | .replicas'}
      podSelector:
        componentTypeSelector: {keyPath: '.metadata.labels["example.com/role"]', value: shard}
        componentInstanceSelector: {idPath: '.metadata.labels["example.com/shard"]'}
`;

describe("scale", () => {
  test("a replica count is read as the reference decodes it into an int32: a string or a fraction is an error, not the number it spells", () => {
    const interpreter = compileInterpreter(karta(TRAINING));
    for (const [replicas, shown, what] of [["2", '"2"', "an integer"], [2.5, "2.5", "an integer"], [2147483648, "2147483648", "an int32"]] as const) {
      const obj = tfjob();
      ((obj.spec as { tfReplicaSpecs: Record<string, Record<string, unknown>> }).tfReplicaSpecs.Worker!).replicas = replicas;
      const r = interpreter.interpret(obj, { pods: [tfPod("mnist-worker-0", "worker")] });
      assert.deepEqual(
        errors(r).filter((d) => d.code === "scale" && d.path.endsWith("replicasPath")).map((d) => [d.path, d.message]),
        [["spec.structureDefinition.childComponents[1].scaleDefinition.replicasPath", `'.spec.tfReplicaSpecs.Worker.replicas // 1' must yield ${what} replica count${what === "an int32" ? " (-2147483648 to 2147483647)" : ""}, got ${shown} (the object's spec.tfReplicaSpecs.Worker.replicas)`]],
      );
      // As upstream's subtree scale fails over it, the root's fails, and no pod is grouped (KAI groups none).
      assert.ok(errors(r).some((d) => d.message === "subtree scale of 'tfjob': the scale of component worker could not be read"));
      assert.deepEqual(r.groups, []);
    }
  });
});

describe("selections that yield nothing", () => {
  const it = compileInterpreter(karta(OPTIONAL_ROLES));
  const template = { containers: [{ name: "main", image: "srv:1", resources: { requests: { cpu: "1" } } }] };
  const service = (spec: Record<string, unknown>) => ({ apiVersion: "example.com/v1", kind: "Service", metadata: { name: "llm", uid: "0b1c2d3e-4f50-4a6b-8c7d-8e9fa0b1c2d3" }, spec, status: { phase: "Running" } });
  const instances = (r: Interpretation) => Object.fromEntries(r.components.map((c) => [c.name, c.instances.map((i) => [i.id, i.scale?.replicas, i.podTemplate !== undefined])]));

  test("a component without instanceIdPath whose pod spec selects nothing has zero instances, not an error", () => {
    const r = it.interpret(service({ replicas: 2, template, worker: template, shards: [{ name: "a", enabled: false, replicas: 1, template }] }));
    assert.deepEqual(errors(r), []);
    assert.deepEqual(instances(r), { service: [["", undefined, false]], single: [], leader: [["", 2, true]], worker: [["", 2, true]], shard: [] });
    assert.equal(r.status.statuses[0], "Running");
  });
  test("the same definition on an object with the other roles", () => {
    const r = it.interpret(service({ replicas: 3, template, shards: [{ name: "a", enabled: true, replicas: 1, template }] }));
    // The worker's spec path yields null: one instance whose template is empty (upstream decodes null into a
    // zero PodTemplateSpec), with a warning; its scale selects nothing (no value).
    assert.deepEqual(errors(r), []);
    assert.deepEqual(instances(r), { service: [["", undefined, false]], single: [["", 3, true]], leader: [], worker: [["", undefined, true]], shard: [["a", 1, true]] });
    assert.deepEqual(r.components.find((c) => c.name === "worker")?.instances[0]?.podTemplate, { spec: {} });
    assert.ok(r.diagnostics.some((d) => d.code === "spec-null" && d.path.endsWith("childComponents[2].specDefinition.podSpecPath")));
  });
  test("a null pod spec is a warning only where pods are made from it: not at replicas 0 (a role absent from the object)", () => {
    const spec = { replicas: 3, template, shards: [{ name: "a", enabled: true, replicas: 1, template }] };
    const warned = (r: Interpretation) => r.diagnostics.filter((d) => d.code === "spec-null").map((d) => d.path.replace(/^.*childComponents/, ""));
    // The worker's scale selects nothing (counted as 1 replica): warned, as above.
    assert.deepEqual(warned(it.interpret(service(spec))), ["[2].specDefinition.podSpecPath"]);
    const zeroRoles = OPTIONAL_ROLES.replace("{podSpecPath: .spec.worker}\n      scaleDefinition: {replicasPath: '(select(.spec.worker != null) | .spec.replicas)'}", "{podSpecPath: .spec.worker}\n      scaleDefinition: {replicasPath: 'if .spec.worker then .spec.replicas else 0 end'}");
    assert.notEqual(zeroRoles, OPTIONAL_ROLES);
    const zero = compileInterpreter(karta(zeroRoles));
    assert.deepEqual(warned(zero.interpret(service(spec))), []);
    assert.deepEqual(warned(zero.interpret(service({ ...spec, worker: null, replicas: 0 }))), []);
  });
  test("a phase path yielding null is the phase \"\" (upstream decodes null into its string); yielding nothing, no phase", () => {
    const unwritten = { ...service({ replicas: 1, template }), status: {} };
    assert.equal(it.interpret(unwritten).status.phase, "");
    assert.deepEqual(it.interpret(unwritten).status.statuses, ["Undefined"]);
    const filtered = compileInterpreter(karta(OPTIONAL_ROLES.replace("phaseDefinition: {path: .status.phase}", "phaseDefinition: {path: '.status.phase | select(. != null)'}")));
    assert.equal(filtered.interpret(unwritten).status.phase, undefined);
  });
  test("an instanceIdPath whose select() yields nothing is zero instances", () => {
    const r = it.interpret(service({ replicas: 1, template }));
    assert.deepEqual(errors(r), []);
    assert.deepEqual(instances(r).shard, []);
  });
  test("several values without instanceIdPath are still the reference's error", () => {
    const r = compileInterpreter(karta(OPTIONAL_ROLES.replace("'(select(.spec.worker == null) | .spec.replicas)'", "'.spec.counts[]'"))).interpret(service({ counts: [1, 2], template }));
    const e = errors(r).find((d) => d.code === "instances");
    assert.equal(e?.message, "instance ids count (1) does not match results count (2)");
    assert.equal(e?.path, "spec.structureDefinition.childComponents[0].scaleDefinition");
  });
});

describe("spec patterns", () => {
  const FRAGMENTED = `
spec:
  structureDefinition:
    rootComponent:
      name: notebook
      kind: {group: example.com, version: v1, kind: Notebook}
      statusDefinition: {statusMappings: {}}
      specDefinition:
        fragmentedPodSpecDefinition:
          labelsPath: .spec.labels
          schedulerNamePath: .spec.schedulerName
          resourcesPath: .spec.resources
          imagePath: .spec.image
          nodeAffinityPath: .spec.affinity.nodeAffinity
          priorityClassNamePath: .spec.priorityClassName
`;
  test("fragments assemble into a partial pod template with one container", () => {
    const r = compileInterpreter(karta(FRAGMENTED)).interpret({
      apiVersion: "example.com/v1",
      kind: "Notebook",
      metadata: { name: "nb", namespace: "dev", uid: "u1" },
      spec: {
        labels: { owner: "ana" },
        schedulerName: "kai-scheduler",
        image: "jupyter/scipy-notebook:2024-01-15",
        resources: { requests: { cpu: "2", memory: "8Gi" }, limits: { "nvidia.com/gpu": "1" } },
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }] } } },
        priorityClassName: "build",
      },
    });
    assert.deepEqual(errors(r), []);
    const inst = r.components[0]!.instances[0]!;
    assert.deepEqual(inst.podTemplate, {
      metadata: { labels: { owner: "ana" } },
      spec: {
        schedulerName: "kai-scheduler",
        priorityClassName: "build",
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }] } } },
        containers: [{ name: "main", resources: { requests: { cpu: "2", memory: "8Gi" }, limits: { "nvidia.com/gpu": "1" } }, image: "jupyter/scipy-notebook:2024-01-15" }],
      },
    });
    assert.deepEqual(inst.replicaRequirements, {
      nodeClaim: { hardNodeAffinity: { nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }] } },
      resourceRequest: { cpu: "2", memory: "8Gi", "nvidia.com/gpu": "1" },
      namespace: "dev",
      priorityClassName: "build",
    });
  });
});

describe("subtree scale without any scale definition", () => {
  test("counts the leaf components (instances) of the subtree", () => {
    const def = karta(ARRAY.replace("      scaleDefinition: {replicasPath: '.spec.steps[] | (.replicas // 1)'}\n", ""));
    const r = compileInterpreter(def).interpret(pipeline([{ name: "a" }, { name: "b" }, { name: "c" }]));
    assert.equal(r.components[0]!.subtreeScale, 3);
  });
});

describe("subtree scale of one instance", () => {
  test("an instance of a component without a scale definition is not found, when another component has one (as upstream, so KAI fails the pod)", () => {
    const def = karta(`
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: example.com, version: v1, kind: Groups}
      scaleDefinition: {replicasPath: "1"}
    childComponents:
    - name: w
      ownerRef: job
      instanceIdPath: .spec.groups[].name
      specDefinition: {podTemplateSpecPath: '.spec.groups[].template'}
      podSelector:
        componentTypeSelector: {keyPath: .metadata.labels.role, value: w}
        componentInstanceSelector: {idPath: .metadata.labels.group}
  optimizationInstructions:
    gangScheduling:
      podGroups:
      - name: g
        members: [{componentName: w}]
`);
    const object = { apiVersion: "example.com/v1", kind: "Groups", metadata: { name: "j", uid: "6f1d2c3b-4a59-4e68-9d7c-8b0a1f2e3d4c" }, spec: { groups: [{ name: "g1", template: { spec: { containers: [{ name: "c" }] } } }] } };
    const pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { role: "w", group: "g1" } } };
    const r = compileInterpreter(def).interpret(object, { pods: [pod] });
    assert.equal(r.groups.length, 0);
    assert.match(errors(r).map((d) => d.message).join("\n"), /instance id g1 not found/);
  });
});

describe("newer podGroup format", () => {
  const V2 = `
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: example.com, version: v1, kind: TrainJob}
      statusDefinition: {statusMappings: {}}
    childComponents:
    - name: launcher
      ownerRef: job
      specDefinition: {podTemplateSpecPath: .spec.launcher}
      scaleDefinition: {replicasPath: "1"}
      podSelector: {componentTypeSelector: {keyPath: .metadata.labels.role, value: launcher}}
    - name: node
      ownerRef: job
      specDefinition: {podTemplateSpecPath: .spec.node}
      scaleDefinition: {replicasPath: .spec.numNodes}
      podSelector: {componentTypeSelector: {keyPath: .metadata.labels.role, value: node}}
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: train
        topology: {topologyName: cluster-topology, requiredTopologyLevel: zone, preferredTopologyLevel: rack}
        subGroups:
        - componentName: launcher
        - componentName: node
          topology: {topologyName: cluster-topology, requiredTopologyLevel: rack, preferredTopologyLevel: ""}
`;
  const obj = (nodes: number) => ({ apiVersion: "example.com/v1", kind: "TrainJob", metadata: { name: "t", uid: "0f0e0d0c-0b0a-4909-8807-060504030201" }, spec: { launcher: { spec: { containers: [] } }, node: { spec: { containers: [] } }, numNodes: nodes } });
  test("one group, minSubGroup = number of subgroups, topology carried through", () => {
    const r = compileInterpreter(karta(V2)).interpret(obj(4), { pods: [{ metadata: { name: "l", labels: { role: "launcher" } } }, { metadata: { name: "n0", labels: { role: "node" } } }] });
    assert.deepEqual(errors(r), []);
    const g = r.groups[0]!;
    assert.equal(g.name, "pg-0f0e0d0c-0b0a-4909-8807-060504030201-train");
    assert.equal(g.minSubGroup, 2);
    assert.deepEqual(g.topology, { topologyName: "cluster-topology", requiredTopologyLevel: "zone", preferredTopologyLevel: "rack" });
    assert.deepEqual(
      g.subGroups!.map((s) => [s.name, s.minMember, s.pods, s.topology?.requiredTopologyLevel]),
      [
        ["launcher", 1, ["l"], undefined],
        ["node", 4, ["n0"], "rack"],
      ],
    );
  });
  test("a subgroup whose subtree scale is 0 is left out with a notice (as KAI drops a PyTorchJob's absent master)", () => {
    const r = compileInterpreter(karta(V2)).interpret(obj(0), { pods: [{ metadata: { name: "l", labels: { role: "launcher" } } }] });
    assert.deepEqual(errors(r), []);
    const notice = r.diagnostics.find((d) => d.code === "gang-subgroup-empty")!;
    assert.equal(notice.severity, "notice");
    assert.equal(notice.path, "spec.optimizationInstructions.gangScheduling.podGroup.subGroups[1]");
    const g = r.groups[0]!;
    assert.equal(g.minSubGroup, 1);
    assert.deepEqual(g.subGroups!.map((s) => [s.name, s.minMember, s.pods]), [["launcher", 1, ["l"]]]);
  });
});

describe("bad input", () => {
  const interpreter = compileInterpreter(karta(TRAINING));
  test("an object of another kind is refused with both kinds named", () => {
    const r = interpreter.interpret({ apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", metadata: { name: "x" } });
    assert.deepEqual(
      errors(r).map((d) => [d.path, d.message]),
      [["kind", "the object is PyTorchJob kubeflow.org/v1, but the definition's root component is TFJob kubeflow.org/v1"]],
    );
    assert.deepEqual(r.components, []);
  });
  test("a non-object is an error, not an exception", () => {
    assert.equal(errors(interpreter.interpret("nope")).length, 1);
    assert.equal(errors(interpreter.interpret(null, { pods: [null, 3] })).length, 1);
  });
  test("garbage pods never throw", () => {
    const r = interpreter.interpret(tfjob(), { pods: [null, 42, "x", [], { metadata: { labels: "no" } }] });
    assert.equal(r.pods.length, 5);
    assert.ok(r.pods.every((p) => p.component === undefined));
  });
  test("an expression that fails on the object is reported with its field path", () => {
    const r = interpreter.interpret({ ...tfjob(), spec: { tfReplicaSpecs: { Chief: "oops" } } });
    const e = errors(r).find((d) => d.path === "spec.structureDefinition.childComponents[0].specDefinition.podTemplateSpecPath");
    assert.ok(e);
    assert.match(e.message, /Cannot index string with string \("template"\)/);
  });
  test("an expression that does not compile is a diagnostic of the compiled definition", () => {
    const it = compileInterpreter(karta(TRAINING.replace(".spec.tfReplicaSpecs.Chief.replicas // 1", ".spec.tfReplicaSpecs.Chief.replicas //")));
    assert.equal(it.diagnostics.length, 1);
    assert.equal(it.diagnostics[0]!.path, "spec.structureDefinition.childComponents[0].scaleDefinition.replicasPath");
  });
});

describe("pods of other workloads", () => {
  // The pods of a whole namespace (kubectl get pods -o yaml): this job's, and another PyTorchJob's with the same labels.
  const job = (name: string, uid?: string) => ({
    apiVersion: "kubeflow.org/v1",
    kind: "PyTorchJob",
    metadata: { name, namespace: "nlp", ...(uid ? { uid } : {}) },
    spec: { pytorchReplicaSpecs: { Master: { replicas: 1, template: { spec: { containers: [{ name: "pytorch" }] } } }, Worker: { replicas: 2, template: { spec: { containers: [{ name: "pytorch" }] } } } } },
  });
  const pod = (name: string, role: string, owner: { name: string; uid?: string; apiVersion?: string }) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: "nlp",
      labels: { "training.kubeflow.org/job-name": owner.name, "training.kubeflow.org/replica-type": role },
      ownerReferences: [{ apiVersion: owner.apiVersion ?? "kubeflow.org/v1", kind: "PyTorchJob", name: owner.name, ...(owner.uid ? { uid: owner.uid } : {}), controller: true, blockOwnerDeletion: true }],
    },
  });
  const DEF = `
spec:
  structureDefinition:
    rootComponent:
      name: pytorchjob
      kind: {group: kubeflow.org, version: v1, kind: PyTorchJob}
      statusDefinition: {statusMappings: {}}
    childComponents:
    - name: master
      ownerRef: pytorchjob
      specDefinition: {podTemplateSpecPath: .spec.pytorchReplicaSpecs.Master.template}
      scaleDefinition: {replicasPath: .spec.pytorchReplicaSpecs.Master.replicas // 1}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: master}}
    - name: worker
      ownerRef: pytorchjob
      specDefinition: {podTemplateSpecPath: .spec.pytorchReplicaSpecs.Worker.template}
      scaleDefinition: {replicasPath: .spec.pytorchReplicaSpecs.Worker.replicas // 1}
      podSelector: {componentTypeSelector: {keyPath: '.metadata.labels["training.kubeflow.org/replica-type"]', value: worker}}
  optimizationInstructions:
    gangScheduling:
      podGroups:
      - name: job
        members: [{componentName: pytorchjob}]
`;
  const BERT = "b7e3c9a1-52d4-4f08-8c6e-0a9d1e2f3b4c";
  const GPT = "5c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

  test("a pod owned by another object of the root's kind is unmatched and in no group", () => {
    const pods = [
      pod("bert-master-0", "master", { name: "bert", uid: BERT }),
      pod("bert-worker-0", "worker", { name: "bert", uid: BERT }),
      pod("gpt-master-0", "master", { name: "gpt", uid: GPT }),
      // Another version of the same kind is the same object kind: still another job.
      pod("gpt-worker-0", "worker", { name: "gpt", uid: GPT, apiVersion: "kubeflow.org/v2" }),
    ];
    const r = compileInterpreter(karta(DEF)).interpret(job("bert", BERT), { pods });
    assert.deepEqual(errors(r), []);
    assert.deepEqual(
      r.pods.map((p) => [p.pod.name, p.component ?? null]),
      [
        ["bert-master-0", "master"],
        ["bert-worker-0", "worker"],
        ["gpt-master-0", null],
        ["gpt-worker-0", null],
      ],
    );
    assert.equal(r.pods[2]!.reason, `pod gpt-master-0 belongs to PyTorchJob gpt (uid ${GPT}), not to this PyTorchJob bert`);
    assert.deepEqual(
      r.groups.map((g) => [g.name, g.minMember, g.members.map((m) => m.pod)]),
      [[`pg-${BERT}`, 3, ["bert-master-0", "bert-worker-0"]]],
    );
  });

  test("without uids the owner's name decides; pods without owner references are kept", () => {
    const pods = [pod("bert-master-0", "master", { name: "bert" }), pod("gpt-master-0", "master", { name: "gpt", uid: GPT }), { metadata: { name: "bare", labels: { "training.kubeflow.org/replica-type": "worker" } } }];
    const r = compileInterpreter(karta(DEF)).interpret(job("bert"), { pods });
    assert.deepEqual(
      r.pods.map((p) => [p.pod.name, p.component ?? null]),
      [
        ["bert-master-0", "master"],
        ["gpt-master-0", null],
        ["bare", "worker"],
      ],
    );
    assert.equal(r.pods[1]!.reason, `pod gpt-master-0 belongs to PyTorchJob gpt (uid ${GPT}), not to this PyTorchJob bert`);
    // An object written by hand with neither name nor uid: its pods cannot be told from others'.
    const bare = job("bert") as { metadata: Record<string, unknown> };
    bare.metadata = {};
    const anonymous = compileInterpreter(karta(DEF)).interpret(bare, { pods });
    assert.deepEqual(
      anonymous.pods.map((p) => p.component ?? null),
      ["master", "master", "worker"],
    );
  });
});

describe("newer podGroup format: subgroup members", () => {
  test("a subgroup holds the pods classified into its subtree, also when its one leaf has no type selector", () => {
    // A RayCluster-like workload with a single pod-defining component (every pod belongs to it) under a grouping component.
    const def = karta(`
spec:
  structureDefinition:
    rootComponent:
      name: notebook
      kind: {group: kubeflow.org, version: v1, kind: Notebook}
      statusDefinition: {statusMappings: {}}
    childComponents:
    - name: server
      ownerRef: notebook
      specDefinition: {podTemplateSpecPath: .spec.template}
      scaleDefinition: {replicasPath: "1"}
  optimizationInstructions:
    gangScheduling:
      podGroup:
        name: nb
        subGroups: [{componentName: server}]
`);
    const object = { apiVersion: "kubeflow.org/v1", kind: "Notebook", metadata: { name: "jupyter", namespace: "ds", uid: "9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a" }, spec: { template: { spec: { containers: [{ name: "notebook", image: "jupyter/scipy-notebook" }] } } } };
    const pods = [
      { apiVersion: "v1", kind: "Pod", metadata: { name: "jupyter-0", namespace: "ds", labels: { "notebook-name": "jupyter", "statefulset.kubernetes.io/pod-name": "jupyter-0" } } },
      // Another Notebook's pod, given with the namespace's pods: in no subgroup.
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "other-0", namespace: "ds", ownerReferences: [{ apiVersion: "kubeflow.org/v1", kind: "Notebook", name: "other", uid: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", controller: true }] },
      },
    ];
    const r = compileInterpreter(def).interpret(object, { pods });
    assert.deepEqual(errors(r), []);
    const g = r.groups[0]!;
    assert.deepEqual(
      g.subGroups!.map((s) => [s.name, s.minMember, s.pods]),
      [["server", 1, ["jupyter-0"]]],
    );
    assert.deepEqual(
      g.members.map((m) => [m.pod, m.memberComponent, m.minMember]),
      [["jupyter-0", "server", 1]],
    );
  });
});

describe("the newer form's extensions: perInstance, groupByKeyPaths, minSubGroupPath", () => {
  const def = (gang: string) => `
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: pools}
spec:
  structureDefinition:
    rootComponent:
      name: app
      kind: {group: example.com, version: v1, kind: Pools}
      statusDefinition: {phaseDefinition: {path: .status.phase}, statusMappings: {running: [{byPhase: Running}]}}
    childComponents:
    - name: pool
      ownerRef: app
      specDefinition: {podTemplateSpecPath: '.spec.pools[].template'}
      scaleDefinition: {replicasPath: '.spec.pools[] | .replicas'}
      instanceIdPath: '.spec.pools[].name'
      podSelector:
        componentTypeSelector: {keyPath: .metadata.labels.pool}
        componentInstanceSelector: {idPath: .metadata.labels.pool}
    - name: driver
      ownerRef: app
      specDefinition: {podTemplateSpecPath: .spec.driver}
      scaleDefinition: {replicasPath: "1"}
      podSelector: {componentTypeSelector: {keyPath: .metadata.labels.role, value: driver}}
  optimizationInstructions:
    gangScheduling:
${gang}`;
  const object = (extra: Record<string, unknown> = {}) => ({
    apiVersion: "example.com/v1",
    kind: "Pools",
    metadata: { name: "p", uid: "11111111-2222-4333-8444-555555555555" },
    spec: { driver: { spec: { containers: [] } }, pools: [{ name: "gpu", replicas: 3, template: { spec: { containers: [] } } }, { name: "cpu", replicas: 0, template: { spec: { containers: [] } } }], ...extra },
  });
  const pod = (name: string, labels: Record<string, string>) => ({ metadata: { name, labels } });

  test("perInstance: a subgroup per instance with its scale, the empty one left out", () => {
    const r = compileInterpreter(karta(def("      podGroup:\n        name: app\n        subGroups:\n        - componentName: driver\n        - componentName: pool\n          perInstance: true"))).interpret(object(), {
      pods: [pod("d", { role: "driver" }), pod("g0", { pool: "gpu" }), pod("g1", { pool: "gpu" })],
    });
    assert.deepEqual(errors(r), []);
    assert.deepEqual(r.groups[0]!.subGroups!.map((s) => [s.name, s.instance, s.minMember, s.pods]), [
      ["driver", undefined, 1, ["d"]],
      ["gpu", "gpu", 3, ["g0", "g1"]],
    ]);
    assert.equal(r.groups[0]!.minSubGroup, 2);
    assert.ok(r.diagnostics.some((d) => d.code === "gang-subgroup-empty" && d.message.includes("instance cpu")));
  });

  test("perInstance on a component without instances is an error at the field", () => {
    const r = compileInterpreter(karta(def("      podGroup:\n        name: app\n        subGroups:\n        - componentName: driver\n          perInstance: true"))).interpret(object());
    assert.deepEqual(errors(r).map((d) => d.path), ["spec.optimizationInstructions.gangScheduling.podGroup.subGroups[0].perInstance"]);
  });

  test("groupByKeyPaths: one group per key tuple; a pod whose key cannot be read is reported", () => {
    const r = compileInterpreter(karta(def("      podGroup:\n        name: app\n        groupByKeyPaths: [.metadata.labels.shard]\n        subGroups:\n        - componentName: driver"))).interpret(object(), {
      pods: [pod("d0", { role: "driver", shard: "a" }), pod("d1", { role: "driver", shard: "b" }), pod("d2", { role: "driver" })],
    });
    assert.deepEqual(r.groups.map((g) => [g.name, g.keys, g.members.map((m) => m.pod)]), [
      ["pg-11111111-2222-4333-8444-555555555555-app-a", ["a"], ["d0"]],
      ["pg-11111111-2222-4333-8444-555555555555-app-b", ["b"], ["d1"]],
    ]);
    assert.deepEqual(errors(r).map((d) => [d.path, d.code]), [["spec.optimizationInstructions.gangScheduling.podGroup.groupByKeyPaths[0]", "gang-key"]]);
  });

  test("minSubGroupPath: its value, capped at the subgroups; null means all; a non-integer is an error", () => {
    const gang = (path: string) => `      podGroup:\n        name: app\n        minSubGroupPath: '${path}'\n        subGroups:\n        - componentName: driver\n        - componentName: pool\n          perInstance: true`;
    const objectWithCpu = object({ pools: [{ name: "gpu", replicas: 3, template: { spec: { containers: [] } } }, { name: "cpu", replicas: 2, template: { spec: { containers: [] } } }] });
    const min = (path: string) => compileInterpreter(karta(def(gang(path)))).interpret(objectWithCpu).groups[0]!;
    assert.equal(min("1").minSubGroup, 1);
    assert.equal(min("1").minMember, 1, "the fewest pods: the smallest subgroup");
    assert.equal(min("9").minSubGroup, 3);
    assert.equal(min("null").minSubGroup, 3);
    assert.equal(min("null").minMember, 6);
    const bad = compileInterpreter(karta(def(gang('"two"')))).interpret(objectWithCpu);
    assert.deepEqual(errors(bad).map((d) => d.path), ["spec.optimizationInstructions.gangScheduling.podGroup.minSubGroupPath"]);
  });
});
