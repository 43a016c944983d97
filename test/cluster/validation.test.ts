/**
 * Our validation against the real kube-apiserver's, word for word: every case of the object validation
 * tests (test/scheduling/validation-cases.ts) is sent to the server, on create and, for updates, as a
 * replacement of the old object, and the server's field errors (path, type and message) must be exactly
 * ours (validateWorkload, validatePodGroup, validateCompositePodGroup). Then the layer of the Workload
 * API's rules on a controller's tree (validateWorkloadTree): the Workloads compiled from the builder's
 * test trees (test/scheduling/builder-cases.ts) are sent too, the server's errors moved to the items'
 * paths, and they must be exactly that layer's. The table of disagreements is printed and must be empty.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { KubernetesObject } from "@kubernetes/client-node";
import { newBuilder, validateWorkloadTree, type Workload, type WorkloadItem } from "../../src/scheduling/index.js";
import { validateCompositePodGroup, validatePodGroup, validateWorkload } from "../../src/scheduling/index.js";
import { itemFieldPath } from "../../src/scheduling/tree-validation.js";
import { createCases, updateCases } from "../scheduling/builder-cases.js";
import type { Case, ItemJSON } from "../scheduling/differential/cases.js";
import { generatedCases } from "../scheduling/differential/generator.js";
import { toItem } from "../scheduling/differential/karta-side.js";
import { allOptions, render } from "../scheduling/fixtures.js";
import { groupCases, workloadCreateCases, workloadUpdateCases, type SchedulingObject } from "../scheduling/validation-cases.js";
import { attempt, inNamespace, testCluster, testNamespace, type ServerResult, type TestCluster } from "../support/cluster.js";

const cluster = await testCluster();
/** The differential generator's seed whose trees are sent. */
const GENERATED_SEED = Number(process.env["KARTA_DIFFERENTIAL_SEED"] ?? 2026);
const skip = typeof cluster === "string" ? cluster : false;

interface Row {
  case: string;
  ours: string[];
  server: string[];
}
const disagreements: Row[] = [];
const notComparable: { case: string; why: string }[] = [];
let compared = 0;

/** A refused request's field errors rendered as `(*field.Error).Error()` renders them: `path: body`. */
function serverErrors(r: ServerResult<unknown>): string[] {
  if (r.ok) return [];
  if (r.causes.length === 0) return [`<no field>: ${r.reason}: ${r.message}`];
  return r.causes.map((c) => `${c.field}: ${c.message}`);
}

/** Our errors and the server's are the same, message for message (in any order: the server's follows its layers). */
function record(name: string, ours: string[], server: string[]): void {
  compared++;
  const a = [...ours].sort();
  const b = [...server].sort();
  if (JSON.stringify(a) !== JSON.stringify(b)) disagreements.push({ case: name, ours: a, server: b });
  assert.deepEqual(b, a, `the server's field errors differ from ours\nours:   ${JSON.stringify(ours)}\nserver: ${JSON.stringify(server)}`);
}

function ourErrors(o: SchedulingObject, old?: SchedulingObject): string[] {
  if (o.kind === "Workload") return render(validateWorkload(o, old as Workload | undefined));
  if (o.kind === "PodGroup") return render(validatePodGroup(o, old as never));
  return render(validateCompositePodGroup(o, old as never));
}

async function create(c: TestCluster, o: SchedulingObject): Promise<ServerResult<KubernetesObject>> {
  return attempt(() => c.objects.create(o as unknown as KubernetesObject));
}

/** Creates `old`, then replaces it with `updated`: the answer to the replacement. */
async function update(c: TestCluster, name: string, old: SchedulingObject, updated: SchedulingObject): Promise<ServerResult<KubernetesObject> | undefined> {
  const created = await create(c, old);
  if (!created.ok) {
    notComparable.push({ case: name, why: `the server refuses the old object itself: ${serverErrors(created).join("; ")}` });
    return undefined;
  }
  const next = structuredClone(updated) as unknown as KubernetesObject & { spec: Record<string, unknown> };
  next.metadata = { ...next.metadata, resourceVersion: created.object.metadata!.resourceVersion! };
  // An update starts from the stored object: keep what admission set on create (the group's priority).
  const stored = (created.object as unknown as { spec?: Record<string, unknown> }).spec ?? {};
  if (old.kind !== "Workload" && next.spec.priority === undefined && stored.priority !== undefined && (old.spec as { priority?: unknown }).priority === undefined) next.spec.priority = stored.priority;
  return attempt(() => c.objects.replace(next));
}

/** The server's errors on a compiled Workload, at the items' paths, its metadata left out (as validateWorkloadTree does). */
function atItems(errors: string[], w: Workload, root: WorkloadItem): string[] {
  return errors
    .map((e) => {
      const sep = e.indexOf(": ");
      return { field: e.slice(0, sep), body: e.slice(sep) };
    })
    .filter((e) => e.field !== "metadata" && !e.field.startsWith("metadata."))
    .map((e) => `${itemFieldPath(e.field, w, root)}${e.body}`);
}

