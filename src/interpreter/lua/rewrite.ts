/**
 * Source rewrite that makes every table a script constructs remember the order its keys were
 * inserted in, so that `pairs` and `next` iterate as gopher-lua does (integer keys ascending, then the
 * other keys in first-insertion order) instead of Lua 5.4's hash order.
 *
 * Each table constructor `{...}` becomes `ORDERED({...}, "name1", "name2")`, where the names are the
 * constructor's `name = value` fields in source order and ORDERED gives the table the
 * insertion-tracking metatable, records those names as its first keys, and returns it. A constructor
 * that is itself a call argument (`f{...}`) becomes `f(ORDERED({...}))`. Only tokens are inserted,
 * never newlines, so line numbers in error messages stay those of the original script.
 */

import { commentEnd, isDigit, isNamePart, isNameStart, longBracketEnd } from "./lexical.js";

/** The global through which rewritten constructors reach the ordering function. */
export const ORDERED_CONSTRUCTOR = "__karta_ordered";

interface Frame {
  /** The constructor is a call argument: `f{...}` needs parentheses. */
  callArgument: boolean;
  /** `name = value` fields at this constructor's level, in order. */
  names: string[];
  /** Depth of ( and [ inside this constructor. */
  nest: number;
  /** A field may start at the next token. */
  expectField: boolean;
  /** A name seen where a field may start: a field name if '=' follows. */
  pendingName: string | undefined;
}

/**
 * Rewrites the table constructors of a Lua 5.1 chunk. Returns the source unchanged when it cannot be
 * tokenized (the compiler will then report the syntax error at its original position).
 */
export function rewriteTableConstructors(source: string): string {
  const out: string[] = [];
  const frames: Frame[] = [];
  let lastKind: "name" | "string" | "number" | "close" | "other" = "other";
  let i = 0;
  const n = source.length;
  let copiedUpTo = 0;
  const emit = (upTo: number, extra: string): void => {
    out.push(source.slice(copiedUpTo, upTo), extra);
    copiedUpTo = upTo;
  };
  // Called for every token: tracks field names of the innermost constructor.
  const onToken = (token: string, isName: boolean): void => {
    const f = frames[frames.length - 1];
    if (!f) return;
    if (f.nest === 0 && f.pendingName !== undefined) {
      if (token === "=" && !f.names.includes(f.pendingName)) f.names.push(f.pendingName);
      f.pendingName = undefined;
      f.expectField = false;
      return;
    }
    if (token === "(" || token === "[") f.nest++;
    else if (token === ")" || token === "]") f.nest--;
    if (f.nest !== 0) return;
    if (isName && f.expectField) {
      f.pendingName = token;
      f.expectField = false;
      return;
    }
    f.expectField = token === "," || token === ";";
  };
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12) {
      i++;
      continue;
    }
    const comment = commentEnd(source, i);
    if (comment !== undefined) {
      if (comment < 0) return source;
      i = comment;
      continue;
    }
    if (c === 34 || c === 39) {
      let j = i + 1;
      while (j < n) {
        const d = source.charCodeAt(j);
        if (d === 92) {
          j += 2;
          continue;
        }
        if (d === c || d === 10) break;
        j++;
      }
      if (j >= n || source.charCodeAt(j) !== c) return source;
      i = j + 1;
      onToken('"', false);
      lastKind = "string";
      continue;
    }
    if (c === 91 /* [ */) {
      const longEnd = longBracketEnd(source, i);
      if (longEnd !== undefined) {
        if (longEnd < 0) return source;
        i = longEnd;
        onToken('"', false);
        lastKind = "string";
        continue;
      }
      i++;
      onToken("[", false);
      lastKind = "other";
      continue;
    }
    if (isNameStart(c)) {
      let j = i + 1;
      while (j < n && isNamePart(source.charCodeAt(j))) j++;
      const word = source.slice(i, j);
      const keyword = KEYWORDS.has(word);
      onToken(word, !keyword);
      lastKind = keyword ? "other" : "name";
      i = j;
      continue;
    }
    if ((c >= 48 && c <= 57) || (c === 46 && isDigit(source.charCodeAt(i + 1)))) {
      let j = i + 1;
      while (j < n) {
        const d = source.charCodeAt(j);
        if (isNamePart(d) || d === 46) j++;
        else if ((d === 43 || d === 45) && /[eEpP]/.test(source[j - 1] ?? "")) j++;
        else break;
      }
      i = j;
      onToken("0", false);
      lastKind = "number";
      continue;
    }
    if (c === 123 /* { */) {
      onToken("{", false);
      // After a prefix expression a constructor is a call argument (f{...}, f"x"{...}, t[k]{...}).
      const callArgument = lastKind === "name" || lastKind === "string" || lastKind === "close";
      emit(i, callArgument ? `(${ORDERED_CONSTRUCTOR}(` : `${ORDERED_CONSTRUCTOR}(`);
      frames.push({ callArgument, names: [], nest: 0, expectField: true, pendingName: undefined });
      i++;
      lastKind = "other";
      continue;
    }
    if (c === 125 /* } */) {
      const f = frames.pop();
      if (f === undefined) return source;
      i++;
      const names = f.names.map((name) => `, "${name}"`).join("");
      emit(i, `${names})${f.callArgument ? ")" : ""}`);
      onToken("}", false);
      lastKind = "close";
      continue;
    }
    if (c === 40 || c === 41 || c === 93) {
      const token = String.fromCharCode(c);
      onToken(token, false);
      i++;
      lastKind = c === 40 ? "other" : "close";
      continue;
    }
    // Operators: '==' must not read as a field's '='.
    let token = String.fromCharCode(c);
    if ((c === 61 || c === 126 || c === 60 || c === 62) && source.charCodeAt(i + 1) === 61) token += "=";
    else if (c === 46 && source.charCodeAt(i + 1) === 46) token = source.charCodeAt(i + 2) === 46 ? "..." : "..";
    i += token.length;
    onToken(token, false);
    lastKind = "other";
  }
  if (frames.length !== 0) return source;
  out.push(source.slice(copiedUpTo));
  return out.join("");
}

const KEYWORDS = new Set([
  "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in",
  "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
]);
