/**
 * Behaviours of Karmada's native interpreters that follow from how they read objects: unstructured
 * accessors (a present null is found, a wrong type is an error, Go's %v/%T in messages), typed
 * conversions (an unparsable quantity is an error) and reflect.DeepEqual of typed statuses (an absent
 * list differs from an empty one).
 */
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  createNativeInterpreter,
  nativeDaemonSet as daemonset,
  nativeDeployment as deployment,
  nativeIngress as ingress,
  nativeJob as job,
  nativePersistentVolume as pv,
  nativePersistentVolumeClaim as pvc,
  nativePod as pod,
  nativeSecret as secret,
  nativeService as service,
  nativeServiceAccount as serviceaccount,
} from "../../src/interpreter/native/index.js";
import { goType, goValue, nestedField, setNestedField } from "../../src/interpreter/native/unstructured.js";
import type { AggregatedStatusItem, KubeObject, MaybePromise, Outcome } from "../../src/interpreter/types.js";

function value<T>(m: MaybePromise<Outcome<T>>): T {
  const o = m as Outcome<T>;
  if (!o.ok) assert.fail(`unexpected error: ${o.error.message}`);
  return o.value;
}

function failure<T>(m: MaybePromise<Outcome<T>>): string {
  const o = m as Outcome<T>;
  if (o.ok) assert.fail(`expected an error, got ${JSON.stringify(o.value)}`);
  return o.error.message;
}

const native = createNativeInterpreter();

const web = (): any => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "shop", generation: 4, labels: { app: "web" } },
  spec: { replicas: 2, template: { spec: { containers: [{ name: "web", resources: { requests: { cpu: "250m" } } }] } } },
});

describe("Go's %v and %T of unstructured values", () => {
  test("values and types as apimachinery's accessor errors print them", () => {
    assert.equal(goValue("3"), "3");
    assert.equal(goValue(null), "<nil>");
    assert.equal(goValue(2.5), "2.5");
    assert.equal(goValue(1.5e-7), "1.5e-07");
    assert.equal(goValue(1234567.5), "1.2345675e+06");
    assert.equal(goValue({ b: [1, "x"], a: true }), "map[a:true b:[1 x]]");
    assert.deepEqual([goType("s"), goType(7), goType(0.5), goType(null), goType([]), goType({}), goType(false)], [
      "string",
      "int64",
      "float64",
      "<nil>",
      "[]interface {}",
      "map[string]interface {}",
      "bool",
    ]);
  });
  test("a null step is not found, a non-object step is an error, a final null is found", () => {
    assert.deepEqual(nestedField({ spec: null }, "spec", "replicas"), { found: false });
    assert.deepEqual(nestedField({ spec: { replicas: null } }, "spec", "replicas"), { found: true, value: null });
    assert.deepEqual(nestedField({ spec: "x" }, "spec", "replicas"), {
      // Go names the path up to the key it was looking up.
      error: ".spec.replicas accessor error: x is of the type string, expected map[string]interface{}",
    });
    const o: any = { spec: null };
    assert.equal(setNestedField(o, 1, "spec", "replicas"), "value cannot be set because .spec is not a map[string]interface{}");
    assert.equal(setNestedField(o, 1, "status", "replicas"), undefined);
    assert.deepEqual(o, { spec: null, status: { replicas: 1 } });
  });
});

describe("ReviseReplica reads the field with NestedInt64", () => {
  test("a present null or a string is an error; an absent field or a null spec is left alone", () => {
    const nullReplicas = web();
    nullReplicas.spec.replicas = null;
    assert.equal(failure(native.reviseReplica(nullReplicas, 5)), ".spec.replicas accessor error: <nil> is of the type <nil>, expected int64");
    const jobObj = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec: { parallelism: "2" } };
    assert.equal(failure(job.reviseReplica(jobObj, 5)), ".spec.parallelism accessor error: 2 is of the type string, expected int64");
    const nullSpec = { ...web(), spec: null };
    assert.deepEqual(value(native.reviseReplica(nullSpec, 5)), nullSpec);
    const absent = web();
    delete absent.spec.replicas;
    assert.deepEqual(value(native.reviseReplica(absent, 5)), absent);
  });
});

