/**
 * The controller-facing description of a workload for the builder: a tree of
 * {@link WorkloadItem}s, each with the controller's defaults, the user's building blocks
 * (with the field path each lives at in the controller's API) and defaulting callbacks;
 * and the resolution of one item into a {@link SchedulingConfig} (defaults, overridden
 * block by block by the user's input, then the callbacks in order).
 */

import { goQuote } from "../gofmt/index.js";
import { childPath, type FieldPath } from "./fielderrors.js";
import type {
  Empty,
  PodGroupResourceClaim,
  TopologyConstraint,
  WorkloadCompositePodGroupDisruptionMode,
  WorkloadCompositePodGroupSchedulingConstraints,
  WorkloadCompositePodGroupSchedulingPolicy,
  WorkloadPodGroupDisruptionMode,
  WorkloadPodGroupResourceClaim,
  WorkloadPodGroupSchedulingConstraints,
  WorkloadPodGroupSchedulingPolicy,
} from "./types.js";

/**
 * A group's scheduling configuration independent of the leaf/composite split. For a composite
 * node `policy.gang.minCount` carries the composite `minGroupCount`.
 */
export interface SchedulingConfig {
  /** Absent resolves to basic when compiled. */
  policy?: { basic?: Empty; gang?: { minCount?: number } };
  /** Absent (or no topology) means no placement constraint. */
  constraints?: { topology?: TopologyConstraint[] };
  /** Absent leaves the API default (`single`). */
  disruptionMode?: { single?: Empty; all?: Empty };
  resourceClaims?: PodGroupResourceClaim[];
  /** Copied onto the compiled template, so groups inherit the priority. */
  priorityClassName?: string;
}

/** Adjusts the resolved configuration (e.g. defaults gang minCount from a Job's parallelism). */
export type SchedulingConfigFunc = (config: SchedulingConfig) => void;

/** One building block of the user's intent and where it lives (relative to the item's path). */
export interface BlockInput<Leaf, Composite> {
  /** The block as a leaf item's input. */
  podGroupData?: Leaf;
  /** The block as a composite item's input. */
  compositePodGroupData?: Composite;
  /** Path elements appended to the item's path to report errors at; none reports at the item path. */
  pathElements?: string[];
}

/** The user's building blocks for one item; every block is optional. */
export interface WorkloadInput {
  policy?: BlockInput<WorkloadPodGroupSchedulingPolicy, WorkloadCompositePodGroupSchedulingPolicy>;
  constraints?: BlockInput<WorkloadPodGroupSchedulingConstraints, WorkloadCompositePodGroupSchedulingConstraints>;
  disruptionMode?: BlockInput<WorkloadPodGroupDisruptionMode, WorkloadCompositePodGroupDisruptionMode>;
  /** Leaf only: there is no composite claims block. */
  resourceClaims?: { podGroupData?: WorkloadPodGroupResourceClaim[]; pathElements?: string[] };
}

/**
 * A node of the controller's logical workload. A node without children compiles to a
 * PodGroupTemplate, a node with children to a CompositePodGroupTemplate over them.
 * When passed as the old root of an update only `name`, `input` and `children` are read.
 */
export interface WorkloadItem {
  /** Template name; a DNS label, unique across the whole tree. */
  name: string;
  /**
   * Field path of this component in the controller's API (e.g. `spec.scheduling`); absent (or empty) is
   * Go's nil path: errors at it print `<nil>`, and a block's path elements stand alone.
   */
  path?: string;
  defaultConfig?: SchedulingConfig;
  input?: WorkloadInput;
  /** Run in order on the resolved configuration; a missing (null) callback is skipped, as Go skips a nil one. */
  callbacks?: (SchedulingConfigFunc | null | undefined)[];
  children?: WorkloadItem[];
}

/** Whether the item compiles to a CompositePodGroupTemplate. */
export function isComposite(item: WorkloadItem): boolean {
  return (item.children?.length ?? 0) > 0;
}

/** The item's own path ("" at the root of the controller object). */
export function itemPath(item: WorkloadItem): FieldPath {
  return childPath(item.path);
}

/**
 * The user's blocks of one level as a config (Go's `mapWorkloadInput` / `mapCompositeGroupInput`): a policy
 * is basic when `basic` is set, else gang when `gang` is, else none (an empty block falls back to the
 * default); a composite's `minGroupCount` is carried as `minCount`; constraints only with a topology; a
 * mode is single before all; claims (leaf only) only when there are some. Null is unset, as Go decodes it.
 */
