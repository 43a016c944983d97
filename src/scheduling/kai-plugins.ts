/**
 * Which of KAI Scheduler's pod-grouper plugins handles a workload's kind, from the top owner's
 * group/version/kind, as KAI picks it (KAI-Scheduler d5bc503a, pkg/podgrouper/podgrouper/hub/hub.go
 * `NewDefaultPluginsHub` and `getRegularPlugin`; summarised in ../shared/reference/kai-podgrouper.md):
 *
 * 1. the plugin registered for the exact GVK, else the one registered for the group and kind with version
 *    `*` (only run.ai's workload kinds and nvidia.com's DynamoGraphDeployment are registered so);
 * 2. only for a kind with neither: the Karta fallback (flag `--generic-karta-fallback`, on by default),
 *    which takes the one valid Karta with gang instructions labelled `run.ai/karta-group`,
 *    `run.ai/karta-version` and `run.ai/karta-kind` equal to the GVK;
 * 3. else the DefaultGrouper (one PodGroup `pg-<name>-<uid>`, minMember 1).
 *
 * A native plugin's PodGroups are its own (named `pg-<name>-<uid>` and the like, with its own subgroups and
 * minMember), not the ones a Karta describes. The SkipTopOwner kinds (TrainJob, Argo Workflow,
 * DynamoGraphDeployment, run.ai's workloads) are skipped: KAI groups their pods with the plugin of the
 * owner below them, looked up by its exact GVK only (no version `*`, no Karta), else the DefaultGrouper.
 * Pure data and lookups; no I/O.
 */
import { LABEL_GROUP, LABEL_KIND, LABEL_VERSION, rootGroupVersionKind, sameGroupVersionKind, type KartaLike } from "../definition/cluster-rules.js";
import type { GroupVersionKind, Karta } from "../definition/types.js";
import type { Interpretation } from "../interpret/types.js";

/** One entry of KAI's plugin table. */
export interface KaiPluginEntry {
  group: string;
  /** The version it is registered for; `*` matches any version not registered on its own. */
  version: string;
  kind: string;
  /** The plugin: KAI's Go type name (`PyTorchGrouper`, `DefaultGrouper`, `SkipTopOwnerGrouper`...). */
  plugin: string;
  /** How the plugin names its PodGroups (absent for a skipped owner: the owner below decides). */
  podGroupName?: string;
  /** KAI skips this owner and groups by the owner below it. */
  skipTopOwner?: true;
  /** For a skipped owner: the owner usually below it, and that owner's plugin. */
  below?: string;
}

const RUNAI_WORKLOADS = ["InferenceWorkload", "TrainingWorkload", "DistributedWorkload", "InteractiveWorkload", "DistributedInferenceWorkload"];

const PG = "pg-<name>-<uid>";

/**
 * KAI's table, one row per registered GVK, in hub.go's order (the SkipTopOwner rows last, as it adds them).
 * Plugin names are the Go types hub.go constructs (reference: the table of kai-podgrouper.md).
 */
