/** What compiling one workload instance into the Workload API gives: the objects, or why they are missing. */
import type { CompositePodGroup, PodGroup, Workload } from "../types.js";
import type { CompileIssue } from "./issues.js";
import type { PodSchedulingPatch } from "./pod-patch.js";

/** The objects for one workload instance, or the problems that kept them from being made. */
export interface WorkloadCompilation {
  /** No error among the issues; the objects are complete and pass validation. */
  ok: boolean;
  workload?: Workload;
  /** Parents before children. */
  compositePodGroups: CompositePodGroup[];
  podGroups: PodGroup[];
  podPatches: PodSchedulingPatch[];
  /** Errors, warnings and notices, each with the field path of its input. */
  issues: CompileIssue[];
}

/** A compilation's objects in the order they are created: the Workload, its CompositePodGroups (parents first), its PodGroups. */
export function compiledObjects(result: Pick<WorkloadCompilation, "workload" | "compositePodGroups" | "podGroups">): (Workload | CompositePodGroup | PodGroup)[] {
  return [...(result.workload ? [result.workload] : []), ...result.compositePodGroups, ...result.podGroups];
}
