/**
 * Kubernetes Workload-aware scheduling API types, spelled exactly as the JSON of
 * `scheduling.k8s.io/v1beta1` (Workload, PodGroup) and `scheduling.k8s.io/v1alpha3`
 * (CompositePodGroup and the reusable building blocks), plus the small slices of
 * `batch/v1` Job and `v1` Pod that the Job integration reads and writes.
 *
 * Optional Go pointers are optional properties; Go value fields that are `omitempty`
 * are optional too. Empty structs (`basic: {}`) are modelled as `Record<string, never>`.
 */

/** apiVersion of Workload and PodGroup. */
export const SCHEDULING_V1BETA1 = "scheduling.k8s.io/v1beta1";
/** apiVersion of CompositePodGroup and of the building blocks. */
export const SCHEDULING_V1ALPHA3 = "scheduling.k8s.io/v1alpha3";
/** API group shared by both versions. */
export const SCHEDULING_GROUP = "scheduling.k8s.io";

/** At most this many templates per template list (`WorkloadMaxPodGroupTemplates`). */
export const WORKLOAD_MAX_POD_GROUP_TEMPLATES = 8;
/** A tree of (composite) pod group templates is at most this deep (`WorkloadMaxTreeDepth`). */
export const WORKLOAD_MAX_TREE_DEPTH = 4;
/** At most this many resource claims per group (`MaxPodGroupResourceClaims`). */
export const MAX_POD_GROUP_RESOURCE_CLAIMS = 4;
/** At most this many topology constraints per group. */
export const MAX_TOPOLOGY_CONSTRAINTS = 1;
/** Highest priority a user may set (`HighestUserDefinablePriority`). */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
/** Names of the API server's own priority classes, the only ones above it (`SystemPriorityClassPrefix`). */
export const SYSTEM_PRIORITY_CLASS_PREFIX = "system-";

/** Annotation naming the template a group was created from. */
export const GROUP_TEMPLATE_NAME_ANNOTATION = "scheduling.k8s.io/group-template-name";
/** Annotation naming the parent CompositePodGroup of a group. */
export const PARENT_COMPOSITE_PODGROUP_ANNOTATION = "scheduling.k8s.io/parent-composite-podgroup";

/** Condition types and reasons of PodGroup / CompositePodGroup status. */
export const PodGroupConditions = {
  PodGroupInitiallyScheduled: "PodGroupInitiallyScheduled",
  CompositePodGroupInitiallyScheduled: "CompositePodGroupInitiallyScheduled",
  DisruptionTarget: "DisruptionTarget",
} as const;
/** Well-known reasons on those conditions. */
export const PodGroupConditionReasons = {
  Unschedulable: "Unschedulable",
  SchedulerError: "SchedulerError",
  PreemptionByScheduler: "PreemptionByScheduler",
  Invalid: "Invalid",
} as const;

/** An empty marker struct such as `basic: {}` or `single: {}`. */
export type Empty = Record<string, never>;

// ---------------------------------------------------------------- metadata

