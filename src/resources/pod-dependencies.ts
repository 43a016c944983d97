/**
 * The objects a pod template depends on, as Karmada's getPodDependencies / the Lua
 * `kube.getPodDependencies`: ConfigMaps, Secrets, the ServiceAccount and PersistentVolumeClaims, in the
 * same namespace. Karmada collects each kind into a set and lists ConfigMaps, then Secrets, then
 * ServiceAccounts, then PVCs; within a kind Go's map order is random, so here names are sorted.
 */
import { asObject, asObjectArray, asString, podSpecOf } from "./pod-spec.js";
import type { DependentObjectReference } from "./types.js";

/** All containers whose references count: init, regular and ephemeral. */
function allContainers(spec: Record<string, unknown>): Record<string, unknown>[] {
  return [
    ...asObjectArray(spec["initContainers"]),
    ...asObjectArray(spec["containers"]),
    ...asObjectArray(spec["ephemeralContainers"]),
  ];
}

/** The name inside a reference object (`{name: ...}`), or "" when absent. */
function refName(ref: unknown): string {
  return asString(asObject(ref)?.["name"]);
}

/** ConfigMaps referenced by env, envFrom, configMap volumes and projected sources. */
export function configMapNames(spec: Record<string, unknown>): Set<string> {
  const names = new Set<string>();
  for (const c of allContainers(spec)) {
    for (const e of asObjectArray(c["envFrom"])) if (asObject(e["configMapRef"])) names.add(refName(e["configMapRef"]));
    for (const e of asObjectArray(c["env"])) {
      const ref = asObject(asObject(e["valueFrom"])?.["configMapKeyRef"]);
      if (ref) names.add(refName(ref));
    }
  }
  for (const v of asObjectArray(spec["volumes"])) {
    // Karmada (like Kubernetes' visitor) looks at the first of these sources a volume has.
    const projected = asObject(v["projected"]);
    if (projected) {
      for (const s of asObjectArray(projected["sources"])) if (asObject(s["configMap"])) names.add(refName(s["configMap"]));
    } else if (asObject(v["configMap"])) {
      names.add(refName(v["configMap"]));
    }
  }
  names.delete("");
  return names;
}

/** Volume sources whose `secretRef` names a Secret, in the order Kubernetes' visitor checks them. */
const SECRET_REF_SOURCES = ["cephfs", "cinder", "flexVolume"] as const;
const SECRET_REF_SOURCES_AFTER = ["scaleIO", "iscsi", "storageos"] as const;

/** Secrets referenced by imagePullSecrets, env, envFrom and secret-bearing volumes. */
export function secretNames(spec: Record<string, unknown>): Set<string> {
  const names = new Set<string>();
  for (const r of asObjectArray(spec["imagePullSecrets"])) names.add(refName(r));
  for (const c of allContainers(spec)) {
    for (const e of asObjectArray(c["envFrom"])) if (asObject(e["secretRef"])) names.add(refName(e["secretRef"]));
    for (const e of asObjectArray(c["env"])) {
      const ref = asObject(asObject(e["valueFrom"])?.["secretKeyRef"]);
      if (ref) names.add(refName(ref));
    }
  }
  for (const v of asObjectArray(spec["volumes"])) {
    const src = (key: string) => asObject(v[key]);
    const secretRef = (key: string) => {
      const ref = asObject(src(key)?.["secretRef"]);
      if (ref) names.add(refName(ref));
    };
    const azure = src("azureFile");
    if (azure) {
      names.add(asString(azure["secretName"]));
      continue;
    }
    const before = SECRET_REF_SOURCES.find((k) => src(k));
    if (before) {
      secretRef(before);
      continue;
    }
    const projected = src("projected");
    if (projected) {
      for (const s of asObjectArray(projected["sources"])) if (asObject(s["secret"])) names.add(refName(s["secret"]));
      continue;
    }
    if (src("rbd")) {
      secretRef("rbd");
      continue;
    }
    const secret = src("secret");
    if (secret) {
      names.add(asString(secret["secretName"]));
      continue;
    }
    const after = SECRET_REF_SOURCES_AFTER.find((k) => src(k));
    if (after) {
      secretRef(after);
      continue;
    }
    const csi = src("csi");
    if (csi) {
      const ref = asObject(csi["nodePublishSecretRef"]);
      if (ref) names.add(refName(ref));
    }
  }
  names.delete("");
  return names;
}

/** The service account, unless empty or "default". */
export function serviceAccountNames(spec: Record<string, unknown>): Set<string> {
  const sa = asString(spec["serviceAccountName"]);
  return new Set(sa !== "" && sa !== "default" ? [sa] : []);
}

/** PersistentVolumeClaims mounted as volumes. */
export function persistentVolumeClaimNames(spec: Record<string, unknown>): Set<string> {
  const names = new Set<string>();
  for (const v of asObjectArray(spec["volumes"])) {
    const claim = asString(asObject(v["persistentVolumeClaim"])?.["claimName"]);
    if (claim !== "") names.add(claim);
  }
  return names;
}

/**
 * The dependencies of a pod template (or pod spec) in `namespace`: ConfigMaps, Secrets, the
 * ServiceAccount and PVCs, deduplicated; undefined when there are none (Lua's nil). An empty
 * namespace is left out of the references, as Go's `omitempty` does.
 */
export function podDependencies(podTemplate: unknown, namespace: string): DependentObjectReference[] | undefined {
  const { spec } = podSpecOf(podTemplate);
  const refs: DependentObjectReference[] = [];
  const push = (kind: string, names: Set<string>) => {
    for (const name of [...names].sort()) {
      const ref: DependentObjectReference = { apiVersion: "v1", kind };
      if (namespace !== "") ref.namespace = namespace;
      ref.name = name;
      refs.push(ref);
    }
  };
  push("ConfigMap", configMapNames(spec));
  push("Secret", secretNames(spec));
  push("ServiceAccount", serviceAccountNames(spec));
  push("PersistentVolumeClaim", persistentVolumeClaimNames(spec));
  return refs.length === 0 ? undefined : refs;
}
