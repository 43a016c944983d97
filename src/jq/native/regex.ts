/**
 * jq 1.8.2's `_match_impl(re; flags; testmode)`, the native under `test`, `match`, `capture`, `scan`,
 * `split/2`, `splits`, `sub` and `gsub`.
 *
 * jq uses Oniguruma with its Perl_NG syntax; we translate such a pattern into a JS RegExp (`v` flag)
 * with the same meaning: Oniguruma's `^`/`$` (string anchors unless `(?m)`), `.` (everything but
 * `\n`), Unicode `\w`/`\d`/`\s`/`\b`, POSIX brackets, scoped inline options, atomic groups and
 * possessive quantifiers, `\A` `\z` `\Z`, `\Q..\E`, named groups (also duplicated names), extended
 * mode. Every capture becomes a uniquely named JS group so match positions come from `d` indices.
 * Offsets and lengths are reported in codepoints, as jq does.
 */
import type { MessagePort, Worker } from "node:worker_threads";
import { JqRuntimeError } from "../errors.js";
import { COST, charge, inEventLoopSlice, JqLimitError, sliceExhausted } from "../runtime.js";
import { typeErrorSubject } from "./json.js";
import { execAll, MATCH_STACK_LIMIT, type RawMatch, type RegexRequest, type RegexResponse } from "./regex-exec.js";

/** One capture group of a match, as jq reports it. */
export interface RegexCapture {
  offset: number;
  length: number;
  string: string | null;
  name: string | null;
}

/** One match, as jq's `match` reports it. */
export interface RegexMatch {
  offset: number;
  length: number;
  string: string;
  captures: RegexCapture[];
}

/** A translated pattern. */
interface Compiled {
  /** With match indices (`d`), for match mode. */
  re: RegExp;
  /** The same without indices, cheaper, for test mode. */
  testRe: RegExp;
  /** Per Oniguruma group (1-based order): its JS group name and its jq-visible name. */
  groups: { js: string; name: string | null }[];
  global: boolean;
  notEmpty: boolean;
  /** How far the pattern may backtrack (see {@link backtrackRisk}). */
  risk: BacktrackRisk;
  /** The pattern as the program wrote it, for messages. */
  pattern: string;
}

class RegexSyntaxError extends Error {}

interface Opts {
  i: boolean;
  /** Oniguruma MULTILINE: `.` matches newline (Perl `s`). */
  dotAll: boolean;
  /** Perl `m`: `^`/`$` at line boundaries (Oniguruma's SINGLELINE negated). */
  lines: boolean;
  x: boolean;
}

const WORD = "\\p{L}\\p{M}\\p{Nd}\\p{Pc}";
const WORD_CLASS = `[${WORD}]`;
const NOT_WORD_CLASS = `[^${WORD}]`;
const WORD_BOUNDARY = `(?:(?<=${WORD_CLASS})(?!${WORD_CLASS})|(?<!${WORD_CLASS})(?=${WORD_CLASS}))`;
const NOT_WORD_BOUNDARY = `(?:(?<=${WORD_CLASS})(?=${WORD_CLASS})|(?<!${WORD_CLASS})(?!${WORD_CLASS}))`;
/** lastAtom marker: the previous item is an anchor or look-around, which cannot be repeated. */
const ANCHOR = -2;
/**
 * jq sets Oniguruma's parse depth limit to 1,024: its parser nests two levels per group and one per
 * repeat operator on an atom, from two at the top. Deeper patterns fail with its message instead of
 * exhausting the stack.
 */
const PARSE_DEPTH_LIMIT = 1024;
const parseDepth = (groups: number): number => 2 + 2 * groups;
// We never set the JS `m` flag, so `^`/`$` are the input's ends (and let V8 see anchored patterns).
const BOS = "^";
const EOS = "$";
const SEMI_EOS = "(?=\\n?$)";

/** POSIX bracket names to v-mode class contents (Oniguruma's Unicode definitions). */
const POSIX: Record<string, string> = {
  alnum: "\\p{Alphabetic}\\p{Nd}",
  alpha: "\\p{Alphabetic}",
  ascii: "\\u{0}-\\u{7f}",
  blank: "\\p{Zs}\\u{9}",
  cntrl: "\\p{Cc}",
  digit: "\\p{Nd}",
  graph: "[^\\p{White_Space}\\p{Cc}\\p{Cn}\\p{Cs}]",
  lower: "\\p{Lowercase}",
  print: "[^\\p{White_Space}\\p{Cc}\\p{Cn}\\p{Cs}]\\p{Zs}",
  punct: "\\p{P}\\u{24}\\u{2b}\\u{3c}-\\u{3e}\\u{5e}\\u{60}\\u{7c}\\u{7e}",
  space: "\\p{White_Space}",
  upper: "\\p{Uppercase}",
  xdigit: "0-9A-Fa-f",
  word: WORD,
};

function lit(cp: number): string {
  if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)) {
    return String.fromCharCode(cp);
  }
  return `\\u{${cp.toString(16)}}`;
}

