/**
 * `karta jq`: Karta's jq engine as a command, compatible with the jq CLI's common flags and exit codes.
 */
import { findDeepNesting, yamlDocumentValue } from "../input/index.js";
import { JqError, JqSyntaxError, compileJq } from "../jq/index.js";
import type { JqValue } from "../jq/index.js";
import { messageJson, parseJsonLine, parseJsonStream, parseJsonText, toJson } from "../jq/native/json.js";
import { MAX_STRING_LENGTH } from "../jq/runtime.js";
import { parseCommand, parseCommandLine, usageError, type Flags, type ParsedArgs } from "./args.js";
import { readErrorReason, type CliIO } from "./io.js";
import { OutputBuffer } from "./output.js";

export const JQ_HELP = `Usage: karta jq [options] FILTER [FILE...]

Runs a jq program (jq 1.7.1 semantics) over a stream of JSON values read from the
files, or from standard input when none is given.

Options:
  -c, --compact-output   one value per line, no indentation
  -r, --raw-output       print strings without quotes
  -j, --join-output      like -r, without a newline after each output
  -a, --ascii-output     escape non-ASCII characters
  -n, --null-input       run once with null as input (read inputs with input/inputs)
  -s, --slurp            read all inputs into one array (with -R: one string)
  -R, --raw-input        each line of input is a string (no JSON parsing)
      --stream           read each input as jq's stream events [path, leaf] and [path]
      --seq              print an RS (0x1e) before each output; ignore RS in the input
  -C, --color-output     colour the JSON output as jq 1.7.1 does; -M, --monochrome-output: don't
  -e, --exit-status      exit 1 if the last output is false or null, 4 if there was none
  -S, --sort-keys        print object keys sorted
      --tab              indent with tabs
      --indent N         indent with N spaces (0 to 7, default 2)
      --yaml             read the inputs as YAML (multi-document)
      --arg NAME VALUE   bind $NAME to the string VALUE
      --argjson NAME JSON  bind $NAME to the JSON value
      --slurpfile NAME F bind $NAME to the array of JSON values in file F
      --rawfile NAME F   bind $NAME to the contents of file F
  -f, --from-file F      read the program from file F
      --env              let $ENV and env see the process environment (off by default)
      --args             the remaining positional arguments are strings in $ARGS.positional, not files
      --jsonargs         the remaining positional arguments are JSON texts in $ARGS.positional
  -h, --help             show this help

Exit codes: 0 ok, 1 (-e) last output false/null, 2 usage or unreadable input,
3 compile error, 4 (-e) no output, 5 runtime error (or halt_error's code).

Example:
  karta jq -r '.spec.pytorchReplicaSpecs | to_entries[] | "\\(.key): \\(.value.replicas)"' examples/pytorchjob.yaml --yaml
`;

interface JqOptions {
  compact: boolean;
  raw: boolean;
  join: boolean;
  ascii: boolean;
  nullInput: boolean;
  slurp: boolean;
  exitStatus: boolean;
  sortKeys: boolean;
  indent: number | "\t";
  yaml: boolean;
  env: boolean;
  rawInput: boolean;
  stream: boolean;
  seq: boolean;
  color: boolean;
  named: Record<string, JqValue>;
  positional: JqValue[];
  filter?: string;
  fromFile?: string;
  files: string[];
}

class UsageError extends Error {}

const VALUE = (): readonly string[] => ["VALUE"];
const FILE = (): readonly string[] => ["FILE"];
export const FLAGS = {
  "compact-output": { type: "boolean", short: "c" },
  "raw-output": { type: "boolean", short: "r" },
  "join-output": { type: "boolean", short: "j" },
  "ascii-output": { type: "boolean", short: "a" },
  "null-input": { type: "boolean", short: "n" },
  slurp: { type: "boolean", short: "s" },
  "exit-status": { type: "boolean", short: "e" },
  "sort-keys": { type: "boolean", short: "S" },
  tab: { type: "boolean" },
  indent: { type: "integer", min: 0, max: 7 },
  yaml: { type: "boolean" },
  env: { type: "boolean" },
  arg: { type: "string", multiple: true, operands: VALUE },
  argjson: { type: "string", multiple: true, operands: VALUE },
  slurpfile: { type: "string", multiple: true, operands: FILE },
  rawfile: { type: "string", multiple: true, operands: FILE },
  "from-file": { type: "string", short: "f" },
  "raw-input": { type: "boolean", short: "R" },
  stream: { type: "boolean" },
  seq: { type: "boolean" },
  "color-output": { type: "boolean", short: "C" },
  "monochrome-output": { type: "boolean", short: "M" },
  args: { type: "boolean" },
  jsonargs: { type: "boolean" },
} as const satisfies Flags;

