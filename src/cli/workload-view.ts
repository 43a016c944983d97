/**
 * A live workload as `karta get` and `karta describe` show it (pure): its interpretation and pods folded
 * into the workload tree upstream's `kli describe` draws — root, components, instances (and replicas),
 * pods, nodes — each with its status: the workload's generic status, `ready/desired` pods of a component
 * or instance, a pod's phase (and why it is not ready), and GPUs (desired for the spec's scale, a pod's
 * own request for a pod). The machine formats print these values as they are.
 */
import type { ComponentInstance, ComponentView, Interpretation, PodClassification } from "../interpret/types.js";
import { workloadPods } from "../interpret/pods.js";
import { formatDiagnostic, sortDiagnostics } from "../definition/diagnostic.js";
import { podRequirements } from "../resources/index.js";
import { formatResourceList, multiplyResourceList, mustParseQuantity, parseResourceList, type Quantity, type ResourceListJSON } from "../quantity/index.js";

/** A workload kind: group, version, kind. */
export interface TypeRef {
  group: string;
  version: string;
  kind: string;
}

/** One pod of the workload. */
export interface PodView {
  name: string;
  phase: string;
  ready: boolean;
  /** The node it runs on; null before it is scheduled. */
  node: string | null;
  /** Why a pod that is not ready is not (the scheduler's reason first). */
  reason?: string;
  /** GPUs its containers request. */
  gpus: number;
}

/** A node of the tree below the root: a component, an instance, a replica, or the pods no component claims. */
export interface TreeNode {
  name: string;
  kind?: string;
  /** Desired pods (the spec's scale); absent where the spec does not say (replica groups, unmatched pods). */
  desired?: number;
  /** Pods that exist, and of them those ready. */
  current: number;
  ready: number;
  /** Desired GPUs (its pods' requests at the desired scale, with its children's); for a group without a scale, its pods' requests. */
  gpus: number;
  nodes: string[];
  pods: PodView[];
  children: TreeNode[];
}

/** A workload as `karta get` lists it. */
export interface WorkloadView {
  name: string;
  namespace: string;
  uid: string;
  type: TypeRef;
  /** The Karta (definition) that describes the kind, and where it comes from (`cluster` or `catalog`). */
  karta: string;
  origin: "cluster" | "catalog" | "file";
  /** The generic statuses that match (several can). */
  phases: string[];
  createdAt?: string;
  /** The components that run pods. */
  components: string[];
  pods: { ready: number; total: number };
  /** Pods the spec asks for. */
  desiredPods: number;
  /** GPUs the spec asks for (per-pod requests × desired replicas, summed). */
  gpus: number;
  nodes: string[];
}

/** One row of the resources table: what a component asks for at its desired scale. */
export interface ResourceRow {
  component: string;
  replicas: number;
  gpus: number;
  cpu: string;
  memory: string;
}

/** A workload as `karta describe` shows it. */
export interface DescribeView extends WorkloadView {
  /** The root's own pods (a root that defines pods) and the components below it. */
  tree: TreeNode;
  resources: { rows: ResourceRow[]; total: ResourceRow };
  /**
   * What the interpretation reported (a selector that failed, an instance id not in the spec, a negative
   * replica count...), each as `karta inspect` lists it under Problems: severity, path, message.
   */
  problems: string[];
}

/** Resource names counted as GPUs: `nvidia.com/gpu` and other vendors' `<domain>/gpu`. */
export function isGpuResource(name: string): boolean {
  return name.endsWith("/gpu");
}

