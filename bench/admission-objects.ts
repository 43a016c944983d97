/**
 * LeaderWorkerSets as a cluster holds them, for bench/admission.ts: the bundled fixture's set scaled to
 * 10 groups of 5 (a leader and 4 workers), with its StatefulSets and pods, each object named and owned
 * as LeaderWorkerSet's controller names and owns them.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "../src/controller/kubernetes-object.js";
import { repoRoot } from "./harness.js";

type Obj = KubernetesObject & Record<string, any>;

export const LWS_FIXTURE = {
  definition: path.join(repoRoot, "definitions", "leaderworkerset.x-k8s.io", "v1", "LeaderWorkerSet.yaml"),
  workload: path.join(repoRoot, "test", "fixtures", "bundled", "LeaderWorkerSet", "workload.yaml"),
  pods: path.join(repoRoot, "test", "fixtures", "bundled", "LeaderWorkerSet", "pods.yaml"),
};

export const GROUPS = 10;
export const SIZE = 5;

let templates: { lws: Obj; leader: Obj; worker: Obj } | undefined;
function fixture(): { lws: Obj; leader: Obj; worker: Obj } {
  if (!templates) {
    const lws = parse(readFileSync(LWS_FIXTURE.workload, "utf8")) as Obj;
    const pods = (parse(readFileSync(LWS_FIXTURE.pods, "utf8")) as { items: Obj[] }).items;
    delete lws.status;
    lws.spec.replicas = GROUPS;
    lws.spec.leaderWorkerTemplate.size = SIZE;
    templates = { lws, leader: pods[0]!, worker: pods[1]! };
  }
  return templates;
}

const ref = (o: Obj) => ({ apiVersion: o.apiVersion!, kind: o.kind!, name: o.metadata!.name!, uid: o.metadata!.uid!, controller: true, blockOwnerDeletion: true });
const uid = (what: string) => {
  const h = createHash("sha1").update(what).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** Where set `i` lives. */
export function lwsName(i: number): { namespace: string; name: string } {
  return { namespace: `team-${i % 100}`, name: `lws-${i}` };
}

function pod(template: Obj, namespace: string, name: string, owner: Obj, group: number, index: number, leader: string): Obj {
  const p = structuredClone(template);
  delete p.status;
  p.metadata = {
    ...p.metadata!,
    name,
    namespace,
    uid: uid(`${namespace}/${name}`),
    labels: { ...p.metadata!.labels, "leaderworkerset.sigs.k8s.io/name": owner.metadata?.labels?.["leaderworkerset.sigs.k8s.io/name"] ?? "", "leaderworkerset.sigs.k8s.io/group-index": String(group), "leaderworkerset.sigs.k8s.io/worker-index": String(index) },
    annotations: { ...p.metadata!.annotations, ...(index > 0 ? { "leaderworkerset.sigs.k8s.io/leader-name": leader } : {}), "leaderworkerset.sigs.k8s.io/size": String(SIZE) },
    ownerReferences: [ref(owner)],
  };
  return p;
}

/** Set `i`: the LeaderWorkerSet, its leaders' StatefulSet, the leader pods, their workers' StatefulSets and the worker pods. */
export function lwsSet(i: number): Obj[] {
  const { lws: t, leader, worker } = fixture();
  const { namespace, name } = lwsName(i);
  const lws = { ...structuredClone(t), metadata: { ...t.metadata, name, namespace, uid: uid(`lws/${namespace}/${name}`) } } as Obj;
  const labels = { "leaderworkerset.sigs.k8s.io/name": name };
  const sts = (stsName: string, owner: Obj): Obj => ({ apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: stsName, namespace, uid: uid(`sts/${namespace}/${stsName}`), labels, ownerReferences: [ref(owner)] }, spec: { replicas: 1 } });
  const leaders = sts(name, lws);
  const out: Obj[] = [lws, leaders];
  for (let g = 0; g < GROUPS; g++) {
    const l = pod(leader, namespace, `${name}-${g}`, leaders, g, 0, "");
    l.metadata!.labels = { ...l.metadata!.labels, ...labels };
    const workers = sts(`${name}-${g}`, l);
    out.push(l, workers);
    for (let w = 1; w < SIZE; w++) out.push(pod(worker, namespace, `${name}-${g}-${w}`, workers, g, w, `${name}-${g}`));
  }
  return out;
}

/** The AdmissionReview the API server sends for a new worker pod of set `i`, group `g` (generateName, no uid yet). */
export function workerReview(i: number, g: number, n: number): string {
  const { worker } = fixture();
  const { namespace, name } = lwsName(i);
  const workers = { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: `${name}-${g}`, namespace, uid: uid(`sts/${namespace}/${name}-${g}`) } } as Obj;
  const p = pod(worker, namespace, `${name}-${g}-${1 + (n % (SIZE - 1))}`, workers, g, 1 + (n % (SIZE - 1)), `${name}-${g}`);
  delete p.metadata!.uid;
  p.metadata!.labels = { ...p.metadata!.labels, "leaderworkerset.sigs.k8s.io/name": name };
  return JSON.stringify({
    apiVersion: "admission.k8s.io/v1",
    kind: "AdmissionReview",
    request: { uid: `req-${n}`, kind: { group: "", version: "v1", kind: "Pod" }, resource: { group: "", version: "v1", resource: "pods" }, operation: "CREATE", namespace, name: p.metadata!.name, object: p },
  });
}
