/** The edges of a command: where it reads and writes. Tests pass their own. */
import { readFileSync } from "node:fs";

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input. */
  readStdin(): Promise<string>;
  /** Reads a file as UTF-8 text; throws the fs error when it cannot. */
  readFile(path: string): string;
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
  };
  return io;
}
