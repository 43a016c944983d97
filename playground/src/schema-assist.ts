/**
 * Completion and hover for the Karta editor from the JSON Schema (schema/karta.schema.json): the
 * field path at the cursor is worked out from the text itself (indentation for YAML, a tolerant
 * scan for JSON), so it works on the half-typed documents an editor holds, which no parser accepts.
 */

/** The subset of JSON Schema draft-07 the Karta schema uses. */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  required?: string[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  definitions?: Record<string, JsonSchema>;
}

export type PathSegment = string | number;

/** Follows `$ref`s and merges `allOf`/`oneOf`/`anyOf` alternatives into one view of a node. */
export function deref(root: JsonSchema, node: JsonSchema | undefined, depth = 0): JsonSchema | undefined {
  if (!node || depth > 20) return node;
  let n = node;
  if (n.$ref?.startsWith("#/definitions/")) {
    const target = root.definitions?.[n.$ref.slice("#/definitions/".length)];
    const resolved = deref(root, target, depth + 1);
    n = { ...resolved, ...n, description: n.description ?? resolved?.description };
    delete n.$ref;
  }
  const alternatives = [...(n.allOf ?? []), ...(n.oneOf ?? []), ...(n.anyOf ?? [])];
  if (alternatives.length === 0) return n;
  const merged: JsonSchema = { ...n, properties: { ...(n.properties ?? {}) } };
  for (const alt of alternatives) {
    const a = deref(root, alt, depth + 1);
    if (!a) continue;
    Object.assign(merged.properties!, a.properties ?? {});
    merged.type ??= a.type;
    merged.items ??= a.items;
    merged.enum ??= a.enum;
  }
  return merged;
}

/** The schema of the field at `path`, or undefined where the schema does not describe it. */
export function schemaAt(root: JsonSchema, path: readonly PathSegment[]): JsonSchema | undefined {
  let node = deref(root, root);
  for (const seg of path) {
    if (!node) return undefined;
    if (typeof seg === "number") node = deref(root, node.items);
    else node = deref(root, node.properties?.[seg] ?? (typeof node.additionalProperties === "object" ? node.additionalProperties : undefined));
  }
  return node;
}

/** A short type text: `string`, `array of ComponentDefinition`, `"Pending" | "Running"`. */
export function typeText(root: JsonSchema, raw: JsonSchema | undefined): string {
  if (!raw) return "";
  const name = raw.$ref?.replace("#/definitions/", "");
  const n = deref(root, raw);
  if (!n) return name ?? "";
  if (n.enum) return n.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (n.type === "array" || (n.items && !n.type)) return `array of ${typeText(root, n.items) || "items"}`;
  if (name) return name;
  return Array.isArray(n.type) ? n.type.join(" | ") : (n.type ?? "");
}

/** What is being typed at the cursor. */
export interface CursorContext {
  /** The path of the object whose key (mode `key`) or of the field whose value (mode `value`) is at the cursor. */
  path: PathSegment[];
  mode: "key" | "value";
  /** The part of the key or value already typed, and where it starts. */
  partial: string;
  from: number;
  /** Keys already present in the object (mode `key`). */
  present: string[];
}

interface LineInfo {
  /** Column of the key (after indentation and `- ` markers). */
  keyColumn: number;
  /** Columns of the `- ` markers on the line. */
  dashes: number[];
  /** The key, when the line is `key:` or `key: value`. */
  key?: string;
  /** Whether the line opens a nested block (`key:` with nothing after it). */
  opens: boolean;
}

const KEY_LINE = /^([A-Za-z0-9_.$/-]+|"[^"]*"|'[^']*')\s*:(?:\s+(.*))?$/;

