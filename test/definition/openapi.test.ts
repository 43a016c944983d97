import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseJq } from "../../src/jq/index.js";
import { analyze } from "../../src/definition/jq-analysis.js";
import { resolvePath, type OpenApiSchema } from "../../src/definition/openapi.js";
import { OBJECT_META, POD_SCHEMA, POD_TEMPLATE_SPEC } from "../../src/definition/pod-schema.js";

const steps = (e: string) => analyze(parseJq(e)).reads[0]!.steps;
const embedded = { objectMeta: OBJECT_META, podTemplateSpec: POD_TEMPLATE_SPEC };

describe("resolving paths in OpenAPI schemas", () => {
  test("the Pod schema knows pod fields and suggests the closest one", () => {
    assert.equal(resolvePath(POD_SCHEMA, steps('.metadata.labels["app.kubernetes.io/name"]')).status, "ok");
    assert.equal(resolvePath(POD_SCHEMA, steps('.spec.containers[0].resources.limits["nvidia.com/gpu"]')).status, "ok");
    const r = resolvePath(POD_SCHEMA, steps(".spec.nodeSelectors.zone"));
    assert.equal(r.status, "missing");
    assert.equal(r.status === "missing" && r.suggestion, "nodeSelector");
    assert.equal(resolvePath(POD_SCHEMA, steps(".spec.affinity.nodeAffinity.whatever")).status, "open");
  });

  test("maps, lists, alternatives, kept unknown fields, defaults and embedded objects", () => {
    const schema: OpenApiSchema = {
      type: "object",
      properties: {
        metadata: { type: "object" },
        spec: {
          type: "object",
          required: ["roles"],
          properties: {
            roles: { type: "object", additionalProperties: { type: "object", properties: { replicas: { type: "integer" }, size: { type: "integer", default: 1 }, template: { type: "object" } } } },
            extra: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
            port: { anyOf: [{ type: "integer" }, { type: "string" }], "x-kubernetes-int-or-string": true },
            groups: { type: "array", items: { type: "object", properties: { name: { type: "string" } } } },
          },
        },
      },
    };
    assert.deepEqual(resolvePath(schema, steps(".spec.roles")), { status: "ok", optional: false, schema: schema.properties!.spec!.properties!.roles });
    const replicas = resolvePath(schema, steps(".spec.roles.Worker.replicas"), embedded);
    assert.equal(replicas.status === "ok" && replicas.optional, true);
    const size = resolvePath(schema, steps(".spec.roles.Worker.size"), embedded);
    assert.equal(size.status === "ok" && size.optional, false, "a field with a default is never absent");
    assert.equal(resolvePath(schema, steps(".spec.roles.Worker.template.spec.containers[0].image"), embedded).status, "ok");
    assert.equal(resolvePath(schema, steps(".spec.roles.Worker.template.spec.container"), embedded).status, "missing");
    assert.equal(resolvePath(schema, steps('.metadata.labels["a"]'), embedded).status, "ok");
    assert.equal(resolvePath(schema, steps(".spec.extra.anything.below"), embedded).status, "open");
    assert.equal(resolvePath(schema, steps(".spec.groups[].name"), embedded).status, "ok");
    const notList = resolvePath(schema, steps(".spec.groups.name"), embedded);
    assert.equal(notList.status === "missing" && notList.reason, "not-object");
    const scalar = resolvePath(schema, steps(".spec.port.value"), embedded);
    assert.equal(scalar.status === "missing" && scalar.reason, "not-object");
  });

  test("an embedded resource has apiVersion, kind and metadata even when its schema leaves them out", () => {
    const schema: OpenApiSchema = {
      type: "object",
      properties: { spec: { type: "object", properties: { job: { type: "object", "x-kubernetes-embedded-resource": true, properties: { spec: { type: "object", properties: { parallelism: { type: "integer" } } } } } } } },
    };
    assert.equal(resolvePath(schema, steps('.spec.job.metadata.labels["a"]'), embedded).status, "ok");
    assert.equal(resolvePath(schema, steps(".spec.job.kind"), embedded).status, "ok");
    assert.equal(resolvePath(schema, steps(".spec.job.spec.parallelism"), embedded).status, "ok");
    assert.equal(resolvePath(schema, steps(".spec.job.status"), embedded).status, "missing");
  });
});
