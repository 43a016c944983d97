/**
 * The status a Karta should have, computed from the Karta and what the controller found out about its root
 * kind: pure, so the controller only reads, calls this, and writes the difference.
 *
 * The conditions are upstream's operator's, with its types, reasons and messages, so a cluster moving from
 * it sees the same status: `Validated` (ValidationSucceeded, or ValidationFailed with the errors `karta
 * validate` reports, one `path: message` a line), `CRDExists` (CRDFound, or CRDNotFound: the root kind is
 * neither built in nor served by a CRD at that version) and `Ready` (Ready when both are True, else
 * NotReady). A condition not evaluated yet is False with reason Pending; every condition carries
 * observedGeneration; lastTransitionTime moves only when a status flips; conditions of other types are
 * kept, except `KartaValidated`, the name earlier versions of Karta gave `Validated`.
 */
import { managedLabels, rootGroupVersionKind, validateDefinition, loadDefinitionValue, type Diagnostic } from "../definition/index.js";
import type { Condition } from "../scheduling/types.js";

export { LABEL_GROUP, LABEL_KIND, LABEL_VERSION } from "../definition/index.js";

export const CONDITION_VALIDATED = "Validated";
export const CONDITION_CRD_EXISTS = "CRDExists";
export const CONDITION_READY = "Ready";
/** What earlier versions of Karta called `Validated`: dropped when the status is written. */
export const LEGACY_CONDITION_VALIDATED = "KartaValidated";

export const REASON_VALIDATION_SUCCEEDED = "ValidationSucceeded";
export const REASON_VALIDATION_FAILED = "ValidationFailed";
export const REASON_CRD_FOUND = "CRDFound";
export const REASON_CRD_NOT_FOUND = "CRDNotFound";
export const REASON_READY = "Ready";
export const REASON_NOT_READY = "NotReady";
export const REASON_PENDING = "Pending";

export const MESSAGE_VALIDATION_FAILED = "Karta validation failed";
export const MESSAGE_CRD_NOT_FOUND = "CustomResourceDefinition for the root component GVK does not exist in the cluster or does not serve the referenced version";
export const MESSAGE_NOT_READY = "Validated and CRDExists must both be True";
export const MESSAGE_PENDING = "Condition has not been evaluated yet";

/** metav1.Condition as stored (one type for the whole project). */
export type { Condition };

/** The root kind of a Karta. */
export interface RootKind {
  group: string;
  version: string;
  kind: string;
}

/** What the controller found out about the root kind: served or not, or the check failed (it is retried). */
export type CrdCheck = { served: boolean } | { error: string };

/** An Event for a check that failed (events.k8s.io/v1: type Warning, reason, action, note). */
export interface KartaEvent {
  reason: string;
  action: string;
  note: string;
}

/** What {@link desiredKartaState} decides. */
export interface KartaState {
  /** The root kind, when the Karta names a complete one (a version and a kind). */
  root?: RootKind;
  /** The Karta validates (no error). */
  valid: boolean;
  /** The validation errors, `path: message`. */
  errors: string[];
  /** The whole `status.conditions` to write. */
  conditions: Condition[];
  /** The labels the Karta must carry (undefined when the root names no kind). */
  labels?: Record<string, string>;
  /** The Ready condition is True. */
  ready: boolean;
  /** Warning Events: one for each failed check whose condition changes with this status. */
  events: KartaEvent[];
}

/** The root kind a Karta object names completely (undefined when it lacks the version or the kind). */
export function rootKindOf(karta: unknown): RootKind | undefined {
  const k = rootGroupVersionKind(karta as { spec?: unknown });
  if (!k || k.kind === "" || k.version === "") return undefined;
  return k;
}

/** What `karta validate` reports for a Karta object as read from the API (paths, no positions). */
export function checkKartaObject(karta: unknown): { errors: Diagnostic[]; warnings: Diagnostic[] } {
  const loaded = loadDefinitionValue(karta, "karta");
  const all = [...loaded.diagnostics];
  for (const def of loaded.definitions) all.push(...validateDefinition(def));
  return { errors: all.filter((d) => d.severity === "error"), warnings: all.filter((d) => d.severity === "warning") };
}

/** The errors `karta validate` reports for a Karta object as read from the API (paths, no positions). */
export function validateKartaObject(karta: unknown): Diagnostic[] {
  return checkKartaObject(karta).errors;
}

/** A diagnostic as `karta validate` prints it, without the file position. */
export function diagnosticText(d: Pick<Diagnostic, "path" | "message">): string {
  return d.path ? `${d.path}: ${d.message}` : d.message;
}

/** metav1.Condition's message limit. */
const MAX_MESSAGE = 32 * 1024;

function truncate(message: string): string {
  return message.length > MAX_MESSAGE ? message.slice(0, MAX_MESSAGE - 3) + "..." : message;
}

/**
 * Sets a condition as apimachinery's meta.SetStatusCondition does: a new type is appended; an existing
 * one keeps its place and its lastTransitionTime unless the status changes.
 */