describe("InterpretReplica converts the object to its typed form", () => {
  test("replicas, parallelism and completions are read as FromUnstructured reads an int32", () => {
    const withReplicas = (replicas: unknown): KubeObject => ({ ...web(), spec: { ...web().spec, replicas } });
    assert.equal(failure(native.interpretReplica(withReplicas(2.5))), "cannot convert float64 to int32");
    assert.equal(failure(native.interpretReplica(withReplicas("3"))), "unrecognized type: int32");
    assert.equal(failure(native.interpretReplica(withReplicas(true))), "unrecognized type: int32");
    // An int64 keeps its low 32 bits, as Go's conversion does.
    assert.equal(value(native.interpretReplica(withReplicas(4294967298))).replicas, 2);
    const j = (spec: unknown): KubeObject => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec } as KubeObject);
    assert.equal(failure(native.interpretReplica(j({ parallelism: [2] }))), "unrecognized type: int32");
    assert.equal(failure(native.interpretReplica(j({ parallelism: 2, completions: 0.5 }))), "cannot convert float64 to int32");
  });
  test("the node claim is written as Go marshals the typed NodeClaim", () => {
    const d = web();
    d.spec.template.spec.affinity = { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { extra: true } } };
    d.spec.template.spec.tolerations = [{ key: "gpu", operator: "Exists", note: "x", tolerationSeconds: 30 }];
    assert.deepEqual(value(native.interpretReplica(d)).replicaRequirements?.nodeClaim, {
      hardNodeAffinity: { nodeSelectorTerms: null },
      tolerations: [{ key: "gpu", operator: "Exists", tolerationSeconds: 30 }],
    });
    d.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
      nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", values: [] }], matchFields: [] }, {}],
    };
    assert.deepEqual(value(native.interpretReplica(d)).replicaRequirements?.nodeClaim?.hardNodeAffinity, {
      nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "" }] }, {}],
    });
  });
  test("every quantity of the pod spec is parsed, counted or not", () => {
    const withSpec = (spec: unknown): KubeObject => ({ ...web(), spec: { replicas: 1, template: { spec } } });
    const message = /^quantities must match the regular expression/;
    const ignoredName = native.interpretReplica(withSpec({ containers: [{ name: "a", resources: { requests: { foo: "x1" } } }] })) as Outcome<unknown>;
    assert.match(failure(ignoredName), message);
    if (!ignoredName.ok) assert.equal(ignoredName.error.path, "spec.template.spec.containers[0].resources.requests.foo");
    const ephemeral = native.interpretReplica(withSpec({ ephemeralContainers: [{ name: "dbg", resources: { limits: { "nvidia.com/gpu": "one" } } }] })) as Outcome<unknown>;
    assert.match(failure(ephemeral), message);
    if (!ephemeral.ok) assert.equal(ephemeral.error.path, 'spec.template.spec.ephemeralContainers[0].resources.limits["nvidia.com/gpu"]');
    assert.match(failure(native.interpretReplica(withSpec({ volumes: [{ name: "tmp", emptyDir: { sizeLimit: "lots" } }] }))), message);
    assert.match(failure(native.interpretReplica(withSpec({ resources: { requests: { cpu: "?" } } }))), message);
  });
  test("only the template's spec is read: containers beside it are unknown fields", () => {
    const d = { ...web(), spec: { replicas: 1, template: { containers: [{ name: "a", resources: { requests: { cpu: "1" } } }], nodeSelector: { a: "b" } } } };
    assert.deepEqual(value(native.interpretReplica(d)), { replicas: 1 });
  });
  test("a request or limit that is not a quantity is an error, for every kind", () => {
    const bad = web();
    bad.spec.template.spec.containers[0].resources = { limits: { memory: "lots" } };
    const message = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    const r = native.interpretReplica(bad) as Outcome<unknown>;
    assert.equal(failure(r), message);
    if (!r.ok) assert.equal(r.error.path, "spec.template.spec.containers[0].resources.limits.memory");
    const jobObj = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec: { parallelism: 1, template: bad.spec.template } };
    assert.equal(failure(native.interpretReplica(jobObj)), message);
    const podObj = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { initContainers: [{ name: "i", resources: { requests: { cpu: "1x" } } }] } };
    const p = pod.getReplicas(podObj);
    assert.equal(failure(p), message);
    if (!p.ok) assert.equal(p.error.path, "spec.initContainers[0].resources.requests.cpu");
  });
});