function lineInfo(line: string): LineInfo | undefined {
  if (/^\s*(#.*)?$/.test(line) || /^\s*(---|\.\.\.)\s*$/.test(line)) return undefined;
  let i = 0;
  while (line[i] === " ") i++;
  const dashes: number[] = [];
  while (line[i] === "-" && (line[i + 1] === " " || i + 1 === line.length)) {
    dashes.push(i);
    i += 1;
    while (line[i] === " ") i++;
  }
  const rest = line.slice(i).replace(/\s+#.*$/, "");
  const m = KEY_LINE.exec(rest);
  if (!m) return { keyColumn: i, dashes, opens: false };
  const key = m[1]!.replace(/^["']|["']$/g, "");
  const value = (m[2] ?? "").trim();
  return { keyColumn: i, dashes, key, opens: value === "" || /^[|>]/.test(value) };
}

/** The path of the mapping that a key at `column` on line `index` belongs to (YAML, by indentation). */
function yamlParentPath(lines: readonly string[], index: number, column: number, inSequence: boolean): { path: PathSegment[]; siblings: string[] } {
  const path: PathSegment[] = [];
  const siblings: string[] = [];
  let c = column;
  let seq = inSequence;
  let collecting = !inSequence;
  for (let i = index - 1; i >= 0; i--) {
    const info = lineInfo(lines[i]!);
    if (!info) continue;
    const k = info.keyColumn;
    if (!seq && k === c) {
      if (collecting && info.key !== undefined) siblings.push(info.key);
      // The first line of a sequence item: the mapping is the item.
      const dash = info.dashes[info.dashes.length - 1];
      if (dash !== undefined) {
        path.unshift(0);
        c = dash;
        seq = true;
        collecting = false;
      }
      continue;
    }
    if (seq && k <= c && info.dashes.length > 0 && info.dashes[info.dashes.length - 1]! === c) continue; // an earlier item
    if ((seq ? k <= c : k < c) && info.key !== undefined && info.opens) {
      path.unshift(info.key);
      const dash = info.dashes[info.dashes.length - 1];
      if (dash !== undefined) {
        path.unshift(0);
        c = dash;
        seq = true;
      } else {
        c = k;
        seq = false;
      }
      collecting = false;
      if (c === 0 && !seq) break;
    }
  }
  return { path, siblings };
}

/** The YAML context at `pos`. */
export function yamlContext(text: string, pos: number): CursorContext | undefined {
  const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
  const lineEnd = text.indexOf("\n", pos) === -1 ? text.length : text.indexOf("\n", pos);
  const lines = text.slice(0, lineStart).split("\n");
  lines.pop();
  const before = text.slice(lineStart, pos);
  const after = text.slice(pos, lineEnd);
  const keyTyping = /^(\s*)((?:-\s+)*)([A-Za-z0-9_.$-]*)$/.exec(before);
  if (keyTyping && !/^\s*[A-Za-z0-9_.$-]*\s*:\s*\S/.test(keyTyping[3] + after)) {
    const column = keyTyping[1]!.length + keyTyping[2]!.length;
    const dashes = keyTyping[2]!.length > 0;
    const { path, siblings } = yamlParentPath(lines, lines.length, dashes ? keyTyping[1]!.length + keyTyping[2]!.replace(/-\s+$/, "").length : column, dashes);
    if (dashes) path.push(0);
    return { path, mode: "key", partial: keyTyping[3]!, from: pos - keyTyping[3]!.length, present: dashes ? [] : siblings };
  }
  const valueTyping = /^(\s*)((?:-\s+)*)([A-Za-z0-9_.$-]+)\s*:\s*(["']?)([^"'#]*)$/.exec(before);
  if (valueTyping) {
    const column = valueTyping[1]!.length + valueTyping[2]!.length;
    const dashes = valueTyping[2]!.length > 0;
    const { path } = yamlParentPath(lines, lines.length, dashes ? valueTyping[1]!.length + valueTyping[2]!.replace(/-\s+$/, "").length : column, dashes);
    if (dashes) path.push(0);
    path.push(valueTyping[3]!);
    return { path, mode: "value", partial: valueTyping[5]!, from: pos - valueTyping[5]!.length, present: [] };
  }
  return undefined;
}

/** The JSON context at `pos`, by a scan that tolerates unfinished text. */
export function jsonContext(text: string, pos: number): CursorContext | undefined {
  interface Frame {
    type: "object" | "array";
    key?: PathSegment;
    index: number;
    pendingKey?: string;
    afterColon: boolean;
    keys: string[];
  }
  const stack: Frame[] = [];
  let lastString: { value: string; start: number } | undefined;
  let i = 0;
  let inString = false;
  let stringStart = 0;
  while (i < pos) {
    const ch = text[i]!;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') {
        inString = false;
        lastString = { value: text.slice(stringStart + 1, i), start: stringStart };
        const top = stack[stack.length - 1];
        if (top?.type === "object" && !top.afterColon) top.pendingKey = lastString.value;
      }
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (ch === '"') {
      inString = true;
      stringStart = i;
    } else if (ch === "{" || ch === "[") {
      const key: PathSegment | undefined = top ? (top.type === "array" ? top.index : top.pendingKey) : undefined;
      stack.push({ type: ch === "{" ? "object" : "array", ...(key !== undefined ? { key } : {}), index: 0, afterColon: false, keys: [] });
    } else if (ch === "}" || ch === "]") {
      stack.pop();
      const parent = stack[stack.length - 1];
      if (parent?.type === "object") parent.afterColon = false;
    } else if (ch === ":" && top?.type === "object") {
      top.afterColon = true;
      if (top.pendingKey !== undefined) top.keys.push(top.pendingKey);
    } else if (ch === "," && top) {
      if (top.type === "array") top.index++;
      else {
        top.afterColon = false;
        delete top.pendingKey;
      }
    }
    i++;
  }
  const top = stack[stack.length - 1];
  if (!top) return undefined;
  const path = stack.slice(1).map((f) => f.key ?? 0);
  const partial = inString ? text.slice(stringStart + 1, pos) : "";
  const from = inString ? stringStart : pos;
  if (top.type === "object" && !top.afterColon) return { path, mode: "key", partial, from, present: top.keys };
  if (top.type === "object" && top.pendingKey !== undefined) return { path: [...path, top.pendingKey], mode: "value", partial, from, present: [] };
  return undefined;
}

/** A completion offered at the cursor. */
export interface SchemaCompletion {
  label: string;
  detail: string;
  info: string;
  /** The text inserted (YAML: `key: `; JSON: `"key": `). */
  apply: string;
}

/** Completions from the schema for a context. */
export function completionsFor(root: JsonSchema, ctx: CursorContext, json: boolean): SchemaCompletion[] {
  const node = schemaAt(root, ctx.path);
  if (!node) return [];
  if (ctx.mode === "key") {
    const required = new Set(node.required ?? []);
    return Object.entries(node.properties ?? {})
      .filter(([k]) => !ctx.present.includes(k) || k === ctx.partial)
      .map(([k, v]) => {
        const child = deref(root, v);
        const compound = child?.type === "object" || child?.type === "array" || !!child?.properties;
        return {
          label: k,
          detail: `${typeText(root, v)}${required.has(k) ? " (required)" : ""}`,
          info: child?.description ?? "",
          apply: json ? `"${k}": ` : compound ? `${k}:\n` : `${k}: `,
        };
      });
  }
  const values = node.enum ?? (node.type === "boolean" ? [true, false] : []);
  return values.map((v) => ({ label: String(v), detail: typeText(root, node), info: node.description ?? "", apply: json ? JSON.stringify(v) : String(v) }));
}

/** The key under `pos` and its field path, for hover. */
export function keyAt(text: string, pos: number, json: boolean): { key: string; path: PathSegment[]; from: number; to: number } | undefined {
  const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
  const lineEnd = text.indexOf("\n", pos) === -1 ? text.length : text.indexOf("\n", pos);
  const line = text.slice(lineStart, lineEnd);
  if (!json) {
    const info = lineInfo(line);
    if (!info?.key) return undefined;
    const quoted = line[info.keyColumn] === '"' || line[info.keyColumn] === "'" ? 1 : 0;
    const from = lineStart + info.keyColumn + quoted;
    const to = from + info.key.length;
    if (pos < from || pos > to) return undefined;
    const lines = text.slice(0, lineStart).split("\n");
    lines.pop();
    const dash = info.dashes[info.dashes.length - 1];
    const { path } = yamlParentPath(lines, lines.length, dash ?? info.keyColumn, dash !== undefined);
    if (dash !== undefined) path.push(0);
    return { key: info.key, path, from, to };
  }
  const re = /"([^"\\]+)"\s*:/g;
  for (let m = re.exec(line); m; m = re.exec(line)) {
    const key = m[1]!;
    const from = lineStart + m.index + 1;
    const to = from + key.length;
    if (pos < from - 1 || pos > to + 1) continue;
    const ctx = jsonContext(text, from - 1);
    if (!ctx || ctx.mode !== "key") return undefined;
    return { key, path: [...ctx.path], from, to };
  }
  return undefined;
}

/** The hover text of a key: its path, type, whether required, and the schema's description. */
export function hoverFor(root: JsonSchema, hit: { key: string; path: PathSegment[] }): { title: string; type: string; description: string } | undefined {
  const parent = schemaAt(root, hit.path);
  const raw = parent?.properties?.[hit.key] ?? (typeof parent?.additionalProperties === "object" ? parent.additionalProperties : undefined);
  if (!raw) return undefined;
  const node = deref(root, raw);
  const required = parent?.required?.includes(hit.key) ? " (required)" : "";
  const path = [...hit.path, hit.key].map((s, i) => (typeof s === "number" ? "[]" : i === 0 ? s : `.${s}`)).join("");
  return { title: path, type: `${typeText(root, raw)}${required}`, description: node?.description ?? "" };
}
