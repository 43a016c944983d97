/**
 * Lint rules over the whole definition (warnings; `--strict` makes them errors): pod type selectors of
 * different components that can match the same pod, and byConditions that expect "False" of a condition
 * the controller may not have written yet. The per-expression lint (document, assignability,
 * null-safety) is in jq-checks.ts.
 */
import type { PathSegment } from "./diagnostic.js";
import type { ExpressionResult } from "./jq-checks.js";
import type { Finding } from "./finding.js";
import { formatSteps } from "./jq-analysis.js";
import { componentsOf } from "./rules.js";
import { STATUS_MAPPING_KEYS, type Karta } from "./types.js";

interface SelectorTerm {
  /** The canonical key: the pod path read (`.metadata.labels["x"]`) or the expression text. */
  key: string;
  value?: string;
  path: PathSegment[];
}

/** Type selectors of two components overlap: same key with the same value, or one of them without a value. */
export function checkTypeSelectors(karta: Karta, expressions: readonly ExpressionResult[]): Finding[] {
  const findings: Finding[] = [];
  const { root, children } = componentsOf(karta);
  const canonical = new Map<string, string>();
  for (const r of expressions) {
    const a = r.analysis;
    if (r.expression.role !== "podKey" || !a) continue;
    // A plain path (one read, which is also the result, nothing dynamic) is compared by its path.
    const single = a.reads.length === 1 && a.results.length === 1 && a.dynamic.length === 0 ? a.reads[0] : undefined;
    if (single && formatSteps(single.steps) === formatSteps(a.results[0]!.steps)) canonical.set(pathKey(r.expression.path), formatSteps(single.steps));
  }
  const selectors: { name: string; terms: SelectorTerm[] }[] = [];
  for (const c of [...(root ? [root] : []), ...children]) {
    const ts = c.component.podSelector?.componentTypeSelector;
    if (!ts) continue;
    const base = [...c.path, "podSelector", "componentTypeSelector"];
    const terms: SelectorTerm[] = [];
    if (ts.keyPath !== undefined) {
      const keyPath = [...base, "keyPath"];
      const term: SelectorTerm = { key: canonical.get(pathKey(keyPath)) ?? ts.keyPath.trim(), path: keyPath };
      if (ts.value !== undefined) term.value = ts.value;
      terms.push(term);
    }
    if (ts.matchLabels !== undefined) {
      findings.push({
        severity: "warning",
        path: [...base, "matchLabels"],
        message:
          "matchLabels is the newer upstream selector: github.com/run-ai/karta at the version KAI Scheduler pins knows only keyPath and value, so there every pod reaching this component fails (an empty keyPath: 'missing query')",
        code: "selector-upstream",
      });
    }
    for (const [label, value] of Object.entries(ts.matchLabels ?? {})) {
      terms.push({ key: formatSteps([{ type: "field", name: "metadata", span: { start: 0, end: 0 } }, { type: "field", name: "labels", span: { start: 0, end: 0 } }, { type: "field", name: label, span: { start: 0, end: 0 } }]), value, path: [...base, "matchLabels", label] });
    }
    selectors.push({ name: c.component.name ?? "", terms });
  }
  for (let i = 0; i < selectors.length; i++) {
    for (let j = i + 1; j < selectors.length; j++) {
      const a = selectors[i]!;
      const b = selectors[j]!;
      // Selectors that require different values of one key can never match the same pod.
      const exclusive = a.terms.some((ta) => b.terms.some((tb) => ta.key === tb.key && ta.value !== undefined && tb.value !== undefined && ta.value !== tb.value));
      if (exclusive) continue;
      for (const tb of b.terms) {
        const ta = a.terms.find((t) => t.key === tb.key && (t.value === tb.value || t.value === undefined || tb.value === undefined));
        if (!ta) continue;
        const what =
          ta.value !== undefined && tb.value !== undefined
            ? `both match pods with ${tb.key} = ${JSON.stringify(tb.value)}`
            : `one of them only checks that ${tb.key} exists, so it also matches the other's pods`;
        findings.push({
          severity: "warning",
          path: tb.path,
          message: `type selectors of components '${a.name}' and '${b.name}' are not mutually exclusive: ${what}`,
          code: "selector-overlap",
        });
        break;
      }
    }
  }
  return findings;
}

function pathKey(p: readonly PathSegment[]): string {
  return p.join("\u0000");
}

/** byConditions with status "False": matches nothing while the condition has not been written. */
export function checkFalseConditions(karta: Karta): Finding[] {
  const findings: Finding[] = [];
  const mappings = karta.spec?.structureDefinition?.rootComponent?.statusDefinition?.statusMappings;
  if (!mappings) return findings;
  for (const key of STATUS_MAPPING_KEYS) {
    (mappings[key] ?? []).forEach((m, i) => {
      (m?.byConditions ?? []).forEach((c, j) => {
        if (c?.status !== "False") return;
        findings.push({
          severity: "warning",
          path: ["spec", "structureDefinition", "rootComponent", "statusDefinition", "statusMappings", key, i, "byConditions", j, "status"],
          message: `condition '${c.type}' with status "False" matches only once the controller has written the condition; while it is absent this matcher matches nothing`,
          code: "false-condition",
        });
      });
    });
  }
  return findings;
}
