/**
 * The JSON Schema (for editors: validation and completion of Karta YAML) and the CRD manifest of
 * `kartas.run.ai`, both generated from the schema table, so that they cannot drift from the loader.
 * `schema/karta.schema.json` and `deploy/crd/run.ai_kartas.yaml` are these outputs; a test keeps them equal.
 */
import { stringify } from "yaml";
import { documentOf, KARTA_TYPES, typeSpec, type FieldSpec, type FieldType, type JqRole } from "./schema-source.js";

type Json = { [key: string]: unknown };

const ROLE_NOTE: Record<JqRole, string> = {
  spec: "jq, runs on the workload object",
  fragment: "jq, runs on the workload object; must be an assignable path (it is written back)",
  scale: "jq, runs on the workload object; null-safe where the field is optional (`// 1`)",
  status: "jq, runs on the workload object",
  instanceId: "jq, runs on the workload object",
  action: "jq path, runs on the workload object; assigned to",
  podKey: "jq, runs on the Pod",
  groupKey: "jq, runs on the Pod; a bare word is a literal key",
  filter: "jq, runs on the Pod",
  karmada: "jq, runs on the workload object",
  aggregation: "jq, runs on {object: the resource template, items: the members' AggregatedStatusItems}",
};

function describe(field: FieldSpec, type: FieldType): string {
  const t = type.type === "array" ? type.items : type;
  return t.type === "string" && t.jq ? `${field.doc} (${ROLE_NOTE[t.jq]}.)` : field.doc;
}

/** The JSON Schema (draft-07, understood by editors' YAML language servers) of a Karta document. */
export function kartaJsonSchema(): Json {
  const definitions: Json = {};
  for (const name of Object.keys(KARTA_TYPES)) {
    if (name === "Karta") continue;
    definitions[name] = objectSchema(name, "json");
  }
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "https://run.ai/schemas/karta.schema.json",
    title: "Karta",
    ...objectSchema("Karta", "json"),
    definitions,
  };
}

/** The CRD's openAPIV3Schema: everything inline and structural, as the API server requires. */
export function kartaOpenApiSchema(): Json {
  return objectSchema("Karta", "crd");
}

function objectSchema(name: string, mode: "json" | "crd"): Json {
  const spec = typeSpec(name);
  const properties: Json = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(spec.fields)) {
    properties[key] = { description: describe(field, field.type), ...typeSchema(field.type, mode) };
    if (field.required) required.push(key);
  }
  if (mode === "crd" && name === "Karta") {
    // The API server owns apiVersion, kind and metadata; enums on them do not belong in a CRD.
    properties.apiVersion = { type: "string", description: "run.ai/v1alpha1" };
    properties.kind = { type: "string", description: "Karta" };
    properties.metadata = { type: "object" };
    required.splice(0, required.length, ...required.filter((r) => r === "spec"));
  }
  const out: Json = { type: "object", description: spec.doc, properties };
  if (required.length) out.required = required;
  if (mode === "json" && !spec.open) out.additionalProperties = false;
  if (mode === "crd" && name === "ComponentTypeSelector") {
    out["x-kubernetes-validations"] = [
      { rule: "has(self.keyPath) || has(self.matchLabels)", message: "at least one of keyPath or matchLabels must be set" },
      { rule: "!has(self.value) || has(self.keyPath)", message: "value requires keyPath" },
    ];
  }
  return out;
}

function typeSchema(type: FieldType, mode: "json" | "crd"): Json {
  switch (type.type) {
    case "string": {
      const s: Json = { type: "string" };
      if (type.enum) s.enum = [...type.enum];
      if (type.minLength !== undefined) s.minLength = type.minLength;
      if (type.default !== undefined) s.default = type.default;
      return s;
    }
    case "integer":
      return { type: "integer", ...(mode === "crd" ? { format: "int64" } : {}) };
    case "boolean":
      return { type: "boolean" };
    case "any":
      return mode === "crd" ? { "x-kubernetes-preserve-unknown-fields": true } : {};
    case "object":
      return mode === "json" ? { $ref: `#/definitions/${type.ref}` } : objectSchema(type.ref, mode);
    case "array": {
      const s: Json = { type: "array", items: typeSchema(type.items, mode) };
      if (type.minItems !== undefined) s.minItems = type.minItems;
      if (mode === "crd") {
        if (type.listMapKey) {
          s["x-kubernetes-list-type"] = "map";
          s["x-kubernetes-list-map-keys"] = [type.listMapKey].flat();
        } else if (type.listType) s["x-kubernetes-list-type"] = type.listType;
      } else if (type.listType === "set") s.uniqueItems = true;
      return s;
    }
    case "map": {
      const s: Json = { type: "object", additionalProperties: typeSchema(type.values, mode) };
      if (type.minProperties !== undefined) s.minProperties = type.minProperties;
      return s;
    }
  }
}

/**
 * The CustomResourceDefinition of kartas.run.ai, with the reference CRD's names, scope and printer columns, and
 * the recommended labels the chart's and deploy/'s other objects carry (app.kubernetes.io/name is the application's).
 */
export function kartaCrdManifest(): Json {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "kartas.run.ai", labels: { "app.kubernetes.io/name": "karta", "app.kubernetes.io/component": "crd", "app.kubernetes.io/part-of": "karta" } },
    spec: {
      group: "run.ai",
      names: { kind: "Karta", listKind: "KartaList", plural: "kartas", singular: "karta", shortNames: ["krt"] },
      scope: "Cluster",
      versions: [
        {
          name: "v1alpha1",
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Framework", type: "string", description: "Target framework kind", jsonPath: ".spec.structureDefinition.rootComponent.kind.kind" },
            { name: "Root Component", type: "string", description: "Root component name", jsonPath: ".spec.structureDefinition.rootComponent.name" },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: { openAPIV3Schema: kartaOpenApiSchema() },
        },
      ],
    },
  };
}

/** The texts of the generated files, by path relative to the repository root. */
export function generatedSchemaFiles(): Record<string, string> {
  const crd = "# Generated from src/definition/schema-source.ts; do not edit (see test/definition/schema.test.ts).\n" + stringify(kartaCrdManifest(), { lineWidth: 0 });
  return {
    "schema/karta.schema.json": JSON.stringify(kartaJsonSchema(), null, 2) + "\n",
    "deploy/crd/run.ai_kartas.yaml": crd,
    // The Helm chart's copy: a chart can read only files inside it.
    "charts/karta/files/run.ai_kartas.yaml": crd,
  };
}

/** The jq fields of the schema with the document they run on, for documentation. */
export function jqFieldTable(): { type: string; field: string; role: JqRole; document: "workload" | "pod" | "aggregation" }[] {
  const out: { type: string; field: string; role: JqRole; document: "workload" | "pod" | "aggregation" }[] = [];
  for (const [name, spec] of Object.entries(KARTA_TYPES)) {
    for (const [field, f] of Object.entries(spec.fields)) {
      const t = f.type.type === "array" ? f.type.items : f.type;
      if (t.type === "string" && t.jq) out.push({ type: name, field, role: t.jq, document: documentOf(t.jq) });
    }
  }
  return out;
}
