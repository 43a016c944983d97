/**
 * `karta jq`: Karta's jq engine as a command, compatible with the jq CLI's common flags and exit codes.
 */
import { findDeepNesting, yamlDocumentValue } from "../input/index.js";
import { JqError, JqSyntaxError, compileJq } from "../jq/index.js";
import type { JqValue } from "../jq/index.js";
import { messageJson, parseJsonLine, parseJsonStream, parseJsonText, toJson } from "../jq/native/json.js";
import { MAX_STRING_LENGTH } from "../jq/runtime.js";
import { parseCommand, usageError, type Flags, type ParsedArgs } from "./args.js";
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
  -s, --slurp            read all inputs into one array
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
  named: Record<string, JqValue>;
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
} as const satisfies Flags;

function options(p: ParsedArgs<typeof FLAGS>, io: CliIO): JqOptions {
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
    named: {},
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
  if (v["from-file"] !== undefined) o.fromFile = v["from-file"];
  else {
    o.filter = positional.shift();
    if (o.filter === undefined) throw new UsageError("a FILTER is required");
  }
  o.files = positional;
  return o;
}

/** Reads the inputs, as a lazy sequence so that `input`/`inputs` and large streams work. */
function* readInputs(o: JqOptions, sources: InputSource[], parseAllDocuments?: typeof import("yaml").parseAllDocuments): Generator<JqValue> {
  for (const { name, chunks } of sources) {
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
      yield* jsonValues(chunks(), name);
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
function* jsonValues(chunks: Iterable<string>, name: string): Generator<JqValue> {
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
        yield parsed.value as JqValue;
      } else if (text.trim() !== "") {
        let rest = buf.slice(start);
        for (let more = it.next(); !more.done; more = it.next()) rest += more.value;
        // Keep the parser's line numbers those of the whole input.
        yield* parseJsonStream("\n".repeat(line) + rest, name) as Generator<JqValue>;
        return;
      }
      line++;
      start = nl + 1;
    }
    buf = buf.slice(start);
  }
  if (buf.trim() !== "") yield* parseJsonStream("\n".repeat(line) + buf, name) as Generator<JqValue>;
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
    o = options(p, io);
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
  const vars = { ...named, ARGS: { positional: [], named } };
  const format = (v: JqValue): string => {
    if (o.raw && typeof v === "string") return v;
    // Bounded: a value with shared structure (2^40 leaves in 40 levels) must not print forever.
    return toJson(v, { indent: o.compact ? 0 : o.indent, sortKeys: o.sortKeys, ascii: o.ascii, maxLength: MAX_STRING_LENGTH });
  };
  const separator = o.join ? "" : "\n";
  let last: JqValue | undefined;
  let produced = false;
  let exit = 0;
  // With --slurp the input stream is one array; with -n too, `.` is null and `input` returns that array.
  // The YAML reader is loaded only for --yaml.
  const stream = readInputs(o, sources, o.yaml ? (await import("yaml")).parseAllDocuments : undefined);
  const inputs = o.slurp ? (function* () { yield [...stream]; })() : stream;
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
        { vars, nextInput, debug: (m) => io.stderr(m + "\n"), stderr: (t) => io.stderr(t) },
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
