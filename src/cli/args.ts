/**
 * The one command-line parser of every `karta` command: Node's `util.parseArgs`, with what kubectl and
 * karmadactl users expect on top of it.
 *
 * - a flag's value inline or next: `-ojson`, `-o=json`, `-o json`, `--output=json`, `--output json`;
 * - a boolean's value after `=`, short or long: `-A=true`, `-w=false`, `--watch=0` (pflag's rule: a
 *   shorthand followed by `=` takes the rest as its value; a boolean reads it as strconv.ParseBool);
 * - `-h`/`--help` on every command; `--` ends the options (what follows is positional);
 * - one wording for every usage error, e.g. `unknown flag: --ouptut (did you mean --output?)`,
 *   `flag needs an argument: --pods`, `invalid value 'x' for --output: expected yaml or json`;
 * - `choices` and integer ranges checked (`--desired-replica -1` is an error);
 * - an empty value (`--output=`, `-o=`) is a value, "" (as pflag reads it), or with `emptyIsUnset` no
 *   value at all (kubectl's flags: the default applies);
 * - a flag may take further operands after its value (`--arg NAME VALUE`, `--patch set-label K=V`).
 *
 * A command declares its flags as for `util.parseArgs` (plus `integer`, `choices`, `min`/`max`,
 * `operands`) and lets `parseCommand` print the help or the usage error:
 *
 * ```ts
 * const FLAGS = {
 *   output: { type: "string", short: "o", choices: ["yaml", "json"], default: "yaml" },
 *   replicas: { type: "integer", min: 0, max: 2 ** 31 - 1 },
 *   verbose: { type: "boolean", short: "v" },
 * } as const satisfies Flags;
 *
 * export async function runThing(args: string[], io: CliIO): Promise<number> {
 *   const p = parseCommand(io, "thing", args, FLAGS, HELP, { positionals: true });
 *   if (typeof p === "number") return p; // help printed (0), or a usage error printed (2)
 *   p.values.output; // "yaml" | "json" ... typed from FLAGS
 * }
 * ```
 */
import { parseArgs } from "node:util";
import { closest } from "../definition/suggest.js";
import type { CliIO } from "./io.js";

interface FlagBase {
  /** One letter: `-o`. */
  short?: string;
  /** The flag may be given several times; its values are collected in order. */
  multiple?: boolean;
  /**
   * Given twice with different values (or operands), a usage error (`flag given twice with different
   * values: --patch`). Other single-value flags keep the last value, as pflag (and so kubectl) does, so
   * that a wrapper or alias can override a setting by appending it; a flag naming an input or an
   * operation says `once`, where keeping the last would drop the first silently.
   */
  once?: boolean;
}

/** A flag without a value: `--check` (`--check=false` is accepted, as pflag does). */
export interface BooleanFlag extends FlagBase {
  type: "boolean";
  /** Undefined unless given, for a default that depends on the rest (kubectl's `--show-events`). */
  unsetIsUndefined?: boolean;
}

/** A flag with a text value, optionally one of `choices`, optionally followed by operands. */
export interface StringFlag extends FlagBase {
  type: "string";
  default?: string;
  /**
   * The values taken. A choice that ends in `=` takes any text after it, and is taken without it too
   * (kubectl's `-o jsonpath=TEMPLATE`, whose `-o jsonpath` says that no template was given).
   */
  choices?: readonly string[];
  /** These choices match in any case and are read as written (kubectl lowercases `-o JSON`, `-o YAML`, `-o NAME`, not `-o WIDE`). */
  foldCase?: readonly string[];
  /** The names of the arguments that follow the value (`["VALUE"]` for `--arg NAME VALUE`); none by default. */
  operands?: (value: string) => readonly string[];
  /** An empty value (`--namespace=`) is as if the flag were not given, as kubectl reads its own flags. */
  emptyIsUnset?: boolean;
  /** What is wrong with a value (none: it is valid), e.g. a namespace that is not a DNS-1123 label: a usage error. */
  validate?: (value: string) => readonly string[];
}

/** A flag with a whole-number value in [min, max]. */
export interface IntegerFlag extends FlagBase {
  type: "integer";
  default?: number;
  min?: number;
  max?: number;
  /**
   * The value of the flag given alone (`-v`), as pflag's NoOptDefVal; a whole number as the next argument
   * is still its value (`-v 4`, as klog's `-v` takes it). Only for commands without positional arguments.
   */
  noOptDefault?: number;
}

export type FlagSpec = BooleanFlag | StringFlag | IntegerFlag;
export type Flags = Record<string, FlagSpec>;

/** A choice as the value it allows: `jsonpath=` allows `jsonpath` and `jsonpath=…`. */
type ChoiceValue<C> = C extends `${infer P}=` ? P | `${P}=${string}` : C;

