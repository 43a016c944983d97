/** Lua's lexical classes, shared by the source rewrites (rewrite.ts, lua51.ts). */

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

export function isNamePart(c: number): boolean {
  return isNameStart(c) || isDigit(c);
}

/**
 * If a long bracket (`[[`, `[==[`) opens at `at`, returns the index after its closing bracket, or -1
 * when it is never closed; undefined when no long bracket opens there.
 */
export function longBracketEnd(source: string, at: number): number | undefined {
  if (source.charCodeAt(at) !== 91) return undefined;
  let j = at + 1;
  while (source.charCodeAt(j) === 61) j++;
  if (source.charCodeAt(j) !== 91) return undefined;
  const close = "]" + "=".repeat(j - at - 1) + "]";
  const end = source.indexOf(close, j + 1);
  return end < 0 ? -1 : end + close.length;
}

/**
 * If a comment (`--` to the end of its line, or `--[[ ... ]]`) starts at `at`: the index after it (a line
 * comment stops before its line break), or -1 when a long comment is never closed; undefined when no
 * comment starts there.
 */
export function commentEnd(source: string, at: number): number | undefined {
  if (source.charCodeAt(at) !== 45 || source.charCodeAt(at + 1) !== 45) return undefined;
  const longEnd = longBracketEnd(source, at + 2);
  if (longEnd !== undefined) return longEnd;
  const nl = source.indexOf("\n", at);
  return nl < 0 ? source.length : nl;
}
