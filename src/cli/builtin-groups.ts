/**
 * Kubernetes' own API groups, which a type name resolves to before any CRD's: `job` is Job.v1.batch,
 * not Volcano's Job.v1alpha1.batch.volcano.sh; `statefulset` is apps/v1's, not Kruise's. kubectl gets
 * this from discovery, where kube-apiserver lists the core group and its built-in groups first (the
 * aggregator's group priorities) and the CRDs' groups after; the same rule applies where Karta resolves
 * a TYPE without asking a server (the bundled definitions), so that one name means one kind everywhere.
 */
const BUILT_IN_GROUPS: ReadonlySet<string> = new Set([
  "",
  "admissionregistration.k8s.io",
  "apiextensions.k8s.io",
  "apiregistration.k8s.io",
  "apps",
  "authentication.k8s.io",
  "authorization.k8s.io",
  "autoscaling",
  "batch",
  "certificates.k8s.io",
  "coordination.k8s.io",
  "discovery.k8s.io",
  "events.k8s.io",
  "flowcontrol.apiserver.k8s.io",
  "internal.apiserver.k8s.io",
  "networking.k8s.io",
  "node.k8s.io",
  "policy",
  "rbac.authorization.k8s.io",
  "resource.k8s.io",
  "scheduling.k8s.io",
  "storage.k8s.io",
  "storagemigration.k8s.io",
]);

/** Whether kube-apiserver itself serves this API group (the core group is ""). */
export function isBuiltInGroup(group: string): boolean {
  return BUILT_IN_GROUPS.has(group);
}

/**
 * The matches a type name resolves to: those in a built-in group when there are any (kubectl's
 * preference), else all of them. More than one left is an ambiguity for the caller to report.
 */
export function preferBuiltIn<T>(matches: readonly T[], groupOf: (t: T) => string): T[] {
  const builtIn = matches.filter((m) => isBuiltInGroup(groupOf(m)));
  return builtIn.length > 0 ? builtIn : [...matches];
}