/** Whether a value is one of the choices (or starts with one that ends in `=`). */
export function isChoice(choices: readonly string[], value: string): boolean {
  return choices.some((c) => c === value || (c.endsWith("=") && (value.startsWith(c) || value === c.slice(0, -1))));
}

type FlagValue<F> = F extends BooleanFlag
  ? F extends { multiple: true }
    ? boolean[]
    : F extends { unsetIsUndefined: true }
      ? boolean | undefined
      : boolean
  : F extends IntegerFlag
    ? F extends { multiple: true }
      ? number[]
      : F extends { default: number }
        ? number
        : number | undefined
    : F extends { multiple: true }
      ? F extends { choices: readonly (infer C)[] }
        ? ChoiceValue<C>[]
        : string[]
      : F extends { choices: readonly (infer C)[] }
        ? F extends { default: string }
          ? ChoiceValue<C>
          : ChoiceValue<C> | undefined
        : F extends { default: string }
          ? string
          : string | undefined;

/** What a command line says. */
export interface ParsedArgs<T extends Flags> {
  values: { -readonly [K in keyof T]: FlagValue<T[K]> };
  positionals: string[];
  /** Per flag with operands, one array per occurrence (in order): the operands after its value. */
  operands: Partial<Record<keyof T, string[][]>>;
  /** Every occurrence of a flag with operands, across flags in command-line order: the flag, its value, its operands. */
  withOperands: { flag: keyof T; value: string; operands: string[] }[];
}

export type ParseOutcome<T extends Flags> = ({ kind: "ok" } & ParsedArgs<T>) | { kind: "help" } | { kind: "error"; message: string };

export interface ParseOptions {
  /** Arguments that are not flags are allowed (files, a jq filter); otherwise each is an error. */
  positionals?: boolean;
  /**
   * An argument of `-` and then neither a letter nor `-` (`-1`, `-.a`) is an operand, not flags: jq's
   * rule, where other commands follow pflag's (every `-x` is a shorthand flag).
   */
  dashOperands?: boolean;
  /**
   * Read as jq reads its command line, one argument after another: these flags (jq's `-h` and `-V`) end
   * it when they are reached, the first bad flag ends it with its error, and `--flag=value` is not a form
   * (jq's "Unknown option --indent=2"). Other commands read every flag first, as pflag does.
   */
  inOrder?: readonly string[];
}

/** How an operand that looks like flags travels through util.parseArgs: no argument holds a NUL. */
const OPERAND = "\0operand:";
/** An argument that is no flag's spelling, for util.parseArgs to report where it stands (no flag is named by a NUL). */
const UNKNOWN_FLAG = "--\0";

/** `--output` or `-o, --output` as the flag is named in messages. */
function flagName(name: string): string {
  return name.length === 1 ? `-${name}` : `--${name}`;
}

