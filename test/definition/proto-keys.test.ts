import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { validateText } from "../../src/definition/validate.js";
import { fixture } from "./helpers.js";

const KEYS = ["__proto__", "constructor", "toString", "hasOwnProperty"];

describe("keys that name Object.prototype members", () => {
  const base = fixture("valid/pytorchjob.yaml");
  test("in metadata (an open object) they are kept without a diagnostic, never a crash", () => {
    for (const key of KEYS) {
      const text = base.replace("metadata:\n", `metadata:\n  ${key}: false\n`);
      assert.notEqual(text, base);
      assert.deepEqual(validateText(text, "pytorchjob.yaml").diagnostics, [], key);
    }
  });
  test("in spec (a closed object) they are unknown fields", () => {
    for (const key of KEYS) {
      const text = base.replace("spec:\n", `spec:\n  ${key}: {structureDefinition: 1}\n`);
      const r = validateText(text, "pytorchjob.yaml");
      const unknown = r.diagnostics.filter((d) => d.code === "unknown-field");
      assert.equal(unknown.length, 1, key);
      assert.match(unknown[0]!.message, new RegExp(`^unknown field "${key}"`));
      assert.deepEqual(unknown[0]!.source && [unknown[0]!.source.line, unknown[0]!.source.column], [7, 3], key);
    }
  });
});
