/**
 * The patch that puts a pod in its leaf PodGroup: `spec.schedulingGroup.podGroupName`, as an RFC 6902
 * JSON Patch. The field is immutable and set at creation, so the patch is meant for the pod as it is
 * created (a mutating admission webhook returns exactly this); a pod that already names another group
 * cannot be moved, and that is reported rather than patched.
 */
import type { JsonPatchOperation } from "../../jsonpatch/index.js";
import type { PodRef } from "../../interpret/index.js";
import { podRef } from "../../interpret/index.js";
import { fieldErrorBody, invalid } from "../fielderrors.js";
import type { CompileIssue } from "./issues.js";
import { isObject } from "../../interpret/plain.js";

/** One pod's patch. */
export interface PodSchedulingPatch {
  pod: PodRef;
  podGroupName: string;
  /** Empty when the pod already names the group. */
  patch: JsonPatchOperation[];
}

/** `namespace/name`, or the name alone. */
export function podLabel(ref: PodRef): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

/** The patch for one pod, or the reason there is none (the pod names another group already). */
export function podSchedulingPatch(pod: unknown, index: number, podGroupName: string): { patch?: PodSchedulingPatch; issue?: CompileIssue } {
  const ref = podRef(pod, index);
  const spec = isObject(pod) && isObject(pod.spec) ? pod.spec : undefined;
  const current = spec && isObject(spec.schedulingGroup) ? spec.schedulingGroup : undefined;
  const existing = current?.podGroupName;
  if (typeof existing === "string" && existing !== "") {
    if (existing === podGroupName) return { patch: { pod: ref, podGroupName, patch: [] } };
    const e = invalid("spec.schedulingGroup.podGroupName", existing, `field is immutable: the pod is already in PodGroup ${JSON.stringify(existing)}, not ${JSON.stringify(podGroupName)}`);
    return { issue: { severity: "error", input: "pod", pod: podLabel(ref), path: e.field, message: fieldErrorBody(e), code: "pod-group-immutable" } };
  }
  let op: JsonPatchOperation;
  if (current !== undefined) op = { op: "add", path: "/spec/schedulingGroup/podGroupName", value: podGroupName };
  else if (spec !== undefined) op = { op: "add", path: "/spec/schedulingGroup", value: { podGroupName } };
  else op = { op: "add", path: "/spec", value: { schedulingGroup: { podGroupName } } };
  return { patch: { pod: ref, podGroupName, patch: [op] } };
}
