/** The fast YAML printer prints exactly what yaml.stringify prints, for any JSON value. */
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { stringify } from "yaml";
import { yamlDocument, yamlStream } from "../../src/cli/yaml-output.js";

const reference = (v: unknown): string => stringify(v, { aliasDuplicateObjects: false, lineWidth: 0 });

// Strings from the characters that decide between plain and quoted scalars, and the words YAML reads as other types.
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."aZ09_./-: #'\"\n\t\\{}[],&*!|>%@`~+eExo".split("")), maxLength: 12 }),
  fc.constantFrom("", "true", "False", "NULL", "~", "y", "no", "0x1F", "0o17", "1e3", "-1", "+2", ".5", "1.", ".inf", "-.Inf", ".NaN", "2024-01-01", "nvidia.com/gpu", "8499a2b1-de6c-5c57-910c-8deb42ae9946", "/spec/x", "a-0"),
);
const value = fc.letrec((tie) => ({
  scalar: fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null)),
  node: fc.oneof({ depthSize: "small" }, tie("scalar"), tie("array"), tie("object")),
  array: fc.array(tie("node"), { maxLength: 4 }),
  object: fc.dictionary(text, tie("node"), { maxKeys: 4 }),
})).node;

test("yamlDocument matches yaml.stringify on generated values", () => {
  fc.assert(
    fc.property(value, (v) => {
      assert.equal(yamlDocument(v), reference(v));
    }),
    { numRuns: 3000 },
  );
});

test("yamlDocument matches yaml.stringify on Kubernetes-shaped objects (the fast path)", () => {
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
