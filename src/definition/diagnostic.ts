/**
 * Diagnostics: what validation, lint and loading report. Errors are values, collected, never thrown.
 * A diagnostic names the field by its path in the Karta (`spec.structureDefinition.childComponents[1].ownerRef`)
 * and, when the definition came from a file, its position there.
 */

export type Severity = "error" | "warning" | "notice";

/** A position in a source file; line and column are 1-based. */
export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface Diagnostic {
  severity: Severity;
  /** The field's path in the (normalised) Karta, e.g. `spec.structureDefinition.rootComponent.kind`; "" for the whole document. */
  path: string;
  message: string;
  source?: SourcePosition;
  /** A stable identifier of the check that produced it, e.g. `unknown-field`, `jq-parse`. */
  code?: string;
}

/** One step of a field path: an object key or an array index. */
export type PathSegment = string | number;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Formats a field path: `a.b[1].c`, keys that are not identifiers as `["app.kubernetes.io/name"]`. */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = "";
  for (const s of segments) {
    if (typeof s === "number") out += `[${s}]`;
    else if (IDENT.test(s)) out += out === "" ? s : `.${s}`;
    else out += `[${JSON.stringify(s)}]`;
  }
  return out;
}

/** Orders diagnostics by file, line, column (those without a position last, by path), then severity. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const rank: Record<Severity, number> = { error: 0, warning: 1, notice: 2 };
  return [...diagnostics].sort((a, b) => {
    const fa = a.source?.file ?? "";
    const fb = b.source?.file ?? "";
    if (fa !== fb) return fa < fb ? -1 : 1;
    if (a.source && b.source) {
      if (a.source.line !== b.source.line) return a.source.line - b.source.line;
      if (a.source.column !== b.source.column) return a.source.column - b.source.column;
    } else if (a.source || b.source) {
      return a.source ? -1 : 1;
    }
    if (rank[a.severity] !== rank[b.severity]) return rank[a.severity] - rank[b.severity];
    return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
  });
}

/** `file:line:col: severity: path: message` (parts without a value are left out). */
export function formatDiagnostic(d: Diagnostic): string {
  const where = d.source ? `${d.source.file}:${d.source.line}:${d.source.column}: ` : "";
  const path = d.path ? `${d.path}: ` : "";
  return `${where}${d.severity}: ${path}${d.message}`;
}

/** Counts by severity. */
export function countSeverities(diagnostics: readonly Diagnostic[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, notice: 0 };
  for (const d of diagnostics) counts[d.severity]++;
  return counts;
}

/**
 * Whether a file did not parse (YAML or JSON syntax, nesting or aliases past their limits): unreadable
 * input, which upstream's CLI answers with its usage exit code, where a definition that parses but has
 * errors is an error.
 */
export function hasSyntaxErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.code === "yaml");
}