/** GPUs in a resource list (extended resources are whole numbers). */
export function gpusOf(list: ResourceListJSON | undefined): number {
  let n = 0;
  for (const [k, v] of Object.entries(list ?? {})) if (isGpuResource(k)) n += Number(mustParseQuantity(v).value());
  return n;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/** A pod's readiness, node, reason and GPU request, as the tree shows it. */
export function podView(pod: unknown): PodView {
  const p = obj(pod);
  const meta = obj(p.metadata);
  const spec = obj(p.spec);
  const status = obj(p.status);
  const conditions = Array.isArray(status.conditions) ? status.conditions.map(obj) : [];
  const ready = conditions.some((c) => c.type === "Ready" && c.status === "True");
  const view: PodView = {
    name: String(meta.name ?? ""),
    phase: typeof status.phase === "string" && status.phase !== "" ? status.phase : "Unknown",
    ready,
    node: typeof spec.nodeName === "string" && spec.nodeName !== "" ? spec.nodeName : null,
    gpus: gpusOf(podRequirements(spec).value),
  };
  if (!ready) {
    // The scheduler's reason is the short one a row has room for; then the pod's; then the Ready condition's.
    const unscheduled = conditions.find((c) => c.type === "PodScheduled" && c.status === "False");
    const why = unscheduled?.reason ?? status.reason ?? conditions.find((c) => c.type === "Ready" && c.status === "False")?.reason;
    if (typeof why === "string" && why !== "") view.reason = why;
  }
  return view;
}

const byName = <T extends { name: string }>(a: T, b: T): number => a.name.localeCompare(b.name, "en", { numeric: true });

/** Merges node names, sorted and unique. */
function mergeNodes(...lists: (readonly string[])[]): string[] {
  return [...new Set(lists.flat())].sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
}

/** Counts a node's pods with its children's (already counted), and collects their nodes. */
function finish(node: TreeNode): TreeNode {
  node.pods.sort(byName);
  node.current = node.pods.length + node.children.reduce((n, c) => n + c.current, 0);
  node.ready = node.pods.filter((p) => p.ready).length + node.children.reduce((n, c) => n + c.ready, 0);
  node.nodes = mergeNodes(
    node.pods.flatMap((p) => (p.node ? [p.node] : [])),
    ...node.children.map((c) => c.nodes),
  );
  return node;
}

const blank = (name: string, extra: Partial<TreeNode> = {}): TreeNode => ({ name, current: 0, ready: 0, gpus: 0, nodes: [], pods: [], children: [], ...extra });

/**
 * Puts pods on a component or instance node: as they are, or, when they carry replica keys (a
 * replicaSelector on the component or an ancestor), in `name[key]` nodes with their own GPUs.
 */
function placePods(node: TreeNode, pods: { view: PodView; c: PodClassification }[]): void {
  const groups = new Map<string, PodView[]>();
  for (const p of pods) {
    if (p.c.replica === undefined) node.pods.push(p.view);
    else groups.set(p.c.replica, [...(groups.get(p.c.replica) ?? []), p.view]);
  }
  const replicas = [...groups].map(([key, list]) => finish(blank(`${node.name}[${key}]`, { pods: list, gpus: list.reduce((n, p) => n + p.gpus, 0) })));
  node.children.push(...replicas.sort(byName));
}

/** A component without pods, desired pods, GPUs or children: plumbing the workload never populated (a Deployment's ReplicaSets). */
function empty(n: TreeNode): boolean {
  return n.current === 0 && (n.desired ?? 0) === 0 && n.gpus === 0 && n.children.length === 0;
}

export interface ViewInput {
  type: TypeRef;
  karta: string;
  origin: "cluster" | "catalog" | "file";
  /** The root object (its metadata). */
  object: unknown;
  interpretation: Interpretation;
  /** The pods given to the interpretation, in the same order (a workload that is a pod is counted with them as the interpretation counts it). */
  pods: readonly unknown[];
}

/** The describe view: tree, resources and problems, and the list row's values. */
export function describeView(input: ViewInput): DescribeView {
  const r = input.interpretation;
  const meta = obj(obj(input.object).metadata);
  // A workload that is a pod is its own pod, as the interpretation counted it.
  const views = workloadPods(input.type, input.object, input.pods).map(podView);
  const classified = r.pods.map((c) => ({ c, view: views[c.index]! }));
  const components = new Map(r.components.map((c) => [c.name, c]));

  // A component's pods repeat for every replica of its ancestors (a LeaderWorkerSet's groups, a
  // PodCliqueSet's replicas), as KAI's subtree scale multiplies them: an ancestor with one instance and
  // a replica count multiplies what its descendants ask for.
  const factor = (c: ComponentView): number => {
    let f = 1;
    for (let a = c.parent !== undefined ? components.get(c.parent) : undefined, n = 0; a && n < 100; a = a.parent !== undefined ? components.get(a.parent) : undefined, n++) {
      const only = a.instances.length === 1 ? a.instances[0]!.scale?.replicas : undefined;
      if (only !== undefined && only >= 0) f *= only;
    }
    return f;
  };
  const desiredOf = (c: ComponentView, inst: ComponentInstance): number => (inst.podTemplate ? (inst.countedReplicas ?? 0) * factor(c) : 0);
  const gpusAt = (c: ComponentView, list: ResourceListJSON | undefined): number => gpusOf(list) * factor(c);
  const counted = (c: ComponentView): number | undefined => (c.instances.some((i) => i.podTemplate !== undefined) ? c.instances.reduce((n, i) => n + desiredOf(c, i), 0) : undefined);
  const build = (name: string, seen: Set<string>): TreeNode | undefined => {
    const c = components.get(name);
    if (!c || seen.has(name)) return undefined;
    seen.add(name);
    const pods = classified.filter((p) => p.c.component === name);
    const node = blank(name, { ...(c.kind ? { kind: c.kind.kind } : {}), gpus: gpusAt(c, c.totalRequests) });
    const desired = counted(c);
    if (desired !== undefined) node.desired = desired;
    if (c.instances.some((i) => i.id !== "")) {
      for (const inst of c.instances) {
        const child = blank(inst.id, { gpus: gpusAt(c, inst.totalRequests), ...(inst.podTemplate ? { desired: desiredOf(c, inst) } : {}) });
        placePods(child, pods.filter((p) => p.c.instance === inst.id && p.c.reason === undefined));
        node.children.push(finish(child));
      }
      // A pod whose instance could not be told (its reason says why) stays on the component.
      placePods(node, pods.filter((p) => !(p.c.reason === undefined && c.instances.some((i) => i.id === p.c.instance))));
    } else placePods(node, pods);
    for (const b of c.children.map((k) => build(k, seen))) {
      if (!b || empty(b)) continue;
      node.children.push(b);
      node.gpus += b.gpus;
      if (b.desired !== undefined) node.desired = (node.desired ?? 0) + b.desired;
    }
    return finish(node);
  };

  const rootComponent = r.components.find((c) => c.parent === undefined || !components.has(c.parent));
  const tree: TreeNode = (rootComponent && build(rootComponent.name, new Set())) || blank("");
  tree.name = String(meta.name ?? "");
  const unmatched = classified.filter((p) => p.c.component === undefined);
  if (unmatched.length > 0) {
    tree.children.push(finish(blank("(no component)", { pods: unmatched.map((p) => p.view), gpus: unmatched.reduce((n, p) => n + p.view.gpus, 0) })));
    finish(tree);
  }

  const rows: ResourceRow[] = [];
  for (const c of r.components) {
    const replicas = counted(c);
    if (replicas !== undefined) rows.push(resourceRow(c.name, replicas, c.totalRequests, factor(c)));
  }
  const sum = (pick: (x: ResourceRow) => Quantity): string => rows.reduce((q, x) => q.add(pick(x)), mustParseQuantity("0")).toString();
  const total: ResourceRow = {
    component: "TOTAL",
    replicas: rows.reduce((n, x) => n + x.replicas, 0),
    gpus: rows.reduce((n, x) => n + x.gpus, 0),
    cpu: sum((x) => mustParseQuantity(x.cpu)),
    memory: sum((x) => mustParseQuantity(x.memory)),
  };
  const list = listView(input, r, tree, total);
  return {
    ...list,
    tree,
    resources: { rows, total },
    problems: sortDiagnostics(r.diagnostics).map(formatDiagnostic),
  };
}

/** What a component asks for at its desired scale (its instances' totals, times its ancestors' replicas). */
function resourceRow(component: string, replicas: number, list: ResourceListJSON | undefined, factor: number): ResourceRow {
  const at = factor === 1 ? (list ?? {}) : formatResourceList(multiplyResourceList(parseResourceList(list ?? {}).list, factor));
  return { component, replicas, gpus: gpusOf(at), cpu: at.cpu ?? "0", memory: at.memory ?? "0" };
}

function listView(input: ViewInput, r: Interpretation, tree: TreeNode, total: ResourceRow): WorkloadView {
  const meta = obj(obj(input.object).metadata);
  const v: WorkloadView = {
    name: String(meta.name ?? ""),
    namespace: String(meta.namespace ?? ""),
    uid: String(meta.uid ?? ""),
    type: input.type,
    karta: input.karta,
    origin: input.origin,
    phases: [...r.status.statuses],
    components: r.components.filter((c) => c.instances.some((i) => i.podTemplate !== undefined)).map((c) => c.name),
    pods: { ready: tree.ready, total: tree.current },
    desiredPods: total.replicas,
    gpus: total.gpus,
    nodes: tree.nodes,
  };
  if (typeof meta.creationTimestamp === "string") v.createdAt = meta.creationTimestamp;
  return v;
}

/** The list row of a workload (the describe view without its tree). */
export function workloadView(input: ViewInput): WorkloadView {
  const { tree: _tree, resources: _resources, problems: _problems, ...row } = describeView(input);
  return row;
}