/** The other-case variants of a codepoint (for emulating a scoped `(?i)`). */
function caseVariants(cp: number): number[] {
  const ch = String.fromCodePoint(cp);
  const out = new Set<number>([cp]);
  for (const v of [ch.toLowerCase(), ch.toUpperCase()]) {
    const c = v.codePointAt(0)!;
    if (v.length === String.fromCodePoint(c).length) out.add(c);
  }
  return [...out];
}

function propertyClass(name: string, negate: boolean): string {
  const p = negate ? "P" : "p";
  const lower = name.toLowerCase().replace(/[\s_-]/g, "");
  if (lower in POSIX && !/^(l|lu|ll|lt|lm|lo|m|n|p|s|z|c)$/.test(lower)) {
    return negate ? `[^${POSIX[lower]}]` : `[${POSIX[lower]}]`;
  }
  for (const cand of [name, `Script=${name}`]) {
    try {
      new RegExp(`\\p{${cand}}`, "v");
      return `\\${p}{${cand}}`;
    } catch {
      // try the next spelling
    }
  }
  throw new RegexSyntaxError(`invalid character property name {${name}}`);
}

/** Translates an Oniguruma (Perl_NG syntax) pattern to JS `v`-mode source. */
class Translator {
  private pos = 0;
  private out = "";
  readonly groups: { js: string; name: string | null }[] = [];
  private atomics = 0;
  /** Backreferences to resolve once all group names are known; the output holds `\0<index>\0` for each. */
  private backrefs: { ref: string | number; i: boolean }[] = [];
  readonly needsIgnoreCaseFlag: boolean;

