/**
 * Loading Karta definitions from YAML or JSON text. Accepted shapes, all normalised to a Karta:
 * a full `Karta` (run.ai/v1alpha1), a `List` of them, a Karta without apiVersion/kind (`spec:` only),
 * a bare spec (`structureDefinition:` ...) and the seed's fragment style (top-level `rootComponent:`,
 * `childComponents:`, `additionalChildKinds:`, `optimizationInstructions:`).
 * Every field keeps its source position.
 */
import { formatPath, type Diagnostic, type PathSegment, type SourcePosition } from "./diagnostic.js";
import { decodeObject, isPlainObject, type DecodeIssue } from "./decode.js";
import { KARTA_API_VERSION, KARTA_KIND, type Karta } from "./types.js";
import { newLineCounter, parseSourceDocuments, scalarOffset, SourceMap } from "./yaml-source.js";

/** How a definition was written. */
export type DefinitionShape = "Karta" | "List" | "spec" | "fragment";

/** A loaded definition: the typed Karta and where each of its fields came from. */
export interface Definition {
  karta: Karta;
  file: string;
  /** Index of the YAML document in the file (0-based). */
  document: number;
  shape: DefinitionShape;
  /** The source position of a Karta field (or of its closest ancestor present in the source). */
  locate(path: readonly PathSegment[], options?: { atKey?: boolean }): SourcePosition | undefined;
  /** The source position of character `index` of the string value at `path` (for positions inside jq). */
  locateInValue(path: readonly PathSegment[], index: number): SourcePosition | undefined;
}

export interface LoadResult {
  definitions: Definition[];
  /** Syntax errors, documents that are not Kartas, unknown fields and values of the wrong type. */
  diagnostics: Diagnostic[];
}

const FRAGMENT_KEYS: Record<string, PathSegment[]> = {
  rootComponent: ["spec", "structureDefinition", "rootComponent"],
  childComponents: ["spec", "structureDefinition", "childComponents"],
  additionalChildKinds: ["spec", "structureDefinition", "additionalChildKinds"],
  optimizationInstructions: ["spec", "optimizationInstructions"],
};

/** Loads every definition in `text` (YAML, several documents allowed, or JSON). Never throws. */
export function loadDefinitions(text: string, file: string): LoadResult {
  const definitions: Definition[] = [];
  const diagnostics: Diagnostic[] = [];
  const docs = parseSourceDocuments(text, file);
  docs.forEach((doc, index) => {
    const docPosition = (): SourcePosition => ({ file, ...doc.sourceMap.lineColumn(doc.offset) });
    for (const e of doc.errors) {
      diagnostics.push({ severity: "error", path: "", message: e.message, source: { file, ...doc.sourceMap.lineColumn(e.offset) }, code: e.duplicateKey ? "duplicate-key" : "yaml" });
    }
    if (doc.errors.length > 0 || doc.value === undefined || doc.value === null) return;
    const value = doc.value;
    if (!isPlainObject(value)) {
      diagnostics.push({ severity: "error", path: "", message: notAKarta("the document is not a mapping"), source: docPosition(), code: "shape" });
      return;
    }
    if (value.kind === "List" || value.kind === "KartaList") {
      const items = value.items;
      if (!Array.isArray(items)) {
        diagnostics.push({ severity: "error", path: "items", message: "a List needs items", source: docPosition(), code: "shape" });
        return;
      }
      items.forEach((item, i) => {
        const prefix: PathSegment[] = ["items", i];
        addDefinition(item, "List", doc.sourceMap, index, (p) => [...prefix, ...p], definitions, diagnostics);
      });
      return;
    }
    addDefinition(value, undefined, doc.sourceMap, index, (p) => p, definitions, diagnostics);
  });
  return { definitions, diagnostics };
}

function notAKarta(why: string): string {
  return `not a Karta (${why}): expected a Karta object, a List of them, a spec (structureDefinition: ...) or a fragment (rootComponent: ...)`;
}

/**
 * Normalises one object to a Karta and decodes it. `inDocument` maps a path of the object (as written)
 * to its path in the YAML document.
 */
