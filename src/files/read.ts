/**
 * Reading a named input whole, bounded: past {@link MAX_INPUT_BYTES} a file (a 300 MB file, /dev/zero,
 * /dev/urandom, a runaway pipe) is refused with EFBIG instead of filling the memory until the process
 * dies. A regular file is refused before it is read, by its size.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/**
 * The most Karta reads of one input (a file, standard input, one line of a file read in lines): a little
 * below V8's longest string (2^29 - 24 code units), so that a larger input is an error in words rather
 * than Node's "Invalid string length".
 */
export const MAX_INPUT_BYTES = 500 * 1024 * 1024;

/** The error of an input larger than {@link MAX_INPUT_BYTES}, as the fs module gives its own (code and path). */
export function inputTooLarge(path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EFBIG: file too large, read '${path}'`), { code: "EFBIG", path });
}

/** Runs `read`, giving its error the path when Node leaves it out (reading a directory fails in `read`, whose EISDIR names no path). */
export function withPath<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (typeof e === "object" && e !== null && "code" in e && !("path" in e)) (e as NodeJS.ErrnoException).path = path;
    throw e;
  }
}

/** Reads a file whole as bytes, up to {@link MAX_INPUT_BYTES}; throws the fs error (EFBIG past it). */
export function readFileBytes(path: string): Buffer {
  const fd = withPath(path, () => openSync(path, "r"));
  try {
    const st = fstatSync(fd);
    if (st.isFile() && st.size > MAX_INPUT_BYTES) throw inputTooLarge(path);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buf = Buffer.allocUnsafe(st.isFile() ? Math.max(st.size - total + 1, 64 * 1024) : 1 << 20);
      const n = withPath(path, () => readSync(fd, buf, 0, buf.length, null));
      if (n === 0) break;
      total += n;
      if (total > MAX_INPUT_BYTES) throw inputTooLarge(path);
      chunks.push(n === buf.length ? buf : buf.subarray(0, n));
    }
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** Reads a file whole as UTF-8 text, up to {@link MAX_INPUT_BYTES}; throws the fs error (EFBIG past it). */
export function readTextFile(path: string): string {
  return readFileBytes(path).toString("utf8");
}