  constructor(
    private readonly src: string,
    private readonly base: Opts,
  ) {
    // A pattern-wide ignore-case maps to the JS `i` flag; scoped changes are emulated by case expansion.
    this.needsIgnoreCaseFlag = base.i && !/\(\?[imsx]*-[imsx]*i/.test(src);
  }

  private err(msg: string): never {
    throw new RegexSyntaxError(msg);
  }

  translate(): string {
    this.alternation(this.base, 0);
    if (this.pos < this.src.length) this.err("unmatched close parenthesis");
    // Resolve backreference placeholders (NUL never occurs otherwise: we emit it as \u{0}).
    return this.out.replace(/\0(\d+)\0/g, (_m, k: string) => {
      const b = this.backrefs[Number(k)];
      let targets: number[];
      if (typeof b.ref === "number") {
        if (b.ref < 1 || b.ref > this.groups.length) this.err("invalid backref number/name");
        targets = [b.ref];
      } else {
        targets = [];
        this.groups.forEach((g, idx) => {
          if (g.name === b.ref) targets.push(idx + 1);
        });
        if (targets.length === 0) this.err(`undefined name <${b.ref}> reference`);
      }
      return targets.length === 1
        ? `\\k<${this.groups[targets[0] - 1].js}>`
        : `(?:${targets
            .reverse()
            .map((t) => `\\k<${this.groups[t - 1].js}>`)
            .join("|")})`;
    });
  }

  private backref(ref: string | number, o: Opts): void {
    this.out += `\0${this.backrefs.length}\0`;
    this.backrefs.push({ ref, i: o.i });
  }

  /** Parses alternatives until `)` or end; `opts` may be changed by inline `(?i)` for the rest. */
  private alternation(opts: Opts, depth: number): void {
    const o = { ...opts };
    let lastAtom = -1;
    let repeats = 0;
    const src = this.src;
    while (this.pos < src.length) {
      const c = src.codePointAt(this.pos)!;
      const ch = String.fromCodePoint(c);
      if (o.x) {
        if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r" || ch === "\f" || ch === "\v") {
          this.pos++;
          continue;
        }
        if (ch === "#") {
          while (this.pos < src.length && src[this.pos] !== "\n") this.pos++;
          continue;
        }
      }
      switch (ch) {
        case ")":
          if (depth === 0) this.err("unmatched close parenthesis");
          return;
        case "|":
          this.pos++;
          this.out += "|";
          lastAtom = -1;
          repeats = 0;
          continue;
        case "*":
        case "+":
        case "?":
        case "{": {
          const q = this.quantifier();
          if (q === null) break; // a `{` that is not an interval is a literal
          if (lastAtom === ANCHOR) this.err("target of repeat operator is invalid");
          if (lastAtom < 0) this.err("target of repeat operator is not specified");
          // Each repeat operator applied to one atom nests one more level in Oniguruma's parser.
          if (parseDepth(depth) + ++repeats > PARSE_DEPTH_LIMIT) this.err("parse depth limit over");
          let atom = this.out.slice(lastAtom);
          if (/[*+?}]$/.test(atom) && !atom.endsWith("\\u{7d}") && this.isQuantified(atom)) atom = `(?:${atom})`;
          if (q.possessive) {
            const name = `_a${this.atomics++}`;
            this.out = this.out.slice(0, lastAtom) + `(?=(?<${name}>${atom}${q.text}))\\k<${name}>`;
          } else if ((q.text === "?" || q.text === "??") && atom.includes("(?<_g")) {
            // Oniguruma takes an optional group even when it matches empty (its captures are then set);
            // a JS quantifier refuses an empty iteration. An alternation with an empty branch does not.
            this.out = this.out.slice(0, lastAtom) + (q.text === "?" ? `(?:${atom}|)` : `(?:|${atom})`);
          } else {
            this.out = this.out.slice(0, lastAtom) + atom + q.text;
          }
          continue;
        }
        case "(": {
          const at = this.out.length;
          lastAtom = this.group(o, depth) ? ANCHOR : at;
          repeats = 0;
          continue;
        }
        case "[":
          lastAtom = this.out.length;
          repeats = 0;
          this.pos++;
          this.out += this.charClass(o);
          continue;
        case "\\": {
          const at = this.out.length;
          lastAtom = this.escape(o) ? ANCHOR : at;
          repeats = 0;
          continue;
        }
        case ".":
          this.pos++;
          lastAtom = this.out.length;
          repeats = 0;
          this.out += o.dotAll ? "[\\s\\S]" : "[^\\n]";
          continue;
        case "^":
          this.pos++;
          lastAtom = ANCHOR;
          repeats = 0;
          this.out += o.lines ? "(?<![^\\n])" : BOS;
          continue;
        case "$":
          this.pos++;
          lastAtom = ANCHOR;
          repeats = 0;
          this.out += o.lines ? "(?![^\\n])" : SEMI_EOS;
          continue;
      }
      // A literal character.
      this.pos += ch.length;
      lastAtom = this.out.length;
      repeats = 0;
      this.out += this.literal(c, o);
    }
  }

  /** Whether emitted text ends in a quantifier applying to the whole of it (needs wrapping to requantify). */
  private isQuantified(atom: string): boolean {
    return /(?:[*+?]|\{\d+(?:,\d*)?\})\??$/.test(atom);
  }

  private literal(cp: number, o: Opts): string {
    if (o.i && !this.needsIgnoreCaseFlag) {
      const vs = caseVariants(cp);
      if (vs.length > 1) return `[${vs.map(lit).join("")}]`;
    }
    return lit(cp);
  }

  /** At `*`, `+`, `?` or `{`: reads a quantifier, or returns null for a literal `{`. */
  private quantifier(): { text: string; possessive: boolean } | null {
    const src = this.src;
    let text: string;
    const c = src[this.pos];
    if (c === "{") {
      const m = /^\{(\d+)(?:(,)(\d*))?\}/.exec(src.slice(this.pos));
      if (!m) return null;
      const lo = Number(m[1]);
      const hi = m[3] ? Number(m[3]) : undefined;
      if (lo > 100000 || (hi !== undefined && hi > 100000)) this.err("too big number for repeat range");
      if (hi !== undefined && hi < lo) this.err("upper is smaller than lower in repeat range");
      this.pos += m[0].length;
      text = m[2] ? `{${lo},${hi ?? ""}}` : `{${lo}}`;
      // Perl: `{n,m}+` is possessive; Oniguruma's `{n}?` is a plain lazy interval.
    } else {
      this.pos++;
      text = c;
    }
    if (src[this.pos] === "?") {
      this.pos++;
      return { text: text + "?", possessive: false };
    }
    if (src[this.pos] === "+") {
      this.pos++;
      return { text, possessive: true };
    }
    return { text, possessive: false };
  }

  /** Parses a group; returns true when it is a look-around (which cannot be repeated). */
  private group(o: Opts, depth: number): boolean {
    const src = this.src;
    this.pos++; // (
    if (src[this.pos] !== "?") {
      this.capture(null, o, depth);
      return false;
    }
    this.pos++;
    const c = src[this.pos];
    const rest = src.slice(this.pos);
    if (c === ":") {
      this.pos++;
      this.out += "(?:";
      this.body(o, depth);
      this.out += ")";
      return false;
    }
    if (c === "=" || c === "!") {
      this.pos++;
      this.out += `(?${c}`;
      this.body(o, depth);
      this.out += ")";
      return true;
    }
    if (rest.startsWith("<=") || rest.startsWith("<!")) {
      this.pos += 2;
      this.out += `(?${rest.slice(0, 2)}`;
      this.body(o, depth);
      this.out += ")";
      return true;
    }
    if (c === ">") {
      this.pos++;
      const name = `_a${this.atomics++}`;
      this.out += `(?=(?<${name}>`;
      this.body(o, depth);
      this.out += `))\\k<${name}>`;
      return false;
    }
    if (c === "#") {
      const end = src.indexOf(")", this.pos);
      if (end < 0) this.err("end pattern in group");
      this.pos = end + 1;
      return false;
    }
    const named = /^(?:<([A-Za-z_][A-Za-z0-9_]*)>|'([A-Za-z_][A-Za-z0-9_]*)'|P<([A-Za-z_][A-Za-z0-9_]*)>)/.exec(rest);
    if (named) {
      this.pos += named[0].length;
      this.capture(named[1] ?? named[2] ?? named[3], o, depth);
      return false;
    }
    if (c === "<" || c === "'") this.err("invalid group name <>");
    const opt = /^([imsx]*)(?:-([imsx]*))?([:)])/.exec(rest);
    if (opt) {
      this.pos += opt[0].length;
      const n = { ...o };
      for (const f of opt[1]) this.setOpt(n, f, true);
      for (const f of opt[2] ?? "") this.setOpt(n, f, false);
      if (opt[3] === ":") {
        this.out += "(?:";
        this.body(n, depth);
        this.out += ")";
      } else {
        // `(?i)` applies to the rest of the enclosing group: parse it here and let it close there.
        this.out += "(?:";
        this.alternation(n, depth);
        this.out += ")";
        if (depth === 0 && this.pos < src.length) this.err("unmatched close parenthesis");
      }
      return false;
    }
    if (c === "~") this.err("absent operator (?~...) is not supported");
    if (c === "(") this.err("conditional groups (?(cond)...) are not supported");
    this.err("undefined group option");
  }

  private setOpt(o: Opts, f: string, on: boolean): void {
    if (f === "i") o.i = on;
    else if (f === "s") o.dotAll = on;
    else if (f === "m") o.lines = on;
    else if (f === "x") o.x = on;
  }

  private capture(name: string | null, o: Opts, depth: number): void {
    const js = `_g${this.groups.length + 1}`;
    this.groups.push({ js, name });
    this.out += `(?<${js}>`;
    this.body(o, depth);
    this.out += ")";
  }

  /** A group's contents up to and including its `)`. */
  private body(o: Opts, depth: number): void {
    if (parseDepth(depth + 1) > PARSE_DEPTH_LIMIT) this.err("parse depth limit over");
    this.alternation(o, depth + 1);
    if (this.src[this.pos] !== ")") this.err("end pattern with unmatched parenthesis");
    this.pos++;
  }

  /** Reads an escape's codepoint if it denotes a single character, else null (pos unchanged). */
  private charEscape(): number | null {
    const src = this.src;
    const e = src[this.pos + 1];
    const simple: Record<string, number> = { t: 9, n: 10, r: 13, f: 12, v: 11, a: 7, e: 27 };
    if (e in simple) {
      this.pos += 2;
      return simple[e];
    }
    if (e === "x") {
      const br = /^\\x\{([0-9a-fA-F]{1,8})\}/.exec(src.slice(this.pos));
      if (br) {
        const v = parseInt(br[1], 16);
        if (v > 0x10ffff) this.err("too big wide-char value");
        this.pos += br[0].length;
        return v;
      }
      const m = /^\\x([0-9a-fA-F]{0,2})/.exec(src.slice(this.pos))!;
      this.pos += m[0].length;
      return m[1] ? parseInt(m[1], 16) : 0;
    }
    if (e === "u") {
      const m = /^\\u([0-9a-fA-F]{4})/.exec(src.slice(this.pos));
      if (m) {
        this.pos += m[0].length;
        return parseInt(m[1], 16);
      }
      return null;
    }
    if (e === "0") {
      const m = /^\\0([0-7]{0,2})/.exec(src.slice(this.pos))!;
      this.pos += m[0].length;
      return m[1] ? parseInt(m[1], 8) : 0;
    }
    if (e === "c") {
      const x = src.codePointAt(this.pos + 2);
      if (x === undefined) this.err("end pattern at control");
      this.pos += 3;
      return x & 0x1f;
    }
    return null;
  }

  /** Emits an escape; returns true when it is an anchor (which cannot be repeated). */
  private escape(o: Opts): boolean {
    const src = this.src;
    if (this.pos + 1 >= src.length) this.err("end pattern at escape");
    const e = src[this.pos + 1];
    const cp = this.charEscape();
    if (cp !== null) {
      this.out += this.literal(cp, o);
      return false;
    }
    const two = (s: string, anchor = false): boolean => {
      this.pos += 2;
      this.out += s;
      return anchor;
    };
    switch (e) {
      case "w":
        return two(WORD_CLASS);
      case "W":
        return two(NOT_WORD_CLASS);
      case "d":
        return two("\\p{Nd}");
      case "D":
        return two("\\P{Nd}");
      case "s":
        return two("\\p{White_Space}");
      case "S":
        return two("\\P{White_Space}");
      case "b":
        return two(WORD_BOUNDARY, true);
      case "B":
        return two(NOT_WORD_BOUNDARY, true);
      case "A":
        return two(BOS, true);
      case "z":
        return two(EOS, true);
      case "Z":
        return two(SEMI_EOS, true);
      case "G":
        // Approximation: the start of the search, taken as the start of the string.
        return two(BOS, true);
      case "R":
        return two("(?:\\r\\n|[\\n\\v\\f\\r\\u{85}\\u{2028}\\u{2029}])");
      case "N":
        return two("[^\\n]");
      case "O":
        return two("[\\s\\S]");
      case "X":
        return two("(?:\\r\\n|\\P{M}\\p{M}*)");
      case "K":
        this.err("\\K (keep) is not supported");
        break;
      case "p":
      case "P": {
        const m = /^\\[pP]\{(\^?)([^}]*)\}/.exec(src.slice(this.pos));
        if (!m) this.err("invalid character property name {}");
        this.pos += m[0].length;
        this.out += propertyClass(m[2], (e === "P") !== (m[1] === "^"));
        return false;
      }
      case "k": {
        const m = /^\\k(?:<([^>]*)>|'([^']*)')/.exec(src.slice(this.pos));
        if (!m) this.err("invalid backref number/name");
        this.pos += m[0].length;
        const ref = m[1] ?? m[2];
        this.backref(/^\d+$/.test(ref) ? Number(ref) : ref, o);
        return false;
      }
      case "g":
        this.err("subexpression calls (\\g) are not supported");
        break;
      case "Q": {
        const end = src.indexOf("\\E", this.pos + 2);
        const text = src.slice(this.pos + 2, end < 0 ? src.length : end);
        this.pos = end < 0 ? src.length : end + 2;
        this.out += "(?:" + [...text].map((ch) => this.literal(ch.codePointAt(0)!, o)).join("") + ")";
        return false;
      }
    }
    if (e >= "1" && e <= "9") {
      const m = /^\\(\d+)/.exec(src.slice(this.pos))!;
      this.pos += m[0].length;
      this.backref(Number(m[1]), o);
      return false;
    }
    // Any other escaped character stands for itself (Perl_NG: `\h` is `h`).
    const c = src.codePointAt(this.pos + 1)!;
    this.pos += 1 + String.fromCodePoint(c).length;
    this.out += this.literal(c, o);
    return false;
  }

  /** After `[`: a bracket expression up to its `]`, as v-mode class source. */
  /**
   * A bracket expression after its `[`. jq's syntax (Oniguruma's Perl_NT) has no class set operations:
   * `[` inside a class is a literal unless it opens a POSIX bracket (`[:alpha:]`), and so is `&&`.
   */
  private charClass(o: Opts): string {
    const src = this.src;
    let negate = false;
    if (src[this.pos] === "^") {
      negate = true;
      this.pos++;
    }
    let items = "";
    let first = true;
    for (;;) {
      if (this.pos >= src.length) this.err("premature end of char-class");
      const ch = src[this.pos];
      if (ch === "]" && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (ch === "[") {
        const posix = /^\[:(\^?)([a-z]+):\]/.exec(src.slice(this.pos, this.pos + 16));
        if (posix) {
          const body = POSIX[posix[2]];
          if (body === undefined) this.err("invalid POSIX bracket type");
          this.pos += posix[0].length;
          items += posix[1] ? `[^${body}]` : `[${body}]`;
          this.noRangeAfterClass();
          continue;
        }
      }
      // A single character (possibly the start of a range) or a class escape.
      const start = this.classAtom(o);
      if (typeof start === "string") {
        items += start;
        this.noRangeAfterClass();
        continue;
      }
      if (src[this.pos] === "-" && this.pos + 1 < src.length && src[this.pos + 1] !== "]") {
        this.pos++;
        if (/^\[:\^?[a-z]+:\]/.test(src.slice(this.pos, this.pos + 16))) this.err("char-class value at end of range");
        const end = this.classAtom(o);
        if (typeof end === "string") this.err("char-class value at end of range");
        if (end < start) this.err("empty range in char class");
        items += this.classRange(start, end, o);
        continue;
      }
      items += this.classChar(start, o);
    }
    return `[${negate ? "^" : ""}${items}]`;
  }

  /** A class (`\\w`, `[:alpha:]`) cannot start a range. */
  private noRangeAfterClass(): void {
    if (this.src[this.pos] === "-" && this.pos + 1 < this.src.length && this.src[this.pos + 1] !== "]") this.err("unmatched range specifier in char-class");
  }

  private classChar(cp: number, o: Opts): string {
    if (o.i && !this.needsIgnoreCaseFlag) return caseVariants(cp).map(lit).join("");
    return lit(cp);
  }

  private classRange(a: number, b: number, o: Opts): string {
    let s = `${lit(a)}-${lit(b)}`;
    if (o.i && !this.needsIgnoreCaseFlag) {
      const lo = Math.max(a, 0x61);
      const hi = Math.min(b, 0x7a);
      if (lo <= hi) s += `${lit(lo - 32)}-${lit(hi - 32)}`;
      const LO = Math.max(a, 0x41);
      const HI = Math.min(b, 0x5a);
      if (LO <= HI) s += `${lit(LO + 32)}-${lit(HI + 32)}`;
    }
    return s;
  }

  /** One class member: a codepoint, or (for class escapes like `\w`) ready class source. */
  private classAtom(o: Opts): number | string {
    const src = this.src;
    const ch = src[this.pos];
    if (ch !== "\\") {
      const cp = src.codePointAt(this.pos)!;
      this.pos += String.fromCodePoint(cp).length;
      return cp;
    }
    if (this.pos + 1 >= src.length) this.err("end pattern at escape");
    const cp = this.charEscape();
    if (cp !== null) return cp;
    const e = src[this.pos + 1];
    const map: Record<string, string> = {
      w: WORD_CLASS,
      W: NOT_WORD_CLASS,
      d: "\\p{Nd}",
      D: "\\P{Nd}",
      s: "\\p{White_Space}",
      S: "\\P{White_Space}",
    };
    if (e in map) {
      this.pos += 2;
      return map[e];
    }
    if (e === "p" || e === "P") {
      const m = /^\\[pP]\{(\^?)([^}]*)\}/.exec(src.slice(this.pos));
      if (!m) this.err("invalid character property name {}");
      this.pos += m[0].length;
      return propertyClass(m[2], (e === "P") !== (m[1] === "^"));
    }
    if (e === "b") {
      this.pos += 2;
      return 8;
    }
    void o;
    const c = src.codePointAt(this.pos + 1)!;
    this.pos += 1 + String.fromCodePoint(c).length;
    return c;
  }
}

