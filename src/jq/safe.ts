/**
 * The safe profile: what the reference Karta validator refuses in a definition's jq expressions.
 * Karta expressions only read; they must not write (assignment, `del`) nor walk or generate without
 * bound (`..`, `range`, `paths`, `recurse`, `walk`, `repeat`), including inside `def` bodies.
 */
import type { Node, Pattern } from "./ast.js";

/** The builtins the safe profile refuses. */
export const UNSAFE_FUNCTIONS: ReadonlySet<string> = new Set(["del", "range", "paths", "recurse", "walk", "repeat"]);

/** The first node (in source order) that makes the expression unsafe, with the reason. */
export function findUnsafe(node: Node): { node: Node; reason: string } | undefined {
  let found: { node: Node; reason: string } | undefined;
  visit(node, (n) => {
    if (found) return;
    // The reference validator's words (pkg/jq/validation.go of upstream Karta).
    if (n.type === "Assign") found = { node: n, reason: `modifying operator '${n.op}' is not allowed` };
    else if (n.type === "RecurseDefault") found = { node: n, reason: "recursive descent operator '..' is not allowed" };
    else if (n.type === "Call" && n.name === "del") found = { node: n, reason: "del function is not allowed" };
    else if (n.type === "Call" && UNSAFE_FUNCTIONS.has(n.name)) found = { node: n, reason: `function '${n.name}' may produce excessive output and is not allowed` };
  });
  return found;
}

/** The first reason the expression is unsafe, or undefined when it passes. */
export function unsafeReason(node: Node): string | undefined {
  return findUnsafe(node)?.reason;
}

/**
 * Checks an expression against the safe profile; returns the reference validator's message
 * (`JQ expression '<e>' failed validation: <reason>`) or undefined.
 */
export function checkSafeProfile(ast: Node, text: string): string | undefined {
  const reason = unsafeReason(ast);
  return reason === undefined ? undefined : safeProfileMessage(text, reason);
}

/** The reference validator's wording. */
export function safeProfileMessage(text: string, reason: string): string {
  return `JQ expression '${text}' failed validation: ${reason}`;
}

/** Calls `f` on every node of the tree, parents before children. */
export function visit(node: Node, f: (n: Node) => void): void {
  f(node);
  for (const child of children(node)) visit(child, f);
}

/** The direct sub-expressions of a node (including object-pattern key expressions). */
export function children(n: Node): Node[] {
  switch (n.type) {
    case "Identity":
    case "RecurseDefault":
    case "Literal":
    case "Format":
    case "Var":
    case "Break":
      return [];
    case "String":
      return n.parts.filter((p): p is Node => typeof p !== "string");
    case "Index":
      return [n.target, n.index];
    case "Slice":
      return [n.target, ...(n.from ? [n.from] : []), ...(n.to ? [n.to] : [])];
    case "Iterate":
      return [n.target];
    case "Try":
      return n.handler ? [n.body, n.handler] : [n.body];
    case "Pipe":
    case "Comma":
    case "Binary":
    case "And":
    case "Or":
    case "Alternative":
    case "Assign":
      return [n.left, n.right];
    case "Neg":
      return [n.operand];
    case "If":
      return n.else ? [n.cond, n.then, n.else] : [n.cond, n.then];
    case "Reduce":
      return [n.source, ...n.patterns.flatMap(patternKeys), n.init, n.update];
    case "Foreach":
      return [n.source, ...n.patterns.flatMap(patternKeys), n.init, n.update, ...(n.extract ? [n.extract] : [])];
    case "FuncDef":
      return [n.body, n.rest];
    case "Call":
      return n.args;
    case "As":
      return [n.source, ...n.patterns.flatMap(patternKeys), n.body];
    case "Label":
      return [n.body];
    case "Array":
      return n.body ? [n.body] : [];
    case "Object":
      return n.entries.flatMap((e) => (e.value ? [e.key, e.value] : [e.key]));
  }
}

function patternKeys(p: Pattern): Node[] {
  switch (p.type) {
    case "VarPattern":
      return [];
    case "ArrayPattern":
      return p.elements.flatMap(patternKeys);
    case "ObjectPattern":
      return p.entries.flatMap((e) => [...(e.key ? [e.key] : []), ...(e.value ? patternKeys(e.value) : [])]);
  }
}
