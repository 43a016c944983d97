/**
 * The Karta schema, field by field, in one table: the single source from which the loader decodes
 * (unknown fields, wrong types), the JSON Schema (`schema/karta.schema.json`) and the CRD manifest
 * (`deploy/crd/`) are produced, and from which the validator learns which fields hold jq and on
 * which document each one runs.
 */

/**
 * What a jq-valued field is for. It decides the document the expression runs on and the extra checks:
 * - `spec`: pod template / pod spec / metadata path on the workload
 * - `fragment`: a fragmented pod field on the workload, also written back (must be assignable)
 * - `scale`: a replica count on the workload (null-safety lint)
 * - `status`: phase path, conditions path, byExpression on the workload (null-safety lint)
 * - `instanceId`: instance ids on the workload
 * - `action`: a suspend/resume path on the workload, assigned to (must be assignable)
 * - `podKey`: selector paths on the Pod
 * - `groupKey`: grouping keys on the Pod (a bare word such as `gpu` is a literal key)
 * - `filter`: member filters on the Pod
 */
export type JqRole = "spec" | "fragment" | "scale" | "status" | "instanceId" | "action" | "podKey" | "groupKey" | "filter" | "karmada" | "aggregation";

/** The document a role's expressions run on (`aggregation`: `{object, items}`, see KarmadaStatusAggregation). */
export function documentOf(role: JqRole): "workload" | "pod" | "aggregation" {
  if (role === "aggregation") return "aggregation";
  return role === "podKey" || role === "groupKey" || role === "filter" ? "pod" : "workload";
}

export type FieldType =
  /** `jsonText`: a string holding JSON; another JSON value (a definition written before the field was typed) is read as its JSON text, with a warning. */
  | { type: "string"; jq?: JqRole; enum?: readonly string[]; minLength?: number; default?: string; jsonText?: true }
  | { type: "integer" }
  | { type: "boolean" }
  /** Any JSON value. */
  | { type: "any" }
  | { type: "object"; ref: string }
  /**
   * `listMapKey`: the CRD's `x-kubernetes-list-map-keys` (a map list), `listType: "set"` a set list; in
   * both the API server refuses repeated items, and so does the decoder (list-type.ts).
   */
  | { type: "array"; items: FieldType; minItems?: number; listMapKey?: string | string[]; listType?: "set" | "atomic" }
  | { type: "map"; values: FieldType; minProperties?: number };

export interface FieldSpec {
  type: FieldType;
  required?: boolean;
  doc: string;
}

export interface ObjectSpec {
  doc: string;
  fields: Record<string, FieldSpec>;
  /** Unknown fields are kept and not reported (object metadata). */
  open?: boolean;
}

const str = (doc: string, extra: Partial<Extract<FieldType, { type: "string" }>> = {}, required = false): FieldSpec => ({
  type: { type: "string", ...extra },
  doc,
  required,
});
const jq = (role: JqRole, doc: string, required = false): FieldSpec => str(doc, { jq: role }, required);
const obj = (ref: string, doc: string, required = false): FieldSpec => ({ type: { type: "object", ref }, doc, required });
const arr = (items: FieldType, doc: string, extra: Partial<Extract<FieldType, { type: "array" }>> = {}, required = false): FieldSpec => ({
  type: { type: "array", items, ...extra },
  doc,
  required,
});
const ref = (r: string): FieldType => ({ type: "object", ref: r });

const matchers = (status: string): FieldSpec =>
  arr(ref("StatusMatcher"), `Matchers for the ${status} status; any one matching (OR) maps the workload to it.`, { listType: "atomic" });

const topology: ObjectSpec = {
  doc: "A topology constraint for the pods of a group or subgroup.",
  fields: {
    topologyName: str("The Topology resource the constraint uses.", {}, true),
    preferredTopologyLevel: str("The preferred locality level.", {}, true),
    requiredTopologyLevel: str("The widest level all matching pods must fit within.", {}, true),
  },
};

