/**
 * The Job API's validation of `spec.scheduling`, as the API server (k8s.io/kubernetes v1.37.2, feature
 * gate WorkloadWithJob) validates a Job on create and update: its errors under `spec.scheduling`. Two
 * layers, merged as the registry merges them (the handwritten errors, then the declarative ones):
 *
 * - {@link validateJobSchedulingRules}, the handwritten validation (pkg/apis/batch/validation): a gang
 *   `minCount` must not be greater than `parallelism` (1 when unset); the builder's controller checks on
 *   the Job's tree (the `all` disruption mode refused with the basic policy); and on update the
 *   basic/gang variant may not switch.
 * - {@link validateJobSchedulingDeclaratively}, the declarative validation of the batch/v1 types:
 *   `spec.scheduling` and its `schedulingPolicy` may be neither added nor removed by an update, the
 *   constraints, disruption mode and claims are immutable, at most four claims keyed by name, and each
 *   block's own validation ({@link validatePolicyBlock} and the rest), unchanged values not re-checked.
 */
import {
  CREATE,
  UPDATE,
  immutable,
  unchanged,
  updatePointer,
  validateConstraintsBlock,
  validateDisruptionModeBlock,
  validatePolicyBlock,
  validateResourceClaimList,
  type Operation,
} from "./blocks.js";
import { AllMode, BasicPolicy, GangPolicy, SingleMode, newBuilder } from "./builder.js";
import { childPath, invalid, type FieldError } from "./fielderrors.js";
import { jobItem, jobWorkloadInput } from "./job.js";
import type { Job, JobSchedulingConfiguration } from "./types.js";

/** Field path of the Job's scheduling configuration. */
export const JOB_SCHEDULING_PATH = "spec.scheduling";

function scheduling(job: Job | undefined): JobSchedulingConfiguration | undefined {
  return job?.spec?.scheduling ?? undefined;
}

/** The handwritten validation of `spec.scheduling` (its errors in the order the API server finds them). */
export function validateJobSchedulingRules(job: Job, oldJob?: Job): FieldError[] {
  const errs: FieldError[] = [];
  const s = scheduling(job);
  const gang = s?.schedulingPolicy?.gang ?? undefined;
  const parallelism = job.spec?.parallelism ?? 1;
  if (gang?.minCount != null && gang.minCount > parallelism) {
    errs.push(invalid(`${JOB_SCHEDULING_PATH}.schedulingPolicy.gang.minCount`, gang.minCount, `must not be greater than parallelism (${parallelism})`));
  }
  if (s !== undefined) {
    // The registry builds the same tree as the controller (named "job"), its blocks' own validation left to the declarative layer.
    const item = jobItem("job", job, JOB_SCHEDULING_PATH, jobWorkloadInput(s));
    const oldRoot = oldJob === undefined ? undefined : jobItem("job", oldJob, undefined, jobWorkloadInput(scheduling(oldJob)));
    const builder = newBuilder(item, {
      allowedPolicies: [BasicPolicy, GangPolicy],
      allowedDisruptionModes: [SingleMode, AllMode],
      disableDeclarativeValidation: true,
    });
    errs.push(...builder.validate(oldRoot === undefined ? {} : { oldRoot }));
  }
  const oldPolicy = scheduling(oldJob)?.schedulingPolicy ?? undefined;
  const policy = s?.schedulingPolicy ?? undefined;
  if (oldJob !== undefined && s !== undefined && scheduling(oldJob) !== undefined && policy !== undefined && oldPolicy !== undefined && (policy.basic != null) !== (oldPolicy.basic != null)) {
    errs.push(invalid(`${JOB_SCHEDULING_PATH}.schedulingPolicy`, null, "the basic/gang policy variant is immutable after creation; only schedulingPolicy.gang.minCount may be updated"));
  }
  return errs;
}

/** `Validate_JobSchedulingConfiguration`: each block as a field of the Job. */
function validateConfiguration(op: Operation, s: JobSchedulingConfiguration, old: JobSchedulingConfiguration | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const correlated = old !== undefined;
  const policyPath = childPath(JOB_SCHEDULING_PATH, "schedulingPolicy");
  const policy = s.schedulingPolicy ?? undefined;
  const oldPolicy = old?.schedulingPolicy ?? undefined;
  if (!unchanged(op, correlated, policy, oldPolicy)) {
    const set = updatePointer(op, policyPath, policy, oldPolicy);
    errs.push(...set);
    if (policy !== undefined && set.length === 0) errs.push(...validatePolicyBlock(op, policyPath, policy, oldPolicy, "minCount"));
  }
  for (const field of ["schedulingConstraints", "disruptionMode"] as const) {
    const value = s[field] ?? undefined;
    const oldValue = old?.[field] ?? undefined;
    if (unchanged(op, correlated, value, oldValue)) continue;
    const path = childPath(JOB_SCHEDULING_PATH, field);
    const frozen = immutable(op, path);
    errs.push(...frozen);
    if (frozen.length > 0 || value === undefined) continue;
    errs.push(...(field === "disruptionMode" ? validateDisruptionModeBlock(op, path, value, oldValue) : validateConstraintsBlock(op, path, value as never, oldValue as never)));
  }
  errs.push(...validateResourceClaimList(op, childPath(JOB_SCHEDULING_PATH, "resourceClaims"), s.resourceClaims, old?.resourceClaims, correlated));
  return errs;
}

/** The declarative validation of `spec.scheduling` (batch/v1 `Validate_JobSpec`, its `scheduling` field). */
export function validateJobSchedulingDeclaratively(job: Job, oldJob?: Job): FieldError[] {
  const op = oldJob === undefined ? CREATE : UPDATE;
  const s = scheduling(job);
  const old = scheduling(oldJob);
  if (unchanged(op, true, s, old)) return [];
  const set = updatePointer(op, JOB_SCHEDULING_PATH, s, old);
  if (s === undefined || set.length > 0) return set;
  return validateConfiguration(op, s, old);
}

/** The API server's errors under `spec.scheduling` for a Job (a create, or an update of `oldJob`). */
export function validateJobScheduling(job: Job, oldJob?: Job): FieldError[] {
  return [...validateJobSchedulingRules(job, oldJob), ...validateJobSchedulingDeclaratively(job, oldJob)];
}
