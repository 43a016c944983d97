/** The webhook interpreter layer (client side): configurations, transport, JSON Patch, the layer. */
export * from "./config.js";
export * from "./jsonpatch.js";
export * from "./transport.js";
export * from "./interpreter.js";