const FLAG_CHARS = /^[gixnsplm]*$/;
const cache = new Map<string, Compiled>();
const CACHE_LIMIT = 512;

let lastRegex = "";
let lastFlags = "";
let lastCompiled: Compiled | null = null;

function compile(regex: string, flags: string): Compiled {
  // The same pattern is typically applied to many inputs in a row.
  if (lastCompiled !== null && regex === lastRegex && flags === lastFlags) return lastCompiled;
  const key = flags + "\u0000" + regex;
  const hit = cache.get(key);
  if (hit !== undefined) {
    lastRegex = regex;
    lastFlags = flags;
    lastCompiled = hit;
    return hit;
  }
  const base: Opts = { i: false, dotAll: false, lines: false, x: false };
  let global = false;
  let notEmpty = false;
  for (const f of flags) {
    if (f === "g") global = true;
    else if (f === "i") base.i = true;
    else if (f === "x") base.x = true;
    else if (f === "m" || f === "p") base.dotAll = true;
    else if (f === "n") notEmpty = true;
    // `s` (Oniguruma SINGLELINE) is already jq's default; `l` (longest match) is accepted and ignored.
  }
  const t = new Translator(regex, base);
  let source: string;
  let re: RegExp;
  try {
    source = t.translate();
    if (notEmpty) {
      // FIND_NOT_EMPTY: remember the rest of the input at the start and refuse to end where it still
      // begins (an empty match), so the engine backtracks into a non-empty alternative.
      source = `(?=(?<_rest>[\\s\\S]*))(?:${source})(?!\\k<_rest>)`;
    }
    re = new RegExp(source, t.needsIgnoreCaseFlag ? "dgvi" : "dgv");
  } catch (e) {
    const msg = e instanceof RegexSyntaxError ? e.message : e instanceof Error ? e.message.replace(/^Invalid regular expression: \/[\s\S]*\/[a-z]*: /, "") : String(e);
    throw new JqRuntimeError(`Regex failure: ${msg}`);
  }
  const compiled: Compiled = { re, testRe: new RegExp(re.source, re.flags.replace("d", "")), groups: t.groups, global, notEmpty, risk: backtrackRisk(source), pattern: regex };
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  lastRegex = regex;
  lastFlags = flags;
  lastCompiled = compiled;
  return compiled;
}

