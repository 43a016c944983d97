/**
 * `karta jq`: Karta's jq engine as a command, compatible with the jq CLI's common flags and exit codes.
 */
import { findUnreadableText, yamlDocumentValue } from "../input/index.js";
import { JqError, JqSyntaxError, compileJq } from "../jq/index.js";
import { JqRuntimeError } from "../jq/errors.js";
import type { JqValue } from "../jq/index.js";
import { JQ_DEFAULT_COLORS, byteWidth, messageJson, parseJsonLine, parseJsonStream, parseJsonText, toJson } from "../jq/native/json.js";
import { NEED_INPUT, NO_MORE, JvParseError, JvParser, type ParserModes } from "../jq/native/jv-parser.js";
import { decodeFileBlocks, decodeUtf8Marked, replaceMarked, replaceMarkedIn } from "../jq/native/utf8.js";
import { MAX_STRING_LENGTH } from "../jq/runtime.js";
import { parseCommand, parseCommandLine, usageError, type Flags, type ParsedArgs } from "./args.js";
import { setWriteErrorExit, type CliIO } from "./io.js";
import { systemErrorText } from "../files/read-error.js";
import { kubectlDocuments } from "../input/yaml.js";
import { OutputBuffer } from "./output.js";

/** The jq release whose semantics `karta jq` follows (and `--version` prints, as jq prints its own). */
const JQ_VERSION = "1.8.2";

export const JQ_HELP = `Usage: karta jq [options] FILTER [FILE...]
       karta jq [options] -f PROGRAM-FILE [FILE...]

Runs a jq program (jq 1.8.2 semantics) over a stream of JSON values read from the
files, or from standard input when none is given. Without a FILTER, the program is ".".

Options:
  -c, --compact-output   one value per line, no indentation
  -r, --raw-output       print strings without quotes
      --raw-output0      like -r, with a NUL after each output instead of a newline
  -j, --join-output      like -r, without a newline after each output
  -a, --ascii-output     escape non-ASCII characters
  -n, --null-input       run once with null as input (read inputs with input/inputs)
  -s, --slurp            read all inputs into one array (with -R: one string)
  -R, --raw-input        each line of input is a string (no JSON parsing)
      --stream           read each input as jq's stream events [path, leaf] and [path], as the
                         text is read (the events before a parse error come first)
      --stream-errors    like --stream, and a parse error is the input ["MESSAGE", PATH] (the path
                         where the parser stood); reading goes on with the next line
      --seq              read the input as a JSON text sequence (RFC 7464: each text after an RS,
                         0x1e; parse errors are reported, not fatal); print an RS before each output
  -C, --color-output     colour the JSON output as jq 1.8.2 does (JQ_COLORS); -M, --monochrome-output: don't
  -e, --exit-status      exit 1 if the last output is false or null, 4 if there was none
  -S, --sort-keys        print object keys sorted
      --tab              indent with tabs
      --indent N         indent with N spaces (0 to 7, default 2; -1: tabs); the last of -c, --tab
                         and --indent wins
      --yaml             read the inputs as YAML (multi-document)
      --arg NAME VALUE   bind $NAME to the string VALUE
      --argjson NAME JSON  bind $NAME to the JSON value
      --slurpfile NAME F bind $NAME to the array of JSON values in file F
      --rawfile NAME F   bind $NAME to the contents of file F
  -f, --from-file        read the program from a file: the first argument that is not an option
                         (FILTER's place) names it, as in jq (jq -f prog.jq -r input.json)
      --env              let $ENV and env see the process environment (off by default)
      --unbuffered       accepted, as jq accepts it; no effect
  -b, --binary           accepted, as jq accepts it off Windows; no effect
  -L, --library-path DIR accepted; a program cannot import modules (import and include are refused)
  -V, --version          print the jq version whose semantics this follows (jq-1.8.2)
      --args             the remaining positional arguments are strings in $ARGS.positional, not files
      --jsonargs         the remaining positional arguments are JSON texts in $ARGS.positional
  -h, --help             show this help

Exit codes (of the last input, as jq): 0 ok, 1 (-e) last output false/null, 2 usage or a file
that cannot be read, 3 compile error, 4 (-e) no output, 5 runtime error or an input that does not
parse (or halt_error's code).

Unlike jq, a run is bounded: over one input it stops with exit 5 after 20,000,000 steps, 1,000
nested calls or 10,000,000 outputs, or when an array would pass 16,777,216 elements or a string
67,108,864 UTF-16 units (try cannot catch these). Other differences from jq 1.8.2: docs/jq.md.

Example:
  karta jq -r '.spec.pytorchReplicaSpecs | to_entries[] | "\\(.key): \\(.value.replicas)"' examples/pytorchjob.yaml --yaml
`;

