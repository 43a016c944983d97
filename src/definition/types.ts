/**
 * The Karta schema (`kartas.run.ai`, `run.ai/v1alpha1`) as TypeScript types, with the JSON field names
 * of the reference CRD. Optional fields are optional here; every jq expression is a string.
 * The field-by-field table that drives decoding, the JSON Schema and the CRD manifest is
 * `schema-source.ts`; the two are kept in step by hand (a field added to one must be added to the other).
 */

/** The API group, version and kind of a Karta. */
export const KARTA_API_VERSION = "run.ai/v1alpha1";
export const KARTA_KIND = "Karta";

/** A Kubernetes group, version and kind. The core group is the empty string. */
export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** A Karta object as stored in the cluster. */
export interface Karta {
  apiVersion: string;
  kind: string;
  metadata?: KartaMetadata;
  spec: KartaSpec;
  status?: KartaStatus;
}

export interface KartaMetadata {
  name?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

export interface KartaSpec {
  structureDefinition: StructureDefinition;
  optimizationInstructions?: OptimizationInstructions;
  /** Karta extension: Karmada's resource interpreter operations beyond the workload model. */
  karmada?: KarmadaInterpretation;
}

/** The Karta extension `spec.karmada` (see docs/definitions.md, "The Karmada extension"). */
export interface KarmadaInterpretation {
  health?: { expression: string };
  statusReflection?: { fields?: string[]; memberGeneration?: boolean; expression?: string };
  statusAggregation?: { sum?: string[]; sumQuantities?: string[]; observedGeneration?: boolean; omitSpec?: boolean; keepWithoutItems?: boolean; expression?: string };
  retention?: { paths?: string[] };
  dependencies?: { expression?: string; podTemplatePaths?: string[] };
  replicas?: { component: string; replicasExpression?: string };
  componentNames?: Record<string, string>;
  omitComponentsWithoutTemplate?: boolean;
  /** Operations this Karta leaves to the layers below it (Karta's thirdparty interpreters, the built-in ones). */
  deferOperations?: string[];
}

export interface StructureDefinition {
  rootComponent: ComponentDefinition;
  childComponents?: ComponentDefinition[];
  /** Kinds created or managed by the workload that are not components (for RBAC). */
  additionalChildKinds?: GroupVersionKind[];
}

/** One component of the workload hierarchy. */
export interface ComponentDefinition {
  name: string;
  kind?: GroupVersionKind;
  /** The name of the parent component; absent on the root. */
  ownerRef?: string;
  specDefinition?: SpecDefinition;
  scaleDefinition?: ScaleDefinition;
  /** Required on the root component. */
  statusDefinition?: StatusDefinition;
  suspendDefinition?: SuspendDefinition;
  /** jq on the workload: one id per instance when the spec path yields several pod specs. */
  instanceIdPath?: string;
  podSelector?: PodSelector;
}

/** Where a component's pods are described: at most one of the three forms. */
export interface SpecDefinition {
  podTemplateSpecPath?: string;
  podSpecPath?: string;
  /** Only together with podSpecPath; does not count as a pod spec definition of its own. */
  metadataPath?: string;
  fragmentedPodSpecDefinition?: FragmentedPodSpecDefinition;
}

/** jq paths to pod fields scattered over the workload. They are also written back, so they must be assignable. */
export interface FragmentedPodSpecDefinition {
  schedulerNamePath?: string;
  labelsPath?: string;
  annotationsPath?: string;
  resourcesPath?: string;
  resourceClaimsPath?: string;
  podAffinityPath?: string;
  nodeAffinityPath?: string;
  containersPath?: string;
  containerPath?: string;
  priorityClassNamePath?: string;
  imagePath?: string;
}

export interface ScaleDefinition {
  replicasPath?: string;
  minReplicasPath?: string;
  maxReplicasPath?: string;
}

export interface SuspendDefinition {
  suspendActions: SuspendAction[];
  resumeActions: SuspendAction[];
}

/** Assign `value`, JSON text (`"true"`, `'"paused"'`), at the jq path `path`. */
export interface SuspendAction {
  path: string;
  value: string;
}

/** How pods are tied to a component, an instance of it and a replica. All paths run on the Pod. */
export interface PodSelector {
  componentTypeSelector?: ComponentTypeSelector;
  componentInstanceSelector?: ComponentInstanceSelector;
  replicaSelector?: ReplicaSelector;
}

/** keyPath (+ value: equality; no value: existence) and/or matchLabels (all must match). */
export interface ComponentTypeSelector {
  keyPath?: string;
  value?: string;
  matchLabels?: Record<string, string>;
}

export interface ComponentInstanceSelector {
  idPath: string;
}

export interface ReplicaSelector {
  keyPath: string;
}

export interface StatusDefinition {
  phaseDefinition?: PhaseDefinition;
  conditionsDefinition?: ConditionsDefinition;
  statusMappings: StatusMappings;
}

export interface PhaseDefinition {
  path: string;
}

export interface ConditionsDefinition {
  path: string;
  typeFieldName?: string;
  statusFieldName?: string;
  messageFieldName?: string;
  reasonFieldName?: string;
}

/** The generic statuses a definition can map to, in the JSON names of statusMappings. */
export const STATUS_MAPPING_KEYS = [
  "initializing",
  "running",
  "completed",
  "failed",
  "degraded",
  "suspended",
  "suspending",
  "resuming",
] as const;
export type StatusMappingKey = (typeof STATUS_MAPPING_KEYS)[number];

export type StatusMappings = Partial<Record<StatusMappingKey, StatusMatcher[]>>;

/** Inside one matcher everything listed must hold (AND); matchers of one status are OR'd. */
export interface StatusMatcher {
  byPhase?: string;
  byConditions?: ExpectedCondition[];
  byExpression?: ExpressionMatcher;
}

export interface ExpectedCondition {
  type: string;
  status?: string;
  reason?: string;
}

export interface ExpressionMatcher {
  expression: string;
  expectedResult: string;
}

export interface OptimizationInstructions {
  gangScheduling?: GangScheduling;
}

/** Both gang formats; `podGroup` wins when both are set. */
export interface GangScheduling {
  podGroups?: PodGroupDefinition[];
  podGroup?: PodGroupComponentsMapping;
}

/** The older format: one group per distinct tuple of grouping keys. */
export interface PodGroupDefinition {
  name: string;
  members: PodGroupMember[];
}

export interface PodGroupMember {
  componentName: string;
  /** jq on the Pod; each must yield one non-empty value. Absent: group by owner traversal. */
  groupByKeyPaths?: string[];
  /** jq on the Pod, ANDed. */
  filters?: string[];
}

/** The newer format: one group with a subgroup per named component. */
export interface PodGroupComponentsMapping {
  name: string;
  subGroups?: SubGroupDefinition[];
  topology?: TopologyConstraint;
  /** Karta extension: jq on the Pod; one group per distinct key tuple. */
  groupByKeyPaths?: string[];
  /** Karta extension: jq on the workload; subgroups needed to start (null: all). */
  minSubGroupPath?: string;
}

export interface SubGroupDefinition {
  componentName: string;
  topology?: TopologyConstraint;
  /** Karta extension: one subgroup per instance of the component, named by its id. */
  perInstance?: boolean;
}

export interface TopologyConstraint {
  topologyName: string;
  preferredTopologyLevel: string;
  requiredTopologyLevel: string;
}

export interface KartaStatus {
  conditions?: KartaCondition[];
}

/** KartaValidated, CRDExists, Ready. */
export interface KartaCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}