describe("Retain reads with unstructured accessors", () => {
  test("Deployment: desired labels must all be strings", () => {
    const desired = web();
    desired.metadata.labels = { "resourcetemplate.karmada.io/retain-replicas": "true", tier: 1 };
    assert.equal(
      failure(deployment.retain(desired, web())),
      'failed to get metadata.label from desired.Object: .metadata.labels accessor error: contains non-string value in the map under key "tier": 1 is of the type int64, expected string',
    );
  });
  test("Service: healthCheckNodePort must be an integer and clusterIP a string; a null desired spec cannot be set", () => {
    const svc = (spec: any): KubeObject => ({ apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec });
    assert.equal(
      failure(service.retain(svc({}), svc({ healthCheckNodePort: "31245" }))),
      "error retrieving healthCheckNodePort from service: .spec.healthCheckNodePort accessor error: 31245 is of the type string, expected int64",
    );
    assert.equal(
      failure(service.retain(svc({}), svc({ clusterIP: null }))),
      "error retrieving clusterIP from cluster service: .spec.clusterIP accessor error: <nil> is of the type <nil>, expected string",
    );
    assert.equal(
      failure(service.retain(svc(null), svc({ clusterIP: "10.0.0.9" }))),
      "error setting clusterIP for service: value cannot be set because .spec is not a map[string]interface{}",
    );
    // clusterIPs is not retained, only clusterIP.
    const out = value(service.retain(svc({ type: "ClusterIP" }), svc({ clusterIP: "10.0.0.9", clusterIPs: ["10.0.0.9"] }))) as any;
    assert.deepEqual(out.spec, { type: "ClusterIP", clusterIP: "10.0.0.9" });
  });
  test("PersistentVolumeClaim and PersistentVolume", () => {
    const claim = (spec: any): KubeObject => ({ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "c" }, spec });
    assert.equal(
      failure(pvc.retain(claim({}), claim({ volumeName: 7 }))),
      "error retrieving volumeName from pvc: .spec.volumeName accessor error: 7 is of the type int64, expected string",
    );
    const vol = (spec: any): KubeObject => ({ apiVersion: "v1", kind: "PersistentVolume", metadata: { name: "v" }, spec });
    assert.equal(
      failure(pv.retain(vol({}), vol("x"))),
      "failed to retrieve claimRef from pv: .spec.claimRef accessor error: x is of the type string, expected map[string]interface{}",
    );
    assert.equal(failure(pv.retain(vol(null), vol({ claimRef: null }))), "failed to set claimRef for pv: value cannot be set because .spec is not a map[string]interface{}");
  });
  test("Job: label maps must hold strings; a null step in the desired object cannot be set", () => {
    const j = (spec: any): KubeObject => ({ apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec });
    assert.equal(
      failure(job.retain(j({}), j({ selector: { matchLabels: { "controller-uid": 12 } } }))),
      '.spec.selector.matchLabels accessor error: contains non-string value in the map under key "controller-uid": 12 is of the type int64, expected string',
    );
    assert.equal(
      failure(job.retain(j({ selector: null }), j({ selector: { matchLabels: { "controller-uid": "u1" } } }))),
      "value cannot be set because .spec.selector is not a map[string]interface{}",
    );
  });
  test("Secret: observed data must be a string map; a desired type that is not a string retains nothing", () => {
    const s = (type: unknown, data: unknown): KubeObject => ({ apiVersion: "v1", kind: "Secret", metadata: { name: "t" }, type, data } as KubeObject);
    assert.equal(
      failure(secret.retain(s("kubernetes.io/service-account-token", {}), s("kubernetes.io/service-account-token", null))),
      "failed to get .data from desired.Object: .data accessor error: <nil> is of the type <nil>, expected map[string]interface{}",
    );
    const desired = s(5, { token: "YQ==" });
    assert.deepEqual(value(secret.retain(desired, s(5, { token: "Yg==" }))), desired);
  });
  test("ServiceAccount: secrets and imagePullSecrets must be lists when present", () => {
    const sa = (extra: any): KubeObject => ({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "ci" }, ...extra });
    assert.equal(
      failure(serviceaccount.retain(sa({}), sa({ imagePullSecrets: { name: "x" } }))),
      "error retrieving imagePullSecrets from service account: .imagePullSecrets accessor error: map[name:x] is of the type map[string]interface {}, expected []interface{}",
    );
    assert.equal(
      failure(serviceaccount.retain(sa({ secrets: null }), sa({}))),
      "error retrieving secrets from desired service account: .secrets accessor error: <nil> is of the type <nil>, expected []interface{}",
    );
  });
});