export const KAI_PLUGINS: readonly KaiPluginEntry[] = [
  { group: "apps", version: "v1", kind: "Deployment", plugin: "DeploymentGrouper", podGroupName: "pg-<pod>-<uid>, one per pod" },
  { group: "machinelearning.seldon.io", version: "v1alpha2", kind: "SeldonDeployment", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "machinelearning.seldon.io", version: "v1", kind: "SeldonDeployment", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "kubevirt.io", version: "v1", kind: "VirtualMachineInstance", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "kubeflow.org", version: "v1", kind: "TFJob", plugin: "TensorFlowGrouper", podGroupName: PG },
  { group: "kubeflow.org", version: "v1", kind: "PyTorchJob", plugin: "PyTorchGrouper", podGroupName: PG },
  { group: "kubeflow.org", version: "v1", kind: "XGBoostJob", plugin: "XGBoostGrouper", podGroupName: PG },
  { group: "kubeflow.org", version: "v1", kind: "JAXJob", plugin: "JaxGrouper", podGroupName: PG },
  { group: "kubeflow.org", version: "v1", kind: "MPIJob", plugin: "MpiGrouper", podGroupName: PG },
  { group: "kubeflow.org", version: "v2beta1", kind: "MPIJob", plugin: "MpiGrouper", podGroupName: PG },
  { group: "kubeflow.org", version: "v1beta1", kind: "Notebook", plugin: "NotebookGrouper", podGroupName: PG },
  { group: "batch", version: "v1", kind: "Job", plugin: "K8sJobGrouper", podGroupName: PG },
  { group: "apps", version: "v1", kind: "StatefulSet", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "apps", version: "v1", kind: "ReplicaSet", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "run.ai", version: "v1", kind: "RunaiJob", plugin: "RunaiJobGrouper", podGroupName: "pg-<pod name without its last -suffix>-<uid>" },
  { group: "", version: "v1", kind: "Pod", plugin: "PodJobGrouper", podGroupName: "pg-<pod>-<uid> or a Spark pod's spark-app-selector label" },
  { group: "amlarc.azureml.com", version: "v1alpha1", kind: "AmlJob", plugin: "AmlGrouper", podGroupName: PG },
  { group: "serving.knative.dev", version: "v1", kind: "Service", plugin: "KnativeGrouper", podGroupName: "pg-<revision>-<uid>, one per Revision" },
  { group: "batch", version: "v1", kind: "CronJob", plugin: "CronJobGrouper", podGroupName: "pg-<job>-<uid>, one per Job" },
  { group: "workspace.devfile.io", version: "v1alpha2", kind: "DevWorkspace", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "ray.io", version: "v1alpha1", kind: "RayCluster", plugin: "RayClusterGrouper", podGroupName: PG },
  { group: "ray.io", version: "v1alpha1", kind: "RayJob", plugin: "RayJobGrouper", podGroupName: PG },
  { group: "ray.io", version: "v1alpha1", kind: "RayService", plugin: "RayServiceGrouper", podGroupName: PG },
  { group: "ray.io", version: "v1", kind: "RayCluster", plugin: "RayClusterGrouper", podGroupName: PG },
  { group: "ray.io", version: "v1", kind: "RayJob", plugin: "RayJobGrouper", podGroupName: PG },
  { group: "ray.io", version: "v1", kind: "RayService", plugin: "RayServiceGrouper", podGroupName: PG },
  { group: "kubeflow.org", version: "v1alpha1", kind: "ScheduledWorkflow", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "tekton.dev", version: "v1", kind: "PipelineRun", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "tekton.dev", version: "v1", kind: "TaskRun", plugin: "DefaultGrouper", podGroupName: PG },
  { group: "egx.nvidia.io", version: "v1", kind: "SPOTRequest", plugin: "SpotRequestGrouper", podGroupName: PG },
  { group: "leaderworkerset.x-k8s.io", version: "v1", kind: "LeaderWorkerSet", plugin: "LwsGrouper", podGroupName: "pg-<name>-<uid>-group-<index>, one per replica group" },
  { group: "jobset.x-k8s.io", version: "v1alpha2", kind: "JobSet", plugin: "JobSetGrouper", podGroupName: PG },
  { group: "grove.io", version: "v1alpha1", kind: "PodGangSet", plugin: "GroveGrouper", podGroupName: "pg-<podgang>-<uid>, one per PodGang" },
  { group: "grove.io", version: "v1alpha1", kind: "PodCliqueSet", plugin: "GroveGrouper", podGroupName: "pg-<podgang>-<uid>, one per PodGang" },
  // Added after the table is built, with the SkipTopOwner grouper.
  { group: "argoproj.io", version: "v1alpha1", kind: "Workflow", plugin: "SkipTopOwnerGrouper", skipTopOwner: true, below: "the pod itself: PodJobGrouper" },
  ...RUNAI_WORKLOADS.map((kind): KaiPluginEntry => ({ group: "run.ai", version: "*", kind, plugin: "SkipTopOwnerGrouper", skipTopOwner: true })),
  { group: "trainer.kubeflow.org", version: "v1alpha1", kind: "TrainJob", plugin: "SkipTopOwnerGrouper", skipTopOwner: true, below: "a JobSet: JobSetGrouper" },
  // Every version (v1alpha1, v1beta1 and later), as hub.go's comment says.
  { group: "nvidia.com", version: "*", kind: "DynamoGraphDeployment", plugin: "SkipTopOwnerGrouper", skipTopOwner: true, below: "with Grove, a PodCliqueSet: GroveGrouper" },
];