function mapInput(input: WorkloadInput | undefined, level: "podGroupData" | "compositePodGroupData"): SchedulingConfig {
  const cfg: SchedulingConfig = {};
  const p = input?.policy?.[level] as { basic?: object | null; gang?: Record<string, number | null | undefined> | null } | undefined | null;
  const count = p?.gang?.[level === "podGroupData" ? "minCount" : "minGroupCount"];
  if (p?.basic != null) cfg.policy = { basic: {} };
  else if (p?.gang != null) cfg.policy = { gang: count == null ? {} : { minCount: count } };
  const c = input?.constraints?.[level];
  if (c?.topology != null && c.topology.length > 0) cfg.constraints = { topology: c.topology.map((t) => ({ key: t.key })) };
  const d = input?.disruptionMode?.[level];
  if (d?.single != null) cfg.disruptionMode = { single: {} };
  else if (d?.all != null) cfg.disruptionMode = { all: {} };
  const claims = level === "podGroupData" ? input?.resourceClaims?.podGroupData : undefined;
  if (claims != null && claims.length > 0) cfg.resourceClaims = claims.map(copyClaim);
  return cfg;
}

/** A claim with its name and whichever references are set (null is unset, as Go decodes it). */
export function copyClaim(c: WorkloadPodGroupResourceClaim): PodGroupResourceClaim {
  const out: PodGroupResourceClaim = { name: c.name ?? "" };
  if (c.resourceClaimName != null) out.resourceClaimName = c.resourceClaimName;
  if (c.resourceClaimTemplateName != null) out.resourceClaimTemplateName = c.resourceClaimTemplateName;
  return out;
}

/**
 * Resolve an item: deep copy of the defaults, each non-empty user block replacing the default
 * block (claims only when non-empty), then the callbacks in order. Inputs are copied, so callbacks
 * cannot reach back into the caller's objects.
 */
export function resolveSchedulingConfig(item: WorkloadItem): SchedulingConfig {
  const resolved: SchedulingConfig = item.defaultConfig === undefined ? {} : structuredClone(item.defaultConfig);
  const user = mapInput(item.input, isComposite(item) ? "compositePodGroupData" : "podGroupData");
  if (user.policy !== undefined) resolved.policy = user.policy;
  if (user.constraints !== undefined) resolved.constraints = user.constraints;
  if (user.disruptionMode !== undefined) resolved.disruptionMode = user.disruptionMode;
  if (user.resourceClaims !== undefined && user.resourceClaims.length > 0) resolved.resourceClaims = user.resourceClaims;
  for (const cb of item.callbacks ?? []) if (typeof cb === "function") cb(resolved);
  return resolved;
}

/**
 * The structural checks BuildWorkload and Validate share: no missing item, no empty name,
 * names unique across the tree, and no leaf block on a composite node (or the reverse).
 * Returns the first problem as upstream's error text, or undefined.
 */
export function checkWorkloadItemTree(root: WorkloadItem): string | undefined {
  const seen = new Set<string>();
  const visit = (item: WorkloadItem | null | undefined): string | undefined => {
    if (item === null || item === undefined) return "workload item cannot be nil";
    if (!item.name) return "workload item name cannot be empty";
    if (seen.has(item.name)) return `duplicate workload item name ${goQuote(item.name)}: template names must be unique across the Workload`;
    seen.add(item.name);
    const unionErr = checkItemInputUnion(item);
    if (unionErr !== undefined) return unionErr;
    for (const child of item.children ?? []) {
      const err = visit(child);
      if (err !== undefined) return err;
    }
    return undefined;
  };
  return visit(root);
}

function checkItemInputUnion(item: WorkloadItem): string | undefined {
  const i = item.input;
  const q = goQuote(item.name);
  if (isComposite(item)) {
    if (i?.policy?.podGroupData != null) return `composite workload item ${q} sets leaf building block: policy`;
    if (i?.constraints?.podGroupData != null) return `composite workload item ${q} sets leaf building block: constraints`;
    if (i?.disruptionMode?.podGroupData != null) return `composite workload item ${q} sets leaf building block: disruptionMode`;
    if ((i?.resourceClaims?.podGroupData?.length ?? 0) > 0) return `composite workload item ${q} sets leaf building block: resourceClaims`;
    return undefined;
  }
  if (i?.policy?.compositePodGroupData != null) return `leaf workload item ${q} sets composite building block: policy`;
  if (i?.constraints?.compositePodGroupData != null) return `leaf workload item ${q} sets composite building block: constraints`;
  if (i?.disruptionMode?.compositePodGroupData != null) return `leaf workload item ${q} sets composite building block: disruptionMode`;
  return undefined;
}
