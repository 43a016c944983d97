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
 * A string as Go's `%q` (strconv.Quote) prints it: printable characters as they are, backslash and
 * double quote escaped, the usual C escapes, other characters as hexadecimal escapes. (A lone
 * surrogate, which a Go string cannot hold, is the replacement character there.)
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    switch (c) {
      case '"':
      case "\\":
        out += `\\${c}`;
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (cp >= 0xd800 && cp <= 0xdfff) out += "\ufffd";
    else if (cp === 0x20 || GO_PRINTABLE.test(c)) out += c;
    else if (cp < 0x80) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
    else out += `\\U${cp.toString(16).padStart(8, "0")}`;
  }
  return `${out}"`;
}

/** Go's unicode.IsPrint, but for the ASCII space: letters, marks, numbers, punctuation and symbols. */
const GO_PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
