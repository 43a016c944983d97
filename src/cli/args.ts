/**
 * Command-line arguments as `karta inspect`, `compile` and `interpret` read them: one at a time, a long
 * flag's value given inline (`--output=json`) or as the next argument (`--output json`). What a flag
 * means, and what a missing value says, stays with each command.
 */

/** One argument: its flag (the text before `=` of a long flag, else the whole argument). */
export interface Arg {
  /** The argument as given. */
  readonly text: string;
  /** `--output` for `--output=json`; the whole argument otherwise (`-o`, `--help`, `file.yaml`). */
  readonly flag: string;
  /** The flag's value: the inline one, else the next argument (consumed); undefined when there is none. */
  value(): string | undefined;
  /** The next argument as it is, for a flag's second operand (`--patch set-label KEY=VALUE`); undefined at the end. */
  operand(): string | undefined;
}

/** The arguments in order; `value()` and `operand()` consume the arguments they return. */
export function* commandLine(args: readonly string[]): Generator<Arg> {
  let i = 0;
  const operand = (): string | undefined => (i < args.length ? args[i++] : undefined);
  while (i < args.length) {
    const text = args[i++]!;
    // Only long flags take an inline value: `-o=json` is not a flag of ours.
    const eq = text.startsWith("--") ? text.indexOf("=") : -1;
    const inline = eq > 0 ? text.slice(eq + 1) : undefined;
    yield {
      text,
      flag: eq > 0 ? text.slice(0, eq) : text,
      value: () => inline ?? operand(),
      operand,
    };
  }
}
