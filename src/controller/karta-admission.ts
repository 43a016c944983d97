/**
 * Admission of Karta objects (kartas.run.ai), on upstream's operator's paths and webhook names, refusing
 * what `karta validate` reports as errors, with the same messages and field paths:
 * - mutating `mkarta.run.ai` ({@link KARTA_MUTATE_PATH}, CREATE): sets the run.ai/karta-* labels of the
 *   root kind, overwriting what the Karta says.
 * - validating `vkarta.run.ai` ({@link KARTA_VALIDATE_PATH}, CREATE and UPDATE): the definition's errors;
 *   managed labels that differ from the root kind (on UPDATE also missing ones: they cannot be removed);
 *   on UPDATE the root kind is immutable; one Karta per root group/version/kind among the Kartas the
 *   controller has cached. Upstream stops at the first failing rule; here every error is reported, as
 *   `karta validate` reports them. Lint warnings come back as admission warnings.
 * An UPDATE that leaves the spec unchanged (labels, annotations, finalizers) is judged by the label rule
 * only, so a Karta stored before the rules held can still be labelled or deleted cleanly.
 * The uniqueness check is best effort, as upstream's: two Kartas created at the same instant can both
 * pass, because neither is in the cache when the other is admitted.
 */
import { isDeepStrictEqual } from "node:util";
import { checkManagedLabels, checkRootKindUnchanged, checkUniqueRoot, formatPath, managedLabels, type Finding, type KartaLike } from "../definition/index.js";
import type { JsonPatchOperation } from "../jsonpatch/index.js";
import type { AdmissionRequest } from "./admission.js";
import type { DenialStatus, ReviewAnswer, StatusCause } from "./admission-review.js";
import { checkKartaObject, diagnosticText } from "./karta-status.js";

/** Where the API server posts Karta admissions (controller-runtime's paths for run.ai/v1alpha1 Karta). */
export const KARTA_MUTATE_PATH = "/mutate-run-ai-v1alpha1-karta";
export const KARTA_VALIDATE_PATH = "/validate-run-ai-v1alpha1-karta";
/** The webhooks' names in the configurations (upstream's). */
export const KARTA_MUTATING_WEBHOOK = "mkarta.run.ai";
export const KARTA_VALIDATING_WEBHOOK = "vkarta.run.ai";

/** At most this many lint warnings go back to the client. */
const MAX_WARNINGS = 20;

/** A Karta admission request: the object, and on UPDATE the stored one. */
export interface KartaAdmissionRequest extends AdmissionRequest {
  name?: string;
  oldObject?: unknown;
}

/** What the webhook did, for logs: the answer and a word for it. */
export interface KartaAdmission {
  answer: ReviewAnswer;
  outcome: "labelled" | "unchanged" | "allowed" | "denied" | "not-a-karta";
}

function isKarta(request: KartaAdmissionRequest): boolean {
  const k = request.kind;
  return k?.group === "run.ai" && k.kind === "Karta" && typeof request.object === "object" && request.object !== null;
}

/** JSON Pointer escaping of one key (RFC 6901). */
function pointerKey(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The mutating webhook: a new Karta gets the labels of its root kind. */
export function mutateKarta(request: KartaAdmissionRequest): KartaAdmission {
  if (request.operation !== "CREATE" || !isKarta(request)) return { answer: { allowed: true }, outcome: "not-a-karta" };
  const karta = request.object as KartaLike;
  const want = managedLabels(karta);
  if (!want) return { answer: { allowed: true }, outcome: "unchanged" };
  const labels = karta.metadata?.labels;
  let patch: JsonPatchOperation[];
  if (labels === undefined || labels === null) patch = [{ op: "add", path: karta.metadata ? "/metadata/labels" : "/metadata", value: karta.metadata ? want : { labels: want } }];
  else patch = Object.entries(want).filter(([k, v]) => labels[k] !== v).map(([k, v]) => ({ op: "add", path: `/metadata/labels/${pointerKey(k)}`, value: v }));
  return patch.length > 0 ? { answer: { allowed: true, patch }, outcome: "labelled" } : { answer: { allowed: true }, outcome: "unchanged" };
}

function cause(f: { path: string; message: string; code?: string }): StatusCause {
  return { type: f.code === "duplicate-root-kind" ? "FieldValueDuplicate" : f.code === "managed-label" || f.code === "root-kind-immutable" ? "FieldValueForbidden" : "FieldValueInvalid", message: f.message, field: f.path };
}

/**
 * The validating webhook. `existing` lists the Kartas of the cluster (the controller's cache); it is
 * read only when the rule needs it.
 */
export function validateKarta(request: KartaAdmissionRequest, existing: () => readonly KartaLike[]): KartaAdmission {
  if ((request.operation !== "CREATE" && request.operation !== "UPDATE") || !isKarta(request)) return { answer: { allowed: true }, outcome: "not-a-karta" };
  const karta = request.object as KartaLike;
  const old = request.operation === "UPDATE" && typeof request.oldObject === "object" && request.oldObject !== null ? (request.oldObject as KartaLike) : undefined;
  const errors: { path: string; message: string; code?: string }[] = [];
  const warnings: string[] = [];
  const add = (findings: Finding[]): void => {
    for (const f of findings) errors.push({ path: formatPath(f.path), message: f.message, code: f.code });
  };
  if (old && isDeepStrictEqual(old.spec, karta.spec)) {
    add(checkManagedLabels(karta, { requirePresent: true }));
  } else {
    const checked = checkKartaObject(karta);
    for (const d of checked.errors) errors.push({ path: d.path, message: d.message, ...(d.code !== undefined ? { code: d.code } : {}) });
    for (const d of checked.warnings.slice(0, MAX_WARNINGS)) warnings.push(diagnosticText(d));
    const moved = old ? checkRootKindUnchanged(old, karta) : [];
    add(moved);
    // A refused change of the root kind leaves the stored kind: the labels (and the one Karta per kind)
    // are judged against it, not against the kind refused ("must equal" the new kind would contradict
    // that refusal). A label that follows the refused kind is part of the same change, already refused:
    // only a label that matches neither kind (or is removed) is reported besides.
    const standing: KartaLike = moved.length > 0 && old ? { ...karta, spec: old.spec } : karta;
    const labels = checkManagedLabels(standing, { requirePresent: old !== undefined });
    const forRequested = new Set(standing === karta ? [] : checkManagedLabels(karta, { requirePresent: true }).map((f) => formatPath(f.path)));
    add(standing === karta ? labels : labels.filter((f) => forRequested.has(formatPath(f.path))));
    const others = existing().map((k) => ({ name: k.metadata?.name ?? "", karta: k }));
    add(checkUniqueRoot(standing, others));
  }
  if (errors.length === 0) return { answer: { allowed: true, ...(warnings.length > 0 ? { warnings } : {}) }, outcome: "allowed" };
  const name = karta.metadata?.name ?? request.name ?? "";
  const status: DenialStatus = {
    code: 403,
    reason: "Forbidden",
    message: errors.map(diagnosticText).join("\n"),
    details: { ...(name ? { name } : {}), group: "run.ai", kind: "kartas", causes: errors.map(cause) },
  };
  return { answer: { allowed: false, status, ...(warnings.length > 0 ? { warnings } : {}) }, outcome: "denied" };
}
