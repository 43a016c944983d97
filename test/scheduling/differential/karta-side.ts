/**
 * The same cases run through Karta (src/scheduling), answered in the shape the Go oracle answers in.
 */
import {
  compileJob,
  defaultMinCountFromParallelism,
  fromExistingWorkload,
  generatePodGroupName,
  generateWorkloadName,
  newBuilder,
  podGroupTemplateName,
  resolveSchedulingConfig,
  validateJobScheduling,
  validateJobSchedulingDeclaratively,
  validateJobSchedulingRules,
  type BuildOptions,
  type FieldError,
  type Job,
  type SchedulingConfig,
  type SchedulingConfigFunc,
  type WorkloadBuilder,
  type WorkloadItem,
} from "../../../src/scheduling/index.js";
import { fieldErrorToString } from "../../../src/scheduling/index.js";
import type { CallbackJSON, Case, ErrorJSON, ItemJSON, OptionsJSON, StepResult } from "./cases.js";

/** Karta's error kinds by Go's `field.ErrorType` constant. */
const GO_TYPE: Record<FieldError["type"], string> = {
  NotFound: "FieldValueNotFound",
  Required: "FieldValueRequired",
  Duplicate: "FieldValueDuplicate",
  Invalid: "FieldValueInvalid",
  NotSupported: "FieldValueNotSupported",
  Forbidden: "FieldValueForbidden",
  TooLong: "FieldValueTooLong",
  TooMany: "FieldValueTooMany",
  Internal: "InternalError",
  TypeInvalid: "FieldValueTypeInvalid",
};

export function errorsJSON(errs: readonly FieldError[]): ErrorJSON[] {
  return errs.map((e) => ({
    type: GO_TYPE[e.type] ?? e.type,
    field: e.field,
    detail: e.detail,
    ...(e.origin ? { origin: e.origin } : {}),
    error: fieldErrorToString(e),
    ...("value" in e ? { badValue: e.value } : {}),
  }));
}

function callback(c: CallbackJSON | null, marks: string[]): SchedulingConfigFunc {
  if (c === null) return null as unknown as SchedulingConfigFunc;
  if (c.defaultGangMinCount !== undefined) {
    const n = c.defaultGangMinCount;
    return (cfg) => {
      const gang = cfg.policy?.gang;
      if (gang !== undefined && gang.minCount === undefined) gang.minCount = n;
    };
  }
  if (c.multiplyMinCount !== undefined) {
    const n = c.multiplyMinCount;
    return (cfg) => {
      const gang = cfg.policy?.gang;
      // int32 arithmetic, as Go's *= on an int32.
      if (gang !== undefined && gang.minCount !== undefined) gang.minCount = Math.imul(gang.minCount, n);
    };
  }
  if (c.job) return defaultMinCountFromParallelism(c.jobParallelism);
  if (c.mark !== undefined) {
    const id = c.mark;
    return () => void marks.push(id);
  }
  if (c.setPriorityClassName !== undefined) {
    const v = c.setPriorityClassName;
    return (cfg) => void (cfg.priorityClassName = v);
  }
  if (c.setDisruptionMode !== undefined) {
    const v = c.setDisruptionMode;
    return (cfg) => {
      if (v === "none") delete cfg.disruptionMode;
      else cfg.disruptionMode = v === "all" ? { all: {} } : { single: {} };
    };
  }
  if (c.setPolicy !== undefined) {
    const v = c.setPolicy;
    return (cfg) => {
      if (v === "none") delete cfg.policy;
      else cfg.policy = v === "basic" ? { basic: {} } : v === "gang" ? { gang: {} } : { basic: {}, gang: {} };
    };
  }
  if (c.setMinCount !== undefined) {
    const n = c.setMinCount;
    return (cfg) => {
      if (cfg.policy?.gang !== undefined) cfg.policy.gang.minCount = n;
    };
  }
  throw new Error(`unknown callback ${JSON.stringify(c)}`);
}

/** The Karta WorkloadItem for an item as data (a fresh deep copy: calls cannot reach the case). */
export function toItem(j: ItemJSON | null | undefined, marks: string[]): WorkloadItem | undefined {
  if (j === null || j === undefined) return j as undefined;
  const item: WorkloadItem = { name: j.name };
  if (j.path !== undefined) item.path = j.path;
  if (j.defaultConfig !== undefined) item.defaultConfig = structuredClone(j.defaultConfig) as SchedulingConfig;
  if (j.input !== undefined) item.input = structuredClone(j.input);
  if (j.callbacks !== undefined) item.callbacks = j.callbacks.map((c) => callback(c, marks));
  if (j.children !== undefined) item.children = j.children.map((c) => toItem(c, marks) as WorkloadItem);
  return item;
}

