/**
 * Karmada's per-replica requirements of a pod template (helper.GenerateReplicaRequirements), which
 * is also what the Lua `kube.accuratePodRequirements` returns.
 */
import { nodeClaim } from "./node-claim.js";
import { podRequirements } from "./pod-requests.js";
import { asString, podSpecOf } from "./pod-spec.js";
import type { ReplicaRequirements, WithIssues } from "./types.js";

/** Options mirroring Karmada feature gates. */
export interface RequirementOptions {
  /**
   * Karmada's ResourceQuotaEstimate gate: when on, the template's priorityClassName (and, in
   * {@link replicaRequirements}, the namespace) are recorded. Karmada's default is off.
   */
  resourceQuotaEstimate?: boolean;
}

/**
 * `{nodeClaim?, resourceRequest?}` for one replica of the template, or undefined when it has neither,
 * exactly as `kube.accuratePodRequirements(podTemplate)`.
 */
export function accuratePodRequirements(
  podTemplate: unknown,
  options: RequirementOptions = {},
): WithIssues<ReplicaRequirements | undefined> {
  const claim = nodeClaim(podTemplate);
  const { value: resourceRequest, issues } = podRequirements(podTemplate);
  if (claim === undefined && resourceRequest === undefined) return { value: undefined, issues };
  const out: ReplicaRequirements = {};
  if (claim !== undefined) out.nodeClaim = claim;
  if (resourceRequest !== undefined) out.resourceRequest = resourceRequest;
  if (options.resourceQuotaEstimate) {
    const pc = asString(podSpecOf(podTemplate).spec["priorityClassName"]);
    if (pc !== "") out.priorityClassName = pc;
  }
  return { value: out, issues };
}

/**
 * The ReplicaRequirements a ResourceBinding records for the template of an object in `namespace`:
 * {@link accuratePodRequirements} plus, with ResourceQuotaEstimate on (the default here, since the
 * caller asks for them), the namespace and priorityClassName. Undefined when there is nothing to require.
 */
export function replicaRequirements(
  podTemplate: unknown,
  namespace: string,
  options: RequirementOptions = { resourceQuotaEstimate: true },
): WithIssues<ReplicaRequirements | undefined> {
  const result = accuratePodRequirements(podTemplate, options);
  if (result.value !== undefined && options.resourceQuotaEstimate && namespace !== "") {
    result.value.namespace = namespace;
  }
  return result;
}