interface JqOptions {
  /** Line breaks and indentation (jq's JV_PRINT_PRETTY and indent flags): the last of -c, --tab, --indent. */
  pretty: boolean;
  raw: boolean;
  /** No newline after an output (-j, --raw-output0). */
  join: boolean;
  /** --raw-output0: a NUL after each output. */
  nul: boolean;
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
  streamErrors: boolean;
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
  "raw-output0": { type: "boolean" },
  "join-output": { type: "boolean", short: "j" },
  "ascii-output": { type: "boolean", short: "a" },
  "null-input": { type: "boolean", short: "n" },
  slurp: { type: "boolean", short: "s" },
  "exit-status": { type: "boolean", short: "e" },
  "sort-keys": { type: "boolean", short: "S" },
  tab: { type: "boolean" },
  indent: { type: "integer", min: -1, max: 7 },
  yaml: { type: "boolean" },
  env: { type: "boolean" },
  arg: { type: "string", multiple: true, operands: VALUE },
  argjson: { type: "string", multiple: true, operands: VALUE },
  slurpfile: { type: "string", multiple: true, operands: FILE },
  rawfile: { type: "string", multiple: true, operands: FILE },
  // A switch, as in jq: the program file is the first positional argument, wherever -f is.
  "from-file": { type: "boolean", short: "f" },
  "raw-input": { type: "boolean", short: "R" },
  stream: { type: "boolean" },
  "stream-errors": { type: "boolean" },
  seq: { type: "boolean" },
  "color-output": { type: "boolean", short: "C" },
  "monochrome-output": { type: "boolean", short: "M" },
  args: { type: "boolean" },
  jsonargs: { type: "boolean" },
  // jq flushes after each output with it; accepted so that jq command lines run, with no effect.
  unbuffered: { type: "boolean" },
  // jq's CRLF switch for Windows builds: a no-op elsewhere, as in jq.
  binary: { type: "boolean", short: "b" },
  // Module search paths: accepted so that jq command lines run; import/include are refused at compile time.
  "library-path": { type: "string", multiple: true, short: "L" },
  version: { type: "boolean", short: "V" },
} as const satisfies Flags;

/** As jq reads its command line: a filter and files, where `-1` and `-.a` are filters, not flags. */
const JQ_ARGUMENTS = { positionals: true, dashOperands: true, inOrder: ["version"] } as const;

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
    const before = parseCommandLine(args.slice(0, i), FLAGS, JQ_ARGUMENTS);
    const from = before.kind === "ok" ? before.positionals.length : 0;
    modes.fill(a === "--args" ? "args" : "jsonargs", from);
  });
  return modes;
}

