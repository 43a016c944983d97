/** The edges of a command: where it reads and writes. Tests pass their own. */
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input. */
  readStdin(): Promise<string>;
  /** Reads a file as UTF-8 text; throws the fs error when it cannot. */
  readFile(path: string): string;
  /** Reads a file as UTF-8 text in chunks, for inputs too large to hold twice; throws the fs error. */
  readChunks(path: string): Iterable<string>;
}

/** Reads a source named on the command line: a file, or standard input for `-`. */
export async function readSource(io: CliIO, file: string): Promise<string> {
  return file === "-" ? io.readStdin() : io.readFile(file);
}

function* fileChunks(path: string, size = 1 << 22): Generator<string> {
  const fd = openSync(path, "r");
  try {
    const decoder = new StringDecoder("utf8");
    const buf = Buffer.allocUnsafe(size);
    for (;;) {
      const n = readSync(fd, buf, 0, size, null);
      if (n === 0) break;
      yield decoder.write(buf.subarray(0, n));
    }
    const rest = decoder.end();
    if (rest) yield rest;
  } finally {
    closeSync(fd);
  }
}

export function nodeIO(): CliIO {
  return {
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
    readFile: (p) => readFileSync(p, "utf8"),
    readChunks: (p) => fileChunks(p),
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
      return readFileSync(p, "utf8");
    },
    readChunks(p: string) {
      return [io.readFile(p)];
    },
  };
  return io;
}
