/**
 * Which of a program's compile errors jq 1.8.2 reports. jq compiles a program level by level: the
 * main expression, then each closure it creates (a definition's body, an argument passed to a function
 * written in jq), each a level of its own. The closures of a level are compiled only when the level
 * itself had no error (compile() in compile.c), so `path(a), b` reports b and not a, while
 * `path(a) | path(b)` reports both. Arguments of jq's C functions (`has`, `getpath`, `pow`...) are
 * compiled in the caller's level.
 */
import type { Node } from "./ast.js";

/** jq 1.8.2's C functions that take arguments (name/arity): their arguments are not closures. */
const C_FUNCTIONS_WITH_ARGS = new Set(
  [
    "startswith/1", "endswith/1", "split/1", "_strindices/1", "setpath/2", "getpath/1", "delpaths/1", "has/1", "contains/1",
    "_sort_by_impl/1", "_group_by_impl/1", "_unique_by_impl/1", "bsearch/1", "_min_by_impl/1", "_max_by_impl/1", "format/1",
    "halt_error/1", "_match_impl/3", "strptime/1", "strftime/1", "strflocaltime/1", "fma/3",
    ...["atan2", "copysign", "drem", "fdim", "fmax", "fmin", "fmod", "hypot", "jn", "ldexp", "nextafter", "nexttoward", "pow", "remainder", "scalb", "scalbln", "yn"].map((n) => `${n}/2`),
  ],
);

interface Level {
  start: number;
  end: number;
  children: Level[];
  errors: CompileErrorAt[];
}
export interface CompileErrorAt {
  reason: string;
  offset: number;
  end: number;
}

const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && typeof (v as { type?: unknown }).type === "string" && "span" in v;

/** The errors jq reports, in its order: a level's own errors (by position), else those of its closures, level by level. */
export function reportedErrors(ast: Node, errors: CompileErrorAt[]): CompileErrorAt[] {
  const root: Level = { start: -Infinity, end: Infinity, children: [], errors: [] };
  // The functions the program defines, in scope where a call is (a definition shadows a C builtin).
  const defined: string[] = [];
  const visit = (v: unknown, level: Level): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x, level);
      return;
    }
    if (typeof v !== "object" || v === null) return;
    if (!isNode(v)) {
      // Patterns, object entries and the like: their parts.
      for (const x of Object.values(v)) visit(x, level);
      return;
    }
    const closure = (n: Node): void => {
      const child: Level = { start: n.span.start, end: n.span.end, children: [], errors: [] };
      level.children.push(child);
      visit(n, child);
    };
    switch (v.type) {
      case "FuncDef":
        defined.push(`${v.name}/${v.params.length}`);
        closure(v.body);
        visit(v.rest, level);
        defined.pop();
        return;
      case "Call": {
        const key = `${v.name}/${v.args.length}`;
        const inline = C_FUNCTIONS_WITH_ARGS.has(key) && !defined.includes(key);
        for (const a of v.args) {
          if (inline) visit(a, level);
          else closure(a);
        }
        return;
      }
      case "Assign":
        // `=` and `|=` call _assign/_modify with both sides as closures; `+=` and the like evaluate the right side first, inline.
        closure(v.left);
        if (v.op === "=" || v.op === "|=") closure(v.right);
        else visit(v.right, level);
        return;
      default:
        for (const [k, x] of Object.entries(v)) if (k !== "span") visit(x, level);
    }
  };
  visit(ast, root);
  for (const e of errors) {
    let level = root;
    for (;;) {
      const inner = level.children.find((c) => c.start <= e.offset && e.offset < c.end);
      if (!inner) break;
      level = inner;
    }
    level.errors.push(e);
  }
  const out: CompileErrorAt[] = [];
  const report = (level: Level): void => {
    if (level.errors.length > 0) {
      out.push(...level.errors.sort((a, b) => a.offset - b.offset));
      return;
    }
    for (const c of level.children.sort((a, b) => a.start - b.start)) report(c);
  };
  report(root);
  return out;
}