function options(p: ParsedArgs<typeof FLAGS>, args: readonly string[], io: CliIO): JqOptions {
  const v = p.values;
  const layout = outputLayout(args);
  const o: JqOptions = {
    pretty: layout.pretty,
    raw: v["raw-output"] || v["join-output"] || v["raw-output0"],
    join: v["join-output"] || v["raw-output0"],
    nul: v["raw-output0"],
    ascii: v["ascii-output"],
    nullInput: v["null-input"],
    slurp: v.slurp,
    exitStatus: v["exit-status"],
    sortKeys: v["sort-keys"],
    indent: layout.indent,
    yaml: v.yaml,
    env: v.env,
    rawInput: v["raw-input"],
    stream: v.stream || v["stream-errors"],
    streamErrors: v["stream-errors"],
    seq: v.seq,
    color: v["color-output"] && !v["monochrome-output"],
    named: {},
    positional: [],
    files: [],
  };
  // As jq 1.8.2: the first binding of a name wins, whichever of the four flags made it, in command-line order.
  for (const { flag, value: name, operands } of p.withOperands) {
    const operand = operands[0];
    if (operand === undefined || Object.prototype.hasOwnProperty.call(o.named, name)) continue;
    if (flag === "arg") o.named[name] = operand;
    else if (flag === "argjson") {
      try {
        o.named[name] = parseJsonText(operand) as JqValue;
      } catch {
        throw new UsageError(`--argjson ${name}: invalid JSON text passed: ${operand}`);
      }
    } else if (flag === "slurpfile" || flag === "rawfile") {
      // jq's words: the flag, the name and the file.
      const context = `Bad JSON in --${flag} ${name} ${operand}: `;
      const text = loadFile(io, operand, context, flag === "rawfile" ? "text" : "json");
      try {
        o.named[name] = flag === "rawfile" ? text : ([...parseJsonStream(text, operand)].map(replaceMarkedIn) as JqValue[]);
      } catch (e) {
        throw new JqFileError(`${context}${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
  const positional = [...p.positionals];
  const modes = positionalModes(args, positional.length);
  if (v["from-file"]) {
    o.fromFile = positional.shift();
    // jq prints its usage: no file, no program.
    if (o.fromFile === undefined) throw new UsageError("-f/--from-file: no program file given (the first argument that is not an option names it)");
  } else {
    // As jq when its input or output is not a terminal: no program is the identity.
    o.filter = positional.shift() ?? ".";
  }
  modes.shift();
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

/**
 * How the output is laid out, as jq reads its options in order: `-c` drops line breaks, `--tab` and
 * `--indent N` bring them back (N spaces; 0: line breaks without indentation; -1: tabs). The last wins.
 */
function outputLayout(args: readonly string[]): { pretty: boolean; indent: number | "\t" } {
  let layout: { pretty: boolean; indent: number | "\t" } = { pretty: true, indent: 2 };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") break;
    if (/^-[a-zA-Z]/.test(a)) {
      // A cluster of short options: one that takes a value (-f, -L) takes the rest of it, or the next argument.
      const letters = a.slice(1);
      const valueAt = [...letters].findIndex((l) => SHORT_TAKES_VALUE.has(l));
      if ((valueAt < 0 ? letters : letters.slice(0, valueAt)).includes("c")) layout = { pretty: false, indent: 0 };
      if (valueAt === letters.length - 1) i++;
    } else if (a === "--compact-output") layout = { pretty: false, indent: 0 };
    else if (a === "--tab") layout = { pretty: true, indent: "\t" };
    else if (a === "--indent" || a.startsWith("--indent=")) {
      const n = Number(a === "--indent" ? args[++i] : a.slice("--indent=".length));
      layout = { pretty: true, indent: n < 0 ? "\t" : n };
    } else if (FLAG_TAKES_VALUES.has(a)) i += FLAG_TAKES_VALUES.get(a)!;
  }
  return layout;
}
/** The options whose values follow them, with how many arguments they take (skipped when looking for layout options). */
const FLAG_TAKES_VALUES: ReadonlyMap<string, number> = new Map(
  Object.entries(FLAGS).flatMap(([name, spec]) => (spec.type === "boolean" ? [] : [[`--${name}`, 1 + ("operands" in spec ? spec.operands().length : 0)] as const])),
);
/** The short options that take a value. */
const SHORT_TAKES_VALUE: ReadonlySet<string> = new Set(Object.values(FLAGS).flatMap((spec) => (spec.type !== "boolean" && "short" in spec ? [spec.short] : [])));

/** Where the input being read is: what `input_filename` and `input_line_number` report. */
interface Position {
  name: string | null;
  line: number;
}

/** Reads the inputs, as a lazy sequence so that `input`/`inputs` and large streams work. */
function* readInputs(o: JqOptions, sources: InputSource[], at: Position, parseAllDocuments?: typeof import("yaml").parseAllDocuments): Generator<JqValue | JqInputError> {
  if (!o.rawInput && !o.yaml) {
    yield* jsonValues(sources, at);
    return;
  }
  // jq -R: one string per line, the files one stream (a file's last line without its newline goes on
  // in the next file), and the last line also without a newline.
  let buf = "";
  for (const { name, chunks } of sources) {
    at.name = name;
    at.line = 0;
    if (o.rawInput) {
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
      continue;
    }
    // --yaml: each file's documents.
    const text = [...chunks()].join("");
    const deep = findUnreadableText(text);
    if (deep !== undefined) throw new JqInputError(name, `line ${deep.line}: ${deep.message}`);
    const parsed = kubectlDocuments(parseAllDocuments!, text, { logLevel: "error" });
    for (const doc of parsed.documents) {
      if (doc.errors.length) throw new JqInputError(name, doc.errors[0]!.message);
      const read = yamlDocumentValue(doc, parsed.text);
      if ("error" in read) throw new JqInputError(name, read.offset === undefined ? read.error : `line ${parsed.text.slice(0, read.offset).split("\n").length}: ${read.error}`);
      const value = read.value as JqValue;
      if (value === undefined || (value === null && doc.contents === null)) continue;
      yield value;
    }
  }
  if (buf !== "") yield buf;
}

/** Blanks only, as JSON counts them (a line of them holds no value). */
const BLANK = /^[ \t\r\n]*$/;
/** Anything but a blank, from its `lastIndex` on. */
const NOT_BLANK = /[^ \t\r\n]/g;

/**
 * The JSON values of all the inputs, read as jq reads them: one text across the files, so that a value
 * may start in one file and end in the next (a file's last line without its newline goes on in the
 * next), a byte-order mark is skipped at the start of the whole input only, and a parse error's line
 * counts the lines of the files before it; `input_filename` and `input_line_number` are those of the
 * file being read when a value ends. One value per line (JSONL, `kubectl ... -o json | jq -c`) streams
 * through JSON.parse a line at a time; at the first line that is not a whole value, or a file ending
 * without a line break, the rest of the input goes to the jq-compatible parser as one text
 * (pretty-printed or concatenated values, jq's messages).
 */
function* jsonValues(sources: InputSource[], at: Position): Generator<JqValue | JqInputError> {
  /** Line breaks of the files before the one being read: the parser's lines go on counting them. */
  let linesBefore = 0;
  let first = true;
  for (const [i, { name, chunks }] of sources.entries()) {
    at.name = name;
    at.line = 0;
    const it = chunks()[Symbol.iterator]();
    let buf = "";
    for (let r = it.next(); !r.done; r = it.next()) {
      buf += r.value;
      if (first && buf !== "") {
        if (buf.charCodeAt(0) === 0xfeff) buf = buf.slice(1);
        first = false;
      }
      let start = 0;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n", start)) {
        const text = buf.slice(start, nl);
        const parsed = parseJsonLine(text);
        if (!parsed.ok && !BLANK.test(text)) {
          yield* joinedValues(buf.slice(start), it, sources.slice(i), linesBefore, at);
          return;
        }
        // jq reads its input a line at a time: a value is seen once its whole line is read.
        at.line++;
        if (parsed.ok) yield parsed.value as JqValue;
        start = nl + 1;
      }
      buf = buf.slice(start);
    }
    // A last line without a line break: the next file goes on with it.
    if (buf !== "" && (i < sources.length - 1 || !BLANK.test(buf))) {
      yield* joinedValues(buf, it, sources.slice(i), linesBefore, at);
      return;
    }
    linesBefore += at.line;
  }
}

/** A file's part of a text read across files: where it starts and ends, and its lines read before. */
interface Segment {
  name: string;
  start: number;
  end: number;
  /** The file's lines read before `start`. */
  lineBase: number;
  /** The line breaks of the text before `start`. */
  breaksBefore: number;
  /** Reports the file as one that could not be read: called when the parser gets to it. */
  unread?: () => void;
}

/**
 * The values of the rest of the input, read as one text: `head` (the unread text of `sources[0]`, from
 * the start of a line), the rest of that file and the files after it. `at` is set before each value
 * (and parse error, given in its place as a JqInputError, not thrown) to the file holding the character
 * that ends it and the lines of that file read once that character's line is; at the end, to the last
 * file and all its lines. After a parse error reading goes on with the line after it, as jq's parser
 * throws away the line it was reading and goes on: a program's `input` can catch the error and read on.
 */
function* joinedValues(head: string, rest: Iterator<string>, sources: InputSource[], linesBefore: number, at: Position): Generator<JqValue | JqInputError> {
  // The parser's line numbers are kept those of the whole input: the lines before come as line breaks.
  let text = "\n".repeat(linesBefore + at.line) + head;
  for (let r = rest.next(); !r.done; r = rest.next()) text += r.value;
  const segments: Segment[] = [{ name: sources[0]!.name, start: linesBefore + at.line, end: text.length, lineBase: at.line, breaksBefore: linesBefore + at.line }];
  for (const { name, chunks } of sources.slice(1)) {
    const start = text.length;
    let unread: (() => void) | undefined;
    for (const chunk of chunks((report) => (unread = report))) text += chunk;
    const last = segments.at(-1)!;
    segments.push({ name, start, end: text.length, lineBase: 0, breaksBefore: last.breaksBefore + lineBreaks(text, last.start, start), ...(unread ? { unread } : {}) });
  }
  // The line breaks of the text before `counted` (values come in order: each is counted from the last).
  let counted = 0;
  let breaks = 0;
  /** `at` for the character at `offset` (of the text as it was first), its line read. */
  const place = (offset: number): void => {
    const seg = offset >= text.length ? segments.at(-1)! : segments.find((s) => offset < s.end)!;
    // A file that could not be read is reported once the parser has got past it, as jq opens it then.
    for (const s of segments) {
      if (s === seg && offset < text.length) break;
      s.unread?.();
      delete s.unread;
    }
    const to = Math.min(offset, seg.end);
    if (to < counted) [counted, breaks] = [0, 0];
    breaks += lineBreaks(text, counted, to);
    counted = to;
    const nl = text.indexOf("\n", Math.min(offset, text.length));
    at.name = seg.name;
    at.line = seg.lineBase + breaks - seg.breaksBefore + (nl >= 0 && nl < seg.end ? 1 : 0);
  };
  // Where the parser starts, and jq's counts there (after a parse error they lag: what was dropped is not counted).
  const start = { from: 0, line: 1, column: 0 };
  for (;;) {
    const where: { end?: number } = {};
    try {
      for (const v of parseJsonStream(text, undefined, start, where)) {
        place(where.end!);
        yield v as JqValue;
      }
      place(text.length);
      return;
    } catch (e) {
      if (!(e instanceof Error && e.name === "JqRuntimeError")) throw e;
      const [, lineText, columnText] = /at line (\d+), column (\d+)$/.exec(e.message) ?? [];
      const line = Number(lineText);
      const column = Number(columnText);
      const error = Number.isInteger(line) && !e.message.includes(" at EOF at line ") ? errorOffset(text, start, line, column) : -1;
      if (error < 0) {
        // At the end of the input: every file read.
        place(text.length);
        yield new JqInputError(at.name ?? "<stdin>", e.message);
        return;
      }
      // jq's parser drops the rest of the piece it was reading: the error's line, up to the end of its
      // file (a line longer than jq's 4 KB piece is dropped whole here, not a piece of it).
      const segmentEnd = segments.find((seg) => error < seg.end)!.end;
      const lineEnd = text.indexOf("\n", error);
      const next = Math.min(lineEnd < 0 ? text.length : lineEnd + 1, segmentEnd);
      place(error);
      yield new JqInputError(at.name ?? "<stdin>", e.message);
      NOT_BLANK.lastIndex = next;
      if (!NOT_BLANK.test(text)) return;
      // On with the text after it, where jq's counts stand.
      Object.assign(start, { from: next, line, column });
    }
  }
}

/**
 * The offset of the character a parse error names (its line 1-based, its column in UTF-8 bytes; column
 * 0 is the line break that ended the line before), or -1 when the error is past the end of the text.
 * The parser started at `start.from`, counted as `start.line` and `start.column`.
 */
function errorOffset(text: string, start: { from: number; line: number; column: number }, line: number, column: number): number {
  let lineStart = start.from;
  let before = start.column;
  for (let l = start.line; l < line; l++) {
    const nl = text.indexOf("\n", lineStart);
    if (nl < 0) return -1;
    lineStart = nl + 1;
    before = 0;
  }
  if (column === 0) return lineStart > 0 ? lineStart - 1 : 0;
  if (lineStart >= text.length) return -1;
  let i = lineStart;
  for (let bytes = before + byteWidth(text.charCodeAt(i)); bytes < column && i + 1 < text.length && text.charCodeAt(i) !== 0x0a; bytes += byteWidth(text.charCodeAt(i))) i++;
  return i;
}

/** The line breaks in `text[from, to)`. */
function lineBreaks(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf("\n", from); i >= 0 && i < to; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** The longest piece of a line jq reads at once (fgets into its 4096-byte buffer, less 4 for UTF-8): bytes. */
const JQ_READ_PIECE = 4091;

/**
 * The values (stream events with --stream) and parse errors of the inputs read by jq's parser in the
 * modes of --seq and --stream: one text across all the files (a value may start in one file and end in
 * the next), parse errors given in their place and parsing going on after them (with --seq after the
 * character, else with the next line). As jq, the text is read a line at a time (a long line in pieces
 * of {@link JQ_READ_PIECE} bytes), and `input_line_number` counts the lines of the current file read so far.
 */
function* parserInputs(sources: InputSource[], at: Position, modes: ParserModes): Generator<JqValue | JvParseError> {
  const streaming = modes.streaming;
  const parser = new JvParser(modes);
  // A BOM is skipped at the start of the whole input only (jq's parser strips it from its first bytes).
  let bomSeen = false;
  for (const { name, chunks } of sources) {
    at.name = name;
    at.line = 0;
    let carry = "";
    for (const chunk of chunks()) {
      let text = carry === "" ? chunk : carry + chunk;
      carry = "";
      if (!bomSeen && text !== "") {
        bomSeen = true;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      let start = 0;
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
        const end = nl + 1;
        const whole = (end - start) * 3 <= JQ_READ_PIECE;
        if (whole && !streaming && text.charCodeAt(start) === 0x1e && parser.idle()) {
          // The common line, an RS and one whole value, read at once by JSON.parse.
          const parsed = parseJsonLine(text.slice(start + 1, end));
          if (parsed.ok) {
            at.line++;
            parser.readLine();
            yield parsed.value as JqValue;
            start = end;
            continue;
          }
        }
        // The line is counted once its last piece (the one with the newline) is read.
        const last = whole ? start : lastPieceStart(text, start, end);
        if (last > start) {
          parser.setBuffer(text, start, last);
          for (let r = parser.next(); r !== NEED_INPUT; r = parser.next()) yield r as JqValue | JvParseError;
        }
        at.line++;
        parser.setBuffer(text, last, end);
        for (let r = parser.next(); r !== NEED_INPUT; r = parser.next()) yield r as JqValue | JvParseError;
        start = end;
      }
      carry = start === 0 ? text : text.slice(start);
    }
    if (carry !== "") {
      parser.setBuffer(carry, 0, carry.length);
      for (let r = parser.next(); r !== NEED_INPUT; r = parser.next()) yield r as JqValue | JvParseError;
    }
  }
  const last = parser.finish();
  if (last !== NO_MORE) yield last as JqValue | JvParseError;
}

/**
 * Where the last piece jq reads of the line `text[start..end)` (ending with its newline) begins: each
 * piece before it is {@link JQ_READ_PIECE} bytes, completed to the end of the character it cuts.
 */
function lastPieceStart(text: string, start: number, end: number): number {
  let piece = start;
  for (;;) {
    let bytes = 0;
    let i = piece;
    while (i < end && bytes < JQ_READ_PIECE) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        bytes += 4;
        i += 2;
      } else {
        bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        i++;
      }
    }
    if (i >= end) return piece;
    piece = i;
  }
}

/** Parse errors as the inputs' own, which end the command (not a --seq input's, which are reported and skipped). */
function* fatalErrors(items: Iterable<JqValue | JvParseError>, at: Position): Generator<JqValue | JqInputError> {
  for (const item of items) yield item instanceof JvParseError ? new JqInputError(at.name ?? "<stdin>", item.message) : item;
}

/** The values of a --seq input gathered into one array (--slurp), its parse errors given as they come. */
function* slurpSeq(items: Iterable<JqValue | JvParseError>): Generator<JqValue | JvParseError> {
  const all: JqValue[] = [];
  for (const item of items) {
    if (item instanceof JvParseError) yield item;
    else all.push(item);
  }
  yield all;
}

/** jq's --stream events of one value: `[path, leaf]` per scalar or empty container, `[path]` closing each container. */
function* streamEvents(root: JqValue): Generator<JqValue> {
  const keysOf = (v: JqValue): (string | number)[] => (Array.isArray(v) ? v.map((_x, i) => i) : v !== null && typeof v === "object" ? Object.keys(v) : []);
  const rootKeys = keysOf(root);
  if (rootKeys.length === 0) {
    yield [[], root];
    return;
  }
  // A stack of the containers being walked, not a generator per level: input nests up to 10,000 deep.
  const path: (string | number)[] = [];
  const frames = [{ value: root as Record<string | number, JqValue>, keys: rootKeys, next: 0 }];
  while (frames.length > 0) {
    const f = frames.at(-1)!;
    if (f.next === f.keys.length) {
      yield [[...path, f.keys.at(-1)!]];
      frames.pop();
      path.pop();
      continue;
    }
    const k = f.keys[f.next++]!;
    const child = f.value[k]!;
    const keys = keysOf(child);
    if (keys.length === 0) yield [[...path, k], child];
    else {
      path.push(k);
      frames.push({ value: child as Record<string | number, JqValue>, keys, next: 0 });
    }
  }
}

interface InputSource {
  name: string;
  /**
   * The file's text, in pieces. A file that cannot be read is reported (and counted) when it is read,
   * or, given `defer`, when `defer`'s report is called: jq reports it only once its parser gets there.
   */
  chunks: (defer?: (report: () => void) => void) => Iterable<string>;
}

class JqInputError extends Error {
  constructor(
    readonly source: string,
    message: string,
  ) {
    // Given once per bad input: a stack trace (of Karta's reader) would only cost.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
  }
}

/** Runs `karta jq`. */
export async function runJq(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "jq", args, FLAGS, JQ_HELP, JQ_ARGUMENTS);
  if (typeof p === "number") return p;
  setWriteErrorExit(2);
  if (p.values.version) {
    // As jq --version: the version alone, whatever else the command line holds.
    io.stdout(`jq-${JQ_VERSION}\n`);
    return 0;
  }
  let o: JqOptions;
  try {
    o = options(p, args, io);
  } catch (e) {
    if (e instanceof UsageError) return usageError(io, "jq", e.message);
    if (e instanceof JqFileError) return fileError(e, io);
    return reportIoError(e, io);
  }
  const jqColorSet = jqColors(io);

  let programText: string;
  try {
    programText = o.fromFile !== undefined ? loadFile(io, o.fromFile, "", "text") : o.filter!;
  } catch (e) {
    if (e instanceof JqFileError) return fileError(e, io);
    return reportIoError(e, io);
  }
  if (programText.includes("\0")) {
    // As jq 1.8.2: the program is not cut at the NUL byte, it is refused.
    io.stderr("jq: program file contains NUL bytes\n");
    return 2;
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
      io.stderr(`${e.describe()}\njq: ${e.count} compile error${e.count === 1 ? "" : "s"}\n`);
      return 3;
    }
    throw e;
  }

  // Bytes that are not UTF-8 are kept as markers until the strings are made, which replaces them as jq
  // does within each string (src/jq/native/utf8.ts): only when an input had any.
  let marked = false;
  const decodeInput = (bytes: Uint8Array): string => {
    const r = decodeUtf8Marked(bytes);
    marked ||= r.marked;
    return r.text;
  };
  let sources: InputSource[];
  // A file that cannot be read is reported when its turn comes and the command exits 2 at the end, as
  // in jq; the program runs on the value being read then, and on no other (below).
  let unreadable = 0;
  const readable = (f: string) =>
    function* (defer?: (report: () => void) => void): Generator<string> {
      try {
        yield* io.readChunks(f, decodeInput);
      } catch (e) {
        if (!isFsError(e)) throw e;
        const report = (): void => {
          reportIoError(e, io);
          unreadable++;
        };
        if (defer) defer(report);
        else report();
      }
    };
  try {
    if (o.files.length) {
      // `-` is standard input, as in jq (read once: a second `-` finds it at its end).
      let stdin: string | undefined = o.files.includes("-") ? await io.readStdin(decodeInput) : undefined;
      sources = o.files.map((f) => {
        if (f !== "-") return { name: f, chunks: readable(f) };
        const text = stdin ?? "";
        stdin = "";
        return { name: "<stdin>", chunks: () => [text] };
      });
    } else {
      const text = await io.readStdin(decodeInput);
      sources = [{ name: "<stdin>", chunks: () => [text] }];
    }
  } catch (e) {
    return reportIoError(e, io);
  }

  const out = new OutputBuffer(io);
  const vars = { ...named, ARGS: { positional: o.positional, named } };
  const colors = o.color ? jqColorSet : undefined;
  // Bounded: a value with shared structure (2^40 leaves in 40 levels) must not print forever.
  const dump = (v: JqValue): string =>
    toJson(v, { indent: o.indent, pretty: o.pretty, sortKeys: o.sortKeys, ascii: o.ascii, maxLength: MAX_STRING_LENGTH, ...(colors ? { colors } : {}) });
  const write = (v: JqValue): void => {
    let text: string;
    if (o.raw && typeof v === "string") {
      // jq prints a raw string with -a as JSON text (quoted, escaped).
      if (o.ascii) text = toJson(v, { ascii: true });
      else if (o.nul && v.includes("\0")) throw new CliRunError("Cannot dump a string containing NUL with --raw-output0 option");
      else text = v;
    } else {
      text = (o.seq ? "\x1e" : "") + dump(v);
    }
    out.write(text + (o.join ? "" : "\n") + (o.nul ? "\0" : ""));
  };
  // With --slurp the input stream is one array; with -n too, `.` is null and `input` returns that array.
  const at: Position = { name: null, line: 0 };
  // The YAML reader is loaded only for --yaml.
  let inputs: Iterator<JqValue | JvParseError | JqInputError>;
  const modes = { seq: o.seq, streaming: o.stream, streamErrors: o.streamErrors };
  if (o.seq && !o.rawInput && !o.yaml) {
    // jq --seq: the inputs are a JSON text sequence; its parse errors come in their place among the values.
    const items = parserInputs(sources, at, modes);
    // With --slurp, the errors come while the values are gathered, and the array at the end.
    inputs = o.slurp ? slurpSeq(items) : items;
  } else {
    // jq --stream: events as jq's streaming parser makes them from the text; a parse error ends the input.
    const values = o.stream && !o.rawInput && !o.yaml ? fatalErrors(parserInputs(sources, at, modes), at) : readInputs(o, sources, at, o.yaml ? (await import("yaml")).parseAllDocuments : undefined);
    // With -R there is no parser, and jq's --stream changes nothing: each line is a string.
    const stream = o.stream && o.yaml && !o.rawInput ? (function* () { for (const v of values) if (v instanceof JqInputError) yield v; else yield* streamEvents(v); })() : values;
    // -R with -s: the whole input as one string; a parse error ends the slurp.
    const slurped = (): JqValue => {
      if (o.rawInput) {
        // As jq, which has read every line: the position is the last file's, all its lines read.
        const texts = sources.map((s) => [...s.chunks()].join(""));
        if (sources.length > 0) {
          at.name = sources.at(-1)!.name;
          at.line = lineBreaks(texts.at(-1)!, 0, texts.at(-1)!.length);
        }
        // jq makes a string of each line of a file it reads, its line break included, and joins them.
        return marked ? texts.map((t) => t.split(/(?<=\n)/).map(replaceMarked).join("")).join("") : texts.join("");
      }
      const all: JqValue[] = [];
      for (const v of stream) {
        if (v instanceof JqInputError) throw v;
        all.push(v);
      }
      return all;
    };
    inputs = o.slurp ? (function* () { yield slurped(); })() : stream;
  }
  const read = inputs;
  inputs = (function* () {
    for (let r = read.next(); !r.done; r = read.next()) yield marked && !(r.value instanceof JvParseError || r.value instanceof JqInputError) ? (replaceMarkedIn(r.value) as JqValue) : r.value;
  })();
  /**
   * The program's `input`: a parse error of the input (--seq or not) is an error of the program, which
   * `try` catches, as in jq.
   */
  const nextInput = (): { value: JqValue } | undefined => {
    let r: IteratorResult<JqValue | JvParseError | JqInputError>;
    try {
      r = inputs.next();
    } catch (e) {
      if (e instanceof JqInputError) throw new JqRuntimeError(e.message);
      throw e;
    }
    if (r.done) return undefined;
    if (r.value instanceof JvParseError || r.value instanceof JqInputError) throw new JqRuntimeError(r.value.message);
    return { value: r.value };
  };
  /** Where jq says an error happened: the file and the lines of it read so far, or <unknown> before any input. */
  const position = (): string => (at.name === null ? "<unknown>" : `${at.name}:${at.line}`);
  let halted = false;
  // One jq state for all the inputs: its labels are numbered across them, as jq's are.
  const labels = { next: 0 };
  /** One run, with jq's status: NO_OUTPUT, NULL_KIND (last output false or null), OK, or an exit code. */
  const runOne = (input: JqValue): number => {
    let status = NO_OUTPUT;
    try {
      program.forEach(
        input,
        (v) => {
          write(v);
          status = (o.raw && typeof v === "string") || (v !== null && v !== false) ? OK : NULL_KIND;
        },
        {
          vars,
          nextInput,
          filename: () => at.name,
          inputLineNumber: () => at.line,
          labels,
          debug: (m) => io.stderr(m + "\n"),
          debugFormat: { sortKeys: o.sortKeys, ascii: o.ascii, ...(colors ? { colors } : {}) },
          stderr: (t) => io.stderr(t),
        },
      );
      return status;
    } catch (e) {
      if (e instanceof CliRunError) {
        io.stderr(`jq: error (at ${position()}): ${e.message}\n`);
        return 5;
      }
      if (!(e instanceof JqError)) throw e;
      if (e.kind === "halt") {
        halted = true;
        out.flush();
        // halt_error prints a string as it is, null not at all, anything else as JSON.
        if (typeof e.value === "string") io.stderr(e.value);
        else if (e.value !== null && e.value !== undefined) io.stderr(messageJson(e.value) + "\n");
        return e.exitCode;
      }
      // jq prints the message as a C string: up to a NUL it may hold.
      if (typeof e.value === "string" || e.kind === "limit") io.stderr(`jq: error (at ${position()}): ${e.message.split("\0", 1)[0]}\n`);
      else io.stderr(`jq: error (at ${position()}) (not a string): ${messageJson(e.value)}\n`);
      // A budget error ends the whole command: it says nothing about the next input being cheaper.
      if (e.kind === "limit") halted = true;
      return 5;
    }
  };
  // As jq: the exit status is the last input's; with -e, a run with no output looks further back.
  let status = NO_OUTPUT;
  let lastResult: number | undefined;
  try {
    if (o.nullInput) status = runOne(null);
    else {
      // As jq's main loop, which reads no input once a file could not be opened: the value whose reading
      // got past it is the last one run (a program's own `input` reads on).
      const more = (): IteratorResult<JqValue | JvParseError | JqInputError> => (unreadable > 0 ? { done: true, value: undefined } : inputs.next());
      for (let r = more(); !r.done; r = more()) {
        if (r.value instanceof JvParseError) {
          // As jq --seq: a parse error is reported and the input goes on; the exit status is not changed.
          io.stderr(`jq: ignoring parse error: ${r.value.message}\n`);
          continue;
        }
        // Any other parse error ends the command (below).
        if (r.value instanceof JqInputError) throw r.value;
        status = runOne(r.value);
        if (status <= 0 && status !== NO_OUTPUT) lastResult = status;
        if (halted) break;
      }
    }
  } catch (e) {
    out.flush();
    if (isFsError(e)) return reportIoError(e, io);
    if (e instanceof JqInputError) {
      // jq's message and exit for a JSON text that does not parse (ours for a YAML document, the same
      // exit); a file that could not be read before it still decides the exit, as in jq.
      io.stderr(o.yaml ? `jq: error (at ${e.source}): ${e.message}\n` : `jq: parse error: ${e.message}\n`);
      return unreadable > 0 ? 2 : 5;
    }
    throw e;
  }
  out.flush();
  // A file that could not be read decides the exit, over -e and a failed run, as in jq.
  if (unreadable > 0) return 2;
  // As jq's main: with -e the status's absolute value, else the status when above 0 (a halt_error code
  // is any C int: the low byte is what a process exits with).
  if (o.exitStatus) {
    if (status !== NO_OUTPUT) return Math.abs(status) % 256;
    return lastResult === undefined ? 4 : lastResult === NULL_KIND ? 1 : 0;
  }
  return status > 0 ? status % 256 : 0;
}

/** jq's statuses of a run (main.c): no output, last output false or null, ok. */
const NO_OUTPUT = -4;
const NULL_KIND = -1;
const OK = 0;

/** A failure of the command itself while printing a run's output, reported as jq reports run errors. */
class CliRunError extends Error {}

/**
 * The colours of -C: jq 1.8.2's defaults, overridden by JQ_COLORS (colon-separated SGR codes for null,
 * false, true, numbers, strings, arrays, objects, object keys), read as jq_set_colors reads it: up to
 * eight fields (what follows the eighth field's digits is ignored), an empty last one ignored, any other
 * character before the eighth a malformed value, which keeps the defaults with a warning. jq reads it at
 * every start, with or without -C.
 */
function jqColors(io: CliIO): readonly string[] {
  const spec = process.env["JQ_COLORS"];
  const colors = [...JQ_DEFAULT_COLORS];
  if (spec === undefined) return colors;
  const fields: string[] = [];
  for (let i = 0; ; i++) {
    const start = i;
    while (i < spec.length && /[0-9;]/.test(spec[i]!)) i++;
    fields.push(spec.slice(start, i));
    if (i >= spec.length || fields.length >= colors.length) break;
    if (spec[i] !== ":") {
      io.stderr("Failed to set $JQ_COLORS\n");
      return [...JQ_DEFAULT_COLORS];
    }
  }
  if (fields[fields.length - 1] === "") fields.pop();
  fields.forEach((f, i) => (colors[i] = `\x1b[${f}m`));
  return colors;
}

function isFsError(e: unknown): boolean {
  return typeof e === "object" && e !== null && "code" in e && "path" in e;
}

/**
 * A file jq loads whole (-f, --slurpfile, --rawfile); one that cannot be read is a JqFileError in jq's
 * words (jv_load_file: its own text for a directory, strerror's for the rest), after `context`. As
 * `text`, bytes that are not UTF-8 are replaced as jq reads the file; as `json`, they stay marked for
 * the strings parsed from it (replaceMarkedIn).
 */
function loadFile(io: CliIO, file: string, context: string, as: "text" | "json"): string {
  try {
    const bytes: Uint8Array[] = [];
    const text = [...io.readChunks(file, (b) => (as === "json" ? decodeUtf8Marked(b).text : (bytes.push(Uint8Array.from(b)), "")))].join("");
    return bytes.length > 0 ? decodeFileBlocks(Buffer.concat(bytes)) : text;
  } catch (e) {
    if (!isFsError(e)) throw e;
    const why = (e as NodeJS.ErrnoException).code === "EISDIR" ? "It's a directory" : systemErrorText(e);
    throw new JqFileError(`${context}Could not open ${file}: ${why}`);
  }
}

/** A file given with -f, --slurpfile or --rawfile that cannot be read or parsed: jq's message, exit 2, no usage line. */
class JqFileError extends Error {}

function fileError(e: JqFileError, io: CliIO): number {
  io.stderr(`jq: ${e.message}\n`);
  return 2;
}

/** An input file that cannot be read, in jq 1.8.2's words (a directory opens, and then its read fails). */
function reportIoError(e: unknown, io: CliIO): number {
  const err = e as NodeJS.ErrnoException;
  // An empty path ('') is a path too: jq says it could not open it.
  if (err && typeof err === "object" && "code" in err && typeof err.path === "string") {
    io.stderr(err.code === "EISDIR" ? "jq: error: Is a directory\n" : `jq: error: Could not open file ${err.path}: ${systemErrorText(err)}\n`);
    return 2;
  }
  if (err instanceof Error && err.name === "JqRuntimeError") {
    io.stderr(`karta jq: ${err.message}\n`);
    return 2;
  }
  throw e;
}