function setCondition(list: Condition[], type: string, status: "True" | "False", reason: string, message: string, generation: number | undefined, now: string): void {
  const c: Condition = { type, status, lastTransitionTime: now, reason, message: truncate(message) };
  if (generation !== undefined) c.observedGeneration = generation;
  const i = list.findIndex((x) => x.type === type);
  if (i < 0) list.push(c);
  else list[i] = { ...c, lastTransitionTime: list[i]!.status === status && list[i]!.lastTransitionTime ? list[i]!.lastTransitionTime : now };
}

function find(list: readonly Condition[] | undefined, type: string): Condition | undefined {
  return list?.find((c) => c.type === type);
}

/** The fields of a condition in one order (the API server's answer has its own). */
function normal(c: Condition | undefined, withTime = true): unknown[] {
  return c ? [c.type, c.status, c.observedGeneration, withTime ? c.lastTransitionTime : "", c.reason, c.message] : [];
}

function changed(before: Condition | undefined, after: Condition | undefined): boolean {
  return JSON.stringify(normal(before, false)) !== JSON.stringify(normal(after, false));
}

/** Now as metav1.Time stores it (RFC 3339, whole seconds). */
export function conditionTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z");
}

/** What is known besides the Karta itself. */
export interface KartaChecks {
  /** The root kind's check; undefined when the Karta names no root kind. */
  crd?: CrdCheck;
  /** Stamping the labels failed: Ready is left as it was (upstream sets it only after the labels). */
  labelsFailed?: boolean;
}

/**
 * The Karta's desired status, labels and Events. The reconcile order is upstream's: default the missing
 * conditions to Pending, validate, check the CRD (a failed check leaves CRDExists and Ready as they
 * were), stamp the labels, derive Ready.
 */
export function desiredKartaState(karta: unknown, checks: KartaChecks, now: string = conditionTime()): KartaState {
  const object = (karta ?? {}) as { metadata?: { generation?: unknown }; status?: { conditions?: Condition[] } };
  const generation = typeof object.metadata?.generation === "number" ? object.metadata.generation : undefined;
  const previous = (Array.isArray(object.status?.conditions) ? object.status.conditions : []).filter((c) => c && c.type !== LEGACY_CONDITION_VALIDATED);
  const conditions: Condition[] = previous.map((c) => ({ ...c }));
  for (const type of [CONDITION_VALIDATED, CONDITION_CRD_EXISTS, CONDITION_READY]) {
    if (!find(conditions, type)) setCondition(conditions, type, "False", REASON_PENDING, MESSAGE_PENDING, generation, now);
  }

  const errors = validateKartaObject(karta).map(diagnosticText);
  const valid = errors.length === 0;
  if (valid) setCondition(conditions, CONDITION_VALIDATED, "True", REASON_VALIDATION_SUCCEEDED, "", generation, now);
  else setCondition(conditions, CONDITION_VALIDATED, "False", REASON_VALIDATION_FAILED, errors.join("\n") || MESSAGE_VALIDATION_FAILED, generation, now);

  const gvk = rootGroupVersionKind(karta as { spec?: unknown });
  const crd = checks.crd;
  let checked = true;
  if (!gvk) setCondition(conditions, CONDITION_CRD_EXISTS, "False", REASON_CRD_NOT_FOUND, MESSAGE_CRD_NOT_FOUND, generation, now);
  else if (crd === undefined || "error" in crd) checked = false;
  else if (crd.served) setCondition(conditions, CONDITION_CRD_EXISTS, "True", REASON_CRD_FOUND, "", generation, now);
  else setCondition(conditions, CONDITION_CRD_EXISTS, "False", REASON_CRD_NOT_FOUND, `CRD for ${gvk.group}/${gvk.kind} not found or does not serve version ${gvk.version}`, generation, now);

  if (checked && !checks.labelsFailed) {
    const both = find(conditions, CONDITION_VALIDATED)!.status === "True" && find(conditions, CONDITION_CRD_EXISTS)!.status === "True";
    if (both) setCondition(conditions, CONDITION_READY, "True", REASON_READY, "", generation, now);
    else setCondition(conditions, CONDITION_READY, "False", REASON_NOT_READY, MESSAGE_NOT_READY, generation, now);
  }

  const events: KartaEvent[] = [];
  const validated = find(conditions, CONDITION_VALIDATED)!;
  if (validated.status === "False" && changed(find(previous, CONDITION_VALIDATED), validated)) events.push({ reason: REASON_VALIDATION_FAILED, action: "Validating", note: validated.message });
  const crdExists = find(conditions, CONDITION_CRD_EXISTS)!;
  if (gvk && crdExists.reason === REASON_CRD_NOT_FOUND && changed(find(previous, CONDITION_CRD_EXISTS), crdExists)) events.push({ reason: REASON_CRD_NOT_FOUND, action: "CheckingCRD", note: crdExists.message });

  const root = rootKindOf(karta);
  const labels = managedLabels(karta as { spec?: unknown });
  return {
    ...(root ? { root } : {}),
    valid,
    errors,
    conditions,
    ...(labels ? { labels } : {}),
    ready: find(conditions, CONDITION_READY)!.status === "True",
    events,
  };
}

/** Whether the stored conditions already are these (lastTransitionTime included: it only moves on a change). */
export function sameConditions(stored: readonly Condition[] | undefined, desired: readonly Condition[]): boolean {
  return JSON.stringify((stored ?? []).map((c) => normal(c))) === JSON.stringify(desired.map((c) => normal(c)));
}
