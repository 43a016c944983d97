/**
 * The Karta-derived interpreter layer: Karmada's InterpretComponent, InterpretReplica, ReviseReplica,
 * InterpretHealth and InterpretDependency answered from Karta definitions (bundled or the user's).
 */
export { KartaLayer } from "./layer.js";
export type { KartaLayerIssue, KartaLayerOptions, KartaSource, LazyKartaSource, OperationSupport } from "./layer.js";
export { KartaWorkload, KARTA_LAYER } from "./workload.js";
export type { KartaWorkloadOptions } from "./workload.js";
export { componentNames, fitComponentName, positionalInstanceId, MAX_COMPONENT_NAME } from "./naming.js";
export type { ComponentSlot } from "./naming.js";
export { BUNDLED_DEFINITIONS_DIRECTORY, bundledDefinitionsDir, bundledKartaFiles, loadBundledKartas, loadKartaText, createKartaInterpreter } from "./load.js";
export type { LoadedKartas, KartaInterpreterOptions } from "./load.js";
