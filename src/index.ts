/**
 * Karta: one declarative definition of a Kubernetes workload type, understood by every consumer.
 * This is the public API; everything else is internal.
 */
export { main } from "./cli/main.js";
