/** The table of sub-commands: one module each. */
import type { CliIO } from "./io.js";
import { runValidate } from "../definition/command.js";
import { runInspect } from "./inspect.js";
import { runInterpret } from "./interpret.js";
import { runJq } from "./jq.js";

export interface Command {
  name: string;
  summary: string;
  run(args: string[], io: CliIO): Promise<number>;
}

const commands: Command[] = [
  { name: "validate", summary: "validate and lint Karta definitions (--crd checks paths against CRDs)", run: runValidate },
  { name: "inspect", summary: "show what a Karta sees in a workload: components, status, pods, gang groups", run: runInspect },
  { name: "interpret", summary: "run a Karmada resource interpreter operation, or check customizations", run: runInterpret },
  { name: "jq", summary: "run a jq program over JSON or YAML values", run: runJq },
];

export function commandNames(): Command[] {
  return commands;
}

export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.name === name);
}
