/**
 * The core/v1 Pod, as an OpenAPI schema: every field of ObjectMeta, PodSpec, Container and PodStatus by
 * name (from the Kubernetes API reference), with the deeper structures (volumes, affinity, probes...)
 * left open. Pod-side paths (selectors, grouping keys, filters) are checked against it, and it stands in
 * for embedded pod templates and object metadata that a CRD leaves without a schema.
 */
import type { OpenApiSchema } from "./openapi.js";

const open = (): OpenApiSchema => ({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
const str = (): OpenApiSchema => ({ type: "string" });
const int = (): OpenApiSchema => ({ type: "integer" });
const bool = (): OpenApiSchema => ({ type: "boolean" });
const strMap = (): OpenApiSchema => ({ type: "object", additionalProperties: { type: "string" } });
const list = (items: OpenApiSchema): OpenApiSchema => ({ type: "array", items });
const obj = (properties: Record<string, OpenApiSchema>, required: string[] = []): OpenApiSchema => ({
  type: "object",
  properties,
  ...(required.length ? { required } : {}),
});
/** An object whose listed fields are all of one simple kind; the rest of its structure stays open. */
const fields = (names: string, kind: () => OpenApiSchema = open): Record<string, OpenApiSchema> =>
  Object.fromEntries(names.trim().split(/\s+/).map((n) => [n, kind()]));

const quantityMap = (): OpenApiSchema => ({ type: "object", additionalProperties: { "x-kubernetes-int-or-string": true } });

export const OBJECT_META: OpenApiSchema = obj({
  ...fields("name generateName namespace selfLink uid resourceVersion creationTimestamp deletionTimestamp", str),
  generation: int(),
  deletionGracePeriodSeconds: int(),
  labels: strMap(),
  annotations: strMap(),
  ownerReferences: list(
    obj({ ...fields("apiVersion kind name uid", str), controller: bool(), blockOwnerDeletion: bool() }, ["apiVersion", "kind", "name", "uid"]),
  ),
  finalizers: list(str()),
  managedFields: list(open()),
});

const RESOURCES: OpenApiSchema = obj({ limits: quantityMap(), requests: quantityMap(), claims: list(obj({ name: str(), request: str() }, ["name"])) });

export const CONTAINER: OpenApiSchema = obj(
  {
    ...fields("name image imagePullPolicy workingDir terminationMessagePath terminationMessagePolicy restartPolicy", str),
    ...fields("stdin stdinOnce tty", bool),
    command: list(str()),
    args: list(str()),
    ports: list(obj({ ...fields("name protocol hostIP", str), containerPort: int(), hostPort: int() })),
    env: list(obj({ name: str(), value: str(), valueFrom: open() }, ["name"])),
    envFrom: list(open()),
    resources: RESOURCES,
    resizePolicy: list(open()),
    restartPolicyRules: list(open()),
    volumeMounts: list(obj({ ...fields("name mountPath subPath subPathExpr mountPropagation recursiveReadOnly", str), readOnly: bool() })),
    volumeDevices: list(open()),
    ...fields("livenessProbe readinessProbe startupProbe lifecycle securityContext"),
  },
  ["name"],
);

export const POD_SPEC: OpenApiSchema = obj(
  {
    containers: list(CONTAINER),
    initContainers: list(CONTAINER),
    ephemeralContainers: list(CONTAINER),
    ...fields(
      "restartPolicy dnsPolicy serviceAccountName serviceAccount nodeName schedulerName priorityClassName hostname subdomain preemptionPolicy runtimeClassName",
      str,
    ),
    ...fields("hostNetwork hostPID hostIPC shareProcessNamespace automountServiceAccountToken setHostnameAsFQDN enableServiceLinks hostUsers", bool),
    ...fields("terminationGracePeriodSeconds activeDeadlineSeconds priority", int),
    nodeSelector: strMap(),
    overhead: quantityMap(),
    resources: RESOURCES,
    affinity: obj({ nodeAffinity: open(), podAffinity: open(), podAntiAffinity: open() }),
    tolerations: list(obj({ ...fields("key operator value effect", str), tolerationSeconds: int() })),
    imagePullSecrets: list(obj({ name: str() })),
    schedulingGates: list(obj({ name: str() }, ["name"])),
    resourceClaims: list(obj({ ...fields("name resourceClaimName resourceClaimTemplateName", str) }, ["name"])),
    ...fields("volumes securityContext hostAliases dnsConfig readinessGates topologySpreadConstraints os"),
  },
  ["containers"],
);

export const POD_STATUS: OpenApiSchema = obj({
  ...fields("phase message reason nominatedNodeName hostIP podIP qosClass startTime resize", str),
  observedGeneration: int(),
  conditions: list(obj({ ...fields("type status reason message lastProbeTime lastTransitionTime", str), observedGeneration: int() }, ["type", "status"])),
  hostIPs: list(obj({ ip: str() })),
  podIPs: list(obj({ ip: str() })),
  ...fields("containerStatuses initContainerStatuses ephemeralContainerStatuses resourceClaimStatuses", () => list(open())),
});

/** The Pod (core/v1). */
export const POD_SCHEMA: OpenApiSchema = obj({
  apiVersion: str(),
  kind: str(),
  metadata: OBJECT_META,
  spec: POD_SPEC,
  status: POD_STATUS,
});

/** A PodTemplateSpec: metadata and spec. */
export const POD_TEMPLATE_SPEC: OpenApiSchema = obj({ metadata: OBJECT_META, spec: POD_SPEC });

/**
 * Fields a Pod has and a workload object normally does not: a workload-side path reading them most
 * likely meant the Pod (e.g. `.spec.nodeName`, `.status.podIP`). Top-level paths only.
 */
export const POD_ONLY_FIELDS: Record<string, ReadonlySet<string>> = {
  spec: new Set(["containers", "initContainers", "ephemeralContainers", "nodeName", "hostname", "subdomain"]),
  status: new Set(["podIP", "podIPs", "hostIP", "hostIPs", "containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses", "qosClass", "nominatedNodeName"]),
};
