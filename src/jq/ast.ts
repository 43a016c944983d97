/**
 * The jq abstract syntax tree. The parser produces it, the compiler turns it into closures, and other
 * modules inspect it (the safe profile, the paths an expression reads, whether a path is assignable).
 * Every node carries its source span as character offsets into the program text.
 */

/** A half-open span `[start, end)` of character offsets into the program text. */
export interface Span {
  start: number;
  end: number;
}

interface NodeBase {
  span: Span;
}

/** `.` */
export interface IdentityNode extends NodeBase {
  type: "Identity";
}
/** `..` (which is `recurse`) */
export interface RecurseDefaultNode extends NodeBase {
  type: "RecurseDefault";
}
/** A JSON literal: number, string without interpolation, true, false, null. */
export interface LiteralNode extends NodeBase {
  type: "Literal";
  value: null | boolean | number | string;
}
/** A string with interpolation, optionally with a format (`@base64 "x\(.a)"`): parts are text or expressions. */
export interface StringNode extends NodeBase {
  type: "String";
  parts: (string | Node)[];
  format?: string;
}
/** A bare format such as `@base64`, applied to the input. */
export interface FormatNode extends NodeBase {
  type: "Format";
  name: string;
}
/** `target.name`, `target["name"]`, `target[index]`. For `.a` the target is Identity and the index a Literal. */
export interface IndexNode extends NodeBase {
  type: "Index";
  target: Node;
  index: Node;
}
/** `target[from:to]`, either bound may be missing. */
export interface SliceNode extends NodeBase {
  type: "Slice";
  target: Node;
  from?: Node;
  to?: Node;
}
/** `target[]` */
export interface IterateNode extends NodeBase {
  type: "Iterate";
  target: Node;
}
/** `try body catch handler`; postfix `?` is a Try without handler. */
export interface TryNode extends NodeBase {
  type: "Try";
  body: Node;
  handler?: Node;
  /** True when written as postfix `?` rather than `try`. */
  postfix?: boolean;
  /**
   * Postfix `?` right after an access (`.a?`, `.[e]?`, `.[a:b]?`, `.[]?`): as in jq, it covers that one
   * access only (jq's INDEX_OPT/EACH_OPT); the target and the key expression still raise.
   */
  access?: boolean;
}
export interface PipeNode extends NodeBase {
  type: "Pipe";
  left: Node;
  right: Node;
}
export interface CommaNode extends NodeBase {
  type: "Comma";
  left: Node;
  right: Node;
}
/** Unary minus. */
export interface NegNode extends NodeBase {
  type: "Neg";
  operand: Node;
}
export type BinaryOp = "+" | "-" | "*" | "/" | "%" | "==" | "!=" | "<" | "<=" | ">" | ">=";
export interface BinaryNode extends NodeBase {
  type: "Binary";
  op: BinaryOp;
  left: Node;
  right: Node;
}
export interface AndNode extends NodeBase {
  type: "And";
  left: Node;
  right: Node;
}
export interface OrNode extends NodeBase {
  type: "Or";
  left: Node;
  right: Node;
}
/** `left // right` */
export interface AlternativeNode extends NodeBase {
  type: "Alternative";
  left: Node;
  right: Node;
}
export type AssignOp = "=" | "|=" | "+=" | "-=" | "*=" | "/=" | "%=" | "//=";
/** `left op right`: assignment and update operators. */
export interface AssignNode extends NodeBase {
  type: "Assign";
  op: AssignOp;
  left: Node;
  right: Node;
}
/** `if cond then a (elif ...)* (else b)? end`; `elif` chains are nested If nodes in `else`. */
export interface IfNode extends NodeBase {
  type: "If";
  cond: Node;
  then: Node;
  else?: Node;
}
/** `reduce source as pattern (init; update)`, the pattern possibly with `?//` alternatives */
export interface ReduceNode extends NodeBase {
  type: "Reduce";
  source: Node;
  /** One pattern, or the alternatives of `?//`. */
  patterns: Pattern[];
  init: Node;
  update: Node;
}
/** `foreach source as pattern (init; update; extract?)`, the pattern possibly with `?//` alternatives */
export interface ForeachNode extends NodeBase {
  type: "Foreach";
  source: Node;
  /** One pattern, or the alternatives of `?//`. */
  patterns: Pattern[];
  init: Node;
  update: Node;
  extract?: Node;
}
/** A function definition: `def name(params): body; rest`. A parameter `$x` binds a value, `f` a filter. */
export interface FuncDefNode extends NodeBase {
  type: "FuncDef";
  name: string;
  params: string[];
  body: Node;
  rest: Node;
}
/** A call to a function (defined or builtin), including zero-arity calls such as `empty` or `length`. */
export interface CallNode extends NodeBase {
  type: "Call";
  name: string;
  args: Node[];
}
/** `$name` (`$__loc__` is resolved by the parser into a Literal object). */
export interface VarNode extends NodeBase {
  type: "Var";
  name: string;
}
/** `source as $p ?// $q | body`: the patterns are tried in turn (destructuring alternatives). */
export interface AsNode extends NodeBase {
  type: "As";
  source: Node;
  patterns: Pattern[];
  body: Node;
}
export interface LabelNode extends NodeBase {
  type: "Label";
  name: string;
  body: Node;
}
export interface BreakNode extends NodeBase {
  type: "Break";
  name: string;
}
/** `[body]`, `[]` when body is missing. */
export interface ArrayNode extends NodeBase {
  type: "Array";
  body?: Node;
}
/** One entry of an object construction. `{a}` has key Literal "a" and no value; `{$x}` has key Var. */
export interface ObjectEntry {
  key: Node;
  value?: Node;
  /** Shorthand `{"\(e)"}` / `{@fmt "..."}`: `value` is `.[key]`, read with the key already computed. */
  keyed?: boolean;
}
export interface ObjectNode extends NodeBase {
  type: "Object";
  entries: ObjectEntry[];
}

export type Node =
  | IdentityNode
  | RecurseDefaultNode
  | LiteralNode
  | StringNode
  | FormatNode
  | IndexNode
  | SliceNode
  | IterateNode
  | TryNode
  | PipeNode
  | CommaNode
  | NegNode
  | BinaryNode
  | AndNode
  | OrNode
  | AlternativeNode
  | AssignNode
  | IfNode
  | ReduceNode
  | ForeachNode
  | FuncDefNode
  | CallNode
  | VarNode
  | AsNode
  | LabelNode
  | BreakNode
  | ArrayNode
  | ObjectNode;

/** Destructuring patterns of `as`, `reduce` and `foreach`. */
export type Pattern =
  | { type: "VarPattern"; name: string; span: Span }
  | { type: "ArrayPattern"; elements: Pattern[]; span: Span }
  | { type: "ObjectPattern"; entries: ObjectPatternEntry[]; span: Span };

/**
 * One entry of an object pattern: `$name` (key and variable), `$name: pattern`, `key: pattern`,
 * `"str": pattern`, `(expr): pattern`.
 */
export interface ObjectPatternEntry {
  /** Set when the entry binds a variable named like the key (`$name` or `$name: p`). */
  keyVar?: string;
  /** The key expression when it is not a `$name` entry. */
  key?: Node;
  value?: Pattern;
}