function built(root: WorkloadItem, options: ReturnType<typeof allOptions>): Workload | string {
  const r = newBuilder(root, options).buildWorkload();
  return r.ok ? r.value : r.error;
}

describe("our validation agrees with the real API server's", { skip }, () => {
  const c = cluster as TestCluster;

  after(() => {
    const lines = [`validation agreement: ${compared} cases compared with the API server, ${disagreements.length} disagreements`];
    for (const d of disagreements) lines.push(`  DISAGREE ${d.case}\n    ours:   ${JSON.stringify(d.ours)}\n    server: ${JSON.stringify(d.server)}`);
    for (const n of notComparable) lines.push(`  not comparable: ${n.case}: ${n.why}`);
    console.log(lines.join("\n"));
  });

  describe("Workload, PodGroup and CompositePodGroup objects", () => {
    for (const oc of [...workloadCreateCases, ...workloadUpdateCases, ...groupCases]) {
      test(oc.name, async (t) => {
        const ns = await testNamespace(t, c);
        const object = inNamespace(oc.object() as never, ns) as SchedulingObject;
        const old = oc.old ? (inNamespace(oc.old() as never, ns) as SchedulingObject) : undefined;
        assert.deepEqual(ourErrors(object, old), oc.want, "the unit test's expectation");
        const answer = old ? await update(c, oc.name, old, object) : await create(c, object);
        if (answer === undefined) return;
        record(oc.name, oc.want, serverErrors(answer));
      });
    }
  });

  describe("the Workload API's rules on a tree: the Workloads compiled from the builder's test trees", () => {
    for (const bc of createCases) {
      test(`create: ${bc.name}`, async (t) => {
        const ns = await testNamespace(t, c);
        const options = { ...(bc.options ?? allOptions()), namespace: ns };
        const w = built(bc.root, options);
        if (typeof w === "string") {
          // The builder refuses to make a Workload at all (a caller bug such as duplicate names): nothing to send.
          notComparable.push({ case: `create: ${bc.name}`, why: `the builder makes no Workload: ${w}` });
          return;
        }
        const answer = await create(c, w);
        record(`create: ${bc.name} (the emitted Workload, our object validator)`, ourErrors(w), serverErrors(answer));
        record(`create: ${bc.name} (validateWorkloadTree)`, render(validateWorkloadTree(bc.root, options)), atItems(serverErrors(answer), w, bc.root));
      });
    }
    for (const uc of updateCases) {
      test(`update: ${uc.name}`, async (t) => {
        const ns = await testNamespace(t, c);
        const options = { ...(uc.options ?? allOptions()), namespace: ns };
        const oldW = built(uc.oldRoot, options);
        const newW = built(uc.root, options);
        if (typeof oldW === "string" || typeof newW === "string" || oldW.metadata.name !== newW.metadata.name) {
          notComparable.push({ case: `update: ${uc.name}`, why: "the builder makes no pair of Workloads with one name" });
          return;
        }
        const answer = await update(c, `update: ${uc.name}`, oldW, newW);
        if (answer === undefined) return;
        record(`update: ${uc.name} (the emitted Workload, our object validator)`, ourErrors(newW, oldW), serverErrors(answer));
        record(`update: ${uc.name} (validateWorkloadTree)`, render(validateWorkloadTree(uc.root, options, { oldRoot: uc.oldRoot })), atItems(serverErrors(answer), newW, uc.root));
      });
    }
  });

  describe("the Workload API's rules on the differential's generated trees", () => {
    // The generator's trees (test/scheduling/differential), compiled with an owner and a name.
    const trees = generatedCases(GENERATED_SEED).filter((x): x is Extract<Case, { op: "builder" }> => x.op === "builder" && x.fn === "Validate" && x.root != null);
    for (const gc of trees.slice(0, 120)) {
      test(gc.id, async (t) => {
        const marks: string[] = [];
        const root = toItem(gc.root, marks)!;
        const oldStep = gc.steps[0] as { oldRoot?: ItemJSON | null };
        const oldRoot = toItem(oldStep.oldRoot, marks) ?? undefined;
        const ns = await testNamespace(t, c);
        const options = { ...allOptions(), namespace: ns };
        const w = built(root, options);
        if (typeof w === "string") return void notComparable.push({ case: gc.id, why: `the builder makes no Workload: ${w}` });
        if (oldRoot === undefined) {
          const answer = await create(c, w);
          record(`${gc.id} (validateWorkloadTree)`, render(validateWorkloadTree(root, options)), atItems(serverErrors(answer), w, root));
          return;
        }
        const oldW = built(oldRoot, options);
        if (typeof oldW === "string") return void notComparable.push({ case: gc.id, why: `the builder makes no old Workload: ${oldW}` });
        const answer = await update(c, gc.id, oldW, w);
        if (answer === undefined) return;
        record(`${gc.id} (validateWorkloadTree, update)`, render(validateWorkloadTree(root, options, { oldRoot })), atItems(serverErrors(answer), w, root));
      });
    }
  });

  test("the table of disagreements is empty", () => {
    assert.ok(compared > 40, `only ${compared} cases were compared`);
    assert.deepEqual(disagreements, []);
  });
});
