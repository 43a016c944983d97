/**
 * The text between a JSON string's quotes, decoded as jq's JSON parser decodes it: the escapes, a lone
 * low surrogate read as U+FFFD (jq's string would hold invalid UTF-8, replaced on construction), and
 * jq's messages for what it refuses. The JSON parser (`fromjson`, input) and the lexer's string
 * literals (whose escapes jq reads with its JSON parser) share it.
 */
export function decodeJsonString(raw: string): string | { error: string } {
  let out = "";
  let i = 0;
  const n = raw.length;
  while (i < n) {
    const c = raw.charCodeAt(i++);
    if (c !== 0x5c) {
      if (c <= 0x1f) return { error: "Invalid string: control characters from U+0000 through U+001F must be escaped" };
      out += raw[i - 1];
      continue;
    }
    if (i >= n) return { error: "Expected escape character at end of string" };
    const e = raw[i++]!;
    const simple = SIMPLE_ESCAPES[e];
    if (simple !== undefined) {
      out += simple;
      continue;
    }
    if (e !== "u") return { error: "Invalid escape" };
    const h = raw.slice(i, i + 4);
    // jq counts the 4 digits' room in UTF-8 bytes: `\u12é` has it (and invalid characters).
    if (h.length < 4 && utf8Length(h) < 4) return { error: "Invalid \\uXXXX escape" };
    if (!HEX4.test(h)) return { error: "Invalid characters in \\uXXXX escape" };
    let cp = parseInt(h, 16);
    i += 4;
    if (cp >= 0xd800 && cp <= 0xdbff) {
      const l = raw.slice(i + 2, i + 6);
      const lo = HEX4.test(l) ? parseInt(l, 16) : -1;
      if (i + 6 > n || raw[i] !== "\\" || raw[i + 1] !== "u" || lo < 0xdc00 || lo > 0xdfff) return { error: "Invalid \\uXXXX\\uXXXX surrogate pair escape" };
      i += 6;
      cp = 0x10000 + (((cp - 0xd800) << 10) | (lo - 0xdc00));
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
      cp = 0xfffd;
    }
    out += String.fromCodePoint(cp);
  }
  return out;
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The UTF-8 length of a few characters. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
  }
  return n;
}

/** The one-character escapes and what they stand for. */
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { "\\": "\\", '"': '"', "/": "/", b: "\b", f: "\f", t: "\t", n: "\n", r: "\r" };
