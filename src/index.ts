/**
 * Karta: one declarative definition of a Kubernetes workload type, understood by every consumer.
 *
 * The public API. The functions most callers need are exported by name; each area is also exported
 * as a namespace (`definition`, `interpret`, `scheduling`, `interpreter`, `quantity`, `resources`, `server`)
 * whose members are documented in their own modules. Everything else is internal.
 *
 * ```ts
 * import { compileJq, loadDefinitions, compileInterpreter } from "karta";
 * const { definitions } = loadDefinitions(yamlText, "PyTorchJob.yaml");
 * const result = compileInterpreter(definitions[0]!).interpret(pytorchJob, { pods });
 * ```
 */

// The jq engine.
export { compileJq, jq, JqError, JqSyntaxError, parseJq, checkSafeProfile, DEFAULT_LIMITS } from "./jq/index.js";
export type { JqProgram, JqValue, CompileOptions, RunOptions, Limits, Node as JqNode } from "./jq/index.js";

// Definitions: load, validate, lint.
export { loadDefinitions, validateDefinition, validateText } from "./definition/index.js";
export type { Definition, Diagnostic, Karta } from "./definition/index.js";

// Interpretation of a live workload.
export { compileInterpreter, interpret } from "./interpret/index.js";

// The Kubernetes Workload API: the builder, and compiling a workload from its Karta.
export { newBuilder, compileJob } from "./scheduling/index.js";
export { compileKarta } from "./scheduling/karta.js";

// The resource interpreter framework, and its layer that answers from Kartas.
export { createInterpreterFramework } from "./interpreter/framework.js";
export { createKartaInterpreter } from "./interpreter/karta/index.js";

// Karmada's resource interpreter webhook (`karta serve`), in the caller's process, and its wire format.
export { startInterpreterServer, answerInterpreterContext, ServeError } from "./server/index.js";
export type { InterpreterServerOptions, InterpreterServer } from "./server/index.js";
export { assembleLayers } from "./interpreter/layers.js";

// Kubernetes quantities.
export { parseQuantity } from "./quantity/index.js";

export * as definition from "./definition/index.js";
export * as interpretation from "./interpret/index.js";
export * as scheduling from "./scheduling/index.js";
export * as interpreter from "./interpreter/index.js";
export * as quantity from "./quantity/index.js";
export * as resources from "./resources/index.js";
export * as server from "./server/index.js";

/** Runs the `karta` command line (without the node and script names); resolves to the exit code. */
export { main } from "./cli/main.js";
