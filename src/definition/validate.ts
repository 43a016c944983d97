/**
 * Validating a loaded definition: the structural rules, every jq expression, the lint, and (with CRDs)
 * the workload-side paths against the workload's schema. Everything is reported at once, sorted by
 * position; nothing is thrown.
 */
import { sortDiagnostics, type Diagnostic } from "./diagnostic.js";
import type { CrdIndex } from "./crd.js";
import { listExpressions } from "./expressions.js";
import { toDiagnostic, type Finding } from "./finding.js";
import { checkExpression, checkListsOptionalElsewhere, type ExpressionResult, type JqFrontEnd, type WorkloadSchema } from "./jq-checks.js";
import { defaultJqFrontEnd } from "./jq-frontend.js";
import { checkFalseConditions, checkTypeSelectors } from "./lint.js";
import { loadDefinitions, type Definition } from "./load.js";
import { checkStructure } from "./rules.js";
import type { Karta } from "./types.js";

export interface ValidateOptions {
  /** CRDs to check workload-side paths against (`--crd`). */
  crds?: CrdIndex;
  /** Report warnings as errors (`--strict`). */
  strict?: boolean;
  /** Run the lint rules (warnings); default true. */
  lint?: boolean;
  /** The jq parser and safe profile; default the project's own. */
  jq?: JqFrontEnd;
}

/** Validates one loaded definition. */
export function validateDefinition(def: Definition, options: ValidateOptions = {}): Diagnostic[] {
  const findings = checkKarta(def.karta, options);
  return sortDiagnostics(findings.map((f) => toDiagnostic(def, f)));
}

/** The errors `karta validate` finds in each definition (lint aside), sorted: what makes one unusable. */
export function definitionErrors(defs: readonly Definition[]): Diagnostic[] {
  return sortDiagnostics(defs.flatMap((d) => validateDefinition(d, { lint: false }).filter((x) => x.severity === "error")));
}

/** The checks on a typed Karta, as findings (field paths, positions not yet resolved). */
export function checkKarta(karta: Karta, options: ValidateOptions = {}): Finding[] {
  const jq = options.jq ?? defaultJqFrontEnd;
  const findings: Finding[] = [];
  try {
    findings.push(...checkStructure(karta));
    const workload = workloadSchema(karta, options.crds, findings);
    const results: ExpressionResult[] = [];
    for (const e of listExpressions(karta)) results.push(checkExpression(e, jq, workload, findings));
    checkListsOptionalElsewhere(results, workload, findings);
    findings.push(...checkTypeSelectors(karta, results), ...checkFalseConditions(karta));
  } catch (err) {
    // A bug of ours must not hide the other findings nor crash the caller.
    findings.push({ severity: "error", path: [], message: `internal error while validating: ${err instanceof Error ? err.message : String(err)}`, code: "internal" });
  }
  let out = findings;
  if (options.lint === false) out = out.filter((f) => f.severity !== "warning");
  if (options.strict) out = out.map((f) => (f.severity === "warning" ? { ...f, severity: "error" } : f));
  return out;
}

function workloadSchema(karta: Karta, crds: CrdIndex | undefined, findings: Finding[]): WorkloadSchema {
  const kind = karta.spec?.structureDefinition?.rootComponent?.kind;
  if (kind && kind.group === "" && kind.kind === "Pod") return { kind: "pod" };
  if (!crds || !kind || !kind.kind || !kind.version) return { kind: "none" };
  const found = crds.schemaFor(kind);
  if ("problem" in found) {
    findings.push({
      severity: "notice",
      path: ["spec", "structureDefinition", "rootComponent", "kind"],
      message: `${found.problem}: workload-side paths were not checked against a schema`,
      code: "crd-missing",
    });
    return { kind: "none" };
  }
  return { kind: "crd", schema: found.schema, description: `${kind.kind} ${kind.group ? kind.group + "/" : ""}${kind.version} (CRD ${found.crd.name})` };
}

/** Loads every definition in a text and validates each: loading diagnostics plus validation diagnostics, sorted. */
export function validateText(text: string, file: string, options: ValidateOptions = {}): { definitions: Definition[]; diagnostics: Diagnostic[] } {
  const loaded = loadDefinitions(text, file);
  const diagnostics = [...loaded.diagnostics];
  if (options.strict) for (const d of diagnostics) if (d.severity === "warning") d.severity = "error";
  for (const def of loaded.definitions) diagnostics.push(...validateDefinition(def, options));
  return { definitions: loaded.definitions, diagnostics: sortDiagnostics(diagnostics) };
}
