/** The table of sub-commands: one module each. */
import type { CliIO } from "./io.js";

export interface Command {
  name: string;
  summary: string;
  run(args: string[], io: CliIO): Promise<number>;
}

const commands: Command[] = [];

export function commandNames(): Command[] {
  return commands;
}

export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.name === name);
}
