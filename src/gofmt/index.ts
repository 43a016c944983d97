/**
 * How Go's fmt and strconv print values, for messages that must read as Go components write them (the
 * API server's field errors, Karmada's native interpreters) and for gopher-lua's number strings.
 */

/**
 * A float64 as Go's `fmt.Sprint` (`%v`, strconv's shortest 'g') prints it, integral values within
 * int64 as integers (as gopher-lua prints its numbers, and as an unstructured int64 prints): the
 * shortest form that reads back, with an exponent below 1e-4 and from 1e6 up.
 */
export function goNumberString(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Infinity) return "+Inf";
  if (n === -Infinity) return "-Inf";
  if (Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63) return BigInt(n).toString();
  const [mantissa, exp] = n.toExponential().split("e") as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(n);
}

/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const GO_ESCAPES: Record<string, string> = { "\x07": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", '"': '\\"', "\\": "\\\\" };

/**
 * A string as Go's `strconv.Quote` (and `%q`) prints it: printable characters as they are, the C escapes,
 * `\xNN` for other ASCII controls, `\uNNNN` / `\UNNNNNNNN` for other unprintable characters. (A lone
 * surrogate, which no Go string can hold, prints as the replacement character Go's JSON decoding makes of it.)
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (GO_ESCAPES[ch] !== undefined) out += GO_ESCAPES[ch];
    else if (cp >= 0xd800 && cp <= 0xdfff) out += "\ufffd";
    else if (GO_PRINTABLE.test(ch)) out += ch;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** A list of strings as Go's `%v` prints a `[]string`: `[a b c]`. */
export function goStringList(xs: readonly string[]): string {
  return `[${xs.join(" ")}]`;
}

/** A value as Go's `encoding/json.Marshal` prints it: JSON with `<`, `>`, `&`, U+2028 and U+2029 escaped. */
export function goJSON(value: unknown): string {
  return (JSON.stringify(value) ?? "null").replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
