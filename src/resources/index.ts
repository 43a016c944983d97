/** What Karmada derives from a pod template: requirements, node claim, dependencies, Lua kube helpers. */
export { podRequirements } from "./pod-requests.js";
export { nodeClaim } from "./node-claim.js";
export { accuratePodRequirements, replicaRequirements } from "./replica-requirements.js";
export type { RequirementOptions } from "./replica-requirements.js";
export {
  podDependencies,
  configMapNames,
  secretNames,
  serviceAccountNames,
  persistentVolumeClaimNames,
} from "./pod-dependencies.js";
export { resourceAdd, getResourceQuantity } from "./kube-library.js";
export type { KubeResult } from "./kube-library.js";
export { classifyResource, isScalarResourceName, isExtendedResourceName, isQualifiedName } from "./resource-names.js";
export type { ResourceClass } from "./resource-names.js";
export { podSpecOf } from "./pod-spec.js";
export type { NodeClaim, ReplicaRequirements, DependentObjectReference, ResourceIssue, WithIssues } from "./types.js";
export { unmarshalGo, goStringCompare } from "./go-json.js";
export type { GoDecodeResult } from "./go-json.js";
export type { GoType, GoField, GoTypeTable } from "./go-type-table.js";