const HAS_SURROGATE = /[\ud800-\udfff]/;

/**
 * jq 1.8.2's `_match_impl(regex; flags; testmode)`. `input` must be a string, `regex` a string,
 * `flags` a string of `g i x n s l p m` or null. In test mode returns whether there is a match;
 * otherwise the matches (all of them with `g`), with jq's treatment of empty matches: each empty match
 * reports its captures at the match offset (or -1 for those that took no part), and the search
 * resumes one character further on.
 */
export function matchRegex(input: unknown, regex: unknown, flags: unknown, testMode: boolean): boolean | RegexMatch[] {
  if (typeof input !== "string") throw new JqRuntimeError(`${typeErrorSubject(input)} cannot be matched, as it is not a string`);
  if (typeof regex !== "string") throw new JqRuntimeError(`${typeErrorSubject(regex)} is not a string`);
  let fl = "";
  if (typeof flags === "string") {
    if (!FLAG_CHARS.test(flags)) throw new JqRuntimeError(`${flags} is not a valid modifier string`);
    fl = flags;
  } else if (flags !== null && flags !== undefined) {
    throw new JqRuntimeError(`${typeErrorSubject(flags)} is not a string`);
  }
  const c = compile(regex, fl);
  // Match indices (`d`) are only needed for capture positions.
  const re = testMode || c.groups.length === 0 ? c.testRe : c.re;
  const s = input;
  const len = s.length;

  // Codepoint offsets: identical to UTF-16 indices unless the string has surrogate pairs.
  let cpIndex: Int32Array | null = null;
  if (!testMode && HAS_SURROGATE.test(s)) {
    cpIndex = new Int32Array(len + 1);
    let n = 0;
    for (let i = 0; i < len; i++) {
      cpIndex[i] = n;
      const ch = s.charCodeAt(i);
      if (!(ch >= 0xdc00 && ch <= 0xdfff && i > 0 && (s.charCodeAt(i - 1) & 0xfc00) === 0xd800)) n++;
    }
    cpIndex[len] = n;
  }
  const cp = (i: number): number => (cpIndex === null ? i : cpIndex[i]);

  const groupNames = re === c.re ? c.groups.map((g) => g.js) : [];
  let raw: ReturnType<typeof runBounded>;
  try {
    raw = runBounded(c, re, s, testMode, groupNames);
  } catch (e) {
    // V8 compiles a pattern on first use: one too large for it fails there, naming the whole pattern.
    if (e instanceof SyntaxError) throw new JqRuntimeError(`Regex failure: ${e.message.replace(/^Invalid regular expression: \/[\s\S]*\/[a-z]*: /, "")}`);
    if (e instanceof Error && e.message === MATCH_STACK_LIMIT) throw new JqRuntimeError(`Regex failure: ${MATCH_STACK_LIMIT}`);
    throw e;
  }
  if (typeof raw === "boolean") return raw;
  return raw.map((m) => {
    const off = cp(m[0]!);
    if (m[2] === 1) {
      // An empty match reports a capture that took part as an empty string at the match offset, one
      // that did not as offset -1 and null (jq 1.8).
      const captures = c.groups.map((g, i) =>
        (m[3 + 2 * i]! < 0 ? { offset: -1, string: null, length: 0, name: g.name } : { offset: off, string: "", length: 0, name: g.name }) as RegexCapture,
      );
      return { offset: off, length: 0, string: "", captures };
    }
    const captures: RegexCapture[] = c.groups.map((g, i) => {
      const from = m[3 + 2 * i]!;
      const to = m[4 + 2 * i]!;
      if (from < 0) return { offset: -1, string: null, length: 0, name: g.name } as RegexCapture;
      if (from === to) return { offset: cp(from), string: "", length: 0, name: g.name } as RegexCapture;
      const o = cp(from);
      return { offset: o, length: cp(to) - o, string: s.slice(from, to), name: g.name };
    });
    return { offset: off, length: cp(m[1]!) - off, string: s.slice(m[0]!, m[1]!), captures };
  });
}