/** metav1.OwnerReference. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** The parts of metav1.ObjectMeta this module reads or writes. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  observedGeneration?: number;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

// ---------------------------------------------------------------- shared API blocks

/** Exactly one of `basic` / `gang`. */
export interface PodGroupSchedulingPolicy {
  basic?: Empty;
  gang?: GangSchedulingPolicy;
}
/** Gang (all-or-nothing) parameters of a leaf group. */
export interface GangSchedulingPolicy {
  /** Required, ≥ 1; stays mutable after creation. */
  minCount: number;
}
/** Exactly one of `basic` / `gang` for a group of groups. */
export interface CompositePodGroupSchedulingPolicy {
  basic?: Empty;
  gang?: CompositeGangSchedulingPolicy;
}
/** Gang parameters of a composite group. */
export interface CompositeGangSchedulingPolicy {
  /** Minimum number of child groups schedulable together; required, ≥ 1. */
  minGroupCount: number;
}
/** A node label key naming the domain every pod of the group must share. */
export interface TopologyConstraint {
  key: string;
}
/** Placement constraints of a leaf group (`topology` has at most one item). */
export interface PodGroupSchedulingConstraints {
  topology?: TopologyConstraint[];
}
/** Placement constraints of a composite group. */
export interface CompositePodGroupSchedulingConstraints {
  topology?: TopologyConstraint[];
}
/** Exactly one of `single` / `all`. */
export interface DisruptionMode {
  single?: Empty;
  all?: Empty;
}
/** Exactly one of `single` / `all` for a composite group. */
export type CompositeDisruptionMode = DisruptionMode;
/** A claim shared by every pod of the group: exactly one of the two references. */
export interface PodGroupResourceClaim {
  name: string;
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
}
/** Preemption policy of a group. */
export type PreemptionPolicy = "PreemptLowerPriority" | "Never";
/** The values accepted for {@link PreemptionPolicy}. */
export const PREEMPTION_POLICIES: readonly PreemptionPolicy[] = ["PreemptLowerPriority", "Never"];

/** Reference from a runtime group back to its Workload template. */
export interface WorkloadReference {
  workloadName: string;
  templateName: string;
}
/** Typed reference to the controlling object of a Workload. */
export interface TypedLocalObjectReference {
  apiGroup?: string;
  kind: string;
  name: string;
}

// ---------------------------------------------------------------- Workload (v1beta1)

/** The scheduling fields a PodGroupTemplate sets and every PodGroup created from it copies. */
export interface PodGroupSchedulingFields {
  schedulingPolicy: PodGroupSchedulingPolicy;
  schedulingConstraints?: PodGroupSchedulingConstraints;
  resourceClaims?: PodGroupResourceClaim[];
  disruptionMode?: DisruptionMode;
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: PreemptionPolicy;
}

/** The scheduling fields a CompositePodGroupTemplate sets and every CompositePodGroup created from it copies. */
export interface CompositePodGroupSchedulingFields {
  schedulingPolicy: CompositePodGroupSchedulingPolicy;
  schedulingConstraints?: CompositePodGroupSchedulingConstraints;
  disruptionMode?: CompositeDisruptionMode;
  priorityClassName?: string;
  priority?: number;
  preemptionPolicy?: PreemptionPolicy;
}

/** A template for a set of pods with one scheduling policy. */
export interface PodGroupTemplate extends PodGroupSchedulingFields {
  name: string;
}

/** A template for a group of groups; its children are (composite) templates. */
export interface CompositePodGroupTemplate extends CompositePodGroupSchedulingFields {
  name: string;
  podGroupTemplates?: PodGroupTemplate[];
  compositePodGroupTemplates?: CompositePodGroupTemplate[];
}

/** Workload.spec: exactly one of the two template lists. */
export interface WorkloadSpec {
  controllerRef?: TypedLocalObjectReference;
  podGroupTemplates?: PodGroupTemplate[];
  compositePodGroupTemplates?: CompositePodGroupTemplate[];
}

/** scheduling.k8s.io/v1beta1 Workload. */
export interface Workload {
  apiVersion: typeof SCHEDULING_V1BETA1;
  kind: "Workload";
  metadata: ObjectMeta;
  spec: WorkloadSpec;
}

// ---------------------------------------------------------------- PodGroup (v1beta1)

/** PodGroup.spec: copies of the template fields plus the links to the Workload and parent. */
export interface PodGroupSpec extends PodGroupSchedulingFields {
  parentCompositePodGroupName?: string;
  workloadRef?: WorkloadReference;
}
/** Status entry for a claim generated from a ResourceClaimTemplate. */
export interface PodGroupResourceClaimStatus {
  name: string;
  resourceClaimName?: string;
}
/** PodGroup.status. */
export interface PodGroupStatus {
  conditions?: Condition[];
  resourceClaimStatuses?: PodGroupResourceClaimStatus[];
}
/** scheduling.k8s.io/v1beta1 PodGroup. */
export interface PodGroup {
  apiVersion: typeof SCHEDULING_V1BETA1;
  kind: "PodGroup";
  metadata: ObjectMeta;
  spec: PodGroupSpec;
  status?: PodGroupStatus;
}

