/**
 * The controller watches pods in protobuf (src/controller/protobuf.ts, decodePod in pod-cache.ts), against
 * a real kube-apiserver: a JSON watch and a protobuf watch of the same namespace, from the same
 * resourceVersion, see the same events, and every protobuf pod equals the JSON pod trimmed to the fields
 * the decoder keeps, key order included (metadata of every kind: generateName, labels with empty values,
 * annotations with quotes and non-ASCII text, owner references with and without controller, finalizers, a
 * deletion's timestamp and grace period; spec and status fields set by the client, by admission and by a
 * status update). A refused protobuf watch reads as the JSON one does, and a kind the API server serves
 * only as JSON (a CRD) is watched in JSON. `karta controller` watches pods in protobuf unless
 * `--kube-api-content-type=application/json` says otherwise.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ApiError, type KubeClient, type WatchEvent } from "../../src/controller/client.js";
import { withoutManagedFields } from "../../src/controller/kartas.js";
import { decodePod, PROTOBUF_POD_FIELDS, trimPod } from "../../src/controller/pod-cache.js";
import { runController } from "../../src/cli/controller.js";
import { memoryIO } from "../../src/cli/io.js";
import { eventually, forceDeletePods, kubeClient, testCluster, testNamespace, type TestCluster } from "../support/cluster.js";
import { installKartaCrd, spawnController } from "./helpers.js";
import { ensureCrd } from "./live-examples.js";

const cluster = await testCluster();
const skip = typeof cluster === "string" ? cluster : false;
const suffix = Math.random().toString(36).slice(2, 8);
type Obj = Record<string, any>;

const CONTAINER = { name: "main", image: "registry.k8s.io/pause:3.10", resources: { requests: { cpu: "100m" } } };

describe("pods watched in protobuf", { skip }, () => {
  const c = cluster as TestCluster;
  let client: KubeClient;
  let ns: string;
  const stop = new AbortController();

  before(async () => {
    client = kubeClient(c.kc);
    ns = await testNamespace({ name: "protobuf watch" } as never, c);
  });
  after(async () => {
    stop.abort();
    // The finalizer off, then deleted at once (no kubelet finishes a graceful delete here).
    await client?.mergePatch(`/api/v1/namespaces/${ns}/pods/owned`, { metadata: { finalizers: null } }).catch(() => undefined);
    await forceDeletePods(c, ns, ["owned", "plain"]);
    client?.close();
  });

  /** Events of one watch of the namespace's pods from `rv`, as they arrive (bookmarks left out). */
  const watchFrom = (rv: string, protobuf: boolean): WatchEvent[] => {
    const events: WatchEvent[] = [];
    void client
      .watch(`/api/v1/namespaces/${ns}/pods`, { resourceVersion: rv }, (e) => e.type !== "BOOKMARK" && events.push(e), stop.signal, protobuf ? { protobuf: decodePod } : {})
      .catch(() => undefined);
    return events;
  };

  test("every event decodes to the JSON pod trimmed to the decoder's fields, key order included", async () => {
    const list = await client.get<Obj>(`/api/v1/namespaces/${ns}/pods`);
    const rv = list["metadata"].resourceVersion as string;
    const json = watchFrom(rv, false);
    const proto = watchFrom(rv, true);
    const pods = `/api/v1/namespaces/${ns}/pods`;
    const owned = await client.create<Obj>(pods, {
      metadata: {
        name: "owned",
        generateName: "gen-",
        labels: { app: "x", empty: "" },
        annotations: { quoted: 'say "hi"\n<b>&</b>', unicode: "é✓ 日本" },
        ownerReferences: [
          { apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: "job", uid: "5a8b3f0e-0000-4000-8000-000000000001", controller: true, blockOwnerDeletion: true },
          { apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "5a8b3f0e-0000-4000-8000-000000000002", controller: false },
          { apiVersion: "v1", kind: "Secret", name: "s", uid: "5a8b3f0e-0000-4000-8000-000000000003" },
        ],
        finalizers: [`karta.test/hold-${suffix}`],
      },
      spec: {
        nodeName: "node-1",
        schedulerName: "gang-scheduler",
        hostname: "h",
        subdomain: "sub",
        restartPolicy: "OnFailure",
        schedulingGroup: { podGroupName: "pg-1" },
        containers: [CONTAINER],
      },
    });
    await client.create(pods, { metadata: { name: "plain" }, spec: { containers: [{ name: "main", image: "registry.k8s.io/pause:3.10" }] } });
    await client.mergePatch(`${pods}/owned/status`, {
      status: { phase: "Running", message: "started", reason: "Started", hostIP: "10.0.0.1", hostIPs: [{ ip: "10.0.0.1" }], podIP: "10.1.0.1", podIPs: [{ ip: "10.1.0.1" }] },
    });
    await client.mergePatch(`${pods}/plain/status`, { status: { nominatedNodeName: "node-2" } });
    // A graceful delete held by the finalizer: deletionTimestamp and deletionGracePeriodSeconds.
    await client.delete(`${pods}/owned`);
    await client.delete(`${pods}/plain`, { preconditions: { uid: (await client.get<Obj>(`${pods}/plain`))["metadata"].uid } });
    // The plain pod's delete may be graceful or not (a MODIFIED before its DELETED or none).
    const want = ["ADDED owned", "ADDED plain", "MODIFIED owned", "MODIFIED plain", "MODIFIED owned"];
    const seen = (events: WatchEvent[]) => events.map((e) => `${e.type} ${(e.object["metadata"] as Obj)["name"]}`);
    await eventually(async () => (seen(json).includes("DELETED plain") && seen(proto).includes("DELETED plain") ? true : undefined), 20_000, "both watches' events");
    assert.deepEqual(seen(json).slice(0, want.length), want);
    assert.equal(seen(json).at(-1), "DELETED plain");
    assert.deepEqual(seen(proto), seen(json));
    json.forEach((e, i) => {
      const expected = trimPod(withoutManagedFields(e.object as Obj), PROTOBUF_POD_FIELDS);
      assert.equal(JSON.stringify(proto[i]!.object), JSON.stringify(expected), `event ${i}: ${seen(json)[i]}`);
    });
    // What the comparison covered, so that it cannot pass on empty objects.
    const last = proto[4]!.object as Obj;
    assert.equal(last["metadata"].uid, owned["metadata"].uid);
    assert.match(last["metadata"].deletionTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(typeof last["metadata"].deletionGracePeriodSeconds, "number");
    assert.deepEqual(last["metadata"].labels, { app: "x", empty: "" });
    assert.equal(last["metadata"].ownerReferences.length, 3);
    assert.deepEqual(last["spec"].schedulingGroup, { podGroupName: "pg-1" });
    assert.equal(last["spec"].nodeName, "node-1");
    assert.deepEqual(last["status"], { phase: "Running", message: "started", reason: "Started", hostIP: "10.0.0.1", podIP: "10.1.0.1", qosClass: "Burstable" });
    assert.deepEqual(proto[3]!.object["status"], { phase: "Pending", nominatedNodeName: "node-2", qosClass: "BestEffort" });
    assert.equal(last["metadata"].annotations.unicode, "é✓ 日本");
  });

  test("a refused protobuf watch is the same ApiError as a refused JSON one", async () => {
    const refused = async (protobuf: boolean): Promise<ApiError> => {
      const err = await client.watch("/api/v1/pods", { labelSelector: "a b c" }, () => undefined, stop.signal, protobuf ? { protobuf: decodePod } : {}).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof ApiError, String(err));
      return err;
    };
    const [json, proto] = [await refused(false), await refused(true)];
    assert.equal(proto.code, 400);
    assert.deepEqual({ code: proto.code, reason: proto.reason, message: proto.message }, { code: json.code, reason: json.reason, message: json.message });
  });

  test("a kind served only as JSON (a CRD) is watched in JSON when protobuf is asked for", async () => {
    const group = `protobuf-${suffix}.karta.test`;
    await ensureCrd(c, "kubeflow.org", "PyTorchJob", { group });
    const path = `/apis/${group}/v1/namespaces/${ns}/pytorchjobs`;
    const events: WatchEvent[] = [];
    const rv = (await client.get<Obj>(path))["metadata"].resourceVersion as string;
    void client.watch(path, { resourceVersion: rv }, (e) => events.push(e), stop.signal, { protobuf: decodePod }).catch(() => undefined);
    await client.create(path, { apiVersion: `${group}/v1`, kind: "PyTorchJob", metadata: { name: "j" }, spec: { pytorchReplicaSpecs: {} } });
    const e = await eventually(async () => events.find((x) => x.type === "ADDED"), 20_000, "the job's ADDED event");
    assert.equal((e.object as Obj)["kind"], "PyTorchJob");
    assert.equal((e.object as Obj)["metadata"].name, "j");
  });
});