/**
 * What jq makes of each positional argument after the filter: jq reads its arguments in order, so the
 * ones before `--args` (`--jsonargs`) are files and the ones after it are strings (JSON texts) of
 * `$ARGS.positional`, until the other of the two flags switches again.
 */
function positionalModes(args: readonly string[], positionals: number): ("files" | "args" | "jsonargs")[] {
  const modes: ("files" | "args" | "jsonargs")[] = new Array<"files" | "args" | "jsonargs">(positionals).fill("files");
  const end = args.indexOf("--");
  args.forEach((a, i) => {
    if ((a !== "--args" && a !== "--jsonargs") || (end >= 0 && i > end)) return;
    const before = parseCommandLine(args.slice(0, i), FLAGS, { positionals: true });
    const from = before.kind === "ok" ? before.positionals.length : 0;
    modes.fill(a === "--args" ? "args" : "jsonargs", from);
  });
  return modes;
}

function options(p: ParsedArgs<typeof FLAGS>, args: readonly string[], io: CliIO): JqOptions {
  const v = p.values;
  const o: JqOptions = {
    compact: v["compact-output"],
    raw: v["raw-output"] || v["join-output"],
    join: v["join-output"],
    ascii: v["ascii-output"],
    nullInput: v["null-input"],
    slurp: v.slurp,
    exitStatus: v["exit-status"],
    sortKeys: v["sort-keys"],
    indent: v.tab ? "\t" : (v.indent ?? 2),
    yaml: v.yaml,
    env: v.env,
    rawInput: v["raw-input"],
    stream: v.stream,
    seq: v.seq,
    color: v["color-output"] && !v["monochrome-output"],
    named: {},
    positional: [],
    files: [],
  };
  const pairs = (flag: keyof typeof FLAGS): [string, string][] => ((v[flag] as string[]) ?? []).map((name, i) => [name, p.operands[flag]![i]![0]!]);
  for (const [name, value] of pairs("arg")) o.named[name] = value;
  for (const [name, text] of pairs("argjson")) {
    try {
      o.named[name] = parseJsonText(text) as JqValue;
    } catch {
      throw new UsageError(`--argjson ${name}: invalid JSON text passed: ${text}`);
    }
  }
  for (const [name, file] of pairs("slurpfile")) o.named[name] = [...parseJsonStream(io.readFile(file), file)] as JqValue[];
  for (const [name, file] of pairs("rawfile")) o.named[name] = io.readFile(file);
  const positional = [...p.positionals];
  const modes = positionalModes(args, positional.length);
  if (v["from-file"] !== undefined) o.fromFile = v["from-file"];
  else {
    o.filter = positional.shift();
    modes.shift();
    if (o.filter === undefined) throw new UsageError("a FILTER is required");
  }
  positional.forEach((a, i) => {
    if (modes[i] === "files") o.files.push(a);
    else if (modes[i] === "args") o.positional.push(a);
    else {
      try {
        o.positional.push(parseJsonText(a) as JqValue);
      } catch {
        throw new UsageError(`--jsonargs: invalid JSON text passed: ${a}`);
      }
    }
  });
  return o;
}

/** Where the input being read is: what `input_filename` and `input_line_number` report. */
interface Position {
  name: string | null;
  line: number;
}

/** Reads the inputs, as a lazy sequence so that `input`/`inputs` and large streams work. */
function* readInputs(o: JqOptions, sources: InputSource[], at: Position, parseAllDocuments?: typeof import("yaml").parseAllDocuments): Generator<JqValue> {
  for (const { name, chunks } of sources) {
    at.name = name;
    at.line = 0;
    if (o.rawInput) {
      // jq -R: one string per line (the last one also without a newline).
      let buf = "";
      for (const chunk of chunks()) {
        buf += chunk;
        let start = 0;
        for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n", start)) {
          at.line++;
          yield buf.slice(start, nl);
          start = nl + 1;
        }
        buf = buf.slice(start);
      }
      if (buf !== "") yield buf;
      continue;
    }
    if (o.yaml) {
      const text = [...chunks()].join("");
      const deep = findDeepNesting(text);
      if (deep !== undefined) throw new JqInputError(name, `line ${deep.line}: ${deep.message}`);
      for (const doc of parseAllDocuments!(text, { logLevel: "error" })) {
        if (doc.errors.length) throw new JqInputError(name, doc.errors[0]!.message);
        const read = yamlDocumentValue(doc);
        if ("error" in read) throw new JqInputError(name, read.error);
        const value = read.value as JqValue;
        if (value === undefined || (value === null && doc.contents === null)) continue;
        yield value;
      }
      continue;
    }
    try {
      const text = o.seq ? () => [...chunks()].map((c) => c.replaceAll("\x1e", " ")) : chunks;
      yield* jsonValues(text(), name, at);
    } catch (e) {
      if (e instanceof Error && e.name === "JqRuntimeError") throw new JqInputError(name, e.message);
      throw e;
    }
  }
}

