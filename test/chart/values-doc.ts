/**
 * The documentation of the chart's values: every value of charts/karta/values.yaml has a `# -- ...`
 * comment above it (a map documented as a whole needs none inside), and charts/karta/README.md lists
 * them in the table between its `values` markers, which this module generates.
 */
import { parse } from "yaml";

/** One documented value: its dotted key, its default (JSON) and its description. */
export interface ValueDoc {
  key: string;
  default: string;
  description: string;
}

/**
 * The documented values in file order, and the keys that are neither documented nor a map of
 * documented values.
 */
export function documentedValues(text: string): { values: ValueDoc[]; undocumented: string[] } {
  const parsed = parse(text) as Record<string, unknown>;
  const values: ValueDoc[] = [];
  const undocumented: string[] = [];
  const stack: { indent: number; key: string }[] = [];
  let pending: string[] | undefined;
  const lines = text.split("\n");
  for (const line of lines) {
    const comment = /^(\s*)# ?(.*)$/.exec(line);
    if (comment) {
      if (comment[2]!.startsWith("-- ")) pending = [comment[2]!.slice(3)];
      else if (pending) pending.push(comment[2]!);
      continue;
    }
    const key = /^(\s*)([A-Za-z0-9_]+):/.exec(line);
    if (!key) {
      if (line.trim() !== "" && !line.trim().startsWith("-")) pending = undefined;
      continue;
    }
    const indent = key[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    // Inside a value documented as a whole: its keys are its default, not values of their own.
    if (stack.some((s) => s.key.startsWith("="))) {
      pending = undefined;
      continue;
    }
    const path = [...stack.map((s) => s.key), key[2]!];
    const value = path.reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], parsed);
    const isGroup = value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0;
    if (pending) {
      values.push({ key: path.join("."), default: JSON.stringify(value), description: pending.join(" ") });
      stack.push({ indent, key: `=${key[2]!}` });
    } else if (isGroup) stack.push({ indent, key: key[2]! });
    else undocumented.push(path.join("."));
    pending = undefined;
  }
  return { values, undocumented };
}

/** The README's table of values. */
export function valuesTable(values: readonly ValueDoc[]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  return ["| Value | Default | Description |", "|---|---|---|", ...values.map((v) => `| \`${v.key}\` | \`${cell(v.default)}\` | ${cell(v.description)} |`)].join("\n");
}
