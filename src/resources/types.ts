/**
 * Shapes Karmada reports for a pod template (work/v1alpha2 and config/v1alpha1), as plain JSON with
 * the upstream field names. Optional fields are absent where Go's `omitempty` leaves them out.
 */
import type { ResourceListJSON } from "../quantity/index.js";

/** A problem found in the input object, with the field path of the offending value. */
export interface ResourceIssue {
  path: string;
  message: string;
}

/** A value computed from an object, with the problems found on the way (entries with problems are skipped). */
export interface WithIssues<T> {
  value: T;
  issues: ResourceIssue[];
}

/** work/v1alpha2 NodeClaim. */
export interface NodeClaim {
  /** The pod's `affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution` (a core/v1 NodeSelector). */
  hardNodeAffinity?: Record<string, unknown>;
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
}

/** work/v1alpha2 ReplicaRequirements. */
export interface ReplicaRequirements {
  nodeClaim?: NodeClaim;
  resourceRequest?: ResourceListJSON;
  namespace?: string;
  priorityClassName?: string;
}

/** config/v1alpha1 DependentObjectReference. */
export interface DependentObjectReference {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
  labelSelector?: Record<string, unknown>;
}
