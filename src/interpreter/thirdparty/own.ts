/**
 * The thirdparty layer's TypeScript interpreters, in one list for the layer and for callers that must
 * know their kinds without loading the Lua VM (`karta interpret` decides from it whether to build the layer).
 */
import type { Interpreter, Operation, ResourceKind } from "../types.js";
import { ReconciledInterpreter } from "./reconciled.js";
import { FlinkDeploymentInterpreter, RayServiceInterpreter, SparkApplicationInterpreter } from "./settings.js";
import { SidecarSetInterpreter } from "./sidecarset.js";

/** A TypeScript interpreter of the thirdparty layer, with the kinds it answers. */
export type OwnInterpreter = Interpreter & { readonly kinds: { kind: ResourceKind; operations: Operation[] }[] };

/** New instances of every TypeScript interpreter of the thirdparty layer. */
export function ownInterpreters(): OwnInterpreter[] {
  return [new ReconciledInterpreter(), new SidecarSetInterpreter(), new FlinkDeploymentInterpreter(), new RayServiceInterpreter(), new SparkApplicationInterpreter()];
}