/**
 * JSON values from text chunks. One value per line (JSONL, `kubectl ... -o json | jq -c`) streams
 * through JSON.parse a line at a time; at the first line that is not a whole value, the rest of the
 * input goes to the jq-compatible parser (pretty-printed or concatenated values, jq's messages).
 */
function* jsonValues(chunks: Iterable<string>, name: string, at: Position): Generator<JqValue> {
  const it = chunks[Symbol.iterator]();
  let buf = "";
  let line = 0;
  let first = true;
  for (let r = it.next(); !r.done; r = it.next()) {
    buf += r.value;
    if (first && buf.charCodeAt(0) === 0xfeff) buf = buf.slice(1);
    first = false;
    let start = 0;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n", start)) {
      const text = buf.slice(start, nl);
      const parsed = parseJsonLine(text);
      if (parsed.ok) {
        // jq reads its input a line at a time: a value is seen once its whole line is read.
        at.line = line + 1;
        yield parsed.value as JqValue;
      } else if (text.trim() !== "") {
        let rest = buf.slice(start);
        for (let more = it.next(); !more.done; more = it.next()) rest += more.value;
        // Values spanning lines or sharing one: counted as read to the end (most often one document).
        at.line = line + countLines(rest);
        // Keep the parser's line numbers those of the whole input.
        yield* parseJsonStream("\n".repeat(line) + rest, name) as Generator<JqValue>;
        return;
      }
      line++;
      start = nl + 1;
    }
    buf = buf.slice(start);
  }
  if (buf.trim() !== "") {
    at.line = line + countLines(buf);
    yield* parseJsonStream("\n".repeat(line) + buf, name) as Generator<JqValue>;
  }
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** jq's --stream events of one value: `[path, leaf]` per scalar or empty container, `[path]` closing each container. */
function* streamEvents(v: JqValue, path: JqValue[] = [], top = true): Generator<JqValue> {
  const isArr = Array.isArray(v);
  const keys: (string | number)[] = isArr ? v.map((_x, i) => i) : v !== null && typeof v === "object" ? Object.keys(v) : [];
  if (keys.length === 0) {
    yield [path, v];
  } else {
    for (const k of keys) yield* streamEvents((v as Record<string | number, JqValue>)[k]!, [...path, k], false);
    yield [[...path, keys[keys.length - 1]!]];
  }
  void top;
}

const ESC = "\x1b[";
/** jq 1.7.1's default colours: null, false, true, numbers, strings, arrays, objects, object keys. */
const COLORS = { null: "0;90", false: "0;39", true: "0;39", number: "0;39", string: "0;32", array: "1;39", object: "1;39", key: "1;34" };

/** Colours a value the way jq 1.7.1's jv_dump_term does. */
function colorize(v: JqValue, indent: number | "\t", sortKeys: boolean, ascii: boolean, depth = 0): string {
  const pretty = indent !== 0;
  const pad = (d: number): string => (indent === "\t" ? "\t".repeat(d) : " ".repeat((indent as number) * d));
  const kind = v === null ? "null" : v === false ? "false" : v === true ? "true" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "number" ? "number" : "string";
  const col = ESC + COLORS[kind as keyof typeof COLORS] + "m";
  const reset = ESC + "0m";
  if (kind !== "array" && kind !== "object") return col + toJson(v, { ascii }) + reset;
  const open = kind === "array" ? "[" : "{";
  const close = kind === "array" ? "]" : "}";
  const entries: [string | null, JqValue][] = Array.isArray(v)
    ? v.map((x) => [null, x])
    : (sortKeys ? Object.keys(v as object).sort() : Object.keys(v as object)).map((k) => [k, (v as Record<string, JqValue>)[k]!]);
  if (entries.length === 0) return col + open + close + reset;
  let out = col + open;
  if (pretty) out += "\n" + pad(depth + 1);
  entries.forEach(([k, x], i) => {
    if (i > 0) out += pretty ? ",\n" + pad(depth + 1) : ",";
    if (k !== null) {
      out += reset + ESC + COLORS.key + "m" + toJson(k, { ascii }) + reset + col + (pretty ? ": " : ":") + reset;
    }
    out += colorize(x, indent, sortKeys, ascii, depth + 1) + col;
  });
  if (pretty) out += "\n" + pad(depth);
  return out + col + close + reset;
}

interface InputSource {
  name: string;
  chunks: () => Iterable<string>;
}

class JqInputError extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    super(message);
  }
}

