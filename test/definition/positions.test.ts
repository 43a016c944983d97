import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { validateText } from "../../src/definition/validate.js";

/** A root component whose byExpression is written as `scalar` (the YAML text after `expression:`). */
function karta(scalar: string): string {
  return `rootComponent:
  name: r
  kind: {group: example.com, version: v1, kind: Trainer}
  statusDefinition:
    statusMappings:
      running:
        - byExpression:
            expression: ${scalar}
            expectedResult: "true"
`;
}

function parseErrorAt(text: string): { line: number; column: number } | undefined {
  const d = validateText(text, "t.yaml").diagnostics.find((x) => x.code === "jq-parse");
  return d?.source && { line: d.source.line, column: d.source.column };
}

describe("jq error positions inside YAML scalars", () => {
  test("double-quoted, with escapes before the error", () => {
    // The stray ']' is at column 71 of line 8, after two escaped quotes.
    assert.deepEqual(parseErrorAt(karta('"(.status.phase == \\"Running\\") and .status.x ]"')), { line: 8, column: 71 });
  });

  test("single-quoted, where '' stands for one quote", () => {
    // jq rejects the single quote itself: the first of the doubled quotes, column 43.
    assert.deepEqual(parseErrorAt(karta("'.status.phase == ''Running'' and .status.x ]'")), { line: 8, column: 43 });
  });

  test("a plain scalar folded over two lines", () => {
    assert.deepEqual(parseErrorAt(karta("(.status.replicas // 0) > 0 and\n              .status.ready ] 1")), { line: 9, column: 29 });
  });

  test("a literal block scalar", () => {
    assert.deepEqual(parseErrorAt(karta("|\n              (.status.replicas // 0) > 0\n              and .status.ready ]")), { line: 10, column: 33 });
  });
});
