/**
 * Interpretation: what a Karta sees in a live workload. Objects in, a result value out: components and
 * instances, normalised pod templates, scale, Karmada requirements, generic status, pod → component,
 * KAI gang groups, and JSON patches for suspend/resume and pod fields.
 */
export { compileInterpreter, interpret, apiVersionOf } from "./interpret.js";
export type { CompiledInterpreter, InterpretInputs } from "./interpret.js";
export { compileDefinition, subtreeOf } from "./compile.js";
export type { CompiledDefinition, CompiledComponent } from "./compile.js";
export { CompiledExpression } from "./expression.js";
export { evaluateWorkload, subtreeScale, workloadTotal } from "./workload.js";
export type { WorkloadView, EvaluatedComponent } from "./workload.js";
export { evaluateStatus } from "./status.js";
export { classifyPod, classifyPods, podRef, workloadPods, isPodKind } from "./pods.js";
export { gangGroups, gangPlan, dns1123Safe, dns1123SubdomainErrors, subGroupPlan, subGroupOfPod, type SubGroupPlan, type SubGroupPlanEntry } from "./groups.js";
export { suspendPatch, setPodFieldPatch, jsonPointer, locations, setOperation, actionValue } from "./patch.js";
export type { PodField, JsonLocation } from "./patch.js";
export { applyJsonPatch } from "../jsonpatch/index.js";
export type * from "./types.js";