function addDefinition(
  value: unknown,
  listShape: DefinitionShape | undefined,
  sourceMap: SourceMap,
  document: number,
  inDocument: (p: PathSegment[]) => PathSegment[],
  definitions: Definition[],
  diagnostics: Diagnostic[],
): void {
  const file = sourceMap.file;
  const report = (d: Diagnostic): void => {
    if (d.source === undefined) delete d.source;
    diagnostics.push(d);
  };
  const position = (docPath: PathSegment[], atKey = false): SourcePosition | undefined => {
    const found = sourceMap.find(docPath);
    if (!found) return undefined;
    const offset = atKey && found.exact && found.location.keyOffset !== undefined ? found.location.keyOffset : found.location.valueOffset;
    return { file, ...sourceMap.lineColumn(offset) };
  };
  if (!isPlainObject(value)) {
    report({ severity: "error", path: "", message: notAKarta("not a mapping"), source: position(inDocument([])), code: "shape" });
    return;
  }
  let raw: Record<string, unknown>;
  let shape: DefinitionShape;
  // Maps a path of the normalised Karta to its path as written.
  let written: (p: PathSegment[]) => PathSegment[] | undefined;
  if ("apiVersion" in value || "kind" in value || "spec" in value) {
    shape = listShape ?? ("apiVersion" in value || "kind" in value ? "Karta" : "spec");
    if (value.kind === "ResourceInterface" || (typeof value.apiVersion === "string" && value.apiVersion.startsWith("optimization.nvidia.com/"))) {
      report({
        severity: "error",
        path: "kind",
        message: "ResourceInterface (optimization.nvidia.com/v1alpha1) is the former name of Karta: write apiVersion: run.ai/v1alpha1 and kind: Karta",
        source: position(inDocument(["kind"])),
        code: "shape",
      });
      return;
    }
    if ("kind" in value && value.kind !== KARTA_KIND) {
      report({
        severity: "error",
        path: "kind",
        message: notAKarta(`kind is ${JSON.stringify(value.kind)}`),
        source: position(inDocument(["kind"])),
        code: "shape",
      });
      return;
    }
    // A Karta written without apiVersion/kind (the seed's examples) is taken as one.
    raw = { apiVersion: KARTA_API_VERSION, kind: KARTA_KIND, ...value };
    written = (p) => p;
  } else if ("structureDefinition" in value || ("optimizationInstructions" in value && !("rootComponent" in value || "childComponents" in value))) {
    shape = listShape ?? "spec";
    raw = { apiVersion: KARTA_API_VERSION, kind: KARTA_KIND, spec: value };
    written = (p) => (p[0] === "spec" ? p.slice(1) : undefined);
  } else if (Object.keys(FRAGMENT_KEYS).some((k) => k in value)) {
    shape = listShape ?? "fragment";
    const spec: Record<string, unknown> = {};
    const structure: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const target = FRAGMENT_KEYS[key];
      if (!target) {
        // Unknown top-level keys of a fragment are reported as unknown fields of the structure definition.
        structure[key] = v;
      } else if (target.length === 3) structure[key] = v;
      else spec[key] = v;
    }
    spec.structureDefinition = structure;
    raw = { apiVersion: KARTA_API_VERSION, kind: KARTA_KIND, spec };
    written = (p) => {
      if (p[0] !== "spec") return undefined;
      if (p[1] === "optimizationInstructions") return p.slice(1);
      if (p[1] === "structureDefinition" && p.length >= 3) return p.slice(2);
      return p.length === 1 ? [] : undefined;
    };
  } else {
    report({ severity: "error", path: "", message: notAKarta("no spec, structureDefinition or rootComponent"), source: position(inDocument([])), code: "shape" });
    return;
  }

  const toDocument = (p: readonly PathSegment[]): PathSegment[] => {
    // Fall back to the closest ancestor that exists as written.
    for (let n = p.length; n >= 0; n--) {
      const w = written(p.slice(0, n) as PathSegment[]);
      if (w) return inDocument([...w, ...p.slice(n)]);
    }
    return inDocument([]);
  };
  const issues: DecodeIssue[] = [];
  const decoded = decodeObject(raw, "Karta", [], issues);
  for (const issue of issues) {
    // A root kind without group/version/kind is reported by the rule, in the reference's words.
    if (issue.diagnostic.code === "required-field" && issue.diagnostic.path === "spec.structureDefinition.rootComponent.kind") continue;
    report({ ...issue.diagnostic, source: position(toDocument(issue.path), issue.atKey) });
  }
  if (!decoded) return;
  definitions.push({
    karta: decoded as unknown as Karta,
    file,
    document,
    shape,
    locate: (p, options) => position(toDocument(p), options?.atKey),
    locateInValue: (p, index) => {
      const docPath = toDocument(p);
      const found = sourceMap.find(docPath);
      if (!found) return undefined;
      const offset = found.exact ? scalarOffset(found.location, index) : found.location.valueOffset;
      return { file, ...sourceMap.lineColumn(offset) };
    },
  });
}

/**
 * Loads a Karta given as a plain value (e.g. an object read from the Kubernetes API): the same shapes,
 * decoding and diagnostics as {@link loadDefinitions}, without source positions.
 */
export function loadDefinitionValue(value: unknown, file = "<object>"): LoadResult {
  const definitions: Definition[] = [];
  const diagnostics: Diagnostic[] = [];
  const sourceMap = new SourceMap(file, newLineCounter());
  if (isPlainObject(value) && (value.kind === "List" || value.kind === "KartaList") && Array.isArray(value.items)) {
    value.items.forEach((item, i) => addDefinition(item, "List", sourceMap, 0, (p) => ["items", i, ...p], definitions, diagnostics));
  } else addDefinition(value, undefined, sourceMap, 0, (p) => p, definitions, diagnostics);
  return { definitions, diagnostics };
}

/** A definition built in code (no source file, not decoded): positions are unknown. */
export function definitionFromObject(karta: Karta, file = "<memory>"): Definition {
  return { karta, file, document: 0, shape: "Karta", locate: () => undefined, locateInValue: () => undefined };
}

/** The formatted path, re-exported for callers building diagnostics on a definition. */
export { formatPath };
