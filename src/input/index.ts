/**
 * Limits on the text of objects Karta reads (commands, library entry points, servers), checked before
 * any parser sees the text: a parser that recurses per nesting level can exhaust the stack or memory
 * on a small hostile document, so depth is measured by a linear scan first. Also the one way YAML
 * documents become values, so that aliases are bounded alike everywhere. And the type of the JSON values
 * they become.
 */
import type { Document } from "yaml";
import { readAsKubectl } from "./yaml.js";

/** Any JSON value, as Kubernetes objects are read from YAML or JSON. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** The deepest nesting of arrays and objects (flow brackets or block indentation) Karta reads; jq's own parser has the same limit. */
export const MAX_NESTING_DEPTH = 256;

/** The alias expansions one YAML document may need before it is refused (the yaml library's own default). */
export const MAX_YAML_ALIAS_COUNT = 100;

/** Where a text nests deeper than the limit: its 1-based line and the message, without the file name. */
export interface NestingProblem {
  line: number;
  /** The character offset where the limit was passed. */
  offset: number;
  message: string;
}

/** The message for a document nested too deep. */
export function nestingMessage(limit = MAX_NESTING_DEPTH): string {
  return `nested deeper than ${limit} levels (the limit on the objects Karta reads)`;
}

/**
 * C0 control characters other than tab, LF and CR: neither JSON nor YAML allows them anywhere in a text
 * (libyaml, and so kubectl, refuses them: "control characters are not allowed"). A NUL is a binary file.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is what it is for
const CONTROL_CHARACTER = /[\x00-\x08\x0B\x0C\x0E-\x1F]/;

/**
 * What makes a text unreadable before any parser runs, or undefined: a control character (the first
 * one), or nesting deeper than `limit` ({@link findDeepNesting}). Every reader of files checks this first.
 */
export function findUnreadableText(text: string, limit = MAX_NESTING_DEPTH): NestingProblem | undefined {
  const control = CONTROL_CHARACTER.exec(text);
  if (control !== null) {
    let line = 1;
    for (let i = text.indexOf("\n"); i !== -1 && i < control.index; i = text.indexOf("\n", i + 1)) line++;
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    return { line, offset: control.index, message: `control characters are not allowed (U+${code}${code === "0000" ? ": a binary file?" : ""})` };
  }
  return findDeepNesting(text, limit);
}

const SPACE = 32;
const TAB = 9;
const NL = 10;
const CR = 13;

/**
 * The first place where a JSON or YAML text nests deeper than `limit`, or undefined. It counts flow
 * brackets outside quoted strings and comments, plus block levels (indentation and `- ` items); block
 * scalars (`|`, `>`) are skipped. It may count a little more than a parser would (never less for JSON),
 * so the limit stays conservative.
 */