describe("InterpretStatus reads the status with NestedMap", () => {
  test("a null or non-object status is an error, for the default and the per-kind reflections", () => {
    const p = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, status: null } as unknown as KubeObject;
    assert.equal(failure(native.interpretStatus(p)), ".status accessor error: <nil> is of the type <nil>, expected map[string]interface{}");
    const d = { ...web(), status: null };
    assert.equal(failure(native.interpretStatus(d)), ".status accessor error: <nil> is of the type <nil>, expected map[string]interface{}");
    const lb = { apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { type: "LoadBalancer" }, status: "pending" };
    assert.equal(failure(native.interpretStatus(lb)), ".status accessor error: pending is of the type string, expected map[string]interface{}");
    const j = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, status: [] };
    assert.equal(failure(native.interpretStatus(j)), ".status accessor error: [] is of the type []interface {}, expected map[string]interface{}");
    // A Service type that is not a string is not LoadBalancer: nothing is reflected.
    assert.equal(value(native.interpretStatus({ ...lb, spec: { type: 1 } })), undefined);
  });
});

describe("AggregateStatus compares typed statuses as Go does", () => {
  const lbService = (status?: unknown): KubeObject =>
    ({ apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { type: "LoadBalancer" }, ...(status === undefined ? {} : { status }) }) as KubeObject;
  test("Service: an absent ingress list differs from the (never nil) aggregated one", () => {
    assert.deepEqual((value(service.aggregateStatus(lbService(), [])) as any).status, { loadBalancer: {} });
    assert.deepEqual((value(service.aggregateStatus(lbService({ loadBalancer: {} }), [])) as any).status, { loadBalancer: {} });
    // An explicitly empty list equals the empty aggregate: the object is returned as it was.
    const same = lbService({ loadBalancer: { ingress: [] } });
    assert.deepEqual(value(service.aggregateStatus(same, [])), same);
  });
  test("Service: an empty ports list differs from none, and the new status replaces the old", () => {
    const items: AggregatedStatusItem[] = [{ clusterName: "a", status: { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } } }];
    const old = lbService({ loadBalancer: { ingress: [{ ip: "192.0.2.1", ports: [] }] } });
    assert.deepEqual((value(service.aggregateStatus(old, items)) as any).status, { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } });
    const upToDate = lbService({ loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } });
    assert.deepEqual(value(service.aggregateStatus(upToDate, items)), upToDate);
  });
  test("Ingress: an absent status is replaced by an empty load-balancer status", () => {
    const ing = { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "i" }, spec: {} };
    assert.deepEqual((value(ingress.aggregateStatus(ing, [])) as any).status, { loadBalancer: {} });
    const same = { ...ing, status: { loadBalancer: { ingress: [{ hostname: "lb.example.net" }] } } };
    const items: AggregatedStatusItem[] = [{ clusterName: "a", status: { loadBalancer: { ingress: [{ hostname: "lb.example.net" }] } } }];
    assert.deepEqual(value(ingress.aggregateStatus(same, items)), same);
  });
  test("DaemonSet: other status fields make Karmada write the counters even when they did not change", () => {
    const ds = {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "agent", generation: 2 },
      spec: {},
      status: { observedGeneration: 2, collisionCount: 1 },
    };
    const items: AggregatedStatusItem[] = [{ clusterName: "a", status: { generation: 1, observedGeneration: 1, resourceTemplateGeneration: 2 } }];
    assert.deepEqual((value(daemonset.aggregateStatus(ds, items)) as any).status, {
      observedGeneration: 2,
      collisionCount: 1,
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
    // Empty conditions equal none (semantic equality): nothing is written.
    const quiet = { ...ds, status: { observedGeneration: 2, conditions: [] } };
    assert.deepEqual(value(daemonset.aggregateStatus(quiet, items)), quiet);
  });
});