/**
 * How far a pattern may backtrack. JS regular expressions backtrack, and a match cannot be interrupted
 * once started, so patterns are sorted by their worst case:
 * - `linear`: no unbounded quantifier; runs here.
 * - `quadratic`: one unbounded quantifier, nothing nested under a quantifier, no backreference; runs
 *   here on inputs up to {@link INLINE_INPUT_LIMIT} characters.
 * - `unbounded`: anything else (nested quantifiers as in `(a+)+`, quantified alternation, several
 *   unbounded quantifiers, backreferences): runs in the regex worker under {@link REGEX_TIMEOUT_MS}.
 */
export type BacktrackRisk = "linear" | "quadratic" | "unbounded";

/** The longest input a `quadratic` pattern is matched on in the calling thread. */
export const INLINE_INPUT_LIMIT = 4096;
/** The wall-clock limit on one regex call run in the worker; exceeding it ends the jq run. */
export const REGEX_TIMEOUT_MS = 1000;
/** A bounded quantifier with a larger maximum counts as unbounded. */
const SMALL_REPEAT = 16;

/** Classifies translated (JS `v`-mode) regex source by its worst-case backtracking; see {@link BacktrackRisk}. */
export function backtrackRisk(source: string): BacktrackRisk {
  // One frame per open group: whether it holds a quantifier or an alternation.
  const frames: { quant: boolean; alt: boolean }[] = [{ quant: false, alt: false }];
  let unbounded = 0;
  let nested = false;
  let classDepth = 0;
  const n = source.length;
    /** Reads a quantifier at `i`: its length, whether it is unbounded, whether it repeats (max > 1). */
  const quantifier = (i: number): [number, boolean, boolean] | undefined => {
    const c = source[i];
    if (c === "*" || c === "+") return [source[i + 1] === "?" ? 2 : 1, true, true];
    if (c === "?") return [source[i + 1] === "?" ? 2 : 1, false, false];
    if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}\??/.exec(source.slice(i, i + 24));
      if (!m) return undefined;
      const max = m[2] === undefined ? Number(m[1]) : m[3] === "" ? Infinity : Number(m[3]);
      return [m[0].length, max > SMALL_REPEAT, max > 1];
    }
    return undefined;
  };
  for (let i = 0; i < n; i++) {
    const c = source[i];
    if (c === "\\") {
      const d = source[i + 1];
      if (classDepth === 0 && (d === "k" || (d !== undefined && d >= "1" && d <= "9"))) return "unbounded"; // a backreference
      if (d === "p" || d === "P" || d === "u" || d === "q") {
        // \p{..}, \u{..}, \q{..}: skip the braces.
        const close = source[i + 2] === "{" ? source.indexOf("}", i + 2) : -1;
        i = close > 0 ? close : i + 1;
      } else i++;
      if (classDepth === 0) atomQuantified(i + 1);
      continue;
    }
    if (classDepth > 0) {
      if (c === "[") classDepth++;
      else if (c === "]") {
        classDepth--;
        if (classDepth === 0) atomQuantified(i + 1);
      }
      continue;
    }
    if (c === "[") {
      classDepth = 1;
      continue;
    }
    if (c === "(") {
      frames.push({ quant: false, alt: false });
      continue;
    }
    if (c === "|") {
      frames[frames.length - 1]!.alt = true;
      continue;
    }
    if (c === ")") {
      const inner = frames.pop()!;
      const parent = frames[frames.length - 1]!;
      parent.quant ||= inner.quant;
      parent.alt ||= inner.alt;
      const q = quantifier(i + 1);
      if (q !== undefined) {
        // Repeating a group that can match in several ways multiplies the ways: exponential.
        if (q[2] && (inner.quant || inner.alt)) nested = true;
        if (q[1]) unbounded++;
        parent.quant = true;
        i += q[0];
      }
      continue;
    }
    atomQuantified(i + 1);
  }
  function atomQuantified(at: number): void {
    const q = quantifier(at);
    if (q === undefined) return;
    if (q[1]) unbounded++;
    frames[frames.length - 1]!.quant = true;
  }
  if (nested || unbounded > 1) return "unbounded";
  return unbounded === 1 ? "quadratic" : "linear";
}