/** Runs `karta jq`. */
export async function runJq(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "jq", args, FLAGS, JQ_HELP, { positionals: true });
  if (typeof p === "number") return p;
  let o: JqOptions;
  try {
    o = options(p, args, io);
  } catch (e) {
    if (e instanceof UsageError) return usageError(io, "jq", e.message);
    return reportIoError(e, io);
  }

  let programText: string;
  try {
    programText = o.fromFile !== undefined ? io.readFile(o.fromFile) : o.filter!;
  } catch (e) {
    return reportIoError(e, io);
  }
  const named = { ...o.named };
  let program;
  try {
    program = compileJq(programText, {
      variables: [...Object.keys(named), "ARGS"],
      env: o.env ? (Object.fromEntries(Object.entries(process.env)) as Record<string, JqValue>) : {},
    });
  } catch (e) {
    if (e instanceof JqSyntaxError) {
      io.stderr(`${e.describe()}\njq: 1 compile error\n`);
      return 3;
    }
    throw e;
  }

  let sources: InputSource[];
  try {
    if (o.files.length) {
      sources = o.files.map((f) => ({ name: f, chunks: () => io.readChunks(f) }));
    } else {
      const text = await io.readStdin();
      sources = [{ name: "<stdin>", chunks: () => [text] }];
    }
  } catch (e) {
    return reportIoError(e, io);
  }

  const out = new OutputBuffer(io);
  const vars = { ...named, ARGS: { positional: o.positional, named } };
  const format = (v: JqValue): string => {
    if (o.raw && typeof v === "string") return v;
    const indent = o.compact ? 0 : o.indent;
    // Bounded: a value with shared structure (2^40 leaves in 40 levels) must not print forever.
    const plain = toJson(v, { indent, sortKeys: o.sortKeys, ascii: o.ascii, maxLength: MAX_STRING_LENGTH });
    const text = o.color ? colorize(v, indent, o.sortKeys, o.ascii) : plain;
    return o.seq ? "\x1e" + text : text;
  };
  const separator = o.join ? "" : "\n";
  let last: JqValue | undefined;
  let produced = false;
  let exit = 0;
  // With --slurp the input stream is one array; with -n too, `.` is null and `input` returns that array.
  const at: Position = { name: null, line: 0 };
  // The YAML reader is loaded only for --yaml.
  const values = readInputs(o, sources, at, o.yaml ? (await import("yaml")).parseAllDocuments : undefined);
  const stream = o.stream ? (function* () { for (const v of values) yield* streamEvents(v); })() : values;
  // -R with -s: the whole input as one string.
  const slurped = (): JqValue => (o.rawInput ? sources.map((s) => [...s.chunks()].join("")).join("") : [...stream]);
  const inputs = o.slurp ? (function* () { yield slurped(); })() : stream;
  let count = 0;
  const nextInput = (): { value: JqValue } | undefined => {
    const r = inputs.next();
    if (r.done) return undefined;
    count++;
    return { value: r.value };
  };
  const runOne = (input: JqValue): boolean => {
    try {
      program.forEach(
        input,
        (v) => {
          out.write(format(v) + separator);
          last = v;
          produced = true;
        },
        {
          vars,
          nextInput,
          filename: () => at.name,
          inputLineNumber: () => at.line,
          debug: (m) => io.stderr(m + "\n"),
          stderr: (t) => io.stderr(t),
        },
      );
      return true;
    } catch (e) {
      if (!(e instanceof JqError)) throw e;
      if (e.kind === "halt") {
        out.flush();
        if (e.value !== undefined) io.stderr(typeof e.value === "string" ? e.value : messageJson(e.value) + "\n");
        exit = e.exitCode;
        return false;
      }
      io.stderr(`jq: error (at ${sources.length === 1 ? sources[0]!.name : "input"}, value ${count}): ${e.message}\n`);
      exit = 5;
      return e.kind !== "limit";
    }
  };
  try {
    if (o.nullInput) runOne(null);
    else for (let n = nextInput(); n; n = nextInput()) if (!runOne(n.value)) break;
  } catch (e) {
    out.flush();
    if (isFsError(e)) return reportIoError(e, io);
    if (e instanceof JqInputError) {
      io.stderr(`jq: error (at ${e.source}): ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  out.flush();
  if (exit !== 0) return exit;
  if (o.exitStatus) {
    if (!produced) return 4;
    return last === null || last === false ? 1 : 0;
  }
  return 0;
}

function isFsError(e: unknown): boolean {
  return typeof e === "object" && e !== null && "code" in e && "path" in e;
}

function reportIoError(e: unknown, io: CliIO): number {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err === "object" && "code" in err && err.path) {
    io.stderr(`karta jq: cannot read ${err.path}: ${readErrorReason(err)}\n`);
    return 2;
  }
  if (err instanceof Error && err.name === "JqRuntimeError") {
    io.stderr(`karta jq: ${err.message}\n`);
    return 2;
  }
  throw e;
}
