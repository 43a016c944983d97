/**
 * A finding: a diagnostic whose field path is still in segments and whose position is not yet known.
 * Checks produce findings; `toDiagnostic` places them in the source through the definition.
 */
import { formatPath, type Diagnostic, type PathSegment, type Severity } from "./diagnostic.js";
import type { Definition } from "./load.js";

export interface Finding {
  severity: Severity;
  path: PathSegment[];
  message: string;
  code: string;
  /** Point at the field's key rather than its value. */
  atKey?: boolean;
  /** Point at this character of the field's string value (inside a jq expression). */
  valueIndex?: number;
}

export function toDiagnostic(def: Definition, f: Finding): Diagnostic {
  const source = f.valueIndex !== undefined ? def.locateInValue(f.path, f.valueIndex) : def.locate(f.path, { atKey: f.atKey });
  const d: Diagnostic = { severity: f.severity, path: formatPath(f.path), message: f.message, code: f.code };
  if (source) d.source = source;
  return d;
}
