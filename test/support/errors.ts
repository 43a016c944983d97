/** The message of the jq runtime error `f` raises; fails the test when it raises nothing or something else. */
import assert from "node:assert/strict";
import { JqRuntimeError } from "../../src/jq/errors.js";

export function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof JqRuntimeError, `expected JqRuntimeError, got ${String(e)}`);
    return e.message;
  }
  assert.fail("expected an error");
}
