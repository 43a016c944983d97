/** Why a path could not be read, in the system's words: one table for every reader of files, servers and commands. */

/** Why a file could not be read, in a few words (`no such file`) rather than Node's `ENOENT: ...` text. */
export function readErrorReason(err: unknown): string {
  const code = typeof err === "object" && err !== null && "code" in err ? (err as { code?: unknown }).code : undefined;
  const reason = typeof code === "string" ? REASONS[code] : undefined;
  return reason ?? (err instanceof Error ? err.message : String(err));
}

/** The system's own words for the errors a path can give (strerror's, as Go and kubectl print them). */
const REASONS: Record<string, string> = {
  ENOENT: "no such file",
  EISDIR: "is a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "not a directory",
  ENAMETOOLONG: "file name too long",
  ELOOP: "too many levels of symbolic links",
  EMFILE: "too many open files",
  EIO: "input/output error",
  ENXIO: "no such device or address",
  EINVAL: "invalid argument",
};
