/**
 * kubectl's JSONPath templates and custom columns (`-o jsonpath=…`, `-o custom-columns=…`), as kubectl
 * v0.37.2 prints them: the parser (parse.ts) makes nodes (nodes.ts), the evaluator (evaluate.ts) runs them
 * over a value as Go holds it (values.ts), and the printers (printers.ts, with kubectl's tabwriter) write
 * the results. Pure: no I/O; errors are values.
 */
export { parse, type ParseResult } from "./parse.js";
export type { Node, ListNode } from "./nodes.js";
export { Execution, MAX_RANGE_DEPTH, MAX_VALUES, type FindResult } from "./evaluate.js";
export {
  ColumnsPrinter,
  customColumnsFilePrinter,
  customColumnsPrinter,
  JsonPathPrinter,
  jsonPathPrinter,
  MAX_OUTPUT,
  relaxedJSONPathExpression,
  type Built,
  type JsonPathOptions,
  type Printed,
} from "./printers.js";
export { TabWriter, KUBECTL_TABWRITER } from "./tabwriter.js";