/** Every object type of the schema, by name. `Karta` is the document root. */
export const KARTA_TYPES: Record<string, ObjectSpec> = {
  Karta: {
    doc: "Karta: one declarative definition of a Kubernetes workload type (run.ai/v1alpha1).",
    fields: {
      apiVersion: str("run.ai/v1alpha1", { enum: ["run.ai/v1alpha1"] }, true),
      kind: str("Karta", { enum: ["Karta"] }, true),
      metadata: obj("ObjectMeta", "Standard object metadata; Kartas are cluster-scoped."),
      spec: obj("KartaSpec", "The definition.", true),
      status: obj("KartaStatus", "Written by the Karta controller."),
    },
  },
  ObjectMeta: {
    doc: "Standard object metadata.",
    open: true,
    fields: {
      name: str("The Karta's name, by convention <group>-<version>-<kind> of the root with dots replaced."),
      labels: { type: { type: "map", values: { type: "string" } }, doc: "Labels; run.ai/karta-group, -version and -kind index the root GVK." },
      annotations: { type: { type: "map", values: { type: "string" } }, doc: "Annotations." },
    },
  },
  KartaSpec: {
    doc: "What the workload is made of and how to schedule it.",
    fields: {
      structureDefinition: obj("StructureDefinition", "The component hierarchy.", true),
      optimizationInstructions: obj("OptimizationInstructions", "Scheduling instructions; their paths run on Pods."),
      karmada: obj("KarmadaInterpretation", "Karta extension (optional): how Karmada propagates the workload across member clusters."),
    },
  },
  StructureDefinition: {
    doc: "The compute hierarchy: a root component and the components it owns.",
    fields: {
      rootComponent: obj("ComponentDefinition", "The workload object itself; needs a full GVK and a statusDefinition.", true),
      childComponents: arr(ref("ComponentDefinition"), "Components owned (directly or not) by the root; each names its parent in ownerRef.", {
        listMapKey: "name",
      }),
      additionalChildKinds: arr(ref("GroupVersionKind"), "Kinds the workload creates that are not components (for RBAC); do not repeat component kinds.", {
        // The whole kind: a Knative Service and a core Service are two kinds (a KServe InferenceService makes both).
        listMapKey: ["group", "version", "kind"],
      }),
    },
  },
  GroupVersionKind: {
    doc: "A Kubernetes group, version and kind; the core group is \"\".",
    fields: {
      group: str("The API group (\"\" for core).", {}, true),
      version: str("The API version.", {}, true),
      kind: str("The kind.", {}, true),
    },
  },
  ComponentDefinition: {
    doc: "One component of the workload hierarchy.",
    fields: {
      name: str("Unique name of the component within the Karta.", {}, true),
      kind: obj("GroupVersionKind", "The component's Kubernetes kind."),
      ownerRef: str("The parent component's name (child components only)."),
      specDefinition: obj("SpecDefinition", "Where the component's pods are described in the workload."),
      scaleDefinition: obj("ScaleDefinition", "Where the component's replica counts are in the workload."),
      statusDefinition: obj("StatusDefinition", "How the workload's status maps to generic statuses (root only)."),
      suspendDefinition: obj("SuspendDefinition", "Field assignments that suspend and resume the workload."),
      instanceIdPath: jq("instanceId", "jq on the workload: the id of each instance when the spec path yields several pod specs."),
      podSelector: obj("PodSelector", "How to tell this component's pods (paths run on the Pod)."),
    },
  },
  SpecDefinition: {
    doc: "At most one of podTemplateSpecPath, podSpecPath (with optional metadataPath) and fragmentedPodSpecDefinition.",
    fields: {
      podTemplateSpecPath: jq("spec", "jq on the workload to a PodTemplateSpec."),
      podSpecPath: jq("spec", "jq on the workload to a PodSpec."),
      metadataPath: jq("spec", "jq on the workload to the pods' ObjectMeta (with podSpecPath)."),
      fragmentedPodSpecDefinition: obj("FragmentedPodSpecDefinition", "Paths to pod fields scattered over the workload."),
    },
  },
  FragmentedPodSpecDefinition: {
    doc: "jq paths on the workload to individual pod fields; they are written back, so each must be an assignable path.",
    fields: {
      schedulerNamePath: jq("fragment", "Path to the scheduler name."),
      labelsPath: jq("fragment", "Path to the pod labels."),
      annotationsPath: jq("fragment", "Path to the pod annotations."),
      resourcesPath: jq("fragment", "Path to the resource requirements."),
      resourceClaimsPath: jq("fragment", "Path to the DRA resource claims."),
      podAffinityPath: jq("fragment", "Path to the pod affinity."),
      nodeAffinityPath: jq("fragment", "Path to the node affinity."),
      containersPath: jq("fragment", "Path to the containers."),
      containerPath: jq("fragment", "Path to the single container."),
      priorityClassNamePath: jq("fragment", "Path to the priority class name."),
      imagePath: jq("fragment", "Path to the container image."),
    },
  },
  ScaleDefinition: {
    doc: "jq paths on the workload to replica counts; make them null-safe where the field is optional (`// 1`).",
    fields: {
      replicasPath: jq("scale", "Current replicas."),
      minReplicasPath: jq("scale", "Minimum replicas."),
      maxReplicasPath: jq("scale", "Maximum replicas."),
    },
  },
  SuspendDefinition: {
    doc: "Ordered path/value assignments applied to suspend and to resume.",
    fields: {
      suspendActions: arr(ref("SuspendAction"), "Applied on suspend, in order.", { minItems: 1, listType: "atomic" }, true),
      resumeActions: arr(ref("SuspendAction"), "Applied on resume, in order.", { minItems: 1, listType: "atomic" }, true),
    },
  },
  SuspendAction: {
    doc: "Assign value at path.",
    fields: {
      path: jq("action", "jq path on the workload to assign to, e.g. .spec.suspend.", true),
      value: str("The value to assign as JSON text, as upstream's CRD takes it (\"true\", \"0\", '\"paused\"', \"null\").", { jsonText: true }, true),
    },
  },
  PodSelector: {
    doc: "Selectors on the Pod: which component, which instance, which replica.",
    fields: {
      componentTypeSelector: obj("ComponentTypeSelector", "Whether a pod belongs to this component; selectors of different components must be mutually exclusive."),
      componentInstanceSelector: obj("ComponentInstanceSelector", "The pod's instance id (with instanceIdPath)."),
      replicaSelector: obj("ReplicaSelector", "The pod's replica index or group."),
    },
  },
  ComponentTypeSelector: {
    doc: "keyPath with value (equality) or without (existence), and/or matchLabels.",
    fields: {
      keyPath: str("jq on the Pod to the identifying label or annotation.", { jq: "podKey", minLength: 1 }),
      value: str("The expected value; absent: only the key's existence is checked."),
      matchLabels: { type: { type: "map", values: { type: "string" }, minProperties: 1 }, doc: "Pod labels that must all be equal." },
    },
  },
  ComponentInstanceSelector: {
    doc: "Where the pod holds its instance id.",
    fields: { idPath: jq("podKey", "jq on the Pod to the instance id.", true) },
  },
  ReplicaSelector: {
    doc: "Where the pod holds its replica index or group.",
    fields: { keyPath: jq("podKey", "jq on the Pod to the replica id.", true) },
  },
  StatusDefinition: {
    doc: "How to read the workload's status (root component only).",
    fields: {
      phaseDefinition: obj("PhaseDefinition", "Where a phase/state string is."),
      conditionsDefinition: obj("ConditionsDefinition", "Where Kubernetes-style conditions are."),
      statusMappings: obj("StatusMappings", "Generic status → matchers.", true),
    },
  },
  PhaseDefinition: {
    doc: "A phase or state string.",
    fields: { path: jq("status", "jq on the workload to the phase.", true) },
  },
  ConditionsDefinition: {
    doc: "Kubernetes-style conditions.",
    fields: {
      path: jq("status", "jq on the workload to the conditions array.", true),
      typeFieldName: str("Field holding the condition type.", { default: "type" }),
      statusFieldName: str("Field holding the condition status.", { default: "status" }),
      messageFieldName: str("Field holding the message.", { default: "message" }),
      reasonFieldName: str("Field holding the reason.", { default: "reason" }),
    },
  },
  StatusMappings: {
    doc: "Each generic status with its matchers; several statuses may match at once, none = Undefined.",
    fields: {
      initializing: matchers("Initializing"),
      running: matchers("Running"),
      completed: matchers("Completed"),
      failed: matchers("Failed"),
      degraded: matchers("Degraded"),
      suspended: matchers("Suspended"),
      suspending: matchers("Suspending"),
      resuming: matchers("Resuming"),
    },
  },
  StatusMatcher: {
    doc: "Everything listed must hold (AND).",
    fields: {
      byPhase: str("The phase value to match."),
      byConditions: arr(ref("ExpectedCondition"), "Conditions that must all be present and match.", { listType: "atomic" }),
      byExpression: obj("ExpressionMatcher", "A jq expression and its expected result."),
    },
  },
  ExpectedCondition: {
    doc: "A condition that must be present with this status and/or reason.",
    fields: {
      type: str("The condition type.", {}, true),
      status: str("The expected status (\"True\", \"False\", \"Unknown\")."),
      reason: str("The expected reason."),
    },
  },
  ExpressionMatcher: {
    doc: "Matches when the expression's result, as a string, equals expectedResult.",
    fields: {
      expression: jq("status", "jq on the workload.", true),
      expectedResult: str("The expected result as a string, e.g. \"true\".", {}, true),
    },
  },
  OptimizationInstructions: {
    doc: "Scheduling instructions.",
    fields: { gangScheduling: obj("GangScheduling", "How to group pods for gang scheduling.") },
  },
  GangScheduling: {
    doc: "podGroups (older) or podGroup (newer; wins when both are set).",
    fields: {
      podGroups: arr(ref("PodGroupDefinition"), "Groups of components scheduled together (older format).", { listMapKey: "name" }),
      podGroup: obj("PodGroupComponentsMapping", "One group with a subgroup per component (newer format)."),
    },
  },
  PodGroupDefinition: {
    doc: "A group of pods scheduled together.",
    fields: {
      name: str("The group's name; part of the PodGroup name, so a DNS-1123 label.", {}, true),
      members: arr(ref("PodGroupMember"), "The components in the group.", { listMapKey: "componentName" }, true),
    },
  },
  PodGroupMember: {
    doc: "A component in a pod group; paths run on the Pod.",
    fields: {
      componentName: str("A root or child component.", {}, true),
      groupByKeyPaths: arr({ type: "string", jq: "groupKey" }, "jq on the Pod; each yields one non-empty key (a bare word is a literal key). Absent: group by owner.", {
        listType: "set",
      }),
      filters: arr({ type: "string", jq: "filter" }, "jq on the Pod; the pod is a member when all are true.", { listType: "set" }),
    },
  },
  PodGroupComponentsMapping: {
    doc: "One pod group with subgroups.",
    fields: {
      name: str("The group's name; part of the PodGroup name, so a DNS-1123 label.", {}, true),
      subGroups: arr(ref("SubGroupDefinition"), "A subgroup per component.", { listMapKey: "componentName" }),
      topology: obj("TopologyConstraint", "Topology constraint for all the workload's pods."),
      // Karta extensions (this project): keyed groups and a partial gang of subgroups.
      groupByKeyPaths: arr({ type: "string", jq: "groupKey" }, "jq on the Pod: one group per distinct tuple of keys (a bare word is a literal key), named pg-<rootUID>-<name>-<key>...; absent: one group per workload.", {
        listType: "set",
      }),
      minSubGroupPath: jq("scale", "jq on the workload: how many subgroups must be placed for the group to start (null: all of them; capped at their number)."),
    },
  },
  SubGroupDefinition: {
    doc: "A subgroup made of one component's pods.",
    fields: {
      componentName: str("A root or child component.", {}, true),
      topology: obj("TopologyConstraint", "Topology constraint for this component's pods."),
      // Karta extension (this project): one subgroup per instance, named by the instance id.
      perInstance: { type: { type: "boolean" }, doc: "One subgroup per instance of the component (it needs instanceIdPath and a componentInstanceSelector), named by the instance id." },
    },
  },
  // --- Karta extension `spec.karmada` (optional; other consumers ignore it, and the reference decoder
  // drops it as an unknown field): what Karmada's resource interpreter needs beyond the workload model.
  KarmadaInterpretation: {
    doc: "How Karmada's resource interpreter treats the workload across member clusters (Karta extension).",
    fields: {
      health: obj("KarmadaHealth", "InterpretHealth, when the status mappings cannot decide it."),
      statusReflection: obj("KarmadaStatusReflection", "InterpretStatus: the status a member cluster reports."),
      statusAggregation: obj("KarmadaStatusAggregation", "AggregateStatus: the members' reported statuses combined into the resource template's status."),
      retention: obj("KarmadaRetention", "Retain: fields member-cluster controllers own, kept from the member's object."),
      dependencies: obj("KarmadaDependencies", "InterpretDependency: objects to propagate with the workload."),
      replicas: obj("KarmadaReplicas", "InterpretReplica/ReviseReplica for a workload with several pod specifications."),
      omitComponentsWithoutTemplate: { type: { type: "boolean" }, doc: "InterpretComponent: leave out a role the object lists without a pod template (default: reported, without requirements)." },
      componentNames: { type: { type: "map", values: { type: "string" } }, doc: "InterpretComponent: the Karmada component name of a single-instance Karta component (e.g. launcher: Launcher)." },
      deferOperations: arr(
        { type: "string", enum: ["InterpretReplica", "ReviseReplica", "ReviseComponents", "InterpretComponent", "Retain", "AggregateStatus", "InterpretStatus", "InterpretHealth", "InterpretDependency"] },
        "Operations this Karta leaves to the layers below it (Karta's thirdparty interpreters, the built-in ones): where the answer comes from settings a workload model cannot read (Flink's or Spark's resource settings, one count over several pod templates).",
        { listType: "set" },
      ),
    },
  },
  KarmadaHealth: {
    doc: "Health from one expression: true healthy, false unhealthy; null or no output leaves it to the status mappings.",
    fields: { expression: jq("karmada", "jq on the member's object; a boolean.", true) },
  },
  KarmadaStatusReflection: {
    doc: "The reported status: the listed status fields, the member generation report, then the expression's fields.",
    fields: {
      fields: arr({ type: "string" }, "Fields of .status copied when present (dotted for nested: replicaStatuses.Worker).", { listType: "set" }),
      memberGeneration: { type: { type: "boolean" }, doc: "Also report generation and resourceTemplateGeneration (the template generation annotation), for statusAggregation.observedGeneration." },
      expression: jq("karmada", "jq on the member's object; an object whose fields are added (null: report no status)."),
    },
  },
  KarmadaStatusAggregation: {
    doc: "The template's status from the members' statuses: sums and the generation rule first, then the expression.",
    fields: {
      sum: arr({ type: "string" }, "Counters of the reported status summed over members (dotted for nested).", { listType: "set" }),
      sumQuantities: arr({ type: "string" }, "Resource quantities of the reported status (\"500m\", \"2Gi\") summed over members, as a quantity string.", { listType: "set" }),
      observedGeneration: { type: { type: "boolean" }, doc: "status.observedGeneration = metadata.generation once every member reports (memberGeneration) it has seen the current template." },
      omitSpec: { type: { type: "boolean" }, doc: "The aggregated object leaves out .spec when members report (only its .status is written back; Karmada's Ray interpreters return it so)." },
      keepWithoutItems: { type: { type: "boolean" }, doc: "Without member statuses (nil: none has reported yet; an empty list is aggregated), the template is returned as it is, as the Karmada scripts that begin with `if statusItems == nil then return desiredObj end` return it." },
      expression: jq("aggregation", "jq on {object, items}: the template and the members' AggregatedStatusItems; the new .status (null removes it)."),
    },
  },
  KarmadaRetention: {
    doc: "Fields kept from the member's object when the template is applied again.",
    fields: {
      paths: arr({ type: "string", jq: "action" }, "jq paths on the workload; the member's value, where it has one, replaces the template's.", { listType: "atomic" }),
    },
  },
  KarmadaDependencies: {
    doc: "Objects the workload needs in the member cluster; the pod specifications' ConfigMaps, Secrets, ServiceAccounts and PVCs are always included.",
    fields: {
      expression: jq("karmada", "jq on the workload; objects {apiVersion, kind, name, namespace} (namespace defaults to the workload's)."),
      podTemplatePaths: arr({ type: "string", jq: "karmada" }, "jq on the workload to pod templates that are not components (a submitter, a driver): their ConfigMaps, Secrets, ServiceAccount and PVCs count too.", { listType: "atomic" }),
    },
  },
  KarmadaReplicas: {
    doc: "One component's pod specification answers InterpretReplica and ReviseReplica for the whole workload.",
    fields: {
      component: str("The component (a pod-spec component without instances) whose replicas and pod template are the workload's.", {}, true),
      replicasExpression: jq("karmada", "jq on the workload: the replica number reported (default: the component's replicas)."),
    },
  },
  // --- end of the Karta extension `spec.karmada`.
  TopologyConstraint: topology,
  KartaStatus: {
    doc: "Observed state.",
    fields: { conditions: arr(ref("KartaCondition"), "KartaValidated, CRDExists, Ready.") },
  },
  KartaCondition: {
    doc: "A status condition.",
    fields: {
      type: str("Condition type.", {}, true),
      status: str("True, False or Unknown.", { enum: ["True", "False", "Unknown"] }, true),
      reason: str("Machine-readable reason."),
      message: str("Human-readable message."),
      lastTransitionTime: str("When the status last changed (RFC 3339)."),
      observedGeneration: { type: { type: "integer" }, doc: "The generation the condition was computed for." },
    },
  },
};

/** The spec of a named type; throws on a name the table does not have (a bug of ours). */
export function typeSpec(name: string): ObjectSpec {
  const spec = KARTA_TYPES[name];
  if (!spec) throw new Error(`no Karta type named ${name}`);
  return spec;
}
