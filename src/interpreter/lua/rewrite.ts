/**
 * Source rewrite that makes every table a script constructs remember the order its keys were
 * inserted in, so that `pairs` and `next` iterate as gopher-lua does (integer keys ascending, then the
 * other keys in first-insertion order) instead of Lua 5.4's hash order.
 *
 * Each table constructor `{...}` becomes `ORDERED{...}` (a call with a table argument), where ORDERED
 * gives the table the insertion-tracking metatable and returns it. When the constructor is itself a
 * call argument (`f{...}`), it becomes `f(ORDERED{...})`. Only tokens are inserted, never newlines, so
 * line numbers in error messages stay those of the original script.
 */

/** The global through which rewritten constructors reach the ordering function. */
export const ORDERED_CONSTRUCTOR = "__karta_ordered";

type TokenKind = "name" | "string" | "number" | "punct" | "open" | "close" | "other";

/**
 * Rewrites the table constructors of a Lua 5.1 chunk. Returns the source unchanged when it cannot be
 * tokenized (the compiler will then report the syntax error at its original position).
 */
export function rewriteTableConstructors(source: string): string {
  const out: string[] = [];
  // For each open '{', whether a ')' must follow its matching '}'.
  const braces: boolean[] = [];
  let last: TokenKind = "other";
  let lastText = "";
  let i = 0;
  const n = source.length;
  let copiedUpTo = 0;
  const emit = (upTo: number, extra: string): void => {
    out.push(source.slice(copiedUpTo, upTo), extra);
    copiedUpTo = upTo;
  };
  while (i < n) {
    const c = source.charCodeAt(i);
    // whitespace
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12) {
      i++;
      continue;
    }
    // comments
    if (c === 45 /* - */ && source.charCodeAt(i + 1) === 45) {
      const longEnd = longBracketEnd(source, i + 2);
      if (longEnd !== undefined) {
        if (longEnd < 0) return source;
        i = longEnd;
      } else {
        const nl = source.indexOf("\n", i);
        i = nl < 0 ? n : nl;
      }
      continue;
    }
    // strings
    if (c === 34 || c === 39) {
      let j = i + 1;
      while (j < n) {
        const d = source.charCodeAt(j);
        if (d === 92) {
          j += 2;
          continue;
        }
        if (d === c) break;
        if (d === 10) return source;
        j++;
      }
      if (j >= n) return source;
      i = j + 1;
      last = "string";
      lastText = "";
      continue;
    }
    if (c === 91 /* [ */) {
      const longEnd = longBracketEnd(source, i);
      if (longEnd !== undefined) {
        if (longEnd < 0) return source;
        i = longEnd;
        last = "string";
        lastText = "";
        continue;
      }
      i++;
      last = "open";
      lastText = "[";
      continue;
    }
    // names and keywords
    if (isNameStart(c)) {
      let j = i + 1;
      while (j < n && isNamePart(source.charCodeAt(j))) j++;
      lastText = source.slice(i, j);
      last = KEYWORDS.has(lastText) ? "other" : "name";
      i = j;
      continue;
    }
    // numbers (including 0x.., exponents, and a leading '.')
    if ((c >= 48 && c <= 57) || (c === 46 && isDigit(source.charCodeAt(i + 1)))) {
      let j = i + 1;
      while (j < n) {
        const d = source.charCodeAt(j);
        if (isNamePart(d) || d === 46) {
          j++;
        } else if ((d === 43 || d === 45) && /[eEpP]/.test(source[j - 1] ?? "")) {
          j++;
        } else {
          break;
        }
      }
      i = j;
      last = "number";
      lastText = "";
      continue;
    }
    if (c === 123 /* { */) {
      // A constructor directly after a prefix expression is a call argument: f{...}, f"x"{...} is not
      // valid Lua, but a string may precede in `f"x"` chains only before '(' so strings count too.
      const isCallArgument = last === "name" || last === "string" || lastText === ")" || lastText === "]" || lastText === "}";
      emit(i, isCallArgument ? `(${ORDERED_CONSTRUCTOR}` : ORDERED_CONSTRUCTOR);
      braces.push(isCallArgument);
      i++;
      last = "open";
      lastText = "{";
      continue;
    }
    if (c === 125 /* } */) {
      const needsParen = braces.pop();
      if (needsParen === undefined) return source;
      i++;
      if (needsParen) emit(i, ")");
      last = "close";
      lastText = "}";
      continue;
    }
    if (c === 40 /* ( */) {
      i++;
      last = "open";
      lastText = "(";
      continue;
    }
    if (c === 41 /* ) */ || c === 93 /* ] */) {
      i++;
      last = "close";
      lastText = c === 41 ? ")" : "]";
      continue;
    }
    // any other punctuation (operators, separators); '...' and '..' included
    i++;
    last = "punct";
    lastText = String.fromCharCode(c);
  }
  if (braces.length !== 0) return source;
  out.push(source.slice(copiedUpTo));
  return out.join("");
}

const KEYWORDS = new Set([
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
]);

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isNamePart(c: number): boolean {
  return isNameStart(c) || isDigit(c);
}

/**
 * If a long bracket (`[[`, `[==[`) opens at `at`, returns the index after its closing bracket, or -1
 * when it is never closed; undefined when no long bracket opens there.
 */
function longBracketEnd(source: string, at: number): number | undefined {
  if (source.charCodeAt(at) !== 91) return undefined;
  let j = at + 1;
  while (source.charCodeAt(j) === 61) j++;
  if (source.charCodeAt(j) !== 91) return undefined;
  const level = j - at - 1;
  const close = "]" + "=".repeat(level) + "]";
  const end = source.indexOf(close, j + 1);
  return end < 0 ? -1 : end + close.length;
}
