/**
 * Public API of the scheduling area: the Workload API types, field errors, the workload builder
 * (as the Go workloadbuilder), Karta's layers over it (groups of nested templates, the Workload API's
 * rules on a compiled tree), deterministic naming, validation of the emitted objects, and the Job
 * integration with the Job API's validation.
 */
export * from "./types.js";
export {
  fieldErrorToString,
  fieldErrorsToString,
  fieldErrorBody,
  type FieldError,
  type FieldErrorType,
} from "./fielderrors.js";
export type { SchedulingConfig, SchedulingConfigFunc, WorkloadInput, WorkloadItem, BlockInput } from "./config.js";
export { resolveSchedulingConfig } from "./config.js";
export {
  WorkloadBuilder,
  newBuilder,
  fromExistingWorkload,
  BasicPolicy,
  GangPolicy,
  SingleMode,
  AllMode,
  type BuildOptions,
  type BuildResult,
  type ValidationInput,
  type SchedulingPolicyOption,
  type DisruptionModeOption,
} from "./builder.js";
export { podGroupFromTemplate, compositePodGroupFromTemplate } from "./podgroup.js";
export {
  collectTemplates,
  groupHierarchy,
  podGroupAnywhere,
  compositePodGroupAnywhere,
  type GroupPlacement,
  type GroupHierarchy,
} from "./hierarchy.js";
export { validateWorkloadTree, type TreeValidationInput } from "./tree-validation.js";
export { fnv32a, safeEncodeString, generateWorkloadName, generatePodGroupName, podGroupTemplateName, cutBytes } from "./naming.js";
export { validateWorkload, validatePodGroup, validateCompositePodGroup } from "./validation.js";
export {
  compileJob,
  jobManagement,
  jobWorkloadItem,
  jobWorkloadInput,
  jobControllerRef,
  defaultMinCountFromParallelism,
  type JobWorkloadObjects,
  type JobManagement,
  type CompileJobOptions,
} from "./job.js";
export { validateJobScheduling, validateJobSchedulingRules, validateJobSchedulingDeclaratively, JOB_SCHEDULING_PATH } from "./job-validation.js";
export * from "./karta.js";
export {
  KAI_PLUGINS,
  kaiPluginFor,
  kaiPluginExact,
  kaiPluginSummary,
  kaiPluginNotice,
  kaiGroupsNotice,
  hasGangInstructions,
  hasKaiKartaLabels,
  kaiFallbackKartas,
  groupVersionKindOf,
  type KaiPluginEntry,
  type KaiPluginSummary,
} from "./kai-plugins.js";
