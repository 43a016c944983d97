/**
 * Against a real kube-apiserver: every object `karta compile` emits for the bundled definitions and their
 * example workloads is created (not only dry-run) and reads back equal after the server's defaulting, and
 * the pods, patched as `karta compile --pod-patches` says, are created in their PodGroup.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { readFileSync } from "node:fs";
import { parse, stringify } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { applyJsonPatch, type JsonPatchOperation } from "../../src/jsonpatch/index.js";
import { definitionsDir, fixtureCases } from "../bundled/helpers.js";
import { repoRoot } from "../support/conformance.js";
import { attempt, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";
import { withoutNulls } from "./helpers.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;

type Obj = KubernetesObject & { spec?: unknown; [k: string]: unknown };

interface CompileCase {
  name: string;
  definition?: string;
  workload: Record<string, unknown>;
  pods: Record<string, unknown>[];
  flags?: string[];
}

/** The bundled fixtures, the composite (subGroups) Karta, a plain gang Job, and the flags that set the optional fields. */
function cases(): CompileCase[] {
  const out: CompileCase[] = fixtureCases()
    .filter((c) => c.expected.groups.length > 0 || c.name !== "PyTorchJob-example")
    .map((c) => ({ name: c.name, definition: path.join(definitionsDir, c.expected.definition), workload: c.workload, pods: c.pods }));
  const byName = new Map(out.map((c) => [c.name, c]));
  const jobset = byName.get("JobSet")!;
  out.push({ ...jobset, name: "JobSet with subGroups", definition: path.join(repoRoot, "test", "fixtures", "compile", "jobset-subgroups-karta.yaml") });
  out.push({
    ...jobset,
    name: "JobSet with subGroups, topology, disruption all and a priority class",
    definition: path.join(repoRoot, "test", "fixtures", "compile", "jobset-subgroups-karta.yaml"),
    flags: ["--topology-key", "topology.kubernetes.io/rack", "--disruption", "all", "--priority-class", "karta-test-high"],
  });
  const pytorch = byName.get("PyTorchJob")!;
  out.push({ ...pytorch, name: "PyTorchJob with the basic policy", flags: ["--policy", "basic", "--disruption", "single"] });
  const read = (f: string) => parse(readFileSync(path.join(repoRoot, "test", "fixtures", "compile", f), "utf8")) as Record<string, unknown>;
  const jobPods = read("job-gang-pods.yaml") as { items?: Record<string, unknown>[] };
  out.push({ name: "batch/v1 Job with spec.scheduling (no definition)", workload: read("job-gang.yaml"), pods: jobPods.items ?? [] });
  return out;
}

function placed<T extends Record<string, unknown>>(object: T, namespace: string): T {
  const copy = structuredClone(object) as T & { metadata?: Record<string, unknown> };
  copy.metadata = { ...(copy.metadata ?? {}), namespace };
  return copy;
}

/** A pod as its controller would send it: no server-set metadata, no status. */
function asCreated(pod: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(pod) as { metadata: Record<string, unknown>; status?: unknown };
  for (const k of ["uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink"]) delete copy.metadata[k];
  delete copy.status;
  return copy;
}

async function compile(c: CompileCase, namespace: string, extra: string[]): Promise<string> {
  const files: Record<string, string> = { "/mem/workload.yaml": stringify(placed(c.workload, namespace)) };
  files["/mem/pods.yaml"] = stringify({ apiVersion: "v1", kind: "List", items: c.pods.map((p) => placed(p, namespace)) });
  const args = ["compile", "-f", "/mem/workload.yaml", "-o", "json", ...(c.definition ? ["-d", c.definition] : []), ...(c.pods.length > 0 ? ["--pods", "/mem/pods.yaml"] : []), ...(c.flags ?? []), ...extra];
  const io = memoryIO("", files);
  const code = await main(args, io);
  assert.equal(code, 0, `karta ${args.join(" ")}\n${io.err}`);
  return io.out;
}

/** The priority classes the tests create: name -> value (preemption policy left to its default). */
const PRIORITY_CLASSES: Record<string, number> = { "karta-test-high": 1000, "training-high": 2000, "perf-high": 3000 };

/**
 * What the server makes of an object we send, by its documented defaulting and admission (v1.37):
 * PodGroup and CompositePodGroup default `disruptionMode` to `single` (zz_generated.defaults.go) and
 * `preemptionPolicy` to PreemptLowerPriority (SetDefaults_PodGroup), and the Priority admission plugin
 * sets `priority` from the priority class (0 without one). Workloads are not defaulted.
 */
function afterServerDefaulting(o: Obj): unknown {
  const spec = structuredClone(o.spec) as Record<string, unknown>;
  if (o.kind === "PodGroup" || o.kind === "CompositePodGroup") {
    spec.disruptionMode ??= { single: {} };
    spec.preemptionPolicy ??= "PreemptLowerPriority";
    const cls = spec.priorityClassName as string | undefined;
    spec.priority ??= cls ? (PRIORITY_CLASSES[cls] ?? 100) : 0;
  }
  return spec;
}