/** Matches in this thread when the pattern's worst case is small for this input, else in the worker under the deadline. */
function runBounded(c: Compiled, re: RegExp, input: string, testMode: boolean, groupNames: string[]): boolean | RawMatch[] {
  if (c.risk === "linear" || (c.risk === "quadratic" && input.length <= INLINE_INPUT_LIMIT)) {
    charge(1 + (input.length >> 6));
    // Each match found becomes an object (with its captures): work the run pays for as it goes.
    const perMatch = COST.copy * (2 + groupNames.length);
    return execAll(re, input, c.global, testMode, groupNames, () => charge(perMatch));
  }
  return inWorker(c, re, input, testMode, groupNames);
}

interface RegexWorker {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
}
let regexWorker: RegexWorker | undefined;

/**
 * node:worker_threads, loaded on the first regex that needs a worker: loading it costs a process ~8 ms,
 * a tenth of Node's own start-up, and most runs (every `karta inspect`) never start a regex worker.
 */
const threads = (): typeof import("node:worker_threads") => process.getBuiltinModule("node:worker_threads");

function startWorker(): RegexWorker {
  const { MessageChannel, Worker } = threads();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(new URL("./regex-worker.js", import.meta.url), { workerData: { flag, port: port2 }, transferList: [port2] });
  // Idle, it must not keep the process alive.
  worker.unref();
  port1.unref();
  // The deadline is for matching, not for starting a thread on a busy machine: wait until it is ready.
  if (Atomics.wait(flag, 0, 0, 30_000) === "timed-out") {
    void worker.terminate();
    throw new JqRuntimeError("Regex failure: the regex worker did not start");
  }
  return { worker, port: port1, flag };
}

