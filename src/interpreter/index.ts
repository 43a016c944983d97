/**
 * The resource interpreter: Karmada's operations and result types, the declarative layer
 * (ResourceInterpreterCustomization Lua scripts) and the sandboxed Lua VM it runs on.
 */
export * from "./types.js";
export {
  DeclarativeInterpreter,
  createDeclarativeInterpreter,
  checkCustomizationScripts,
} from "./declarative/interpreter.js";
export { verifyDependencies, sortDependencies } from "./dependencies.js";
export type { DeclarativeOptions, ScriptCheck } from "./declarative/interpreter.js";
export {
  CUSTOMIZATION_RULES,
  parseCustomizations,
  parseCustomizationObject,
  mergeCustomizations,
  findConflicts,
  targetKey,
  customizationOf,
} from "./declarative/customization.js";
export type { CustomizationIssue, CustomizationLoad, CustomizationScripts, MergedRules } from "./declarative/customization.js";
export { loadCustomizationFiles } from "./declarative/load.js";
export { parseYamlDocuments, parseYamlObjects } from "./declarative/yaml-documents.js";
export { toReplicaRequirements, toComponents, toDependencies } from "./typed.js";
export {
  LuaVM,
  HostFunctionError,
  DEFAULT_LIMITS,
  DEADLINE_MESSAGE,
  BUDGET_MESSAGE,
  MEMORY_MESSAGE,
} from "./lua/vm.js";
export type { LuaLimits, LuaResult, LuaCallOutcome, LuaCompileOutcome, LuaScript, LuaVMOptions, HostFunction, HostArgs } from "./lua/vm.js";
export { kubeLibrary } from "./lua/kube.js";
export { repairEmptyTables } from "./lua/repair.js";
