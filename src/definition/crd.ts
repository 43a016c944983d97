/**
 * CustomResourceDefinition manifests, read for their `openAPIV3Schema` per version, so that a Karta's
 * workload-side paths can be checked against the real fields of the kind they describe.
 */
import type { Diagnostic } from "./diagnostic.js";
import { isPlainObject } from "./decode.js";
import type { OpenApiSchema } from "./openapi.js";
import type { GroupVersionKind } from "./types.js";
import { parseSourceDocuments } from "./yaml-source.js";

export interface CrdVersion {
  name: string;
  schema?: OpenApiSchema;
}

/** What a CRD manifest says about one kind. */
export interface CrdDefinition {
  /** metadata.name, e.g. pytorchjobs.kubeflow.org */
  name: string;
  group: string;
  kind: string;
  versions: CrdVersion[];
  file: string;
}

/**
 * Reads the CRDs in a YAML/JSON text (several documents, or a List). Other objects are reported as notices;
 * with `required` (a file named on the command line, not one met in a directory), a text without any CRD is an error.
 */
export function loadCrds(text: string, file: string, options: { required?: boolean } = {}): { crds: CrdDefinition[]; diagnostics: Diagnostic[] } {
  const crds: CrdDefinition[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const doc of parseSourceDocuments(text, file)) {
    for (const e of doc.errors) diagnostics.push({ severity: "error", path: "", message: e.message, source: { file, ...doc.sourceMap.lineColumn(e.offset) }, code: e.duplicateKey ? "duplicate-key" : "yaml" });
    if (doc.errors.length > 0 || doc.value == null) continue;
    const objects = isPlainObject(doc.value) && Array.isArray(doc.value.items) ? doc.value.items : [doc.value];
    for (const o of objects) {
      const crd = crdOf(o, file);
      if (crd) crds.push(crd);
      else {
        diagnostics.push({
          severity: "notice",
          path: "",
          message: `not a CustomResourceDefinition (kind ${isPlainObject(o) ? JSON.stringify(o.kind) : "?"}); skipped`,
          source: { file, ...doc.sourceMap.lineColumn(doc.offset) },
          code: "crd",
        });
      }
    }
  }
  if (options.required && crds.length === 0 && !diagnostics.some((d) => d.severity === "error")) {
    diagnostics.push({ severity: "error", path: "", message: "no CustomResourceDefinition found (a --crd file holds CRD manifests)", source: { file, line: 1, column: 1 }, code: "crd" });
  }
  return { crds, diagnostics };
}

function crdOf(o: unknown, file: string): CrdDefinition | undefined {
  if (!isPlainObject(o) || o.kind !== "CustomResourceDefinition" || !isPlainObject(o.spec)) return undefined;
  const spec = o.spec;
  const names = isPlainObject(spec.names) ? spec.names : {};
  const group = typeof spec.group === "string" ? spec.group : "";
  const kind = typeof names.kind === "string" ? names.kind : "";
  const name = isPlainObject(o.metadata) && typeof o.metadata.name === "string" ? o.metadata.name : `${kind}.${group}`;
  // apiextensions v1beta1 had one schema for all versions.
  const shared = isPlainObject(spec.validation) && isPlainObject(spec.validation.openAPIV3Schema) ? (spec.validation.openAPIV3Schema as OpenApiSchema) : undefined;
  const versions: CrdVersion[] = [];
  if (Array.isArray(spec.versions)) {
    for (const v of spec.versions) {
      if (!isPlainObject(v) || typeof v.name !== "string") continue;
      const s = isPlainObject(v.schema) && isPlainObject(v.schema.openAPIV3Schema) ? (v.schema.openAPIV3Schema as OpenApiSchema) : shared;
      versions.push(s ? { name: v.name, schema: s } : { name: v.name });
    }
  } else if (typeof spec.version === "string") {
    versions.push(shared ? { name: spec.version, schema: shared } : { name: spec.version });
  }
  return { name, group, kind, versions, file };
}

/** The CRDs given to the validator, looked up by group and kind. */
export class CrdIndex {
  private readonly byGroupKind = new Map<string, CrdDefinition>();
  constructor(crds: readonly CrdDefinition[]) {
    for (const c of crds) this.byGroupKind.set(`${c.group}/${c.kind}`, c);
  }

  get size(): number {
    return this.byGroupKind.size;
  }

  /** The schema for a GVK, or why there is none. */
  schemaFor(gvk: GroupVersionKind): { schema: OpenApiSchema; crd: CrdDefinition } | { problem: string; crd?: CrdDefinition } {
    const crd = this.byGroupKind.get(`${gvk.group}/${gvk.kind}`);
    if (!crd) return { problem: `no CRD given for ${gvk.kind}.${gvk.group}` };
    const version = crd.versions.find((v) => v.name === gvk.version);
    if (!version) {
      return { problem: `CRD ${crd.name} has no version ${gvk.version} (it has ${crd.versions.map((v) => v.name).join(", ") || "none"})`, crd };
    }
    if (!version.schema) return { problem: `CRD ${crd.name} has no openAPIV3Schema for version ${gvk.version}`, crd };
    return { schema: version.schema, crd };
  }
}
