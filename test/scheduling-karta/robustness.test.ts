/**
 * Every bundled definition on its fixture and on mangled variants of it: compileKarta never throws, and
 * either every emitted object passes our validation or there is an error and nothing is emitted.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { compileInterpreter } from "../../src/interpret/index.js";
import { compileKarta } from "../../src/scheduling/karta.js";
import { bundledObject, bundledPods, definitionFile, emittedErrors } from "./helpers.js";

const CASES: [string, string][] = [
  ["Deployment", "definitions/apps/v1/Deployment.yaml"],
  ["StatefulSet", "definitions/apps/v1/StatefulSet.yaml"],
  ["Job", "definitions/batch/v1/Job.yaml"],
  ["JobSet", "definitions/jobset.x-k8s.io/v1alpha2/JobSet.yaml"],
  ["PyTorchJob", "definitions/kubeflow.org/v1/PyTorchJob.yaml"],
  ["MPIJob", "definitions/kubeflow.org/v2beta1/MPIJob.yaml"],
  ["LeaderWorkerSet", "definitions/leaderworkerset.x-k8s.io/v1/LeaderWorkerSet.yaml"],
  ["RayCluster", "definitions/ray.io/v1/RayCluster.yaml"],
  ["KnativeService", "definitions/serving.knative.dev/v1/Service.yaml"],
  ["InferenceService", "definitions/serving.kserve.io/v1beta1/InferenceService.yaml"],
];

/** Replace the value at a random path of the object by an arbitrary JSON value. */
function mangle(object: unknown, choices: number[], value: unknown): unknown {
  const copy = structuredClone(object) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  for (const c of choices) {
    const keys = Object.keys(at);
    if (keys.length === 0) break;
    const key = keys[c % keys.length]!;
    const next = at[key];
    if (next === null || typeof next !== "object" || c % 3 === 0) {
      at[key] = value;
      return copy;
    }
    at = next as Record<string, unknown>;
  }
  return copy;
}

function check(r: ReturnType<typeof compileKarta>): void {
  if (r.ok) assert.deepEqual(emittedErrors(r), []);
  else {
    assert.ok(r.issues.some((i) => i.severity === "error"));
    assert.equal(r.workload, undefined);
    assert.equal(r.podGroups.length + r.compositePodGroups.length + r.podPatches.length, 0);
  }
}

describe("compileKarta on every bundled definition", () => {
  for (const [kind, file] of CASES) {
    test(kind, () => {
      const interpreter = compileInterpreter(definitionFile(file));
      const object = bundledObject(kind);
      const pods = bundledPods(kind);
      const plain = compileKarta(interpreter, object, { pods });
      check(plain);
      fc.assert(
        fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), fc.boolean(), (choices, value, onPod) => {
          const r = onPod
            ? compileKarta(interpreter, object, { pods: pods.map((p, i) => (i === 0 ? (mangle(p, choices, value) as Record<string, unknown>) : p)) })
            : compileKarta(interpreter, mangle(object, choices, value), { pods });
          check(r);
        }),
        { numRuns: 40 },
      );
    });
  }
});