/** The entry registered for exactly this GVK (as KAI's SkipTopOwner grouper looks up the owner below). */
export function kaiPluginExact(gvk: GroupVersionKind): KaiPluginEntry | undefined {
  return KAI_PLUGINS.find((e) => e.group === gvk.group && e.version === gvk.version && e.kind === gvk.kind);
}

/**
 * The native plugin KAI picks for a top owner of this GVK: the exact entry, else the group and kind's
 * version-`*` entry; undefined when KAI has none (then the Karta fallback, else the DefaultGrouper).
 */
export function kaiPluginFor(gvk: GroupVersionKind): KaiPluginEntry | undefined {
  return kaiPluginExact(gvk) ?? kaiPluginExact({ ...gvk, version: "*" });
}

/** An object's apiVersion and kind as a GVK (`v1` is the core group's). */
export function groupVersionKindOf(apiVersion: string, kind: string): GroupVersionKind {
  const at = apiVersion.lastIndexOf("/");
  return at < 0 ? { group: "", version: apiVersion, kind } : { group: apiVersion.slice(0, at), version: apiVersion.slice(at + 1), kind };
}

/**
 * Whether a Karta's labels are the ones KAI's Karta fallback lists Kartas by for this GVK (plugins/karta/hub.go
 * `getKartaPerGvkLabelSelectors`: run.ai/karta-group, run.ai/karta-version, run.ai/karta-kind).
 */
export function hasKaiKartaLabels(labels: Readonly<Record<string, string>> | undefined, gvk: GroupVersionKind): boolean {
  return labels?.[LABEL_GROUP] === gvk.group && labels[LABEL_VERSION] === gvk.version && labels[LABEL_KIND] === gvk.kind;
}

/**
 * Which KAI plugin groups a workload's pods, as `karta inspect -o json` reports it beside the groups:
 * a native one (its PodGroups are its own, not the Karta's groups), or KAI's Karta grouper, the groups
 * shown, which KAI's fallback uses only for a Karta it finds by its labels and with gang instructions
 * (else the DefaultGrouper).
 */
export type KaiPluginSummary = (
  | {
      name: string;
      native: true;
      /** The version of the entry that matched: the object's, or `*`. */
      version: string;
      podGroupName?: string;
      skipTopOwner?: true;
      below?: string;
    }
  | {
      name: "KartaGrouper";
      native: false;
      /** The Karta carries the `run.ai/karta-*` labels equal to the kind (KAI's fallback finds it only so). */
      kartaLabels: boolean;
      /**
       * Read from a cluster: whether KAI's fallback finds the one Karta it takes for the kind there
       * ({@link kaiFallbackKartas}); it reads the cluster's Kartas, not this definition.
       */
      storedInCluster?: boolean;
      /** Read from a cluster, when it is not one: the Kartas KAI's fallback would take for the kind (several: it takes none). */
      storedKartas?: string[];
    }
) & {
  /** The object's first owner: KAI picks the plugin by the pods' top owner, which is then not this kind. */
  ownedBy?: { apiVersion: string; kind: string; name?: string };
};

/** The summary for a top owner of this GVK grouped with a Karta carrying these labels. */
export function kaiPluginSummary(gvk: GroupVersionKind, kartaLabels: Readonly<Record<string, string>> | undefined): KaiPluginSummary {
  const entry = kaiPluginFor(gvk);
  if (!entry) return { name: "KartaGrouper", native: false, kartaLabels: hasKaiKartaLabels(kartaLabels, gvk) };
  return {
    name: entry.plugin,
    native: true,
    version: entry.version,
    ...(entry.podGroupName !== undefined ? { podGroupName: entry.podGroupName } : {}),
    ...(entry.skipTopOwner ? { skipTopOwner: true as const } : {}),
    ...(entry.below !== undefined ? { below: entry.below } : {}),
  };
}

/**
 * The gang the plugins that do not form one make (KAI-Scheduler d5bc503a, each plugin's minMember): the
 * notice says so, where "that plugin's subgroups and minMember" would hide that the pods are not
 * scheduled together. The others (Kubeflow, Ray, LWS, JobSet, Grove...) form their own gangs.
 */
