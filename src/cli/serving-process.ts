/**
 * Entry point of a serving process of `karta serve --processes N`, started by the supervisor with
 * node:cluster (src/server/processes.ts): the server without probes, reporting to its supervisor.
 */
import { runServingProcess } from "./serve.js";

await runServingProcess();
