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
  if (Number.isInteger(n) && n >= -(2 ** 63) && n < 2 ** 63) return BigInt(n).toString();
  return goFloat(n);
}

/** A float64 as `%v` prints it: strconv's shortest 'g', with an exponent below 1e-4 and from 1e6 up; -0 as "-0". */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (!Number.isFinite(n)) return n > 0 ? "+Inf" : "-Inf";
  if (n === 0) return Object.is(n, -0) ? "-0" : "0";
  const [mantissa, exp] = n.toExponential().split("e") as [string, string];
  const e = Number(exp);
  if (e < -4 || e >= 6) return `${mantissa}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  return String(n);
}

/** Go's `unicode.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Whether Go's `strconv.IsPrint` holds for a code point (what `%q` and `%#U` print as it is). */
export function goIsPrint(cp: number): boolean {
  return cp >= 0 && cp <= 0x10ffff && GO_PRINTABLE.test(String.fromCodePoint(cp));
}

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

/**
 * A JSON value decoded into Go's `any` as `%v` prints it: maps as `map[k:v ...]` (keys in Go's order),
 * slices as `[a b]`, nil as `<nil>`, strings bare, numbers by `number` (a float64 by default; Kubernetes'
 * unstructured decoding keeps integers as int64: {@link goNumberString}).
 */
export function goSprint(v: unknown, number: (n: number) => string = goFloat): string {
  if (v === null || v === undefined) return "<nil>";
  if (typeof v === "string") return v;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return number(v);
  if (Array.isArray(v)) return `[${v.map((x) => goSprint(x, number)).join(" ")}]`;
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `map[${Object.keys(o)
      .sort(goCompareStrings)
      .map((k) => `${k}:${goSprint(o[k], number)}`)
      .join(" ")}]`;
  }
  return String(v);
}

/** A list of strings as Go's `%v` prints a `[]string`: `[a b c]`. */
export function goStringList(xs: readonly string[]): string {
  return `[${xs.join(" ")}]`;
}

/** A value as Go's `encoding/json.Marshal` prints it: JSON with `<`, `>`, `&`, U+2028 and U+2029 escaped. */
export function goJSON(value: unknown): string {
  return (JSON.stringify(value) ?? "null").replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The abbreviation Go prints for the local time zone at a time (the layout's "MST"): the name the
 * time zone database gives it where JavaScript's Intl knows one ("UTC", "CET", "PST"), otherwise the
 * offset as Go prints a zone without a name ("+03", "-0930").
 */
export function goZoneAbbreviation(date: Date): string {
  for (const locale of ["en-US", "en-GB"]) {
    const name = new Intl.DateTimeFormat(locale, { timeZoneName: "short" }).formatToParts(date).find((p) => p.type === "timeZoneName")?.value;
    if (name !== undefined && /^[A-Z]{3,5}$/.test(name)) return name;
  }
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? "-" : "+";
  const h = String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0");
  const m = Math.abs(offset) % 60;
  return m === 0 ? `${sign}${h}` : `${sign}${h}${String(m).padStart(2, "0")}`;
}

/**
 * The characters of a Go string (UTF-8 bytes) as Go's range loop reads them: each byte that does not
 * start a valid UTF-8 sequence reads as U+FFFD on its own.
 */
export function goDecodeUTF8(bytes: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let cp = 0xfffd;
    let width = 1;
    const cont = (k: number): number => {
      const c = bytes[i + k];
      return c !== undefined && c >= 0x80 && c <= 0xbf ? c & 0x3f : -1;
    };
    if (b < 0x80) {
      cp = b;
    } else if (b >= 0xc2 && b <= 0xdf) {
      const c1 = cont(1);
      if (c1 >= 0) [cp, width] = [((b & 0x1f) << 6) | c1, 2];
    } else if (b >= 0xe0 && b <= 0xef) {
      const c1 = cont(1);
      const c2 = cont(2);
      const v = ((b & 0x0f) << 12) | (c1 << 6) | c2;
      if (c1 >= 0 && c2 >= 0 && v >= 0x800 && (v < 0xd800 || v > 0xdfff)) [cp, width] = [v, 3];
    } else if (b >= 0xf0 && b <= 0xf4) {
      const c1 = cont(1);
      const c2 = cont(2);
      const c3 = cont(3);
      const v = ((b & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3;
      if (c1 >= 0 && c2 >= 0 && c3 >= 0 && v >= 0x10000 && v <= 0x10ffff) [cp, width] = [v, 4];
    }
    out.push(cp);
    i += width;
  }
  return out;
}

/**
 * Go's strings.ToUpper or strings.ToLower of a Go string: each character mapped by Unicode's simple
 * case mapping (one character to one: "ß" stays, "İ" lowers to "i"), bytes that are not UTF-8 as U+FFFD.
 */
export function goChangeCase(bytes: Uint8Array, upper: boolean): string {
  let out = "";
  for (const cp of goDecodeUTF8(bytes)) out += String.fromCodePoint(simpleCase(cp, upper));
  return out;
}

function simpleCase(cp: number, upper: boolean): number {
  const c = String.fromCodePoint(cp);
  const mapped = upper ? c.toUpperCase() : c.toLowerCase();
  const points = [...mapped];
  if (points.length === 1) return points[0]!.codePointAt(0)!;
  // JavaScript's full mappings that are not one character; Unicode's simple mappings of these.
  if (!upper) return cp === 0x130 ? 0x69 : cp;
  // Greek with ypogegrammeni: the lower forms map to their title forms (+8), alpha, eta and omega
  // with ypogegrammeni alone to their capitals with prosgegrammeni.
  if ((cp >= 0x1f80 && cp <= 0x1f87) || (cp >= 0x1f90 && cp <= 0x1f97) || (cp >= 0x1fa0 && cp <= 0x1fa7)) return cp + 8;
  if (cp === 0x1fb3) return 0x1fbc;
  if (cp === 0x1fc3) return 0x1fcc;
  if (cp === 0x1ff3) return 0x1ffc;
  return cp;
}

/**
 * Go's utf8.RuneCountInString of the string as Go holds it (UTF-8 of `s`): code points, a surrogate
 * pair one and a lone surrogate one (U+FFFD in Go), as jq's `length` of a string counts too.
 */
export function goRuneCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/**
 * Go's comparison of two strings (byte order of their UTF-8, which is code point order), as jq compares
 * strings too; JS's `<` compares UTF-16 units and puts U+E000..U+FFFF after astral characters.
 */
export function goCompareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs === ys) return x - y;
      // A surrogate stands for a code point >= 0x10000, above any BMP unit.
      return xs ? 1 : -1;
    }
  }
  return a.length - b.length;
}
