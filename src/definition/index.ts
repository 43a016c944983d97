/**
 * Karta definitions: the typed model, loading (YAML/JSON, every accepted shape, with source positions),
 * validation with the reference validator's messages, lint, CRD path checking, and the generated
 * JSON Schema and CRD manifest.
 */
export * from "./types.js";
export { formatDiagnostic, formatPath, sortDiagnostics, countSeverities, hasSyntaxErrors } from "./diagnostic.js";
export type { Diagnostic, Severity, SourcePosition, PathSegment } from "./diagnostic.js";
export { loadDefinitions, loadDefinitionValue, definitionFromObject } from "./load.js";
export type { Definition, DefinitionShape, LoadResult } from "./load.js";
export { validateDefinition, validateText, checkKarta } from "./validate.js";
export type { ValidateOptions } from "./validate.js";
export type { Finding } from "./finding.js";
export { loadCrds, CrdIndex } from "./crd.js";
export type { CrdDefinition, CrdVersion } from "./crd.js";
export { listExpressions } from "./expressions.js";
export type { Expression } from "./expressions.js";
export { analyze, nonAssignablePart, formatSteps } from "./jq-analysis.js";
export type { Analysis, Read, Step } from "./jq-analysis.js";
export { resolvePath } from "./openapi.js";
export type { OpenApiSchema, Resolution } from "./openapi.js";
export { POD_SCHEMA, POD_TEMPLATE_SPEC, OBJECT_META } from "./pod-schema.js";
export { KARTA_TYPES, documentOf } from "./schema-source.js";
export type { JqRole, FieldType, FieldSpec, ObjectSpec } from "./schema-source.js";
export { kartaJsonSchema, kartaOpenApiSchema, kartaCrdManifest, generatedSchemaFiles } from "./json-schema.js";
export {
  LABEL_GROUP,
  LABEL_VERSION,
  LABEL_KIND,
  rootGroupVersionKind,
  sameGroupVersionKind,
  managedLabels,
  checkManagedLabels,
  checkRootKindUnchanged,
  checkUniqueRoot,
  duplicateRootMessage,
} from "./cluster-rules.js";
export type { KartaLike } from "./cluster-rules.js";
