/** The order the controller applies a compilation's objects in: what an object names is applied before it. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseAllDocuments } from "yaml";
import { applyLevels } from "../../src/controller/workloads.js";
import type { WorkloadCompilation } from "../../src/scheduling/karta.js";

type Obj = Record<string, any>;
const GOLDEN = path.join(import.meta.dirname, "..", "..", "..", "test", "fixtures", "compile", "golden");

const compilation = (objects: Obj[]): Pick<WorkloadCompilation, "workload" | "compositePodGroups" | "podGroups"> => ({
  workload: objects.find((o) => o["kind"] === "Workload") as WorkloadCompilation["workload"],
  compositePodGroups: objects.filter((o) => o["kind"] === "CompositePodGroup") as WorkloadCompilation["compositePodGroups"],
  podGroups: objects.filter((o) => o["kind"] === "PodGroup") as WorkloadCompilation["podGroups"],
});

/** Every object once; each one's Workload and parent in an earlier level. */
function assertOrdered(levels: Obj[][], objects: Obj[]): void {
  assert.deepEqual(levels.flat().map((o) => `${o["kind"]}/${o["metadata"].name}`).sort(), objects.map((o) => `${o["kind"]}/${o["metadata"].name}`).sort());
  const levelOf = new Map<string, number>();
  levels.forEach((l, i) => l.forEach((o) => levelOf.set(`${o["kind"]}/${o["metadata"].name}`, i)));
  for (const [i, level] of levels.entries()) {
    assert.ok(level.length > 0, `level ${i} is empty`);
    for (const o of level) {
      const named = [
        ...(o["spec"]?.workloadRef?.workloadName ? [`Workload/${o["spec"].workloadRef.workloadName}`] : []),
        ...(o["spec"]?.parentCompositePodGroupName ? [`CompositePodGroup/${o["spec"].parentCompositePodGroupName}`] : []),
      ];
      for (const n of named) if (levelOf.has(n)) assert.ok(levelOf.get(n)! < i, `${o["kind"]} ${o["metadata"].name} (level ${i}) names ${n} (level ${levelOf.get(n)})`);
    }
  }
}

test("the bundled definitions' compilations: the Workload, then each composite level, then the PodGroups", () => {
  let trees = 0;
  for (const file of readdirSync(GOLDEN).filter((f) => f.endsWith(".yaml") && !f.includes("pod-patches"))) {
    const objects = parseAllDocuments(readFileSync(path.join(GOLDEN, file), "utf8")).map((d) => d.toJS() as Obj).filter((o) => o && o["kind"]);
    const levels = applyLevels(compilation(objects));
    assertOrdered(levels, objects);
    const composites = objects.filter((o) => o["kind"] === "CompositePodGroup").length;
    if (composites > 0) {
      trees++;
      assert.equal(levels.length, 3, file); // the golden trees are one composite deep
    }
  }
  assert.ok(trees >= 3, `${trees} golden compilations with a CompositePodGroup`);
});

test("a deeper tree given children first is applied top-down; a cycle or an unknown parent ends", () => {
  const cpg = (name: string, parent?: string): Obj => ({ kind: "CompositePodGroup", metadata: { name }, spec: { workloadRef: { workloadName: "w" }, ...(parent ? { parentCompositePodGroupName: parent } : {}) } });
  const pg = (name: string, parent: string): Obj => ({ kind: "PodGroup", metadata: { name }, spec: { workloadRef: { workloadName: "w" }, parentCompositePodGroupName: parent } });
  const objects = [{ kind: "Workload", metadata: { name: "w" }, spec: {} }, cpg("c3", "c2"), cpg("c2", "c1"), cpg("c1"), cpg("d2", "c1"), pg("p1", "c3"), pg("p2", "d2")];
  const levels = applyLevels(compilation(objects));
  assertOrdered(levels, objects);
  assert.deepEqual(levels.map((l) => l.map((o) => o["metadata"]?.name)), [["w"], ["c1"], ["c2", "d2"], ["c3"], ["p1", "p2"]]);

  const odd = [cpg("a", "b"), cpg("b", "a"), cpg("x", "elsewhere")];
  assert.deepEqual(applyLevels(compilation(odd)).flat().map((o) => o["metadata"]?.name).sort(), ["a", "b", "x"]);
  assert.deepEqual(applyLevels({ workload: undefined, compositePodGroups: [], podGroups: [] }), []);
});