/** The metadata fields Karta sets, as read back. */
function ownMetadata(o: Obj): unknown {
  const m = (o.metadata ?? {}) as Record<string, unknown>;
  // JSON: client-node gives metadata as its model classes.
  return JSON.parse(JSON.stringify({ name: m.name, namespace: m.namespace, labels: m.labels, annotations: m.annotations, ownerReferences: m.ownerReferences }));
}

describe("karta compile output on a real API server", { skip }, () => {
  const c = cluster as TestCluster;

  for (const cc of cases()) {
    test(cc.name, async (t) => {
      const ns = await testNamespace(t, c);
      const list = JSON.parse(await compile(cc, ns, [])) as { items: Obj[] };
      // The priority classes the groups (copied from the pod templates) and pods name exist in a real cluster.
      const classes = new Set([...list.items, ...cc.pods].map((o) => (o.spec as { priorityClassName?: string } | undefined)?.priorityClassName).filter((n): n is string => !!n));
      for (const name of classes) {
        // The API server creates the system- classes itself and refuses anyone else's.
        if (name.startsWith("system-")) continue;
        const pc = await attempt(() => c.objects.create({ apiVersion: "scheduling.k8s.io/v1", kind: "PriorityClass", metadata: { name }, value: PRIORITY_CLASSES[name] ?? 100 } as KubernetesObject));
        assert.ok(pc.ok || pc.reason === "AlreadyExists", pc.ok ? "" : pc.message);
      }
      // Pods at a system priority can be in no group (its priority is at most 1000000000): nothing is made.
      const system = cc.pods.some((p) => String((p.spec as { priorityClassName?: string } | undefined)?.priorityClassName ?? "").startsWith("system-"));
      if (system) {
        assert.deepEqual(list.items, []);
        return;
      }
      assert.ok(list.items.length >= 2, "a Workload and at least one group");
      for (const object of list.items) {
        const label = `${object.kind} ${object.metadata?.name}`;
        const created = await attempt(() => c.objects.create(object));
        assert.ok(created.ok, `${label} refused: ${created.ok ? "" : `${created.message}`}`);
        const back = (await c.objects.read(object as never)) as Obj;
        assert.deepEqual(withoutNulls(back.spec), afterServerDefaulting(object), `${label}: the spec read back differs after the server's defaulting`);
        assert.deepEqual(ownMetadata(back), ownMetadata(object), `${label}: metadata`);
        assert.equal(back.apiVersion, object.apiVersion);
      }

      if (cc.pods.length === 0) return;
      const groups = new Set(list.items.filter((o) => o.kind === "PodGroup").map((o) => o.metadata!.name));
      const patches = JSON.parse(await compile(cc, ns, ["--pod-patches"])) as { pod: { name: string }; podGroupName: string; patch: JsonPatchOperation[] }[];
      assert.ok(patches.length > 0, "no pod patches");
      const byName = new Map(cc.pods.map((p) => [(p.metadata as { name: string }).name, p]));
      for (const p of patches) {
        const pod = byName.get(p.pod.name);
        assert.ok(pod, `a patch for an unknown pod ${p.pod.name}`);
        assert.ok(groups.has(p.podGroupName), `pod ${p.pod.name} is put in ${p.podGroupName}, which karta compile did not emit`);
        const patched = applyJsonPatch(placed(asCreated(pod), ns), p.patch);
        assert.ok(patched.ok, patched.ok ? "" : patched.error);
        const created = await attempt(() => c.objects.create(patched.value as unknown as KubernetesObject));
        assert.ok(created.ok, `pod ${p.pod.name} refused: ${created.ok ? "" : created.message}`);
        const back = (await c.objects.read({ apiVersion: "v1", kind: "Pod", metadata: { name: p.pod.name, namespace: ns } })) as Obj;
        assert.deepEqual((back.spec as { schedulingGroup?: unknown }).schedulingGroup, { podGroupName: p.podGroupName }, `pod ${p.pod.name}`);
      }
    });
  }

  test("a pod's group cannot be changed once created, which is why the patch is applied at admission", async (t) => {
    const ns = await testNamespace(t, c);
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "worker-0", namespace: ns },
      spec: { containers: [{ name: "main", image: "registry.k8s.io/pause:3.10" }], schedulingGroup: { podGroupName: "group-a" } },
    };
    assert.ok((await attempt(() => c.objects.create(pod as KubernetesObject))).ok);
    const moved = await attempt(() =>
      c.objects.patch(
        { apiVersion: "v1", kind: "Pod", metadata: { name: "worker-0", namespace: ns }, spec: { schedulingGroup: { podGroupName: "group-b" } } } as KubernetesObject,
        undefined,
        undefined,
        undefined,
        undefined,
        "application/merge-patch+json" as never,
      ),
    );
    assert.ok(!moved.ok, "the server let a pod move to another group");
    assert.equal(moved.reason, "Invalid", moved.message);
  });
});
