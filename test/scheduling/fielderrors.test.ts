import { test } from "node:test";
import assert from "node:assert/strict";
import { fieldErrorToString, fieldErrorsToString } from "../../src/scheduling/index.js";

test("field errors print as Kubernetes prints them", () => {
  const cases: Array<[Parameters<typeof fieldErrorToString>[0], string]> = [
    [{ type: "Invalid", field: "spec.x", value: 0, detail: "must be greater than or equal to 1" }, "spec.x: Invalid value: 0: must be greater than or equal to 1"],
    [{ type: "Invalid", field: "spec.p", value: "", detail: "must specify one of: `basic`, `gang`" }, 'spec.p: Invalid value: "": must specify one of: `basic`, `gang`'],
    [{ type: "Invalid", field: "spec.p.gang", value: null, detail: "field cannot be set once created" }, "spec.p.gang: Invalid value: null: field cannot be set once created"],
    [{ type: "Required", field: "spec.k", detail: "" }, "spec.k: Required value"],
    [{ type: "Required", field: "metadata.name", value: "ignored", detail: "name or generateName is required" }, "metadata.name: Required value: name or generateName is required"],
    [{ type: "Forbidden", field: "spec.c", detail: "field is immutable" }, "spec.c: Forbidden: field is immutable"],
    [{ type: "TooMany", field: "spec.l", value: 9, detail: "must have at most 8 items" }, "spec.l: Too many: 9: must have at most 8 items"],
    [{ type: "Duplicate", field: "spec.l[1]", value: "workers", detail: "" }, 'spec.l[1]: Duplicate value: "workers"'],
    [{ type: "Internal", field: "spec", detail: "boom" }, "spec: Internal error: boom"],
    [{ type: "NotSupported", field: "spec.pp", value: "Sometimes", detail: 'supported values: "PreemptLowerPriority", "Never"' }, 'spec.pp: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"'],
  ];
  for (const [e, s] of cases) assert.equal(fieldErrorToString(e), s);
  assert.equal(fieldErrorsToString(cases.slice(0, 2).map(([e]) => e)), cases.slice(0, 2).map(([, s]) => s).join("\n"));
});
