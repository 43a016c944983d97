/**
 * The mutating admission of pods: an AdmissionReview (admission.k8s.io/v1) for a Pod CREATE is answered
 * with the JSON Patch that sets `spec.schedulingGroup.podGroupName` to the group `karta compile` puts the
 * pod in, when its owner chain reaches the root object of a Ready Karta (the outermost, src/controller/owners.ts). Everything else is allowed
 * unchanged: other operations and kinds, pods that name a group already, pods of no Karta, pods whose
 * root is not in the cache within the wait (the leader's reconcile creates the groups anyway, and
 * failurePolicy Ignore means the API server would admit them without us too).
 */
import type { KubernetesObject } from "./kubernetes-object.js";
import { compileKarta } from "../scheduling/karta.js";
import type { JsonPatchOperation } from "../jsonpatch/index.js";
import type { CompiledInterpreter } from "../interpret/index.js";
import { resolveOwnerChain, type ChainLookup } from "./owners.js";
import { reviewAnswer } from "./admission-review.js";

/** The root a pod's owner chain reaches, with its Karta's interpreter and the objects in between. */
export type PodRoot =
  /** `groupShape`: how the controller makes gangs with subgroups (flat: one PodGroup), so the name given is the one it makes. */
  | { found: true; karta: string; interpreter: CompiledInterpreter; root: KubernetesObject; owners: KubernetesObject[]; groupShape?: "composite" | "flat" }
  /** `pending`: an owner or the root is not in the cache (yet), so asking again soon may answer. */
  | { found: false; pending: boolean; why: string };

/** The pod's root from caches: its owner chain (`lookup`), then the root object of that Karta (`rootOf`). */
export function findPodRoot(
  pod: KubernetesObject,
  namespace: string,
  lookup: ChainLookup,
  rootOf: (karta: string, name: string) => { interpreter: CompiledInterpreter; root: KubernetesObject } | undefined,
): PodRoot {
  const r = resolveOwnerChain(pod, namespace, lookup);
  if (!r.found) return { found: false, pending: r.missing !== undefined, why: r.why };
  const got = rootOf(r.karta, r.root.name);
  if (!got || got.root.metadata?.uid !== r.root.uid) return { found: false, pending: true, why: `${r.root.kind} ${namespace}/${r.root.name} is not in the cache` };
  return { found: true, karta: r.karta, interpreter: got.interpreter, root: got.root, owners: r.owners };
}

/** The part of an AdmissionReview request the webhook reads. */
export interface AdmissionRequest {
  uid: string;
  kind?: { group?: string; version?: string; kind?: string };
  operation?: string;
  namespace?: string;
  object?: unknown;
}

/** Reads an AdmissionReview; the error says what is wrong with it. */
export function parseAdmissionReview(body: string): { ok: true; request: AdmissionRequest } | { ok: false; error: string } {
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch (err) {
    return { ok: false, error: `the body is not JSON: ${(err as Error).message}` };
  }
  const r = review as { apiVersion?: unknown; kind?: unknown; request?: { uid?: unknown } };
  if (typeof r !== "object" || r === null || r.kind !== "AdmissionReview") return { ok: false, error: "expected an AdmissionReview" };
  if (r.apiVersion !== "admission.k8s.io/v1") return { ok: false, error: `apiVersion ${JSON.stringify(r.apiVersion)}: expected admission.k8s.io/v1 (set admissionReviewVersions: [v1])` };
  if (typeof r.request !== "object" || r.request === null || typeof r.request.uid !== "string" || r.request.uid === "") return { ok: false, error: "request.uid: required" };
  return { ok: true, request: r.request as AdmissionRequest };
}

/** The AdmissionReview answer: allowed, with the patch when there is one. */
export function admissionResponse(uid: string, patch?: readonly JsonPatchOperation[]): string {
  return reviewAnswer(uid, { allowed: true, ...(patch ? { patch } : {}) });
}

/** What the webhook did with one pod, for metrics and logs. */
export type AdmissionOutcome = "patched" | "not-a-pod-create" | "named" | "no-karta" | "not-in-cache" | "no-group" | "malformed";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What is wrong with the shape of a pod the webhook reads (its metadata, owner references and spec), for
 * requests that do not come from an API server (which decodes pods before it calls webhooks).
 */
export function podShapeProblem(pod: Record<string, unknown>): string | undefined {
  const metadata = pod["metadata"];
  if (metadata === undefined) return undefined;
  if (!isRecord(metadata)) return "metadata: expected an object";
  const refs = metadata["ownerReferences"];
  if (refs !== undefined && refs !== null) {
    if (!Array.isArray(refs)) return "metadata.ownerReferences: expected a list";
    const bad = refs.findIndex((r) => !isRecord(r) || ["apiVersion", "kind", "name", "uid"].some((k) => typeof r[k] !== "string"));
    if (bad >= 0) return `metadata.ownerReferences[${bad}]: expected apiVersion, kind, name and uid as strings`;
  }
  const spec = pod["spec"];
  if (spec !== undefined && spec !== null && !isRecord(spec)) return "spec: expected an object";
  return undefined;
}

/** Where the pods' roots are found: the workload reconciler's caches. */
export interface PodRootSource {
  podRoot(pod: KubernetesObject, namespace: string): PodRoot;
}

/**
 * The patch for one admission request. An owner or root not yet in the cache (the object was created a
 * moment before its pods) is asked for again every 20 ms until `waitUntil` (a time, ms since the epoch).
 */
export async function admitPod(
  request: AdmissionRequest,
  source: PodRootSource,
  waitUntil: number,
): Promise<{ outcome: AdmissionOutcome; patch?: JsonPatchOperation[]; podGroupName?: string; why?: string }> {
  const k = request.kind;
  if (request.operation !== "CREATE" || k?.kind !== "Pod" || (k.group ?? "") !== "" || typeof request.object !== "object" || request.object === null) return { outcome: "not-a-pod-create" };
  const malformed = podShapeProblem(request.object as Record<string, unknown>);
  if (malformed !== undefined) return { outcome: "malformed", why: malformed };
  const object = request.object as KubernetesObject & { spec?: { schedulingGroup?: { podGroupName?: unknown } } };
  const named = object.spec?.schedulingGroup?.podGroupName;
  if (typeof named === "string" && named !== "") return { outcome: "named" };
  const namespace = request.namespace || object.metadata?.namespace || "";
  // A pod created with generateName has no name yet; the namespace comes with the request.
  const pod = { ...object, metadata: { ...(object.metadata ?? {}), namespace } };
  let found = source.podRoot(pod, namespace);
  while (!found.found && found.pending && Date.now() + 20 < waitUntil) {
    await new Promise((r) => setTimeout(r, 20));
    found = source.podRoot(pod, namespace);
  }
  if (!found.found) return { outcome: found.pending ? "not-in-cache" : "no-karta", why: found.why };
  const result = compileKarta(found.interpreter, found.root, { pods: [pod], owners: found.owners, ...(found.groupShape ? { groupShape: found.groupShape } : {}) });
  const patch = result.podPatches[0];
  if (!result.ok || !patch || patch.patch.length === 0) {
    const problem = result.issues.find((i) => i.severity === "error") ?? result.issues.find((i) => i.input === "pod");
    return { outcome: "no-group", why: problem ? `${problem.path ? `${problem.path}: ` : ""}${problem.message}` : "the pod is in no group" };
  }
  return { outcome: "patched", patch: patch.patch, podGroupName: patch.podGroupName };
}
