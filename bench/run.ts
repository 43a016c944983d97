/** `npm run bench`: every benchmark of the project, each printed as ratios against a baseline measured in the same run. */
import { printTable } from "./harness.js";
import { benchExpressions, benchStream } from "./jq.js";

const only = process.argv[2];

async function main(): Promise<void> {
  console.log(`# Karta benchmarks (node ${process.version}, ${new Date().toISOString()})`);
  if (!only || only === "jq") {
    printTable("jq engine: evaluations per second on a ~5 KB PyTorchJob (ratio: karta / baseline)", benchExpressions());
    printTable("karta jq over a 100,000-pod JSONL stream (ratio: baseline time / karta time)", benchStream());
  }
}

await main();
