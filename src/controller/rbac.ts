/**
 * The least-privilege RBAC of `karta controller` for a set of definitions, verb by verb what its requests
 * need (src/controller: informers list and watch, the scheduling objects are server-side applied and
 * deleted, Kartas and their status merge-patched, Events created, and the core Events listed once at start):
 * - a ClusterRole: list and watch the root kinds, the child component kinds and additionalChildKinds a
 *   pod's owner chain can pass through, pods, Kartas and CRDs; create (an apply that makes an object
 *   needs it), patch and delete the scheduling.k8s.io objects; patch Kartas and their status; create
 *   Events (and list the core ones). No single-object get: nothing reads one object outside an informer.
 * - a Role in the controller's namespace for leader election: get and update its Lease(s) by name, and
 *   create (which RBAC cannot restrict by name: the name is in the body, not the request's path). Leases
 *   elsewhere (kube-system's schedulers', kube-node-lease's heartbeats) stay out of reach.
 */
import type { Karta } from "../definition/index.js";
import { guessedResource } from "../definition/resource-name.js";
import { readByController } from "./owners.js";
import { shardLeaseName } from "./shard.js";

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
  verbs: string[];
}

const LABELS = { "app.kubernetes.io/name": "karta-controller", "app.kubernetes.io/component": "controller" };

export interface ClusterRole {
  apiVersion: "rbac.authorization.k8s.io/v1";
  kind: "ClusterRole";
  metadata: { name: string; labels?: Record<string, string> };
  rules: PolicyRule[];
}

export interface Role {
  apiVersion: "rbac.authorization.k8s.io/v1";
  kind: "Role";
  metadata: { name: string; namespace: string; labels?: Record<string, string> };
  rules: PolicyRule[];
}

/** The default name of the roles, the Lease and the controller's namespace (as the chart and deploy/controller install it). */
export const DEFAULT_ROLE_NAME = "karta-controller";
export const DEFAULT_LEASE_NAME = "karta-controller";
export const DEFAULT_NAMESPACE = "karta-system";

/** The resource (plural) of a kind: from a CRD when one is known, else {@link guessedResource}. */
export function resourceOf(kind: string, plurals: ReadonlyMap<string, string> = new Map(), group = ""): string {
  return plurals.get(`${group}/${kind}`) ?? guessedResource(kind);
}

/** What an informer does: a list, then a watch. */
const READ = ["list", "watch"];

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
    // Server-side apply (PATCH) makes an object that does not exist yet, which the API server also authorizes as create.
    { apiGroups: ["scheduling.k8s.io"], resources: ["workloads", "podgroups", "compositepodgroups"], verbs: [...READ, "create", "patch", "delete"] },
    { apiGroups: ["run.ai"], resources: ["kartas"], verbs: [...READ, "patch"] },
    { apiGroups: ["run.ai"], resources: ["kartas/status"], verbs: ["patch"] },
    { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], verbs: READ },
    // Workloads' Events are core/v1, Kartas' events.k8s.io/v1. list: the PodsWithoutGroup Events recorded
    // before a restart are not recorded again.
    { apiGroups: [""], resources: ["events"], verbs: ["create", "list"] },
    { apiGroups: ["events.k8s.io"], resources: ["events"], verbs: ["create"] },
  );
  return { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRole", metadata: { name: options.name ?? DEFAULT_ROLE_NAME, labels: { ...LABELS } }, rules };
}

export interface LeaderElectionRoleOptions {
  /** The Role's name (default karta-controller). */
  name?: string;
  /** The namespace of the Lease: the controller's own (default karta-system). */
  namespace?: string;
  /** The controller's --leader-elect-resource-name (default karta-controller). */
  leaseName?: string;
  /** The controller's --total-shards: each shard holds a Lease of its own (default 1). */
  totalShards?: number;
}

/** The names of the Leases the controller (all its shards) holds. */
export function leaseNames(leaseName = DEFAULT_LEASE_NAME, totalShards = 1): string[] {
  return Array.from({ length: Math.max(1, totalShards) }, (_, index) => shardLeaseName(leaseName, { total: totalShards, index }));
}

/** The Role of leader election: its Lease(s) in its namespace, by name where RBAC can restrict by name. */
export function leaderElectionRole(options: LeaderElectionRoleOptions = {}): Role {
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: options.name ?? DEFAULT_ROLE_NAME, namespace: options.namespace ?? DEFAULT_NAMESPACE, labels: { ...LABELS } },
    rules: [
      // A create's name is in its body: RBAC cannot restrict it by name (a Role can only keep it in this namespace).
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
      { apiGroups: ["coordination.k8s.io"], resources: ["leases"], resourceNames: leaseNames(options.leaseName, options.totalShards), verbs: ["get", "update"] },
    ],
  };
}

/** Everything `karta rbac` prints: the ClusterRole, then the leader-election Role. */
export function controllerRbac(
  kartas: readonly Karta[],
  options: { name?: string; plurals?: ReadonlyMap<string, string> } & Omit<LeaderElectionRoleOptions, "name"> = {},
): [ClusterRole, Role] {
  return [controllerClusterRole(kartas, options), leaderElectionRole(options)];
}
