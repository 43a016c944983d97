/**
 * How Karmada's resource accounting classifies a resource name (Kubernetes' core/v1 helper rules):
 * cpu, memory, pods and ephemeral-storage are tracked natively; extended resources, huge pages,
 * `*kubernetes.io/` names and attachable volumes are tracked as scalars; anything else is ignored.
 */

/** The accounting class of a resource name. */
export type ResourceClass = "cpu" | "memory" | "pods" | "ephemeral-storage" | "scalar" | "ignored";

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** Names already judged: a workload names the same few resources in every container. */
const qualified = new Map<string, boolean>();
const MAX_JUDGED = 1024;

/** Kubernetes' IsQualifiedName: an optional DNS-subdomain prefix and a name of at most 63 characters. */
export function isQualifiedName(value: string): boolean {
  let known = qualified.get(value);
  if (known === undefined) {
    if (qualified.size >= MAX_JUDGED) qualified.clear();
    qualified.set(value, (known = judgeQualifiedName(value)));
  }
  return known;
}

function judgeQualifiedName(value: string): boolean {
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0] as string;
  } else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0 || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) return false;
  } else {
    return false;
  }
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** A name in the `kubernetes.io/` namespace (or any `*kubernetes.io/` one). */
export function isPrefixedNativeResource(name: string): boolean {
  return name.includes("kubernetes.io/");
}

/** Unprefixed names are implicitly native. */
export function isNativeResource(name: string): boolean {
  return !name.includes("/") || isPrefixedNativeResource(name);
}

export function isHugePageResourceName(name: string): boolean {
  return name.startsWith("hugepages-");
}

export function isAttachableVolumeResourceName(name: string): boolean {
  return name.startsWith("attachable-volumes-");
}

/** An extended resource such as `nvidia.com/gpu`. */
export function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith("requests.")) return false;
  return isQualifiedName(`requests.${name}`);
}

/** Scalar resources: extended, huge pages, prefixed native, attachable volumes. */
export function isScalarResourceName(name: string): boolean {
  return (
    isExtendedResourceName(name) ||
    isHugePageResourceName(name) ||
    isPrefixedNativeResource(name) ||
    isAttachableVolumeResourceName(name)
  );
}

/** How Karmada's accounting treats a resource name. */
export function classifyResource(name: string): ResourceClass {
  switch (name) {
    case "cpu":
    case "memory":
    case "pods":
    case "ephemeral-storage":
      return name;
    default:
      return isScalarResourceName(name) ? "scalar" : "ignored";
  }
}
