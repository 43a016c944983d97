/**
 * The `karta` command: dispatches to one module per sub-command.
 * Every command returns its exit code; nothing is thrown past this function.
 */
import { commandNames, findCommand } from "./commands.js";
import { CliIO, internalErrorLine, nodeIO } from "./io.js";

const usage = (): string =>
  [
    "Usage: karta <command> [options]",
    "",
    "Commands:",
    ...commandNames().map((c) => `  ${c.name.padEnd(Math.max(...commandNames().map((n) => n.name.length)))} ${c.summary}`),
    "",
    "Run 'karta <command> --help' for a command's options and an example.",
  ].join("\n");

/** Runs the command line `args` (without the node and script names) and returns the exit code. */
export async function main(args: string[], io: CliIO = nodeIO()): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined) {
    io.stderr(usage() + "\n");
    return 2;
  }
  // `karta help inspect` is `karta inspect --help`, as `kubectl help get` is.
  if (name === "help" && rest.length > 0) return main([rest[0]!, "--help"], io);
  if (name === "--help" || name === "-h" || name === "help") {
    io.stdout(usage() + "\n");
    return 0;
  }
  if (name === "--version") return (await import("./version.js")).runVersion([], io);
  const command = findCommand(name);
  if (!command && name.startsWith("-")) {
    // A flag before any command (kubectl: "unknown flag: --bogus"); the commands take their own flags.
    io.stderr(`karta: unknown flag: ${name.replace(/=.*$/s, "")}\nRun 'karta --help' for usage.\n`);
    return 2;
  }
  if (!command) {
    const { closest } = await import("../definition/suggest.js");
    const guess = closest(name, commandNames().map((c) => c.name));
    // One line and where to look, as kubectl says it (`See 'kubectl --help' for usage.`); not the whole list.
    io.stderr(`karta: unknown command '${name}'${guess ? ` (did you mean ${guess}?)` : ""}\nRun 'karta --help' for usage.\n`);
    return 2;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    // A bug of ours: say so in one line rather than print a stack trace.
    io.stderr(internalErrorLine(name, err));
    return 5;
  }
}