describe("InterpretStatus writes typed statuses", () => {
  test("Job conditions: type and status are always written, a null reason is left out", () => {
    const j = {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name: "j" },
      status: { succeeded: 1, conditions: [{ type: "Complete", reason: null, message: "", lastTransitionTime: "2026-11-29T10:00:00+02:00" }] },
    };
    assert.deepEqual(value(job.reflectStatus(j)), {
      succeeded: 1,
      conditions: [{ type: "Complete", status: "", lastProbeTime: null, lastTransitionTime: "2026-11-29T08:00:00Z" }],
    });
  });
});

describe("AggregateStatus decodes each member status with encoding/json", () => {
  test("a status that is not an object, or an integer field holding something else, is an error", () => {
    const items = (status: unknown): AggregatedStatusItem[] => [
      { clusterName: "a", status: { replicas: 1 } },
      { clusterName: "b", status: status as never },
    ];
    assert.equal(failure(native.aggregateStatus(web(), items("ready"))), "json: cannot unmarshal string into Go value of type native.WrappedDeploymentStatus");
    assert.equal(
      failure(native.aggregateStatus(web(), items({ readyReplicas: null, replicas: "2", availableReplicas: 1.5 }))),
      "json: cannot unmarshal string into Go struct field WrappedDeploymentStatus.replicas of type int32",
    );
    assert.equal(
      failure(native.aggregateStatus(web(), items({ availableReplicas: 1.5 }))),
      "json: cannot unmarshal number 1.5 into Go struct field WrappedDeploymentStatus.availableReplicas of type int32",
    );
    const j = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec: {} };
    assert.equal(failure(native.aggregateStatus(j, items({ active: 3000000000 }))), "json: cannot unmarshal number 3000000000 into Go struct field JobStatus.active of type int32");
    const p = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: {} };
    assert.equal(failure(native.aggregateStatus(p, items([]))), "json: cannot unmarshal array into Go value of type v1.PodStatus");
    const hpa = { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "h" }, spec: {} };
    assert.equal(failure(native.aggregateStatus(hpa, items(7))), "json: cannot unmarshal number into Go value of type v2.HorizontalPodAutoscalerStatus");
    // A null status is no status: a Pod counts it as Pending.
    assert.equal((value(native.aggregateStatus(p, items(null))) as any).status.phase, "Pending");
  });
  test("PersistentVolumeClaim stops at the first Lost member, before decoding the next", () => {
    const claim = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "c" }, spec: {} };
    const lostFirst: AggregatedStatusItem[] = [
      { clusterName: "a", status: { phase: "Lost" } },
      { clusterName: "b", status: "broken" as never },
    ];
    assert.deepEqual((value(native.aggregateStatus(claim, lostFirst)) as any).status, { phase: "Lost" });
    assert.equal(
      failure(native.aggregateStatus(claim, [...lostFirst].reverse())),
      "json: cannot unmarshal string into Go value of type v1.PersistentVolumeClaimStatus",
    );
  });
});