const PLUGIN_MEMBERS: Readonly<Record<string, string>> = {
  DefaultGrouper: "minMember 1 and no subgroups: no gang",
  DeploymentGrouper: "minMember 1 and no subgroups: no gang",
  K8sJobGrouper: "minMember 1 (or the Job's kai.scheduler/batch-min-member annotation), no subgroups",
  CronJobGrouper: "minMember 1 and no subgroups: no gang",
  PodJobGrouper: "minMember 1: no gang",
  NotebookGrouper: "minMember 1: no gang",
  SpotRequestGrouper: "minMember 1: no gang",
  RunaiJobGrouper: "minMember 1: no gang",
  KnativeGrouper: "minMember the Revision's autoscaling.knative.dev/min-scale (default 1), no subgroups",
};

/** How a GVK reads in a notice: `PyTorchJob kubeflow.org/v1`. */
const kindText = (gvk: GroupVersionKind): string => `${gvk.kind} ${gvk.group !== "" ? `${gvk.group}/` : ""}${gvk.version}`;

/**
 * What `karta inspect` and the playground say beside the groups about KAI's plugin for the root's kind, as
 * lines of one notice (none when KAI would use the groups shown). `gang`: the Karta has gang instructions
 * (without them KAI's fallback passes it over, labels or not); `shown`: groups or the definition's members
 * are shown.
 */
export function kaiPluginNotice(s: KaiPluginSummary, gvk: GroupVersionKind, options: { gang: boolean; shown: boolean }): string[] {
  const kind = kindText(gvk);
  if (s.native) {
    const first = s.skipTopOwner
      ? `KAI Scheduler skips ${kind} (${s.name}) and groups its pods with the plugin of the owner below it${s.below !== undefined ? ` (${s.below})` : ""}`
      : `KAI Scheduler groups ${kind} with its own ${s.name} (PodGroups named ${s.podGroupName ?? PG}, ${PLUGIN_MEMBERS[s.name] ?? "with that plugin's subgroups and minMember"})`;
    return options.shown ? [`${first};`, "below is what KAI's Karta grouper would build for a kind without a plugin"] : [first];
  }
  if (s.kartaLabels || !options.gang) return [];
  return [
    `KAI Scheduler's Karta fallback finds a Karta stored in the cluster by its labels ${LABEL_GROUP}=${gvk.group}, ${LABEL_VERSION}=${gvk.version}, ${LABEL_KIND}=${gvk.kind}`,
    "(the Karta controller adds them when it admits a Karta); this definition does not carry them: stored as it is, KAI would group the pods with its DefaultGrouper (pg-<name>-<uid>, minMember 1)",
  ];
}

/**
 * The notice for a root object that has an owner: KAI picks the plugin by the pods' top owner (following
 * ownerReferences[0] up), so this object's Karta groups are not what KAI builds unless it is the top owner.
 * A skipped owner (SkipTopOwner: TrainJob, DGD...) hands the pods to the owner below it, this object,
 * whose plugin is looked up by its exact GVK only (never a Karta), else the DefaultGrouper.
 */
export function kaiOwnedNotice(gvk: GroupVersionKind, owner: { apiVersion: string; kind: string; name?: string }, shown: boolean): string[] {
  const ownerGvk = groupVersionKindOf(owner.apiVersion, owner.kind);
  const plugin = kaiPluginFor(ownerGvk);
  let decides: string;
  if (plugin?.skipTopOwner) {
    const mine = kaiPluginExact(gvk);
    decides = `KAI skips it (${plugin.plugin}) and groups the pods by this ${gvk.kind} with ${mine ? `its ${mine.plugin}` : "its DefaultGrouper (minMember 1: a skipped owner's next one is never grouped with a Karta)"}`;
  } else decides = `${plugin ? `its ${plugin.plugin}` : "a Karta stored for it (else KAI's DefaultGrouper)"} groups the pods`;
  return [
    `KAI Scheduler picks its plugin by the pods' top owner, and this ${kindText(gvk)} is owned by ${kindText(ownerGvk)}${owner.name ? ` ${owner.name}` : ""}:`,
    `if that is the top owner, ${decides}${shown ? "; the groups below are this Karta's, which KAI builds only for a top owner of a kind without a plugin" : ""}`,
  ];
}

type StoredKarta = {
  metadata?: { name?: unknown; labels?: unknown; deletionTimestamp?: unknown };
  spec?: { structureDefinition?: { rootComponent?: { name?: unknown; kind?: unknown }; childComponents?: unknown }; optimizationInstructions?: unknown };
};

