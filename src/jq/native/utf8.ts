/**
 * Bytes to text as jq 1.8.2 makes a string of bytes that may not be UTF-8 (jv.c
 * `jvp_string_copy_replace_bad` over jv_unicode.c `jvp_utf8_next`): its input files and lines,
 * `@base64d` and `@base32d`. Each bad sequence becomes one U+FFFD: a byte that cannot start a character,
 * or a start and the continuation bytes that follow it up to the first that is missing (also at the end
 * of the bytes), or a whole sequence that is overlong, a surrogate or above U+10FFFF. The WHATWG decoder
 * (TextDecoder, Node's Buffer) splits some of these differently (`E0 80`: two U+FFFD, where jq has one).
 */

import { setKey } from "./json.js";

/** A continuation byte, in jq's table of sequence lengths by first byte. */
const CONTINUATION = -1;

/** jq's utf8_coding_length: the length of the sequence a byte starts (0: it starts none). */
function codingLength(b: number): number {
  if (b < 0x80) return 1;
  if (b < 0xc0) return CONTINUATION;
  if (b < 0xc2) return 0;
  if (b < 0xe0) return 2;
  if (b < 0xf0) return 3;
  return b < 0xf5 ? 4 : 0;
}

/** The payload bits of a sequence's first byte, by length (jq's utf8_coding_bits). */
const CODING_BITS = [0, 0x7f, 0x1f, 0x0f, 0x07];
/** The lowest code point a sequence of each length may encode (shorter is overlong). */
const FIRST_CODEPOINT = [0, 0, 0x80, 0x800, 0x10000];

const strict = new TextDecoder("utf-8", { fatal: true });

/** `bytes` decoded as jq decodes them: valid UTF-8 as it is, each bad sequence one U+FFFD. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    // Not UTF-8: jq's rule, below.
  }
  return decodeWith(bytes, () => 0xfffd);
}

/**
 * The code points of `bytes` by jq's jvp_utf8_next, each bad sequence handed to `bad` (its first byte
 * and length), which gives the code point to write (the marked decoder writes a marker per byte).
 */
function decodeWith(bytes: Uint8Array, bad: (at: number, length: number) => number | number[]): string {
  const units: number[] = [];
  let out = "";
  const end = bytes.length;
  for (let i = 0; i < end; ) {
    const first = bytes[i]!;
    let length = codingLength(first);
    let cp = -1;
    if (first < 0x80) cp = first;
    else if (length === 0 || length === CONTINUATION) length = 1;
    else if (length > end - i) length = end - i;
    else {
      cp = first & CODING_BITS[length]!;
      for (let k = 1; k < length; k++) {
        const ch = bytes[i + k]!;
        if (codingLength(ch) !== CONTINUATION) {
          cp = -1;
          length = k;
          break;
        }
        cp = (cp << 6) | (ch & 0x3f);
      }
      if (cp < FIRST_CODEPOINT[length]! || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) cp = -1;
    }
    const cps = cp < 0 ? bad(i, length) : cp;
    for (const c of typeof cps === "number" ? [cps] : cps) {
      if (c > 0xffff) units.push(0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff));
      else units.push(c);
    }
    if (units.length >= 8192) {
      out += String.fromCharCode(...units);
      units.length = 0;
    }
    i += length;
  }
  return out + String.fromCharCode(...units);
}

/** Where a byte that is not part of a UTF-8 character stands in marked text: a lone low surrogate, U+DC80 to U+DCFF. */
const MARK = 0xdc00;
/** A marker: a low surrogate in U+DC80 to U+DCFF after no high surrogate (a character above U+FFFF has its pair). */
const MARKED = /(?<![\ud800-\udbff])[\udc80-\udcff]/;

