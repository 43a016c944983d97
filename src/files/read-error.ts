/** Why a path could not be read, in the system's words: one table for every reader of files, servers and commands. */

/** glibc's strerror text of the errors a path can give (as C programs such as jq print them). */
const STRERROR: Record<string, string> = {
  ENOENT: "No such file or directory",
  EISDIR: "Is a directory",
  EACCES: "Permission denied",
  EPERM: "Operation not permitted",
  ENOTDIR: "Not a directory",
  ENAMETOOLONG: "File name too long",
  ELOOP: "Too many levels of symbolic links",
  EMFILE: "Too many open files",
  EIO: "Input/output error",
  ENXIO: "No such device or address",
  EINVAL: "Invalid argument",
  // Raised by src/files/read.ts for an input past its bound (strerror's words, and the bound).
  EFBIG: "File too large (Karta reads at most 500 MiB of an input)",
};

function codeOf(err: unknown): string | undefined {
  const code = typeof err === "object" && err !== null && "code" in err ? (err as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** strerror's text for a failed read (`No such file or directory`), or the error's own message. */
export function systemErrorText(err: unknown): string {
  const code = codeOf(err);
  return (code !== undefined ? STRERROR[code] : undefined) ?? message(err);
}

/** Why a file could not be read, in a few words (`no such file`, `not a directory`) rather than Node's `ENOENT: ...` text. */
export function readErrorReason(err: unknown): string {
  const code = codeOf(err);
  if (code === "ENOENT") return "no such file";
  const text = code !== undefined ? STRERROR[code] : undefined;
  // Lower case as a clause (`is a directory`), the rest as written (`500 MiB`).
  return text !== undefined ? text[0]!.toLowerCase() + text.slice(1) : message(err);
}
