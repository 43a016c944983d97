/** The edges of a command: where it reads and writes. Tests pass their own. */
import { isAscii } from "node:buffer";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { inputTooLarge, MAX_INPUT_BYTES, readTextFile, withPath as named } from "../files/read.js";

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (bytes that are not UTF-8 made text by `decode`, else as Node does). */
  readStdin(decode?: Decoder): Promise<string>;
  /** Reads a file as UTF-8 text; throws the fs error when it cannot. */
  readFile(path: string): string;
  /** Reads a file as UTF-8 text in chunks, for inputs too large to hold twice (decoded as readStdin); throws the fs error. */
  readChunks(path: string, decode?: Decoder): Iterable<string>;
}

/** Bytes to text, for a command that follows another tool's handling of bytes that are not UTF-8 (`karta jq`: jq's). */
export type Decoder = (bytes: Uint8Array) => string;

/** How a command that prints text reports a bug of Karta's: one line, not a stack trace. */
export function internalErrorLine(command: string, err: unknown): string {
  return `karta ${command}: internal error: ${err instanceof Error ? err.message : String(err)}\n`;
}

export { readErrorReason } from "../files/read-error.js";

/** Reads a source named on the command line: a file, or standard input for `-` (whose errors name `<stdin>`). */
export async function readSource(io: CliIO, file: string): Promise<string> {
  return file === "-" ? io.readStdin() : io.readFile(file);
}

/**
 * A file's text in chunks that each end at a line break (or the end of the file), decoded straight from
 * the bytes: a newline byte never occurs inside a multi-byte UTF-8 character, so no decoder state is kept.
 */
function* fileChunks(path: string, decode?: Decoder, size = 1 << 22): Generator<string> {
  const fd = openSync(path, "r");
  try {
    let buf = Buffer.allocUnsafe(size);
    let carry = 0;
    for (;;) {
      const n = named(path, () => readSync(fd, buf, carry, buf.length - carry, null));
      const end = carry + n;
      if (n === 0) {
        if (end > 0) yield decode ? decode(buf.subarray(0, end)) : buf.toString("utf8", 0, end);
        return;
      }
      const cut = buf.lastIndexOf(10, end - 1) + 1;
      if (cut === 0) {
        // No line break yet: keep reading, in a larger buffer once this one is full.
        if (end === buf.length) {
          // One line past the bound (/dev/zero has none): refused, not read until the memory is full.
          if (buf.length > MAX_INPUT_BYTES) throw inputTooLarge(path);
          const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, MAX_INPUT_BYTES + 1));
          buf.copy(bigger, 0, 0, end);
          buf = bigger;
        }
        carry = end;
        continue;
      }
      // Pure ASCII (most Kubernetes JSON) decodes several times faster as Latin-1, to the same text.
      yield isAscii(buf.subarray(0, cut)) ? buf.toString("latin1", 0, cut) : decode ? decode(buf.subarray(0, cut)) : buf.toString("utf8", 0, cut);
      carry = end - cut;
      buf.copy(buf, 0, cut, end);
    }
  } finally {
    closeSync(fd);
  }
}

/** Standard output's reader closed it early: as a shell reports a program killed by SIGPIPE (128 + 13), as jq and kubectl end. */
export const EXIT_BROKEN_PIPE = 141;

const watched = new WeakSet<NodeJS.WriteStream>();

/** The exit code after a write error on standard output: EXIT_ERROR, or jq's 2 for `karta jq`. */
let writeErrorExit = 1;

/** Sets the exit code a command ends with when standard output cannot be written (`karta jq`: 2, as jq). */
export function setWriteErrorExit(code: number): void {
  writeErrorExit = code;
}

/**
 * A reader that stops early (`karta jq . big.json | head -1`) closes the pipe: the command ends at once and
 * quietly, with the status a shell shows for a program killed by SIGPIPE (as jq and kubectl end), not
 * with Node's stack trace for an unhandled EPIPE. Another write error on standard output is one line on
 * standard error. Set on a stream's first write: Node creates process.stderr when first used, which a
 * command that never writes there should not pay for.
 */
function write(stream: NodeJS.WriteStream, text: string): void {
  if (!watched.has(stream)) {
    watched.add(stream);
    stream.on("error", (err: NodeJS.ErrnoException) => {
      if (err.code !== "EPIPE" && stream === process.stdout) process.stderr.write(`karta: cannot write to standard output: ${err.message}\n`);
      process.exit(err.code === "EPIPE" ? EXIT_BROKEN_PIPE : writeErrorExit);
    });
  }
  stream.write(text);
}

export function nodeIO(): CliIO {
  return {
    stdout: (t) => write(process.stdout, t),
    stderr: (t) => write(process.stderr, t),
    readStdin: async (decode) => {
      // Node's stream reads a directory given as standard input (`< dir`) as empty: refused as a file read is.
      named("<stdin>", () => {
        if (fstatSync(0).isDirectory()) throw Object.assign(new Error("EISDIR: illegal operation on a directory, read"), { code: "EISDIR" });
      });
      const chunks: Buffer[] = [];
      let total = 0;
      try {
        for await (const c of process.stdin) {
          total += (c as Buffer).length;
          if (total > MAX_INPUT_BYTES) throw inputTooLarge("<stdin>");
          chunks.push(c as Buffer);
        }
      } catch (e) {
        named("<stdin>", () => {
          throw e;
        });
      }
      const bytes = Buffer.concat(chunks);
      return decode ? decode(bytes) : bytes.toString("utf8");
    },
    readFile: (p) => readTextFile(p),
    readChunks: (p, decode) => fileChunks(p, decode),
  };
}

/** An in-memory CliIO for tests: collects what the command writes. */
export function memoryIO(stdin = "", files: Record<string, string> = {}): CliIO & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout(t: string) {
      io.out += t;
    },
    stderr(t: string) {
      io.err += t;
    },
    readStdin: async () => stdin,
    readFile(p: string) {
      if (p in files) return files[p]!;
      return readTextFile(p);
    },
    readChunks(p: string) {
      return [io.readFile(p)];
    },
  };
  return io;
}