/**
 * `bytes` as text, with each byte of a bad sequence kept as a marker (as Python's surrogateescape) rather
 * than replaced, and whether there was one: jq replaces bad sequences within each string it makes (a JSON
 * string token, a line of -R), where a sequence cut short by the string's end swallows what is left of it,
 * so the replacement waits for the strings ({@link replaceMarked}). A JSON escape never makes a marker
 * (a lone low surrogate escape reads as U+FFFD).
 */
export function decodeUtf8Marked(bytes: Uint8Array): { text: string; marked: boolean } {
  try {
    return { text: strict.decode(bytes), marked: false };
  } catch {
    // Bad sequences: marked, below.
  }
  return { text: decodeWith(bytes, (at, length) => Array.from(bytes.subarray(at, at + length), (b) => MARK + b)), marked: true };
}

const encoder = new TextEncoder();

/** A string of marked text as jq makes it: its bytes (markers as the bytes they stand for) decoded by {@link decodeUtf8}. */
export function replaceMarked(s: string): string {
  if (!MARKED.test(s)) return s;
  const bytes: number[] = [];
  const text = (from: number, to: number): void => {
    for (const b of encoder.encode(s.slice(from, to))) bytes.push(b);
  };
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const high = i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
    if (c < 0xdc80 || c > 0xdcff || high) continue;
    text(from, i);
    bytes.push(c - MARK);
    from = i + 1;
  }
  text(from, s.length);
  return decodeUtf8(Uint8Array.from(bytes));
}

/**
 * A value read from marked text, its strings and keys as jq makes them ({@link replaceMarked}); walked
 * with a stack of its own, as input nests up to 10,000 deep.
 */
export function replaceMarkedIn(v: unknown): unknown {
  if (typeof v === "string") return replaceMarked(v);
  if (v === null || typeof v !== "object") return v;
  const copy = (x: object): unknown[] | Record<string, unknown> => (Array.isArray(x) ? [...(x as unknown[])] : { ...(x as Record<string, unknown>) });
  const root = copy(v);
  const work: (unknown[] | Record<string, unknown>)[] = [root];
  while (work.length > 0) {
    const c = work.pop()!;
    if (Array.isArray(c)) {
      c.forEach((x, i) => {
        if (typeof x === "string") c[i] = replaceMarked(x);
        else if (x !== null && typeof x === "object") work.push((c[i] = copy(x)) as unknown[] | Record<string, unknown>);
      });
      continue;
    }
    // Rebuilt in place, in the same key order (a key replaced keeps its place).
    const entries = Object.entries(c);
    for (const k of Object.keys(c)) delete c[k];
    for (const [k, x] of entries) {
      let value = x;
      if (typeof x === "string") value = replaceMarked(x);
      else if (x !== null && typeof x === "object") work.push((value = copy(x)) as unknown[] | Record<string, unknown>);
      setKey(c, replaceMarked(k), value);
    }
  }
  return root;
}

/** jq's jvp_utf8_backtrack from `last`: how many bytes the character it ends in still lacks (0: none, or a bad one). */
function missingBytes(bytes: Uint8Array, min: number, last: number): number {
  if (last <= min) return 0;
  let at = last;
  let seen = 1;
  let length: number;
  while ((length = codingLength(bytes[at]!)) === CONTINUATION) {
    if (at === min) break;
    at--;
    seen++;
  }
  return length === 0 || length === CONTINUATION || length - seen < 0 ? 0 : length - seen;
}

/**
 * A file as jq's jv_load_file reads it as text (`--rawfile`, `-f`): in reads of 4096 bytes, each
 * completed to the end of a character it cuts, each made a string on its own ({@link decodeUtf8}).
 */
export function decodeFileBlocks(bytes: Uint8Array, block = 4096): string {
  let out = "";
  for (let pos = 0; pos < bytes.length; ) {
    let n = Math.min(block, bytes.length - pos);
    const missing = missingBytes(bytes, pos, pos + n - 1);
    if (missing > 0) n = Math.min(n + missing, bytes.length - pos);
    out += decodeUtf8(bytes.subarray(pos, pos + n));
    pos += n;
  }
  return out;
}
