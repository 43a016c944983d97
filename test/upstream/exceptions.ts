/**
 * The known differences between Karta and upstream Karta (tools/karta-upstream), each a class with the
 * reason it is allowed. `deliberate`: Karta departs from upstream on purpose (documented where named).
 * `open`: a difference found by this test and reported (docs/decisions.md, "Upstream Karta as an oracle"),
 * whose fix belongs to src/; it is listed so the test guards against new differences meanwhile, and must
 * be removed with the fix. Anything else fails the test.
 */
import type { Difference } from "./compare.js";
import type { UpstreamCase } from "./cases.js";

interface Known {
  name: string;
  kind: "deliberate" | "open";
  reason: string;
  matches(d: Difference, c: UpstreamCase): boolean;
}

const text = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v) ?? "");

/** Upstream's zip of instance ids with a path's results (resource/component.go zipWithInstanceIds) when the path selects nothing. */
const ZIP_NOTHING = /instance ids count \(1\) does not match results count \(0\)/;

export const KNOWN: readonly Known[] = [
  {
    name: "absent-component",
    kind: "deliberate",
    reason:
      "A component without instanceIdPath whose pod specification (or every scale path) selects nothing on the object is absent " +
      "in Karta (no instance; an instance with an empty scale) — a shape the object does not use, as LLMInferenceService's " +
      "single-node/multi-node/prefill shapes (docs/definitions.md, src/interpret/workload.ts evaluateComponent). Upstream " +
      "zips its single instance id '' with no result and errs (resource/component.go zipWithInstanceIds), and so does every " +
      "subtree scale over it (instructions/gang_scheduling.go CalculateSubtreeScale).",
    matches: (d) =>
      ["components/error-upstream-only", "gang/subtreeScale-error-upstream-only", "gang/instanceSubtreeScale-error-upstream-only", "gang/member-karta-only"].includes(d.klass) &&
      ZIP_NOTHING.test(text(d.upstream)),
  },
];

/** The known class a difference belongs to (`name (kind)`), or undefined. */
export function knownDifference(d: Difference, c: UpstreamCase): string | undefined {
  const k = KNOWN.find((x) => x.matches(d, c));
  return k ? `${k.name} (${k.kind})` : undefined;
}