export function findDeepNesting(text: string, limit = MAX_NESTING_DEPTH): NestingProblem | undefined {
  const n = text.length;
  let line = 1;
  let flow = 0;
  /** Columns of the open block nodes (keys and `- ` items), increasing. */
  const block: number[] = [];
  /** A block scalar's parent indentation while inside one, else -1. */
  let scalarIndent = -1;
  let i = 0;
  const deep = (): NestingProblem => ({ line, offset: i, message: nestingMessage(limit) });
  /** Skips a quoted string starting at `i` (the quote); returns the index after it. Counts lines. */
  const skipQuoted = (at: number): number => {
    const q = text.charCodeAt(at);
    let j = at + 1;
    while (j < n) {
      const c = text.charCodeAt(j);
      if (c === NL) line++;
      if (q === 34 && c === 92) j += 2; // backslash escape in "..."
      else if (c === q) {
        if (q === 39 && text.charCodeAt(j + 1) === 39) j += 2; // '' inside '...'
        else return j + 1;
      } else j++;
    }
    return n;
  };
  while (i < n) {
    // At the start of a line.
    const ls = i;
    let col = 0;
    while (i < n && (text.charCodeAt(i) === SPACE || text.charCodeAt(i) === TAB)) {
      i++;
      col++;
    }
    if (i >= n) break;
    let c = text.charCodeAt(i);
    if (c === NL || c === CR) {
      if (c === NL) line++;
      i++;
      continue;
    }
    if (scalarIndent >= 0) {
      if (col > scalarIndent) {
        const nl = text.indexOf("\n", i);
        i = nl < 0 ? n : nl;
        continue;
      }
      scalarIndent = -1;
    }
    const lineIndent = col;
    if (flow === 0) {
      if (c === 35) {
        // A comment line.
        const nl = text.indexOf("\n", i);
        i = nl < 0 ? n : nl;
        continue;
      }
      // `---`/`...` document markers and directives reset the block levels.
      if (col === 0 && (c === 37 || text.startsWith("---", i) || text.startsWith("...", i))) {
        block.length = 0;
        const nl = text.indexOf("\n", i);
        i = nl < 0 ? n : nl;
        continue;
      }
    }
    // Scan the rest of the line. `atValue`: a new node may start here (block context).
    let atValue = true;
    let pushed = false;
    while (i < n) {
      c = text.charCodeAt(i);
      if (c === NL) break;
      if (flow > 0) {
        if (c === 91 || c === 123) {
          if (++flow + block.length > limit) return deep();
        } else if (c === 93 || c === 125) flow--;
        else if (c === 34 || c === 39) {
          i = skipQuoted(i);
          continue;
        } else if (c === 35 && (i === 0 || text.charCodeAt(i - 1) === SPACE || text.charCodeAt(i - 1) === TAB)) {
          const nl = text.indexOf("\n", i);
          i = nl < 0 ? n : nl;
          break;
        }
        i++;
        continue;
      }
      if (c === SPACE || c === TAB || c === CR) {
        i++;
        continue;
      }
      if (!pushed && atValue) {
        // The first node of the line closes the deeper (and same-column) block levels.
        while (block.length > 0 && block[block.length - 1]! >= col) block.pop();
        pushed = true;
      }
      if (atValue) {
        if (c === 35) {
          const nl = text.indexOf("\n", i);
          i = nl < 0 ? n : nl;
          break;
        }
        if (c === 91 || c === 123) {
          flow = 1;
          if (flow + block.length > limit) return deep();
          i++;
          continue;
        }
        if (c === 34 || c === 39) {
          i = skipQuoted(i);
          atValue = false;
          continue;
        }
        if ((c === 45 || c === 63) && (i + 1 >= n || [SPACE, TAB, NL, CR].includes(text.charCodeAt(i + 1)))) {
          // `- ` item or `? ` key: a level at this column; what follows is a node.
          block.push(i - ls);
          if (block.length > limit) return deep();
          i++;
          continue;
        }
        if (c === 124 || c === 62) {
          // A block scalar: its lines are text, whatever they hold.
          scalarIndent = lineIndent;
          const nl = text.indexOf("\n", i);
          i = nl < 0 ? n : nl;
          break;
        }
        if (c === 38 || c === 33) {
          // An anchor or a tag before the node.
          while (i < n && ![SPACE, TAB, NL, CR].includes(text.charCodeAt(i))) i++;
          continue;
        }
        // A plain scalar (or a key): up to `: `, ` #` or the end of the line.
        block.push(i - ls);
        if (block.length + flow > limit) return deep();
        atValue = false;
      }
      if (c === 58 && (i + 1 >= n || [SPACE, TAB, NL, CR].includes(text.charCodeAt(i + 1)))) {
        atValue = true;
        i++;
        continue;
      }
      if (c === 35 && (text.charCodeAt(i - 1) === SPACE || text.charCodeAt(i - 1) === TAB)) {
        const nl = text.indexOf("\n", i);
        i = nl < 0 ? n : nl;
        break;
      }
      i++;
    }
    if (i < n && text.charCodeAt(i) === NL) {
      line++;
      i++;
    }
  }
  return undefined;
}

/**
 * A YAML document as a plain value, aliases bounded by {@link MAX_YAML_ALIAS_COUNT}: the value, or the
 * reason it cannot be had (an alias bomb, an alias to nothing) in our words.
 */
export function yamlDocumentValue(doc: Document.Parsed | Document, text?: string): { value: unknown } | { error: string; offset?: number } {
  const refused = readAsKubectl(doc, text);
  if (refused !== undefined) return refused.offset === undefined ? { error: refused.message } : { error: refused.message, offset: refused.offset };
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT }) as unknown };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/alias count/i.test(message)) {
      return { error: `too many YAML alias expansions (more than ${MAX_YAML_ALIAS_COUNT}: the document would grow without bound)` };
    }
    return { error: message };
  }
}