/**
 * The names of the Kartas stored in a cluster that KAI's Karta fallback would take for `gvk`
 * (plugins/karta/hub.go `getKartaForGvk`): labelled for the kind, with it as their root kind, not being
 * deleted, not empty, with gang instructions. It takes one only when it finds exactly one; its Go validator
 * (which also skips a Karta) is not run here. Whether a Karta is Ready does not matter to it.
 */
export function kaiFallbackKartas(stored: readonly unknown[], gvk: GroupVersionKind): string[] {
  return stored.flatMap((item) => {
    const k = (typeof item === "object" && item !== null ? item : {}) as StoredKarta;
    const labels = k.metadata?.labels;
    const root = k.spec?.structureDefinition?.rootComponent;
    const children = k.spec?.structureDefinition?.childComponents;
    const taken =
      typeof labels === "object" && labels !== null && hasKaiKartaLabels(labels as Record<string, string>, gvk) &&
      sameGroupVersionKind(rootGroupVersionKind(k as KartaLike), gvk) &&
      k.metadata?.deletionTimestamp == null &&
      !((root?.name ?? "") === "" && !(Array.isArray(children) && children.length > 0)) &&
      typeof k.spec === "object" && hasGangInstructions(k as unknown as Karta);
    return taken ? [typeof k.metadata?.name === "string" ? k.metadata.name : ""] : [];
  });
}

/** The Karta has gang instructions as KAI's Karta fallback tells them (plugins/karta/hub.go `hasGangSchedulingInstructions`). */
export function hasGangInstructions(karta: Karta): boolean {
  const g = karta.spec.optimizationInstructions?.gangScheduling;
  return g !== undefined && (g.podGroup !== undefined || (g.podGroups?.length ?? 0) > 0);
}

/**
 * KAI's plugin for an interpretation's root kind, with the Karta it was made with: the summary `inspect -o json`
 * prints, and the notice `inspect`'s tree and the playground print beside the groups.
 */
export function kaiGroupsNotice(r: Pick<Interpretation, "root" | "groups" | "gangPlan">, karta: Karta, object?: unknown, cluster?: { storedKartas: readonly string[] }): { summary: KaiPluginSummary; notice: string[] } {
  const gvk = groupVersionKindOf(r.root.apiVersion, r.root.kind);
  let summary = kaiPluginSummary(gvk, karta.metadata?.labels);
  // KAI follows the first ownerReference, whatever its controller field says.
  const owner = (object as { metadata?: { ownerReferences?: unknown } } | undefined)?.metadata?.ownerReferences;
  const first = Array.isArray(owner) ? (owner[0] as { apiVersion?: unknown; kind?: unknown; name?: unknown } | undefined) : undefined;
  const shown = r.groups.length > 0 || r.gangPlan.length > 0;
  if (first && typeof first.apiVersion === "string" && typeof first.kind === "string") {
    const ownedBy = { apiVersion: first.apiVersion, kind: first.kind, ...(typeof first.name === "string" ? { name: first.name } : {}) };
    return { summary: { ...summary, ownedBy }, notice: kaiOwnedNotice(gvk, ownedBy, shown) };
  }
  if (!summary.native && cluster) {
    const found = cluster.storedKartas;
    summary = { ...summary, storedInCluster: found.length === 1, ...(found.length > 1 ? { storedKartas: [...found] } : {}) };
    // What KAI reads is the cluster's Karta, not this file: with none stored, or several, its fallback takes none.
    if (found.length !== 1 && hasGangInstructions(karta)) {
      const why =
        found.length === 0
          ? `no Karta for ${kindText(gvk)} with gang instructions and the ${LABEL_GROUP}/-version/-kind labels is stored in this cluster: KAI Scheduler's Karta fallback finds none and groups the pods`
          : `${found.length} Kartas for ${kindText(gvk)} with gang instructions are stored in this cluster (${found.join(", ")}): KAI Scheduler's Karta fallback takes none of them ("found multiple Kartas with gang scheduling instructions") and groups the pods`;
      return { summary, notice: [why, `with its DefaultGrouper (pg-<name>-<uid>, minMember 1: no gang)${shown ? `; below is what it would build from this definition ${found.length === 0 ? "once stored" : "stored alone"}` : ""}`] };
    }
  }
  return { summary, notice: kaiPluginNotice(summary, gvk, { gang: hasGangInstructions(karta), shown }) };
}