test("karta controller: --kube-api-content-type takes protobuf or JSON", async () => {
  const io = memoryIO();
  assert.equal(await runController(["--kube-api-content-type", "application/yaml"], io), 2);
  assert.match(io.err, /--kube-api-content-type/);
});

describe("karta controller: how it watches pods", { skip }, () => {
  const c = cluster as TestCluster;
  for (const [args, want] of [
    [[], "application/vnd.kubernetes.protobuf;stream=watch"],
    [["--kube-api-content-type=application/json"], "application/json"],
  ] as const) {
    test(`${args.length === 0 ? "by default" : args[0]}: the pod watch is ${want}`, async () => {
      await installKartaCrd(c);
      const p = spawnController(["--kubeconfig", c.kubeconfig, "--leader-elect=false", "--metrics-bind-address", "0", "--health-probe-bind-address", "0", "-v", ...args]);
      try {
        const started = await eventually(
          async () => p.log().split("\n").map((l) => (l.includes('"msg":"watch started"') && l.includes('"path":"/api/v1/pods"') ? (JSON.parse(l) as Obj) : undefined)).find(Boolean),
          60_000,
          "the pod watch's \"watch started\" line",
        );
        assert.equal(started["contentType"], want);
      } finally {
        p.child.kill("SIGTERM");
        assert.equal(await p.exited, 0);
      }
    });
  }
});
