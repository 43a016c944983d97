/** `npm run bench`: every benchmark of the project, each printed as ratios against a baseline measured in the same run. */
import { benchCompileOutput, benchStartup, benchStreamInput } from "./cli.js";
import { benchCompile } from "./compile.js";
import { benchController } from "./controller.js";
import { benchExporter } from "./exporter.js";
import { printTable } from "./harness.js";
import { benchInterpret } from "./interpret.js";
import { benchInterpreter } from "./interpreter.js";
import { benchExpressions, benchStream, benchUpdates } from "./jq.js";
import { benchRegex } from "./regex.js";
import { benchPlayground } from "./playground.js";
import { benchServe } from "./serve.js";
import { benchAdmission } from "./admission.js";
import { benchValidate } from "./validate.js";
import { benchWatch } from "./watch.js";

const only = process.argv[2];

async function main(): Promise<void> {
  console.log(`# Karta benchmarks (node ${process.version}, ${new Date().toISOString()})`);
  if (!only || only === "jq") {
    printTable("jq engine: evaluations per second on a ~5 KB PyTorchJob (ratio: karta / baseline)", benchExpressions());
    printTable("karta jq over a 100,000-pod JSONL stream (ratio: baseline time / karta time)", benchStream());
  }
  if (!only || only === "jq" || only === "jq-updates") printTable("jq engine: updates over 100,000 elements (ratio: karta / hand-written JS)", benchUpdates());
  if (!only || only === "regex") {
    printTable("jq regular expressions: test() calls per second (ratio: karta / unbounded RegExp)", benchRegex());
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
  // `startup` runs the start-up table alone (`npm run bench -- startup`).
  if (!only || only === "cli" || only === "startup") {
    printTable("karta start-up: whole processes, median of 15 interleaved rounds (ratio: node -e 0 time / command time)", benchStartup());
  }
  if (!only || only === "cli") {
    printTable("karta compile -o yaml vs -o json, 100,000 pod patches (ratio: json time / yaml time)", await benchCompileOutput());
    printTable("objects as a stream: 10,000 pods (ratio: List time / stream time)", await benchStreamInput());
  }
  if (!only || only === "playground") {
    printTable("playground in Chromium: keystroke to diagnostics (120 ms debounce not counted; ratio: Node time / browser dispatch time)", await benchPlayground());
  }
  if (!only || only === "serve") await benchServe();
  if (!only || only === "controller") for (const t of await benchController()) printTable(t.title, t.results);
  if (!only || only === "watch") {
    const t = await benchWatch();
    printTable(t.title, t.results);
  }
  if (!only || only === "admission") await benchAdmission();
  if (!only || only === "exporter") printTable("exporter: /metrics scrapes per second, 1,000 PyTorchJobs and 8,000 pods (ratio: exporter / prom-client rendering the same samples already set)", await benchExporter());
}

await main();
