/**
 * The least-privilege ClusterRole of `karta controller` for a set of definitions: read the root kinds,
 * the child component kinds and additionalChildKinds a pod's owner chain can pass through; read pods; write the scheduling.k8s.io objects;
 * read Kartas and write their labels and status; read CRDs (to see a root kind appear); write events;
 * hold a Lease for leader election.
 */
import type { Karta } from "../definition/index.js";
import { guessedResource } from "../definition/resource-name.js";
import { readByController } from "./owners.js";

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export interface ClusterRole {
  apiVersion: "rbac.authorization.k8s.io/v1";
  kind: "ClusterRole";
  metadata: { name: string; labels?: Record<string, string> };
  rules: PolicyRule[];
}

/** The resource (plural) of a kind: from a CRD when one is known, else {@link guessedResource}. */
export function resourceOf(kind: string, plurals: ReadonlyMap<string, string> = new Map(), group = ""): string {
  return plurals.get(`${group}/${kind}`) ?? guessedResource(kind);
}

const READ = ["get", "list", "watch"];

/** The ClusterRole for these definitions; `plurals` maps `group/Kind` to the resource name (from CRDs). */
export function controllerClusterRole(kartas: readonly Karta[], options: { name?: string; plurals?: ReadonlyMap<string, string> } = {}): ClusterRole {
  const read = new Map<string, Set<string>>();
  const addRead = (group: string | undefined, kind: string | undefined): void => {
    if (kind === undefined || kind === "") return;
    const g = group ?? "";
    if (!read.has(g)) read.set(g, new Set());
    read.get(g)!.add(resourceOf(kind, options.plurals, g));
  };
  for (const k of kartas) {
    const sd = k.spec?.structureDefinition;
    addRead(sd?.rootComponent?.kind?.group, sd?.rootComponent?.kind?.kind);
    // Children only where a pod's owner chain can pass (not Services, Secrets, ConfigMaps...): the
    // controller reads nothing else, and a cluster-wide read of Secrets is not a grant to ask for.
    const child = (k: { group?: string; kind?: string } | undefined): void => {
      if (k?.kind && readByController({ group: k.group ?? "", kind: k.kind })) addRead(k.group, k.kind);
    };
    for (const c of sd?.childComponents ?? []) child(c.kind);
    for (const gvk of sd?.additionalChildKinds ?? []) child(gvk);
  }
  addRead("", "Pod");
  const rules: PolicyRule[] = [...read.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([group, resources]) => ({ apiGroups: [group], resources: [...resources].sort(), verbs: READ }));
  rules.push(
    { apiGroups: ["scheduling.k8s.io"], resources: ["workloads", "podgroups", "compositepodgroups"], verbs: [...READ, "create", "update", "patch", "delete"] },
    { apiGroups: ["run.ai"], resources: ["kartas"], verbs: [...READ, "patch"] },
    { apiGroups: ["run.ai"], resources: ["kartas/status"], verbs: ["get", "update", "patch"] },
    { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], verbs: READ },
    // list: the PodsWithoutGroup Events recorded before a restart are not recorded again.
    { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch", "update", "list"] },
    { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] },
  );
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: options.name ?? "karta-controller", labels: { "app.kubernetes.io/name": "karta", "app.kubernetes.io/component": "controller" } },
    rules,
  };
}