describe("AggregateStatus: CronJob and phases as typed values", () => {
  const cj = (status?: unknown): KubeObject =>
    ({ apiVersion: "batch/v1", kind: "CronJob", metadata: { name: "backup" }, spec: {}, ...(status === undefined ? {} : { status }) }) as KubeObject;
  test("CronJob: active references in their typed form; the status holds only the three fields", () => {
    const items: AggregatedStatusItem[] = [
      { clusterName: "a", status: { active: [{ kind: "Job", name: "backup-1", namespace: "", extra: 1 }], lastScheduleTime: "2026-11-30T01:00:00+01:00" } },
      { clusterName: "b", status: { active: [] } },
    ];
    assert.deepEqual((value(native.aggregateStatus(cj({ stale: true }), items)) as any).status, {
      active: [{ kind: "Job", name: "backup-1" }],
      lastScheduleTime: "2026-11-30T00:00:00Z",
    });
    // No member has an active Job: an old empty list differs from none and is dropped.
    const emptyActive = cj({ active: [], lastScheduleTime: "2026-11-30T00:00:00Z" });
    assert.deepEqual((value(native.aggregateStatus(emptyActive, [items[0] as AggregatedStatusItem].map((i) => ({ ...i, status: { lastScheduleTime: "2026-11-30T00:00:00Z" } })))) as any).status, {
      lastScheduleTime: "2026-11-30T00:00:00Z",
    });
    const upToDate = cj({ active: [{ kind: "Job", name: "backup-1" }], lastScheduleTime: "2026-11-30T00:00:00Z" });
    assert.deepEqual(value(native.aggregateStatus(upToDate, items)), upToDate);
  });
  test("a phase that is not a string is a decoding error", () => {
    const p = { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: {} };
    assert.equal(
      failure(native.aggregateStatus(p, [{ clusterName: "a", status: { phase: 1 } }])),
      "json: cannot unmarshal number into Go struct field PodStatus.phase of type v1.PodPhase",
    );
    const claim = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "c" }, spec: {} };
    assert.equal(
      failure(native.aggregateStatus(claim, [{ clusterName: "a", status: { phase: ["Bound"] } }])),
      "json: cannot unmarshal array into Go struct field PersistentVolumeClaimStatus.phase of type v1.PersistentVolumeClaimPhase",
    );
  });
});

describe("InterpretStatus and InterpretHealth convert to typed objects", () => {
  const annotated = (o: any): any => ({ ...o, metadata: { ...o.metadata, annotations: { "resourcetemplate.karmada.io/generation": "4" } } });
  test("a status integer that FromUnstructured cannot convert is an error, named by the kind's status type", () => {
    const d = annotated({ ...web(), status: { readyReplicas: 1.5, replicas: "2" } });
    // Go converts fields in declaration order: replicas comes before readyReplicas.
    assert.equal(failure(native.interpretStatus(d)), "failed to convert DeploymentStatus from map[string]interface{}: unrecognized type: int32");
    const ds = annotated({ apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "ds" }, status: { numberReady: 0.5 } });
    assert.equal(failure(native.interpretStatus(ds)), "failed to convert DaemonSetStatus from map[string]interface{}: cannot convert float64 to int32");
    // StatefulSet reads the generation annotation before converting the status.
    const sts = { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "s" }, status: { replicas: "x" } };
    assert.match(failure(native.interpretStatus(sts)), /^strconv\.ParseInt/);
    assert.equal(failure(native.interpretStatus(annotated(sts))), "failed to convert StatefulSetStatus from map[string]interface{}: unrecognized type: int32");
    const j = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, status: { active: true } };
    assert.equal(failure(native.interpretStatus(j)), "failed to convert JobStatus from map[string]interface{}: unrecognized type: int32");
    const pdbObj = { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "p" }, status: { observedGeneration: "1" } };
    assert.equal(failure(native.interpretStatus(pdbObj)), "failed to convert PodDisruptionBudget from map[string]interface{}: unrecognized type: int64");
    const hpaObj = { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "h" }, status: { desiredReplicas: 2.5 } };
    assert.equal(failure(native.interpretStatus(hpaObj)), "failed to convert HorizontalPodAutoscaler from map[string]interface{}: cannot convert float64 to int32");
  });
  test("InterpretHealth fails on the first unconvertible integer: metadata, then spec, then status", () => {
    const d = { ...web(), metadata: { ...web().metadata, generation: "4" }, spec: { replicas: 1.5 }, status: { replicas: [] } };
    assert.equal(failure(native.interpretHealth(d)), "unrecognized type: int64");
    assert.equal(failure(native.interpretHealth({ ...d, metadata: web().metadata })), "cannot convert float64 to int32");
    assert.equal(failure(native.interpretHealth({ ...d, metadata: web().metadata, spec: {} })), "unrecognized type: int32");
    const rs = { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: "r" }, spec: { replicas: "1" } };
    assert.equal(failure(native.interpretHealth(rs)), "unrecognized type: int32");
    const pdbObj = { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "p" }, status: { currentHealthy: "2" } };
    assert.equal(failure(native.interpretHealth(pdbObj)), "unrecognized type: int32");
    const ds = { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "ds", deletionGracePeriodSeconds: 0.5 } };
    assert.equal(failure(native.interpretHealth(ds)), "cannot convert float64 to int64");
    const p = (status: unknown): KubeObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, status } as KubeObject);
    assert.equal(failure(native.interpretHealth(p({ phase: 1 }))), "cannot convert int64 to v1.PodPhase");
    assert.equal(failure(native.interpretHealth(p({ phase: "Running", conditions: [{ type: "Ready", status: true }] }))), "unrecognized type: string");
    const svc = { apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec: { type: ["LoadBalancer"] } };
    assert.equal(failure(native.interpretHealth(svc)), "unrecognized type: string");
    const claim = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "c" }, status: { phase: 2.5 } };
    assert.equal(failure(native.interpretHealth(claim)), "unrecognized type: string");
    // Integral numbers convert: the usual answer.
    assert.equal(value(native.interpretHealth({ ...web(), status: { observedGeneration: 4, updatedReplicas: 2, availableReplicas: 2 } })), true);
  });
});