function toOptions(o: OptionsJSON): BuildOptions {
  const opts: BuildOptions = {};
  if (o.name !== undefined) opts.name = o.name;
  if (o.namespace !== undefined) opts.namespace = o.namespace;
  if (o.owner !== undefined && o.owner !== null) opts.owner = structuredClone(o.owner);
  opts.allowedPolicies = o.allowedPolicies ?? [];
  opts.allowedDisruptionModes = o.allowedDisruptionModes ?? [];
  if (o.disableDeclarativeValidation) opts.disableDeclarativeValidation = true;
  return opts;
}

/** The caller's blocks after the calls, as the oracle prints them. */
function inputsOf(item: WorkloadItem | undefined): unknown {
  if (item === undefined || item === null) return null;
  const i = item.input ?? {};
  return {
    name: item.name,
    input: {
      policy: { podGroupData: i.policy?.podGroupData, compositePodGroupData: i.policy?.compositePodGroupData },
      constraints: { podGroupData: i.constraints?.podGroupData, compositePodGroupData: i.constraints?.compositePodGroupData },
      disruptionMode: { podGroupData: i.disruptionMode?.podGroupData, compositePodGroupData: i.disruptionMode?.compositePodGroupData },
      resourceClaims: { podGroupData: i.resourceClaims?.podGroupData },
    },
    defaultConfig: item.defaultConfig,
    children: (item.children ?? []).map(inputsOf),
  };
}

function runBuilder(c: Extract<Case, { op: "builder" }>): unknown {
  const marks: string[] = [];
  const root = toItem(c.root, marks);
  const options = toOptions(c.options);
  const b: WorkloadBuilder = c.existing !== undefined ? fromExistingWorkload(structuredClone(c.existing), options) : newBuilder(root as WorkloadItem, options);
  const built: unknown[] = [];
  const steps: StepResult[] = [];
  for (const s of c.steps) {
    const r: StepResult = {};
    if (s.do === "validate") {
      const oldRoot = toItem(s.oldRoot, marks);
      r.errors = errorsJSON(b.validate(oldRoot === undefined || oldRoot === null ? {} : { oldRoot }));
    } else if (s.do === "build") {
      const w = b.buildWorkload();
      if (w.ok) {
        r.object = w.value;
        r.same = built.includes(w.value);
        built.push(w.value);
      } else r.error = w.error;
    } else {
      const g = s.do === "newPodGroup" ? b.newPodGroup(s.name, s.template) : b.newCompositePodGroup(s.name, s.template);
      if (g.ok) r.object = g.value;
      else r.error = g.error;
    }
    steps.push(structuredClone(r));
  }
  return { steps, marks, inputsAfter: inputsOf(root) };
}

/** Karta's answer to a case, in the oracle's shape; a thrown error is an answer too. */
export function kartaAnswer(c: Case): { result?: unknown; panic?: string } {
  try {
    switch (c.op) {
      case "builder":
        return { result: runBuilder(c) };
      case "resolve": {
        const marks: string[] = [];
        return { result: { config: resolveSchedulingConfig(toItem(c.item, marks)!), marks } };
      }
      case "names":
        return {
          result: c.names.map((n) => {
            const name =
              n.kind === "workload" ? generateWorkloadName(n.jobName, n.jobUID) : n.kind === "podGroup" ? generatePodGroupName(n.workloadName, n.templateName) : podGroupTemplateName(n.jobName);
            return { name };
          }),
        };
      case "jobCompile": {
        const r = compileJob(structuredClone(c.job) as unknown as Job, { workloadUID: c.workloadUID, ...(c.parentWorkload ? { parentWorkload: structuredClone(c.parentWorkload) } : {}) });
        if (!r.ok) return { result: { error: r.error } };
        const workloads = r.value.workload === undefined ? [] : [r.value.workload];
        return { result: { workloads, podGroups: [r.value.podGroup], podSchedulingGroup: r.value.schedulingGroup.podGroupName } };
      }
      case "jobValidate": {
        const job = () => structuredClone(c.job) as unknown as Job;
        const old = () => (c.oldJob === undefined ? undefined : (structuredClone(c.oldJob) as unknown as Job));
        return {
          result: {
            errors: errorsJSON(validateJobScheduling(job(), old())),
            handwritten: errorsJSON(validateJobSchedulingRules(job(), old())),
            declarative: errorsJSON(validateJobSchedulingDeclaratively(job(), old())),
          },
        };
      }
    }
  } catch (err) {
    return { panic: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
}
