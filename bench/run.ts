/** `npm run bench`: every benchmark of the project, each printed as ratios against a baseline measured in the same run. */
import { benchCompile } from "./compile.js";
import { printTable } from "./harness.js";
import { benchInterpret } from "./interpret.js";
import { benchInterpreter } from "./interpreter.js";
import { benchServe } from "./serve.js";
import { benchExpressions, benchStream } from "./jq.js";
import { benchValidate } from "./validate.js";

const only = process.argv[2];

async function main(): Promise<void> {
  console.log(`# Karta benchmarks (node ${process.version}, ${new Date().toISOString()})`);
  if (!only || only === "jq") {
    printTable("jq engine: evaluations per second on a ~5 KB PyTorchJob (ratio: karta / baseline)", benchExpressions());
    printTable("karta jq over a 100,000-pod JSONL stream (ratio: baseline time / karta time)", benchStream());
  }
  if (!only || only === "validate") {
    printTable("karta validate: the published catalog", benchValidate());
  }
  if (!only || only === "interpret") {
    printTable("interpretation: pods classified and grouped per second (ratio: interpret / JSON.parse)", await benchInterpret());
  }
  if (!only || only === "compile") {
    printTable("karta compile: a 1,000-group LeaderWorkerSet, groups per second (ratio: compile / interpretation alone)", benchCompile());
  }
  if (!only || only === "interpreter") {
    printTable("resource interpreter: InterpretHealth per second (Karta layer vs Lua)", await benchInterpreter());
  }
  if (!only || only === "serve") await benchServe();
}

await main();
