/**
 * What compiling a workload into the Workload API reports: diagnostics (severity, field path, message)
 * that also say which input the path belongs to, so a command can point at the right file: the Karta,
 * the workload object, one of the pods, or a command-line option.
 */
import type { Diagnostic, Severity } from "../../definition/index.js";
import { fieldErrorBody, type FieldError } from "../fielderrors.js";

/** The input a {@link CompileIssue}'s `path` is a field of. */
export type CompileInput = "definition" | "object" | "pod" | "option";

/** A problem found while compiling, with the field path in its input. */
export interface CompileIssue extends Diagnostic {
  input: CompileInput;
  /** For `pod` issues: the pod as `namespace/name` (or its name). */
  pod?: string;
}

/** An issue from a field error, its message worded as the API server words it (`Invalid value: ...`). */
export function issueFromFieldError(input: CompileInput, e: FieldError, severity: Severity = "error", code?: string): CompileIssue {
  const issue: CompileIssue = { severity, input, path: e.field, message: fieldErrorBody(e) };
  if (code !== undefined) issue.code = code;
  return issue;
}

/** An issue from a diagnostic of the interpretation (whose paths are Karta field paths). */
export function issueFromDiagnostic(d: Diagnostic, input: CompileInput = "definition"): CompileIssue {
  const issue: CompileIssue = { severity: d.severity, input, path: d.path, message: d.message };
  if (d.code !== undefined) issue.code = d.code;
  return issue;
}

/** Whether any issue is an error. */
export function hasErrors(issues: readonly CompileIssue[]): boolean {
  return issues.some((i) => i.severity === "error");
}
