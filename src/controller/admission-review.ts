/**
 * The answer to an AdmissionReview (admission.k8s.io/v1): allowed with an optional JSON Patch, or refused
 * with a Status the API server passes on to the client (prefixed with `admission webhook "<name>" denied
 * the request: `), and warnings the client prints (`kubectl` as `Warning: ...`).
 */
import type { JsonPatchOperation } from "../jsonpatch/index.js";

/** One field error of a refusal, as metav1.StatusCause (`type` FieldValueInvalid, FieldValueDuplicate, ...). */
export interface StatusCause {
  type: string;
  message: string;
  field: string;
}

/** The Status of a refused request. */
export interface DenialStatus {
  code: number;
  reason: string;
  message: string;
  details?: { name?: string; group?: string; kind?: string; causes?: StatusCause[] };
}

export interface ReviewAnswer {
  allowed: boolean;
  patch?: readonly JsonPatchOperation[];
  status?: DenialStatus;
  warnings?: readonly string[];
}

/** The AdmissionReview body answering request `uid`. */
export function reviewAnswer(uid: string, answer: ReviewAnswer): string {
  const response: Record<string, unknown> = { uid, allowed: answer.allowed };
  if (answer.allowed && answer.patch && answer.patch.length > 0) {
    response.patchType = "JSONPatch";
    response.patch = Buffer.from(JSON.stringify(answer.patch)).toString("base64");
  }
  if (!answer.allowed && answer.status) response.status = { status: "Failure", ...answer.status };
  if (answer.warnings && answer.warnings.length > 0) response.warnings = answer.warnings;
  return JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response });
}
