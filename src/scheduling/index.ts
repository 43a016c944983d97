/**
 * Public API of the scheduling area: the Workload API types, field errors, the workload builder
 * and its validation, deterministic naming, validation of the emitted objects, and the Job
 * integration.
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
  collectTemplates,
  BasicPolicy,
  GangPolicy,
  SingleMode,
  AllMode,
  type BuildOptions,
  type BuildResult,
  type ValidationInput,
  type GroupPlacement,
  type GroupHierarchy,
  type SchedulingPolicyOption,
  type DisruptionModeOption,
} from "./builder.js";
export { fnv32a, safeEncodeString, generateWorkloadName, generatePodGroupName, podGroupTemplateName } from "./naming.js";
export { validateWorkload, validatePodGroup, validateCompositePodGroup } from "./validation.js";
export {
  compileJob,
  validateJobScheduling,
  jobWorkloadItem,
  jobWorkloadInput,
  jobControllerRef,
  defaultMinCountFromParallelism,
  JOB_SCHEDULING_PATH,
  type JobWorkloadObjects,
  type CompileJobOptions,
} from "./job.js";
export * from "./karta.js";
