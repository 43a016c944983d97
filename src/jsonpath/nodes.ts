/**
 * The parse tree of a kubectl JSONPath template (client-go's util/jsonpath): what the parser makes and the
 * evaluator walks. A template is a list whose entries are literal text or an action (`{...}`), itself a
 * list of steps applied in order to the values the previous step left.
 */

/** Literal text outside an action, or a quoted string inside one (`{"\n"}`). */
export interface TextNode {
  type: "text";
  text: string;
}

/** A sequence of steps (an action, a union member, a side of a filter); the template's root is one too. */
export interface ListNode {
  type: "list";
  nodes: Node[];
}

/** `.name` or `['name']`: a key of a map. */
export interface FieldNode {
  type: "field";
  name: string;
}

/** A bare word: `range`, `end`, or any other (an error when evaluated). */
export interface IdentifierNode {
  type: "identifier";
  name: string;
}

/**
 * One bound of `[start:end:step]` as written: `known` is false for an omitted start or step (and an
 * omitted end after a colon); `derived` marks the end of a plain index `[i]` (start + 1). Values are
 * Go ints (64-bit), kept as bigint so that arithmetic wraps as Go's does.
 */
export interface SliceParam {
  value: bigint;
  known: boolean;
  derived: boolean;
}

/** `[i]`, `[a:b:c]`, `[*]`. */
export interface ArrayNode {
  type: "array";
  params: readonly [SliceParam, SliceParam, SliceParam];
}

/** `[?(left OP right)]`, or `[?(left)]` (operator "exists", right empty). */
export interface FilterNode {
  type: "filter";
  left: ListNode;
  right: ListNode;
  operator: string;
}

/** A whole-number literal (a Go int). */
export interface IntNode {
  type: "int";
  value: bigint;
}

/** A number literal with a fraction, or one too large for an int (a Go float64). */
export interface FloatNode {
  type: "float";
  value: number;
}

export interface BoolNode {
  type: "bool";
  value: boolean;
}

/** `.*`: every value of a map, element of an array, byte of a string. */
export interface WildcardNode {
  type: "wildcard";
}

/** `..`: the value and everything below it that has members. */
export interface RecursiveNode {
  type: "recursive";
}

/** `[a,b]`: the results of each member, in order. */
export interface UnionNode {
  type: "union";
  members: ListNode[];
}

export type Node = TextNode | ListNode | FieldNode | IdentifierNode | ArrayNode | FilterNode | IntNode | FloatNode | BoolNode | WildcardNode | RecursiveNode | UnionNode;
