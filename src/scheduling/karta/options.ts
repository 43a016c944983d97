/**
 * The user's scheduling intent given beside a workload (the `karta compile` options): the policy, the
 * disruption mode, a priority class and a topology key. Custom resources carry no `spec.scheduling`
 * block, so these stand in for the user's building blocks; they are checked here, before compiling,
 * so that each error names the option rather than a template.
 */
import { forbidden, invalid, notSupported, type FieldError } from "../fielderrors.js";
import { isDNS1123Subdomain, isLabelKey } from "../../names/index.js";
import type {
  WorkloadCompositePodGroupDisruptionMode,
  WorkloadCompositePodGroupSchedulingPolicy,
  WorkloadPodGroupDisruptionMode,
  WorkloadPodGroupSchedulingPolicy,
} from "../types.js";
import { issueFromFieldError, type CompileIssue } from "./issues.js";

/** The scheduling intent for every group of the workload. */
export interface SchedulingIntent {
  /** `gang` (the default for a Karta: its gang instructions are the point) or `basic`. */
  policy?: "gang" | "basic";
  /** Disruption mode of every group; absent leaves the API default (`single`). */
  disruptionMode?: "single" | "all";
  /** Priority class of every group; absent takes the pod templates' when they agree. */
  priorityClassName?: string;
  /** Node label key every pod of a top-level group must share (overrides the definition's topology there). */
  topologyKey?: string;
  /**
   * How a gang with subgroups is emitted: `composite` (the default) a CompositePodGroup over a PodGroup
   * per subgroup; `flat` one PodGroup for all its pods, for a cluster whose API server does not serve
   * CompositePodGroup or whose scheduler lacks the CompositePodGroup gate (and so binds subgroups alone).
   */
  groupShape?: "composite" | "flat";
}

/** Option names, for error paths. */
export const INTENT_OPTIONS = {
  policy: "--policy",
  disruptionMode: "--disruption",
  priorityClassName: "--priority-class",
  topologyKey: "--topology-key",
  groupShape: "--group-shape",
} as const;

/** Problems of the intent itself, each at its option (`--policy`, `--disruption`...). */
export function validateSchedulingIntent(intent: SchedulingIntent): CompileIssue[] {
  const errs: FieldError[] = [];
  if (intent.policy !== undefined && intent.policy !== "gang" && intent.policy !== "basic") {
    errs.push(notSupported(INTENT_OPTIONS.policy, intent.policy, ["gang", "basic"]));
  }
  if (intent.disruptionMode !== undefined && intent.disruptionMode !== "single" && intent.disruptionMode !== "all") {
    errs.push(notSupported(INTENT_OPTIONS.disruptionMode, intent.disruptionMode, ["single", "all"]));
  }
  // A group scheduled pod by pod has no group-level unit to disrupt (the builder's own rule, said at the option).
  if (intent.policy === "basic" && intent.disruptionMode === "all") {
    errs.push(invalid(INTENT_OPTIONS.disruptionMode, "all", "the disruptionMode `all` is not supported with the Basic scheduling policy"));
  }
  if (intent.priorityClassName !== undefined) {
    if (intent.priorityClassName === "") errs.push(forbidden(INTENT_OPTIONS.priorityClassName, "must not be empty"));
    else for (const m of isDNS1123Subdomain(intent.priorityClassName)) errs.push(invalid(INTENT_OPTIONS.priorityClassName, intent.priorityClassName, m));
  }
  if (intent.groupShape !== undefined && intent.groupShape !== "composite" && intent.groupShape !== "flat") {
    errs.push(notSupported(INTENT_OPTIONS.groupShape, intent.groupShape, ["composite", "flat"]));
  }
  if (intent.topologyKey !== undefined) {
    for (const m of isLabelKey(intent.topologyKey)) errs.push(invalid(INTENT_OPTIONS.topologyKey, intent.topologyKey, `a node label key ${m}`));
  }
  return errs.map((e) => issueFromFieldError("option", e));
}

/** The policy block of a leaf group the intent stands for (none: the definition's default applies). */
export function leafPolicyBlock(intent: SchedulingIntent): WorkloadPodGroupSchedulingPolicy | undefined {
  if (intent.policy === "basic") return { basic: {} };
  if (intent.policy === "gang") return { gang: {} };
  return undefined;
}

/** The policy block of a composite group the intent stands for. */
export function compositePolicyBlock(intent: SchedulingIntent): WorkloadCompositePodGroupSchedulingPolicy | undefined {
  if (intent.policy === "basic") return { basic: {} };
  if (intent.policy === "gang") return { gang: {} };
  return undefined;
}

/** The disruption mode block the intent stands for (leaf and composite blocks share the shape). */
export function disruptionBlock(intent: SchedulingIntent): (WorkloadPodGroupDisruptionMode & WorkloadCompositePodGroupDisruptionMode) | undefined {
  if (intent.disruptionMode === "all") return { all: {} };
  if (intent.disruptionMode === "single") return { single: {} };
  return undefined;
}