/** Parses `args` against `flags`; `-h`/`--help` is always known. Never throws. */
export function parseCommandLine<T extends Flags>(args: readonly string[], flags: T, options: ParseOptions = {}): ParseOutcome<T> {
  const specs: Record<string, FlagSpec> = { ...flags };
  if (!("help" in specs)) specs.help = { type: "boolean", short: "h" };
  const byShort = new Map<string, string>();
  for (const [name, s] of Object.entries(specs)) if (s.short) byShort.set(s.short, name);
  const takesValue = (name: string | undefined): boolean => name !== undefined && specs[name] !== undefined && specs[name]!.type !== "boolean";

  // First pass: `-o=json` becomes `-ojson` (util.parseArgs would read "=json"), and a flag's operands
  // are taken out, so that util.parseArgs sees only flags, values and positionals.
  const argv: string[] = [];
  /** The value (and operands) each `once` flag was first given. */
  const given = new Map<string, string>();
  let onceConflict: string | undefined;
  const operandsOf: Record<string, string[][]> = {};
  const withOperands: { flag: string; value: string; operands: string[] }[] = [];
  /** The flag as the user wrote it, for the arguments of argv rewritten as long flags (`-A=true`: `--all-namespaces=true`). */
  const written = new Map<number, string>();
  for (let i = 0; i < args.length; i++) {
    let a = args[i]!;
    if (a === "--") {
      argv.push(...args.slice(i));
      break;
    }
    if (options.dashOperands && /^-[^A-Za-z-]/.test(a)) {
      argv.push(OPERAND + a);
      continue;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq >= 0 && options.inOrder) {
        written.set(argv.length, a);
        argv.push(UNKNOWN_FLAG);
        continue;
      }
      name = a.slice(2, eq < 0 ? undefined : eq);
      if (eq >= 0) inline = a.slice(eq + 1);
    } else if (a.startsWith("-") && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const n = byShort.get(a[j]!);
        if (n === undefined) break;
        if (!takesValue(n) && a[j + 1] === "=" && !options.dashOperands) {
          // `-A=true`, `-wA=false`: the value of the boolean, as pflag reads `-f=value` (jq has no such form).
          if (j > 1) argv.push(a.slice(0, j));
          written.set(argv.length, `-${a[j]}`);
          a = `--${n}=${a.slice(j + 2)}`;
          break;
        }
        if (takesValue(n)) {
          name = n;
          if (a[j + 1] === "=") {
            inline = a.slice(j + 2);
            if (inline !== "" || n.length === 1) a = a.slice(0, j + 1) + inline;
            else {
              // `-o=` is the empty value, which util.parseArgs reads only inline in a long flag.
              if (j > 1) argv.push(a.slice(0, j));
              a = `--${n}=`;
            }
          } else if (j + 1 < a.length) inline = a.slice(j + 1);
          break;
        }
      }
    }
    const spec = takesValue(name) ? specs[name!]! : undefined;
    if (spec?.type === "integer" && spec.noOptDefault !== undefined && inline === undefined && !/^-?[0-9]+$/.test(args[i + 1] ?? "")) {
      // `-v` alone (nothing, or no whole number, after it): its NoOptDefVal. A short one is the group's last letter.
      if (!a.startsWith("--") && a.length > 2) argv.push(a.slice(0, -1));
      written.set(argv.length, a.startsWith("--") ? a : `-${spec.short}`);
      argv.push(`--${name}=${spec.noOptDefault}`);
      continue;
    }
    argv.push(a);
    if (!spec) continue;
    let value = inline;
    if (value === undefined && i + 1 < args.length) argv.push((value = args[++i]!));
    let operands: string[] = [];
    if (value !== undefined && spec.type === "string" && spec.operands) {
      const wanted = spec.operands(value);
      operands = args.slice(i + 1, i + 1 + wanted.length);
      if (operands.length < wanted.length) return { kind: "error", message: `${flagName(name!)} ${value} needs ${wanted.join(" ")}` };
      (operandsOf[name!] ??= []).push(operands);
      withOperands.push({ flag: name!, value, operands });
      i += wanted.length;
    }
    if (spec.once && !spec.multiple && value !== undefined) {
      const text = JSON.stringify([value, ...operands]);
      const first = given.get(name!);
      // Reported after the scan, so that -h still shows the help.
      if (first !== undefined && first !== text) onceConflict ??= `flag given twice with different values: ${flagName(name!)}`;
      given.set(name!, text);
    }
  }

  const parseSpecs: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const [name, s] of Object.entries(specs)) parseSpecs[name] = { type: s.type === "boolean" ? "boolean" : "string", ...(s.short ? { short: s.short } : {}), ...(s.multiple ? { multiple: true } : {}) };
  const { tokens } = parseArgs({ args: argv, options: parseSpecs, strict: false, allowPositionals: true, tokens: true });

  const values: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(specs)) {
    if (s.multiple) values[name] = [];
    else if (s.type === "boolean") {
      if (!s.unsetIsUndefined) values[name] = false;
    }
    else if (s.default !== undefined) values[name] = s.default;
  }
  const positionals: string[] = [];
  let error: string | undefined = onceConflict;
  const fail = (message: string): void => void (error ??= message);
  for (const t of tokens) {
    if (options.inOrder && error !== undefined) break;
    if (t.kind === "positional") {
      const value = t.value.startsWith(OPERAND) ? t.value.slice(OPERAND.length) : t.value;
      if (options.positionals) positionals.push(value);
      else fail(`unexpected argument '${value}'`);
      continue;
    }
    if (t.kind === "option-terminator") continue;
    const spec = specs[t.name];
    const rawName = written.get(t.index) ?? t.rawName;
    if (t.name === "help" && spec?.type === "boolean") {
      // `--help=false` is no help; `--help=maybe` is a bad value, as pflag reads a boolean.
      const asked = t.value === undefined ? true : parseBool(t.value);
      if (asked === true) return { kind: "help" };
      if (asked === undefined) fail(`invalid value '${t.value}' for ${rawName}: expected true or false`);
      continue;
    }
    if (options.inOrder?.includes(t.name) && spec?.type === "boolean") {
      values[t.name] = true;
      break;
    }
    // `--o` is not `-o`; a flag named by one letter (klog's `--v`) is spelled so.
    if (!spec || (t.rawName.length === 2 && t.rawName !== `-${spec.short}`) || (t.rawName.startsWith("--") && t.rawName.length === 3 && t.name !== spec.short)) {
      const longs = Object.keys(specs);
      const guess = t.rawName.startsWith("--") && !written.has(t.index) ? closest(t.name, longs) : undefined;
      fail(`unknown flag: ${rawName}${guess ? ` (did you mean --${guess}?)` : ""}`);
      continue;
    }
    const set = (v: unknown): void => {
      if (spec.multiple) (values[t.name] as unknown[]).push(v);
      else values[t.name] = v;
    };
    if (spec.type === "boolean") {
      // The spellings Go's strconv.ParseBool takes, as pflag (and so kubectl) reads --flag=VALUE.
      const value = t.value === undefined ? true : parseBool(t.value);
      if (value === undefined) fail(`invalid value '${t.value}' for ${rawName}: expected true or false`);
      else set(value);
      continue;
    }
    if (t.value === undefined) {
      fail(`flag needs an argument: ${rawName}`);
      continue;
    }
    if (t.value === "" && spec.type === "string" && spec.emptyIsUnset) {
      if (!spec.multiple) delete values[t.name];
      if (spec.default !== undefined) values[t.name] = spec.default;
      continue;
    }
    if (spec.type === "integer") {
      const min = spec.min ?? Number.MIN_SAFE_INTEGER;
      const max = spec.max ?? Number.MAX_SAFE_INTEGER;
      const n = /^[-+]?[0-9]+$/.test(t.value) ? Number(t.value) : NaN;
      if (!(n >= min && n <= max)) fail(`invalid value '${t.value}' for ${rawName}: expected an integer from ${min} to ${max}`);
      else set(n);
      continue;
    }
    if (spec.type === "string" && spec.foldCase && spec.choices && !isChoice(spec.choices, t.value)) {
      // Only to one of this flag's own choices: `describe -o name` is not `get -o name`.
      const folded = spec.foldCase.find((c) => c.toLowerCase() === t.value.toLowerCase() && isChoice(spec.choices!, c));
      if (folded !== undefined) {
        set(folded);
        continue;
      }
    }
    if (spec.choices && !isChoice(spec.choices, t.value)) {
      // `--patch "set-label k=v"`: a choice and its operands given as one argument.
      const [first, ...rest] = t.value.trim().split(/\s+/);
      const wanted = spec.type === "string" && first !== undefined && spec.choices.includes(first) ? (spec.operands?.(first) ?? []) : [];
      if (wanted.length > 0 && rest.length > 0) {
        fail(`invalid value '${t.value}' for ${rawName}: give ${wanted.join(" ")} as a separate argument: ${rawName} ${first} ${wanted.join(" ")}`);
        continue;
      }
      const named = spec.choices.map((c) => (c.endsWith("=") ? `${c}...` : c));
      const list = named.length <= 2 ? named.join(" or ") : `${named.slice(0, -1).join(", ")} or ${named[named.length - 1]}`;
      fail(`invalid value '${t.value}' for ${rawName}: expected ${list}`);
      continue;
    }
    const problems = spec.type === "string" ? (spec.validate?.(t.value) ?? []) : [];
    if (problems.length > 0) {
      fail(`invalid value '${t.value}' for ${rawName}: ${problems.join("; ")}`);
      continue;
    }
    set(t.value);
  }
  if (error !== undefined) return { kind: "error", message: error };
  delete values.help;
  return { kind: "ok", values: values as ParsedArgs<T>["values"], positionals, operands: operandsOf as ParsedArgs<T>["operands"], withOperands: withOperands as ParsedArgs<T>["withOperands"] };
}

const TRUE = new Set(["1", "t", "T", "true", "TRUE", "True"]);
const FALSE = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/** `value` read as Go's strconv.ParseBool reads it; undefined for any other text. */
export function parseBool(value: string): boolean | undefined {
  return TRUE.has(value) ? true : FALSE.has(value) ? false : undefined;
}

/** Prints a usage error the way every command does, and returns its exit code (2). */
export function usageError(io: CliIO, command: string, message: string): 2 {
  io.stderr(`karta ${command}: ${message}\nRun 'karta ${command} --help' for usage.\n`);
  return 2;
}

/**
 * Parses a command's arguments; on `--help` prints `help` and returns 0, on a usage error prints it and
 * returns 2, else returns what the command line says.
 */
export function parseCommand<T extends Flags>(io: CliIO, command: string, args: readonly string[], flags: T, help: string, options: ParseOptions = {}): ParsedArgs<T> | number {
  const p = parseCommandLine(args, flags, options);
  if (p.kind === "help") {
    io.stdout(help);
    return 0;
  }
  if (p.kind === "error") return usageError(io, command, p.message);
  return p;
}
