/**
 * What a Karta sees in a live workload: the value `interpret` returns. Plain JSON throughout (it is
 * printed by `karta inspect -o json|yaml` as is), with the upstream field names where a concept exists
 * upstream (replicas, minMember, minSubGroup, ReplicaRequirements, PodTemplateSpec).
 */
import type { Diagnostic } from "../definition/index.js";
import type { ComponentTypeSelector, GroupVersionKind, StatusMatcher, TopologyConstraint } from "../definition/index.js";
import type { ResourceListJSON } from "../quantity/index.js";
import type { ReplicaRequirements } from "../resources/index.js";

/** A pod template as Kubernetes writes it (core/v1 PodTemplateSpec), as plain JSON. */
export interface PodTemplateSpec {
  metadata?: Record<string, unknown>;
  spec: Record<string, unknown>;
}

/** Where a component's pods are described. */
export type SpecKind = "podTemplateSpec" | "podSpec" | "fragmented";

/** The scale of one instance, as the definition's scaleDefinition reads it. */
export interface Scale {
  replicas?: number;
  minReplicas?: number;
  maxReplicas?: number;
}

/** One instance of a component: one pod specification (or, without a spec, one scale entry). */
export interface ComponentInstance {
  /** The id from instanceIdPath; "" for the single instance of a component without one. */
  id: string;
  /** The normalised pod template, whichever of the three spec patterns the component uses. */
  podTemplate?: PodTemplateSpec;
  scale?: Scale;
  /** Karmada's per-replica requirements (work/v1alpha2 ReplicaRequirements) of the pod template. */
  replicaRequirements?: ReplicaRequirements;
  /** How many pods the totals count: replicas, else minReplicas, else 1; 0 for a negative count. */
  countedReplicas?: number;
  /** Per-replica requests × counted replicas. */
  totalRequests?: ResourceListJSON;
}

/** A component of the definition, evaluated on the workload object. */
export interface ComponentView {
  name: string;
  kind?: GroupVersionKind;
  /** The parent component; absent on the root. */
  parent?: string;
  children: string[];
  /** Depth in the tree (root 0). */
  depth: number;
  /** The component's field path in the Karta. */
  path: string;
  specKind?: SpecKind;
  instances: ComponentInstance[];
  /** KAI's subtree scale of the whole component (all instances): the group size it stands for. */
  subtreeScale: number;
  /** The sum of the instances' total requests. */
  totalRequests?: ResourceListJSON;
  typeSelector?: ComponentTypeSelector;
}

/** The generic statuses of Karta, in the order the reference evaluates them. */
export type GenericStatus =
  | "Resuming"
  | "Suspending"
  | "Suspended"
  | "Running"
  | "Failed"
  | "Completed"
  | "Initializing"
  | "Degraded"
  | "Undefined";

/** A condition as the conditionsDefinition reads it. */
export interface ObservedCondition {
  type: string;
  status?: string;
  reason?: string;
  message?: string;
}

/** One generic status that matched, with the matcher that made it match. */
export interface StatusMatch {
  status: GenericStatus;
  /** Field path of the matcher in the Karta. */
  path: string;
  matcher: StatusMatcher;
  /** The conditions the matcher required, as observed (with message and reason when the definition names them). */
  conditions?: ObservedCondition[];
  phase?: string;
}

export interface StatusResult {
  /** The matching statuses, in the reference's order; `["Undefined"]` when none matched. */
  statuses: GenericStatus[];
  matches: StatusMatch[];
  phase?: string;
  conditions: ObservedCondition[];
}

/** A pod, by name. */
export interface PodRef {
  name: string;
  namespace?: string;
  uid?: string;
}

/** Which component (and instance, replica) a pod belongs to, or why none. */
export interface PodClassification {
  pod: PodRef;
  /** Position in the pods given; a workload that is a pod and not among them is itself the next (`workloadPods`). */
  index: number;
  component?: string;
  /** The instance id, for components with instances. */
  instance?: string;
  /** The replica key from the nearest replicaSelector (the component's or an ancestor's). */
  replica?: string;
  /** When the pod matches no component or several: why. */
  reason?: string;
  /** Components whose type selector matched (more than one is an error). */
  matched?: string[];
}

/** A pod in a gang group. */
export interface GangMember {
  pod: string;
  component: string;
  /** The component named in the pod-group definition (the pod's component or an ancestor). */
  memberComponent: string;
  instance?: string;
  /** What this pod computes as the group's minimum (KAI recomputes it per pod). */
  minMember: number;
}

export interface GangSubGroup {
  /** The component's name, or the instance id for a per-instance subgroup. */
  name: string;
  component: string;
  instance?: string;
  minMember: number;
  topology?: TopologyConstraint;
  pods: string[];
}

/** A PodGroup as KAI's Karta grouper would create it. */
export interface GangGroup {
  /** `pg-<rootUID>-<key>...` or `pg-<rootUID>-<podGroup.name>`, DNS-1123-safe. */
  name: string;
  format: "podGroups" | "podGroup";
  /** The name of the pod-group definition (podGroups[].name or podGroup.name). */
  definition: string;
  /** Grouping keys (older format). */
  keys?: string[];
  /** Older format and newer without subgroups: the gang minimum; with subgroups: the fewest pods that satisfy the group. */
  minMember: number;
  minSubGroup?: number;
  subGroups?: GangSubGroup[];
  topology?: TopologyConstraint;
  members: GangMember[];
}

/**
 * What the older podGroups format will do with the workload's pods, known before any pod exists: for
 * each pod-group member (and each instance of a member with instances), the minMember KAI computes for
 * its pods. The group names depend on the pods' keys and are only known with pods.
 */
export interface GangPlanEntry {
  /** podGroups[].name */
  definition: string;
  memberComponent: string;
  /** The instance, when the member component has instances (KAI counts one instance's scale). */
  instance?: string;
  minMember: number;
  groupByKeyPaths: string[];
  filters: string[];
}

/** A child object given with the workload, matched to a component by its kind. */
export interface ChildMatch {
  apiVersion: string;
  kind: string;
  name: string;
  /** The component of this kind, when exactly one has it. */
  component?: string;
  /** Every component of this kind (several components may share one, e.g. two StatefulSets). */
  candidates?: string[];
  /** The kind is listed in additionalChildKinds rather than as a component. */
  additional?: boolean;
}

/** Everything the definition sees in the object, its pods and children. */
export interface Interpretation {
  root: { apiVersion: string; kind: string; name: string; namespace?: string; uid?: string };
  components: ComponentView[];
  status: StatusResult;
  pods: PodClassification[];
  groups: GangGroup[];
  /** The older format's members and their minMember, without pods (empty for the newer format). */
  gangPlan: GangPlanEntry[];
  children: ChildMatch[];
  /** All components' total requests. */
  totalRequests?: ResourceListJSON;
  /** Problems found, with the Karta field path (and the object or pod they concern in the message). */
  diagnostics: Diagnostic[];
}

/** One RFC 6902 operation. */
export type { JsonPatchOperation } from "../jsonpatch/index.js";
import type { JsonPatchOperation } from "../jsonpatch/index.js";

/** A patch and the problems that kept parts of it from being written. */
export interface PatchResult {
  patch: JsonPatchOperation[];
  diagnostics: Diagnostic[];
}