// ---------------------------------------------------------------- CompositePodGroup (v1alpha3)

/** CompositePodGroup.spec: copies of the template fields plus the links to the Workload and parent. */
export interface CompositePodGroupSpec extends CompositePodGroupSchedulingFields {
  parentCompositePodGroupName?: string;
  workloadRef: WorkloadReference;
}
/** CompositePodGroup.status (not populated by the scheduler in alpha). */
export interface CompositePodGroupStatus {
  conditions?: Condition[];
}
/** scheduling.k8s.io/v1alpha3 CompositePodGroup. */
export interface CompositePodGroup {
  apiVersion: typeof SCHEDULING_V1ALPHA3;
  kind: "CompositePodGroup";
  metadata: ObjectMeta;
  spec: CompositePodGroupSpec;
  status?: CompositePodGroupStatus;
}

// ---------------------------------------------------------------- building blocks (v1alpha3)

/** Leaf policy block: `basic{}` | `gang{minCount?}` (minCount may be left to the controller). */
export interface WorkloadPodGroupSchedulingPolicy {
  basic?: Empty;
  gang?: { minCount?: number };
}
/** Leaf constraints block. */
export interface WorkloadPodGroupSchedulingConstraints {
  topology?: TopologyConstraint[];
}
/** Leaf disruption mode block. */
export interface WorkloadPodGroupDisruptionMode {
  single?: Empty;
  all?: Empty;
}
/** Leaf shared claim block. */
export interface WorkloadPodGroupResourceClaim {
  name: string;
  resourceClaimName?: string;
  resourceClaimTemplateName?: string;
}
/** Composite policy block: `basic{}` | `gang{minGroupCount?}`. */
export interface WorkloadCompositePodGroupSchedulingPolicy {
  basic?: Empty;
  gang?: { minGroupCount?: number };
}
/** Composite constraints block. */
export interface WorkloadCompositePodGroupSchedulingConstraints {
  topology?: TopologyConstraint[];
}
/** Composite disruption mode block. */
export interface WorkloadCompositePodGroupDisruptionMode {
  single?: Empty;
  all?: Empty;
}

// ---------------------------------------------------------------- Pod and Job slices

/** Pod `spec.schedulingGroup`: names the leaf PodGroup; set at creation, immutable. */
export interface PodSchedulingGroup {
  podGroupName?: string;
}

/** The part of a PodSpec the Job integration reads and writes. */
export interface PodSpecSlice {
  priorityClassName?: string;
  schedulingGroup?: PodSchedulingGroup;
  [field: string]: unknown;
}

/** batch/v1 Job `spec.scheduling` (KEP 5547): the four leaf building blocks. */
export interface JobSchedulingConfiguration {
  schedulingPolicy?: WorkloadPodGroupSchedulingPolicy;
  schedulingConstraints?: WorkloadPodGroupSchedulingConstraints;
  disruptionMode?: WorkloadPodGroupDisruptionMode;
  resourceClaims?: WorkloadPodGroupResourceClaim[];
}

/** The part of a batch/v1 Job the Job integration reads. */
export interface Job {
  apiVersion: "batch/v1";
  kind: "Job";
  metadata: ObjectMeta;
  spec: {
    parallelism?: number;
    completions?: number;
    completionMode?: string;
    suspend?: boolean;
    managedBy?: string;
    scheduling?: JobSchedulingConfiguration;
    template: { metadata?: ObjectMeta; spec: PodSpecSlice };
    [field: string]: unknown;
  };
  status?: Record<string, unknown>;
}
