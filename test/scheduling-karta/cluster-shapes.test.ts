/**
 * Gangs a real cluster can take: a RayCluster with only its head, a composite flattened into one PodGroup
 * for a scheduler without the CompositePodGroup gate (--group-shape flat), and pods at a system priority,
 * which no pod group can hold (the scheduler refuses a pod whose priority is not its group's).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { compileInterpreter } from "../../src/interpret/index.js";
import { compileKarta } from "../../src/scheduling/karta.js";
import type { CompileIssue } from "../../src/scheduling/karta/issues.js";
import { clone, fixtureCases, loadBundled } from "../bundled/helpers.js";

type Obj = Record<string, any>;
const errors = (issues: CompileIssue[]) => issues.filter((i) => i.severity === "error");
const fixture = (name: string) => fixtureCases().find((c) => c.name === name)!;
const definition = (name: string) => loadBundled(fixture(name).expected.definition).definition;

describe("a RayCluster with only its head (workerGroupSpecs empty or absent, as KubeRay allows)", () => {
  const ray = fixture("RayCluster");
  const heads = ray.pods.filter((p: Obj) => p.metadata.labels?.["ray.io/node-type"] === "head");
  for (const [what, edit] of [
    ["workerGroupSpecs: []", (o: Obj) => (o.spec.workerGroupSpecs = [])],
    ["no workerGroupSpecs", (o: Obj) => delete o.spec.workerGroupSpecs],
  ] as const) {
    test(`${what}: a composite of the head alone, the head pod in it`, () => {
      const object = clone(ray.workload) as Obj;
      edit(object);
      const r = compileKarta(definition("RayCluster"), object, { pods: heads });
      assert.ok(r.ok, JSON.stringify(errors(r.issues)));
      const composite = r.workload!.spec.compositePodGroupTemplates![0]!;
      assert.equal(composite.schedulingPolicy.gang?.minGroupCount, 1);
      assert.deepEqual(composite.podGroupTemplates!.map((t) => [t.name, t.schedulingPolicy.gang?.minCount]), [["ray-head", 1]]);
      assert.equal(r.podPatches.length, heads.length);
      assert.equal(r.podPatches[0]!.podGroupName, r.podGroups[0]!.metadata.name);
      assert.ok(r.issues.some((i) => i.severity === "notice" && /component worker has no instances on this object/.test(i.message)));
      // interpret agrees: the head is grouped, nothing fails.
      const seen = compileInterpreter(definition("RayCluster")).interpret(object, { pods: heads });
      assert.deepEqual(seen.diagnostics.filter((d) => d.severity === "error"), []);
      assert.deepEqual(seen.groups[0]!.subGroups!.map((s) => [s.name, s.pods.length]), [["ray-head", heads.length]]);
    });
  }
});

describe("--group-shape flat: one PodGroup per gang, for a scheduler without the CompositePodGroup gate", () => {
  test("a PyTorchJob: one PodGroup waiting for every pod of its subgroups, every pod in it", () => {
    const c = fixture("PyTorchJob");
    const composite = compileKarta(definition("PyTorchJob"), c.workload, { pods: c.pods });
    const flat = compileKarta(definition("PyTorchJob"), c.workload, { pods: c.pods, groupShape: "flat" });
    assert.ok(flat.ok, JSON.stringify(errors(flat.issues)));
    assert.deepEqual(flat.compositePodGroups, []);
    assert.equal(flat.podGroups.length, 1);
    const needed = composite.podGroups.reduce((n, g) => n + (g.spec.schedulingPolicy.gang?.minCount ?? 0), 0);
    assert.equal(flat.podGroups[0]!.spec.schedulingPolicy.gang?.minCount, needed);
    assert.deepEqual(flat.workload!.spec.podGroupTemplates!.map((t) => t.name), [composite.workload!.spec.compositePodGroupTemplates![0]!.name]);
    assert.deepEqual(flat.podPatches.map((p) => p.pod.name).sort(), composite.podPatches.map((p) => p.pod.name).sort());
    assert.ok(flat.podPatches.every((p) => p.podGroupName === flat.podGroups[0]!.metadata.name));
  });

  test("a LeaderWorkerSet: one PodGroup per group (key), holding its leader and workers", () => {
    const c = fixture("LeaderWorkerSet");
    const composite = compileKarta(definition("LeaderWorkerSet"), c.workload, { pods: c.pods });
    const flat = compileKarta(definition("LeaderWorkerSet"), c.workload, { pods: c.pods, groupShape: "flat" });
    assert.ok(flat.ok, JSON.stringify(errors(flat.issues)));
    assert.deepEqual(flat.compositePodGroups, []);
    assert.equal(flat.podGroups.length, composite.compositePodGroups.length);
    // The pods of one composite are the pods of one flat group.
    const parentOf = new Map(composite.podGroups.map((g) => [g.metadata.name, g.spec.parentCompositePodGroupName]));
    const together = (patches: typeof flat.podPatches, key: (g: string) => string | undefined) => {
      const m = new Map<string, string[]>();
      for (const p of patches) m.set(key(p.podGroupName)!, [...(m.get(key(p.podGroupName)!) ?? []), p.pod.name]);
      return [...m.values()].map((v) => v.sort().join(",")).sort();
    };
    assert.deepEqual(together(flat.podPatches, (g) => g), together(composite.podPatches, (g) => parentOf.get(g)));
  });

  test("a composite needing some of its subgroups waits for the fewest pods that could make them, with a notice", () => {
    const c = fixture("JobSet");
    const object = clone(c.workload) as Obj;
    object.spec.startupPolicy = { startupPolicyOrder: "InOrder" };
    const composite = compileKarta(definition("JobSet"), object, { pods: c.pods });
    assert.equal(composite.compositePodGroups[0]!.spec.schedulingPolicy.gang?.minGroupCount, 1);
    const flat = compileKarta(definition("JobSet"), object, { pods: c.pods, groupShape: "flat" });
    assert.ok(flat.ok, JSON.stringify(errors(flat.issues)));
    const smallest = Math.min(...composite.podGroups.map((g) => g.spec.schedulingPolicy.gang?.minCount ?? Infinity));
    assert.equal(flat.podGroups[0]!.spec.schedulingPolicy.gang?.minCount, smallest);
    assert.ok(flat.issues.some((i) => i.code === "group-shape" && /1 of its \d+ subgroups are needed/.test(i.message)));
  });

  test("an unknown shape is an error at the option", () => {
    const c = fixture("PyTorchJob");
    const r = compileKarta(definition("PyTorchJob"), c.workload, { pods: c.pods, groupShape: "tree" as never });
    assert.ok(!r.ok);
    assert.deepEqual(errors(r.issues).map((i) => [i.input, i.path]), [["option", "--group-shape"]]);
  });
});

describe("pods at a system priority are in no group", () => {
  test("a pod given a system class its template does not have gets no patch (the others do)", () => {
    const c = fixture("PyTorchJob");
    const pods = clone(c.pods) as Obj[];
    pods[0]!.spec.priorityClassName = "system-cluster-critical";
    const r = compileKarta(definition("PyTorchJob"), c.workload, { pods });
    assert.ok(r.ok, JSON.stringify(errors(r.issues)));
    assert.deepEqual(r.podPatches.map((p) => p.pod.name).sort(), pods.slice(1).map((p) => p.metadata.name).sort());
    assert.ok(r.issues.some((i) => i.input === "pod" && i.path === "spec.priorityClassName" && /system priority class system-cluster-critical/.test(i.message)));
  });
});
