/** The webhook interpreter layer (client side): configurations, transport, the layer (and JSON Patch, re-exported). */
export * from "./config.js";
export * from "../../jsonpatch/index.js";
export * from "./transport.js";
export * from "./interpreter.js";