describe("InterpretDependency: typed conversion of list entries", () => {
  test("a null Ingress TLS entry is an empty IngressTLS, so a reference without a name fails verification", () => {
    const ing = { apiVersion: "networking.k8s.io/v1", kind: "Ingress", metadata: { name: "i", namespace: "web" }, spec: { tls: [{ secretName: "a" }, null] } };
    assert.match(failure(native.interpretDependency(ing)), /dependency can not leave name and labelSelector all empty/);
  });
});

describe("InterpretDependency reads the template's spec only", () => {
  test("volumes or containers beside the template's spec are unknown fields", () => {
    const beside = { containers: [{ name: "a", envFrom: [{ configMapRef: { name: "cfg" } }] }], volumes: [{ name: "c", configMap: { name: "cfg" } }] };
    const d = { ...web(), spec: { template: { ...beside, spec: { serviceAccountName: "web" } } } };
    assert.deepEqual(value(native.interpretDependency(d)), [{ apiVersion: "v1", kind: "ServiceAccount", namespace: "shop", name: "web" }]);
    // Nothing found: Go's nil slice (karmadactl prints `dependencies: null`), not an empty list.
    assert.equal(value(native.interpretDependency({ ...web(), spec: { template: beside } })), null);
  });
});

describe("AggregateStatus converts the object to its typed form first", () => {
  test("an unconvertible integer in the workload itself is an error, before any member is read", () => {
    const items: AggregatedStatusItem[] = [{ clusterName: "a", status: "not even an object" as never }];
    assert.equal(failure(native.aggregateStatus({ ...web(), status: { replicas: "3" } }, items)), "unrecognized type: int32");
    assert.equal(failure(native.aggregateStatus({ ...web(), spec: { replicas: 1.5 } }, [])), "cannot convert float64 to int32");
    const ds = { apiVersion: "apps/v1", kind: "DaemonSet", metadata: { name: "d", generation: "2" }, spec: {} };
    assert.equal(failure(native.aggregateStatus(ds, [])), "unrecognized type: int64");
    // A finished Job is left alone, but only once it converts.
    const j = { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec: { parallelism: "1" }, status: { conditions: [{ type: "Complete", status: "True" }] } };
    assert.equal(failure(native.aggregateStatus(j, [])), "unrecognized type: int32");
    const hpaObj = { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", metadata: { name: "h" }, spec: { maxReplicas: 2.5 } };
    assert.equal(failure(native.aggregateStatus(hpaObj, [])), "cannot convert float64 to int32");
    const pdbObj = { apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "p" }, spec: {}, status: { expectedPods: true } };
    assert.equal(failure(native.aggregateStatus(pdbObj, [])), "unrecognized type: int32");
  });
});
