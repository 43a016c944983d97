/**
 * The YAML printer: its fast path prints exactly what the library path (goSafeYaml: yaml.stringify, with
 * ambiguous strings quoted) prints, for any JSON value; and what it prints reads back as the same value
 * in YAML 1.2 and in Go (sigs.k8s.io/yaml, through the karmada-go oracle), keys included.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parse, stringify } from "yaml";
import { goSafeYaml, yamlDocument, yamlStream } from "../../src/cli/yaml-output.js";
import { startKarmadaGo } from "../support/karmada-go.js";

const reference = (v: unknown): string => goSafeYaml(v);

// Strings from the characters that decide between plain and quoted scalars, and the words YAML reads as other types.
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."aZ09_./-: #'\"\n\t\\{}[],&*!|>%@`~+eExo\r\u0085\u2028\u00a0\u3000\u007f\ufeff".split("")), maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.constantFrom("", "true", "False", "NULL", "~", "y", "no", "0x1F", "0o17", "1e3", "-1", "+2", ".5", "1.", ".inf", "-.Inf", ".NaN", "2024-01-01", "nvidia.com/gpu", "8499a2b1-de6c-5c57-910c-8deb42ae9946", "/spec/x", "a-0"),
  fc.constantFrom("yes", "Yes", "ON", "off", "N", "<<", "1_000", "0O17", "0B101", "-0b1", "+0x1f", "1:20", "0777", "09", "1e400", "2024-1-2", "_1", "1__0"),
);
const value = fc.letrec((tie) => ({
  scalar: fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
  node: fc.oneof({ depthSize: "small" }, tie("scalar"), tie("array"), tie("object")),
  array: fc.array(tie("node"), { maxLength: 4 }),
  object: fc.dictionary(text, tie("node"), { maxKeys: 4 }),
})).node;

test("yamlDocument matches the library path on generated values", () => {
  fc.assert(
    fc.property(value, (v) => {
      assert.equal(yamlDocument(v), reference(v));
    }),
    { numRuns: 3000 },
  );
});

test("yamlDocument matches the library path on Kubernetes-shaped objects (the fast path)", () => {
  const patch = (i: number) => ({
    pod: { name: `job-worker-${i}`, namespace: "ml-team", uid: `${i}a2b1-de6c-5c57-910c-8deb42ae9946` },
    podGroupName: "job-75b5456fb-job-6d4b669f65",
    patch: [{ op: "add", path: "/spec/schedulingGroup", value: { podGroupName: "job-75b5456fb-job-6d4b669f65" } }],
  });
  const objects = Array.from({ length: 50 }, (_, i) => patch(i));
  assert.equal(yamlStream(objects), objects.map(reference).join("---\n"));
  const workload = { apiVersion: "scheduling.k8s.io/v1beta1", kind: "Workload", metadata: { name: "w", ownerReferences: [{ controller: true, blockOwnerDeletion: true }] }, spec: { podGroupTemplates: [{ name: "job", schedulingPolicy: { gang: { minCount: 2 } } }], empty: {}, none: [] } };
  assert.equal(yamlDocument(workload), reference(workload));
});

test("goSafeYaml differs from yaml.stringify only by quoting strings another reader would misread", () => {
  const v = { name: "web", on: "yes", list: ["0o17", "plain", 1.5], "1_000": null };
  assert.equal(stringify({ a: "b c", d: [1, { e: "f" }] }, { aliasDuplicateObjects: false, lineWidth: 0 }), goSafeYaml({ a: "b c", d: [1, { e: "f" }] }));
  assert.equal(goSafeYaml(v), 'name: web\n"on": "yes"\nlist:\n  - "0o17"\n  - plain\n  - 1.5\n"1_000": null\n');
});

test("what yamlDocument prints reads back as the same value in YAML 1.2 and in Go", async (t) => {
  const go = startKarmadaGo();
  if ("skip" in go) {
    console.log(go.skip);
    return void t.skip(go.skip);
  }
  // JSON values: what both readers can give back (no NaN, infinities or -0), as an object document.
  const json = fc.letrec((tie) => ({
    scalar: fc.oneof(text, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)), fc.boolean(), fc.constant(null)),
    node: fc.oneof({ depthSize: "small" }, tie("scalar"), tie("array"), tie("object")),
    array: fc.array(tie("node"), { maxLength: 4 }),
    object: fc.dictionary(text, tie("node"), { maxKeys: 4 }),
  })).object;
  try {
    for (const v of fc.sample(json, { numRuns: 1500, seed: 28 })) {
      const printed = yamlDocument(v);
      const plain = JSON.parse(JSON.stringify(v)) as unknown;
      assert.deepEqual(parse(printed), plain, printed);
      assert.deepEqual(await go.value({ op: "yaml", text: printed }), plain, printed);
    }
  } finally {
    go.close();
  }
});