/**
 * Runs one regex call in the worker thread and waits for it synchronously, at most
 * {@link REGEX_TIMEOUT_MS}; the time it took is charged to the run's step budget (a step a
 * microsecond), so many slow calls cannot add up to a hang either.
 */
function inWorker(c: Compiled, re: RegExp, input: string, testMode: boolean, groupNames: string[]): boolean | RawMatch[] {
  // An event loop must not wait up to the deadline: the caller redoes the work on a worker thread.
  if (inEventLoopSlice()) throw sliceExhausted(true)!;
  const w = (regexWorker ??= startWorker());
  const request: RegexRequest = { source: re.source, flags: re.flags, input, global: c.global, testMode, groupNames };
  Atomics.store(w.flag, 0, 0);
  const began = process.hrtime.bigint();
  w.port.postMessage(request);
  // A late wake-up from the previous call's notify can end a wait early: wait until the flag is set.
  let timedOut = false;
  while (Atomics.load(w.flag, 0) === 0) {
    const left = REGEX_TIMEOUT_MS - Number(process.hrtime.bigint() - began) / 1e6;
    if (left <= 0 || Atomics.wait(w.flag, 0, 0, left) === "timed-out") {
      timedOut = Atomics.load(w.flag, 0) === 0;
      break;
    }
  }
  const micros = Number((process.hrtime.bigint() - began) / 1000n);
  if (timedOut) {
    // A backtracking match cannot be stopped from inside: the thread goes, a new one comes next time.
    regexWorker = undefined;
    void w.worker.terminate();
    w.port.close();
    throw new JqLimitError(`regular expression ${JSON.stringify(abbreviate(c.pattern))} ran past its limit of ${REGEX_TIMEOUT_MS} ms (it backtracks too much on this input)`);
  }
  // The answer is posted before the flag is set.
  const received = threads().receiveMessageOnPort(w.port);
  if (received === undefined) throw new JqRuntimeError("Regex failure: the regex worker gave no answer");
  const response = received.message as RegexResponse;
  if (!response.ok) throw new JqRuntimeError(`Regex failure: ${response.message}`);
  charge(1 + Math.floor(micros));
  return response.result;
}

function abbreviate(s: string): string {
  return s.length > 60 ? s.slice(0, 57) + "..." : s;
}

/** How the matcher runs an Oniguruma pattern with jq flags: its translated source's {@link BacktrackRisk}. */
export function patternRisk(regex: string, flags = ""): BacktrackRisk {
  return compile(regex, flags).risk;
}
