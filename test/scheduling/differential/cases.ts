/**
 * The differential's cases as data, in the JSON the Go oracle (tools/workloadbuilder) reads: a WorkloadItem
 * tree whose callbacks are named behaviours, builder options, and the calls made on the builder; a
 * config resolution; names; a Job to compile or validate. Each case may carry upstream's assertions
 * (ported from its unit tests as data), which must hold for Karta and for Go.
 */
import type { OwnerReference, SchedulingConfig, Workload, WorkloadInput } from "../../../src/scheduling/index.js";

/** A callback by what it does (exactly one member). */
export interface CallbackJSON {
  /** Upstream's test helper: an unset gang minCount becomes n. */
  defaultGangMinCount?: number;
  /** Multiplies a set gang minCount. */
  multiplyMinCount?: number;
  /** The Job's callback: an unset minCount becomes max(1, parallelism), parallelism 1 when absent. */
  job?: true;
  jobParallelism?: number;
  /** Records that it ran. */
  mark?: string;
  setPriorityClassName?: string;
  setDisruptionMode?: "single" | "all" | "none";
  setPolicy?: "basic" | "gang" | "both" | "none";
  setMinCount?: number;
}

/** A SchedulingConfig as data (it has no functions). */
export type ConfigJSON = SchedulingConfig;

/** A WorkloadItem as data; `null` stands for Go's nil item. */
export interface ItemJSON {
  name: string;
  /** The rendered field path; absent is Go's nil path. */
  path?: string;
  defaultConfig?: ConfigJSON;
  input?: WorkloadInput;
  callbacks?: (CallbackJSON | null)[];
  children?: (ItemJSON | null)[];
}

/** BuildOptions as data. */
export interface OptionsJSON {
  name?: string;
  namespace?: string;
  owner?: OwnerReference | null;
  allowedPolicies?: ("Basic" | "Gang")[];
  allowedDisruptionModes?: ("Single" | "All")[];
  disableDeclarativeValidation?: boolean;
}

/** One call on the builder. */
export type Step =
  | { do: "validate"; oldRoot?: ItemJSON | null }
  | { do: "build" }
  | { do: "newPodGroup" | "newCompositePodGroup"; name: string; template: string };

/** A name the Job controller computes. */
export type NameRequest =
  | { kind: "workload"; jobName: string; jobUID: string }
  | { kind: "podGroup"; workloadName: string; templateName: string }
  | { kind: "template"; jobName: string };

/** The function a case is counted under in the figures. */
export type CaseFunction =
  | "BuildWorkload"
  | "Validate"
  | "NewPodGroup"
  | "NewCompositePodGroup"
  | "FromExistingWorkload"
  | "resolveSchedulingConfig"
  | "naming"
  | "Job compilation"
  | "Job validation";

/**
 * An assertion ported from upstream: at a path of the result (`steps[1].object.spec.podGroupTemplates[0].name`),
 * the value equals, is absent, has a length, or (for strings) contains a text.
 */
export interface Assertion {
  at: string;
  equals?: unknown;
  absent?: true;
  present?: true;
  length?: number;
  contains?: string;
  /** A value at `at` must differ from the value at this other path. */
  differsFrom?: string;
  /** A value at `at` must equal the value at this other path. */
  sameAs?: string;
  /** At most this many (UTF-8) bytes. */
  maxBytes?: number;
  startsWith?: string;
}

interface CaseBase {
  id: string;
  fn: CaseFunction;
  /** Where the case comes from: `upstream <file> <test>/<subtest>`, or the generator's seed. */
  source: string;
  expect?: Assertion[];
}

export type Case =
  | (CaseBase & { op: "builder"; root?: ItemJSON | null; existing?: Workload; options: OptionsJSON; steps: Step[] })
  | (CaseBase & { op: "resolve"; item: ItemJSON })
  | (CaseBase & { op: "names"; names: NameRequest[] })
  | (CaseBase & { op: "jobCompile"; job: Record<string, unknown>; workloadUID: string; parentWorkload?: Workload })
  | (CaseBase & { op: "jobValidate"; job: Record<string, unknown>; oldJob?: Record<string, unknown> });

/** A field error as both sides print it. */
export interface ErrorJSON {
  type: string;
  field: string;
  detail: string;
  origin?: string;
  error: string;
  badValue?: unknown;
}

/** One step's answer. */
export interface StepResult {
  errors?: ErrorJSON[];
  object?: unknown;
  error?: string;
  same?: boolean;
}
