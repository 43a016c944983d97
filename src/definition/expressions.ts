/**
 * Every jq expression of a Karta, with its field path, its role (which decides the document it runs on)
 * and the component it belongs to, found by walking the definition with the schema table.
 */
import type { PathSegment } from "./diagnostic.js";
import { isPlainObject } from "./decode.js";
import { typeSpec, type FieldType, type JqRole } from "./schema-source.js";
import type { ComponentDefinition, Karta } from "./types.js";

export interface Expression {
  text: string;
  role: JqRole;
  path: PathSegment[];
  /** The component whose definition holds the expression (undefined for optimization instructions). */
  component?: ComponentDefinition;
}

/** Lists the jq expressions of a decoded Karta, in document order. */
export function listExpressions(karta: Karta): Expression[] {
  const out: Expression[] = [];
  walkObject(karta, "Karta", [], undefined, out);
  return out;
}

function walkObject(value: unknown, typeName: string, path: PathSegment[], component: ComponentDefinition | undefined, out: Expression[]): void {
  if (!isPlainObject(value)) return;
  const spec = typeSpec(typeName);
  const owner = typeName === "ComponentDefinition" ? (value as unknown as ComponentDefinition) : component;
  for (const [key, field] of Object.entries(spec.fields)) {
    if (key in value) walkValue(value[key], field.type, [...path, key], owner, out);
  }
}

function walkValue(value: unknown, type: FieldType, path: PathSegment[], component: ComponentDefinition | undefined, out: Expression[]): void {
  switch (type.type) {
    case "string":
      if (type.jq && typeof value === "string") {
        const e: Expression = { text: value, role: type.jq, path };
        if (component) e.component = component;
        out.push(e);
      }
      return;
    case "object":
      walkObject(value, type.ref, path, component, out);
      return;
    case "array":
      if (Array.isArray(value)) value.forEach((item, i) => walkValue(item, type.items, [...path, i], component, out));
      return;
    case "map":
      if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) walkValue(v, type.values, [...path, k], component, out);
      return;
    default:
      return;
  }
}
