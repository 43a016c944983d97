/**
 * Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource.Quantity), reproduced exactly:
 * the same accepted syntax and error messages, the same rounding (to nano, away from zero), the same
 * format remembered from parsing, and the same canonical string (`1.5` → `1500m`, `1.5Gi` → `1536Mi`).
 *
 * Values are held as `unscaled × 10^exponent` with bigint, so nothing overflows. Besides the value, a
 * quantity remembers the two things upstream's output depends on: the representation Go would hold
 * (its int64 fast form or its arbitrary-precision `inf.Dec` form, with the same scale), which decides
 * `asApproximateFloat64` bit for bit, and the input string upstream keeps verbatim when it parsed a
 * canonical-looking literal on its fast path (so `"+1"` prints as `+1`, as Kubernetes does).
 */

/** The three formattings of a quantity, spelled as upstream. */
export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

/** The regular expression named in upstream's "format wrong" error. */
export const QUANTITY_SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/** Upstream's three parse errors, word for word. */
export const QUANTITY_ERROR_MESSAGES = {
  format: `quantities must match the regular expression '${QUANTITY_SPLIT_RE_STRING}'`,
  numeric: "unable to parse numeric part of quantity",
  suffix: "unable to parse quantity's suffix",
} as const;

/** Which of upstream's parse errors occurred. */
export type QuantityErrorCode = keyof typeof QUANTITY_ERROR_MESSAGES;

/** A quantity that could not be parsed; `message` is upstream's. */
export class QuantityParseError extends Error {
  override readonly name = "QuantityParseError";
  constructor(
    readonly code: QuantityErrorCode,
    readonly input: string,
  ) {
    super(QUANTITY_ERROR_MESSAGES[code]);
  }
}

/** The outcome of parsing: a quantity or the error, as a value. */
export type QuantityParseResult = { ok: true; quantity: Quantity } | { ok: false; error: QuantityParseError };

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const NANO = -9;

function fitsInt64(v: bigint): boolean {
  return v >= INT64_MIN && v <= INT64_MAX;
}

/** 10^0 … 10^63, made once: quantities scale by these at every parse and format. */
const POW10 = Array.from({ length: 64 }, (_, i) => 10n ** BigInt(i));

function pow10n(n: number): bigint {
  return n >= 0 && n < 64 ? POW10[n]! : 10n ** BigInt(n);
}

function abs(v: bigint): bigint {
  return v < 0n ? -v : v;
}

/** `int64(math.Pow10(n))` as Go converts it on amd64: exact up to 10^18, then the int64 minimum. */
function goPow10Int64(n: number): bigint {
  return n <= 18 ? pow10n(n) : INT64_MIN;
}

/** Integer division rounding away from zero (upstream's "round up"). */
function divAwayFromZero(v: bigint, d: bigint): bigint {
  const q = v / d;
  if (q * d === v) return q;
  return v < 0n ? q - 1n : q + 1n;
}

/** Decimal suffixes by power of ten. */
const DECIMAL_SUFFIX_BY_EXPONENT = new Map<number, string>([
  [-9, "n"],
  [-6, "u"],
  [-3, "m"],
  [0, ""],
  [3, "k"],
  [6, "M"],
  [9, "G"],
  [12, "T"],
  [15, "P"],
  [18, "E"],
]);
const DECIMAL_EXPONENT_BY_SUFFIX = new Map<string, number>([...DECIMAL_SUFFIX_BY_EXPONENT].map(([e, s]) => [s, e]));
/** Binary suffixes by power of 1024. */
const BINARY_SUFFIX_BY_POWER = new Map<number, string>([
  [1, "Ki"],
  [2, "Mi"],
  [3, "Gi"],
  [4, "Ti"],
  [5, "Pi"],
  [6, "Ei"],
]);
const BINARY_EXPONENT_BY_SUFFIX = new Map<string, number>([...BINARY_SUFFIX_BY_POWER].map(([p, s]) => [s, p * 10]));

interface SuffixMeaning {
  base: 10 | 2;
  exponent: number;
  format: QuantityFormat;
}

/** What a suffix means, or undefined when upstream would report "unable to parse quantity's suffix". */
function interpretSuffix(suffix: string): SuffixMeaning | undefined {
  const dec = DECIMAL_EXPONENT_BY_SUFFIX.get(suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" };
  const bin = BINARY_EXPONENT_BY_SUFFIX.get(suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    // strconv.ParseInt(s, 10, 64): optional sign then decimal digits, within int64.
    const digits = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(digits)) return undefined;
    const parsed = BigInt(digits);
    if (!fitsInt64(parsed)) return undefined;
    // Upstream narrows the exponent to int32.
    return { base: 10, exponent: Number(BigInt.asIntN(32, parsed)), format: "DecimalExponent" };
  }
  return undefined;
}

interface ScannedQuantity {
  positive: boolean;
  /** The signed number as written (sign, digits, point), without the suffix. */
  value: string;
  /** Integer digits with leading zeros removed ("0" when none are left). */
  num: string;
  /** Fractional digits as written. */
  denom: string;
  suffix: string;
}

const SUFFIX_LETTERS = "eEinumkKMGTP";
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";

/** Splits a quantity string the way upstream's scanner does, accepting and rejecting the same inputs. */
function scanQuantity(str: string): ScannedQuantity | "format" {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === "-") {
      positive = false;
      pos++;
    } else if (str[0] === "+") {
      pos++;
    }
  }
  while (pos < end && str[pos] === "0") pos++;
  if (pos >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
  const numStart = pos;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return { positive, value: str, num: str.slice(numStart), denom: "", suffix: "" };
  let num = str.slice(numStart, pos);
  if (num.length === 0) num = "0";
  let denom = "";
  if (str[pos] === ".") {
    pos++;
    const denomStart = pos;
    while (pos < end && isDigit(str[pos])) pos++;
    denom = str.slice(denomStart, pos);
    if (pos >= end) return { positive, value: str, num, denom, suffix: "" };
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && SUFFIX_LETTERS.includes(str[pos] as string)) pos++;
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  if (str[pos] === "-" || str[pos] === "+") pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos < end) return "format";
  return { positive, value, num, denom, suffix: str.slice(suffixStart) };
}

/** Parses a decimal string of the form [+-]digits[.digits] (at least one digit) to unscaled and scale. */
function parseDecimal(value: string): { unscaled: bigint; scale: number } | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m) return undefined;
  const intPart = m[2] ?? "";
  const frac = m[3] ?? "";
  if (intPart.length + frac.length === 0) return undefined;
  const magnitude = BigInt(intPart + frac);
  return { unscaled: m[1] === "-" ? -magnitude : magnitude, scale: frac.length };
}

/** Quantities parsed successfully, by their text (at most MAX_PARSED; then started again). */
const parsed = new Map<string, QuantityParseResult>();
const MAX_PARSED = 1024;

/**
 * A Kubernetes resource quantity. Immutable: arithmetic returns new quantities.
 * `unscaled × 10^exponent` is the exact value.
 */
export class Quantity {
  /** The value's digits; the value is `unscaled × 10^exponent`. */
  readonly unscaled: bigint;
  /** The power of ten applied to `unscaled` (upstream's scale; `-3` is milli). */
  readonly exponent: number;
  /** The format kept from parsing; `""` for upstream's zero `Quantity{}`, which prints as DecimalExponent. */
  readonly format: QuantityFormat | "";
  /** True when upstream would hold this value as an arbitrary-precision inf.Dec rather than an int64. */
  readonly arbitraryPrecision: boolean;
  /** The input kept verbatim by upstream's parser, printed instead of the canonical form. */
  readonly parsedString: string | undefined;

  private constructor(
    unscaled: bigint,
    exponent: number,
    format: QuantityFormat | "",
    arbitraryPrecision: boolean,
    parsedString?: string,
  ) {
    this.unscaled = unscaled;
    this.exponent = exponent;
    this.format = format;
    this.arbitraryPrecision = arbitraryPrecision;
    this.parsedString = parsedString;
  }

  /** Upstream's `Quantity{}`: zero with no format. */
  static zero(format: QuantityFormat | "" = ""): Quantity {
    return new Quantity(0n, 0, format, false);
  }

  /** `NewQuantity(value, format)`. */
  static fromInteger(value: bigint | number, format: QuantityFormat): Quantity {
    return Quantity.scaled(value, 0, format);
  }

  /** `NewMilliQuantity(value, format)`. */
  static fromMilli(value: bigint | number, format: QuantityFormat): Quantity {
    return Quantity.scaled(value, -3, format);
  }

  /** `value × 10^exponent` in the given format (`NewScaledQuantity` uses DecimalSI). */
  static scaled(value: bigint | number, exponent: number, format: QuantityFormat = "DecimalSI"): Quantity {
    const v = typeof value === "bigint" ? value : BigInt(Math.trunc(value));
    return new Quantity(v, exponent, format, !fitsInt64(v));
  }

  /**
   * Parses a quantity string exactly as `resource.ParseQuantity`. Quantities are immutable, so a string
   * parsed before gives the same Quantity again (workloads repeat the same few requests and limits).
   */
  static parse(str: string): QuantityParseResult {
    let known = parsed.get(str);
    if (known === undefined) {
      known = Quantity.parseNew(str);
      if (!known.ok) return known;
      if (parsed.size >= MAX_PARSED) parsed.clear();
      parsed.set(str, known);
    }
    return known;
  }

  private static parseNew(str: string): QuantityParseResult {
    const fail = (code: QuantityErrorCode): QuantityParseResult => ({
      ok: false,
      error: new QuantityParseError(code, str),
    });
    if (str.length === 0) return fail("format");
    if (str === "0") return { ok: true, quantity: new Quantity(0n, 0, "DecimalSI", false, "0") };

    const scanned = scanQuantity(str);
    if (scanned === "format") return fail("format");
    const { positive, value, num, denom, suffix } = scanned;
    const meaning = interpretSuffix(suffix);
    if (!meaning) return fail("suffix");
    const { base, exponent } = meaning;
    let format = meaning.format;

    // Upstream's int64 fast path: taken when the digits surely fit, and decides whether the
    // input string is kept for printing.
    let precision = 0;
    let scale = 0;
    let mantissa = 1n;
    if (format === "BinarySI") {
      if (exponent >= 0 && denom.length === 0) {
        mantissa = 1n << BigInt(exponent);
        precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
      } else {
        precision = -1;
      }
    } else {
      scale = exponent;
      precision = 18 - (num.length + denom.length);
    }
    if (precision >= 0) {
      scale -= denom.length;
      if (scale >= NANO) {
        const shifted = num + denom;
        const parsed = BigInt(shifted);
        if (!fitsInt64(parsed)) return fail("numeric");
        const product = parsed * mantissa;
        if (fitsInt64(product)) {
          const result = positive ? product : -product;
          let keep = false;
          if (format === "BinarySI") {
            keep = exponent % 10 === 0 && (parsed & 7n) !== 0n;
          } else {
            keep = scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
          }
          return { ok: true, quantity: new Quantity(result, scale, format, false, keep ? str : undefined) };
        }
      }
    }

    // The arbitrary-precision path.
    const dec = parseDecimal(value);
    if (!dec) return fail("numeric");
    let unscaled = dec.unscaled;
    let exp = -dec.scale;
    if (base === 10) {
      exp += exponent;
    } else {
      unscaled *= 1n << BigInt(exponent);
    }
    const negative = unscaled < 0n;
    unscaled = abs(unscaled);
    if (unscaled !== 0n) {
      // Round to nano, away from zero: asking for a tiny amount still gets some.
      if (exp < NANO) {
        unscaled = divAwayFromZero(unscaled, pow10n(NANO - exp));
      } else {
        unscaled *= pow10n(exp - NANO);
      }
      exp = NANO;
    }
    if (format === "BinarySI" && compareScaled(unscaled, exp, INT64_MAX, 0) > 0) {
      // Upstream silently caps binary quantities at the largest int64.
      unscaled = INT64_MAX;
      exp = 0;
    }
    if (format === "BinarySI" && unscaled !== 0n && compareScaled(unscaled, exp, 1n, 0) < 0) {
      format = "DecimalSI";
    }
    return { ok: true, quantity: new Quantity(negative ? -unscaled : unscaled, exp, format, true) };
  }

  /** Parses or throws {@link QuantityParseError} (upstream's MustParse, for literals known to be valid). */
  static mustParse(str: string): Quantity {
    const r = Quantity.parse(str);
    if (!r.ok) throw r.error;
    return r.quantity;
  }

  /**
   * Reads a quantity as it appears in a JSON or YAML object, as upstream's UnmarshalJSON does:
   * strings are trimmed, numbers are read in their JSON spelling, null is zero.
   */
  static fromJSON(value: unknown): QuantityParseResult {
    if (value === null || value === undefined) return { ok: true, quantity: Quantity.zero() };
    if (typeof value === "number") {
      // JavaScript's shortest number spelling is the one Go's JSON encoder writes.
      return Quantity.parse(Object.is(value, -0) ? "0" : String(value));
    }
    if (typeof value === "bigint") return Quantity.parse(value.toString());
    if (typeof value === "string") return Quantity.parse(value.trim());
    return { ok: false, error: new QuantityParseError("format", String(value)) };
  }

  /** -1, 0 or 1. */
  sign(): number {
    return this.unscaled === 0n ? 0 : this.unscaled < 0n ? -1 : 1;
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  cmp(other: Quantity): number {
    return compareScaled(this.unscaled, this.exponent, other.unscaled, other.exponent);
  }

  equals(other: Quantity): boolean {
    return this.cmp(other) === 0;
  }

  /** The sum; a zero receiver takes `y`'s format, as upstream's Add. */
  add(y: Quantity): Quantity {
    const format = this.isZero() ? y.format : this.format;
    if (!this.arbitraryPrecision && !y.arbitraryPrecision) {
      const fast = int64Add(this, y);
      if (fast) return new Quantity(fast.unscaled, fast.exponent, format, false);
    }
    const e = Math.min(this.exponent, y.exponent);
    const sum = this.unscaled * pow10n(this.exponent - e) + y.unscaled * pow10n(y.exponent - e);
    return new Quantity(sum, e, format, true);
  }

  /** The difference; a zero receiver takes `y`'s format, as upstream's Sub. */
  sub(y: Quantity): Quantity {
    const format = this.isZero() ? y.format : this.format;
    if (!this.arbitraryPrecision && !y.arbitraryPrecision) {
      if (this.unscaled === 0n && y.unscaled === INT64_MIN) {
        return new Quantity(-y.unscaled, y.exponent, format, true);
      }
      const fast = int64Add(this, new Quantity(-y.unscaled, y.exponent, y.format, false));
      if (fast) return new Quantity(fast.unscaled, fast.exponent, format, false);
    }
    const e = Math.min(this.exponent, y.exponent);
    const diff = this.unscaled * pow10n(this.exponent - e) - y.unscaled * pow10n(y.exponent - e);
    return new Quantity(diff, e, format, true);
  }

  /** The product with an integer; the format is kept. */
  mul(factor: bigint | number): Quantity {
    const y = typeof factor === "bigint" ? factor : BigInt(Math.trunc(factor));
    if (!this.arbitraryPrecision) {
      if (this.unscaled === 0n) return this.withoutParsedString();
      if (y === 0n) return new Quantity(0n, 0, this.format, false);
      const c = this.unscaled * y;
      let fast = fitsInt64(c) && this.unscaled !== INT64_MIN && y !== INT64_MIN;
      if (fast && this.exponent > 0) fast = fitsInt64(c * pow10n(this.exponent));
      // Upstream leaves the int64 form when the product is not a whole number of its unit.
      if (fast && this.exponent < 0) fast = c % pow10n(-this.exponent) === 0n;
      if (fast) return new Quantity(c, this.exponent, this.format, false);
    }
    return new Quantity(this.unscaled * y, this.exponent, this.format, true);
  }

  /** The negation. */
  neg(): Quantity {
    return new Quantity(-this.unscaled, this.exponent, this.format, this.arbitraryPrecision || this.unscaled === INT64_MIN);
  }

  /** The same value in another format (for printing). */
  withFormat(format: QuantityFormat): Quantity {
    return new Quantity(this.unscaled, this.exponent, format, this.arbitraryPrecision);
  }

  private withoutParsedString(): Quantity {
    return new Quantity(this.unscaled, this.exponent, this.format, this.arbitraryPrecision);
  }

  /** `ceil(q / 10^scale)` as upstream's ScaledValue (rounding as its int64 or inf.Dec form does). */
  scaledValue(scale: number): bigint {
    const dif = scale - this.exponent;
    if (dif <= 0) return this.unscaled * pow10n(-dif);
    const divisor = pow10n(dif);
    if (!this.arbitraryPrecision) return divAwayFromZero(this.unscaled, divisor);
    // inf.Dec form: a truncated quotient plus one when inexact (for values within int64),
    // a floored quotient plus one otherwise.
    if (this.unscaled < INT64_MAX && dif < 19) {
      const q = this.unscaled / divisor;
      return this.unscaled % divisor !== 0n ? q + 1n : q;
    }
    let q = this.unscaled / divisor;
    const r = this.unscaled % divisor;
    if (r < 0n) q -= 1n;
    return r !== 0n ? q + 1n : q;
  }

  /**
   * `scaledValue` as the int64 upstream's ScaledValue returns, overflow included: an int64-held value
   * scaled up by 10, 100, 1000, 10^6 or 10^9 wraps around, by another power of ten is 0; an
   * arbitrary-precision one keeps the low 64 bits of its (scaled) digits. What Karmada's resource
   * accounting adds up.
   */
  scaledValueInt64(scale: number): bigint {
    const dif = scale - this.exponent;
    if (!this.arbitraryPrecision) {
      if (dif >= 0) return divAwayFromZero(this.unscaled, pow10n(dif));
      const up = -dif;
      const v = this.unscaled;
      if (up === 1 || up === 2 || up === 3 || up === 6 || up === 9) {
        if (v === 0n || v === 1n) return v * pow10n(up);
        return v === INT64_MIN ? 0n : BigInt.asIntN(64, v * pow10n(up));
      }
      let value = v;
      for (let i = 0; i < up; i++) {
        if (value === 0n || value === 1n) {
          value *= 10n;
          continue;
        }
        const c = BigInt.asIntN(64, value * 10n);
        if (value === INT64_MIN || c / 10n !== value) return 0n;
        value = c;
      }
      return value;
    }
    const low = BigInt.asIntN(64, this.unscaled);
    if (dif === 0) return low;
    if (dif < 0) return BigInt.asIntN(64, low * goPow10Int64(-dif));
    if (this.unscaled < INT64_MAX && dif < 19) {
      const d = pow10n(dif);
      return BigInt.asIntN(64, low / d + (low % d !== 0n ? 1n : 0n));
    }
    const d = pow10n(dif);
    let q = this.unscaled / d;
    const r = this.unscaled - q * d;
    if (r < 0n) q -= 1n;
    return BigInt.asIntN(64, BigInt.asIntN(64, q) + (r !== 0n ? 1n : 0n));
  }

  /** The value rounded up to an integer (upstream's Value). */
  value(): bigint {
    return this.scaledValue(0);
  }

  /** The value in thousandths, rounded up (upstream's MilliValue). */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  /** A float64 approximation, bit for bit as upstream's AsApproximateFloat64 ("100m" → 0.1). */
  asApproximateFloat64(): number {
    const base = Number(this.unscaled);
    if (this.exponent === 0) return base;
    return base * goPow10(this.exponent);
  }

  /** The canonical string as upstream's String(): the exponent as large as possible without losing precision. */
  toString(): string {
    if (this.parsedString !== undefined) return this.parsedString;
    return this.canonicalString();
  }

  /** Serialises as the JSON string Kubernetes writes. */
  toJSON(): string {
    return this.toString();
  }

  /** The canonical form, ignoring any string kept from parsing. */
  canonicalString(): string {
    if (this.unscaled === 0n) return "0";
    let format: QuantityFormat = this.format === "" ? "DecimalExponent" : this.format;
    let integral = 0n;
    if (format === "BinarySI") {
      if (compareScaled(this.unscaled, this.exponent, -1024n, 0) > 0 && compareScaled(this.unscaled, this.exponent, 1024n, 0) < 0) {
        format = "DecimalSI";
      } else if (this.exponent >= 0) {
        integral = this.unscaled * pow10n(this.exponent);
      } else {
        const d = pow10n(-this.exponent);
        if (this.unscaled % d !== 0n) format = "DecimalSI";
        else integral = this.unscaled / d;
      }
    }
    if (format === "BinarySI") {
      let power = 0;
      let v = integral;
      while (v !== 0n && v % 1024n === 0n) {
        v /= 1024n;
        power++;
      }
      // Upstream has no suffix beyond Ei and then prints the bare number.
      return v.toString() + (power === 0 ? "" : (BINARY_SUFFIX_BY_POWER.get(power) ?? ""));
    }
    let mantissa = this.unscaled;
    let exponent = this.exponent;
    while (mantissa % 10n === 0n) {
      mantissa /= 10n;
      exponent++;
    }
    const rem = ((exponent % 3) + 3) % 3;
    if (rem !== 0) {
      mantissa *= pow10n(rem);
      exponent -= rem;
    }
    if (format === "DecimalSI") {
      // Past E (10^18) upstream finds no suffix and prints the digits alone ("1000E" prints as "1"),
      // as it does for binary quantities past Ei.
      return mantissa.toString() + (DECIMAL_SUFFIX_BY_EXPONENT.get(exponent) ?? "");
    }
    return mantissa.toString() + (exponent === 0 ? "" : `e${exponent}`);
  }
}

/** Upstream's int64 addition with its overflow checks; undefined when it would leave the int64 form. */
function int64Add(a: Quantity, b: Quantity): { unscaled: bigint; exponent: number } | undefined {
  if (b.unscaled === 0n) return { unscaled: a.unscaled, exponent: a.exponent };
  if (a.unscaled === 0n) return { unscaled: b.unscaled, exponent: b.exponent };
  let av = a.unscaled;
  let bv = b.unscaled;
  let e = a.exponent;
  if (a.exponent > b.exponent) {
    av *= pow10n(a.exponent - b.exponent);
    if (!fitsInt64(av) || a.unscaled === INT64_MIN) return undefined;
    e = b.exponent;
  } else if (b.exponent > a.exponent) {
    bv *= pow10n(b.exponent - a.exponent);
    if (!fitsInt64(bv) || b.unscaled === INT64_MIN) return undefined;
  }
  const c = av + bv;
  if (!fitsInt64(c)) return undefined;
  return { unscaled: c, exponent: e };
}

/** Compares `a × 10^ae` with `b × 10^be`. */
function compareScaled(a: bigint, ae: number, b: bigint, be: number): number {
  const e = Math.min(ae, be);
  const x = a * pow10n(ae - e);
  const y = b * pow10n(be - e);
  return x < y ? -1 : x > y ? 1 : 0;
}

const POW10_TAB: number[] = Array.from({ length: 32 }, (_, i) => Number(`1e${i}`));
const POW10_POS_TAB32: number[] = Array.from({ length: 10 }, (_, i) => Number(`1e${i * 32}`));
const POW10_NEG_TAB32: number[] = Array.from({ length: 11 }, (_, i) => Number(`1e-${i * 32}`));

/** Go's math.Pow10, whose table lookups give results that can differ from `10 ** n` in the last bit. */
function goPow10(n: number): number {
  if (n >= 0 && n <= 308) return (POW10_POS_TAB32[Math.trunc(n / 32)] as number) * (POW10_TAB[n % 32] as number);
  if (n < 0 && n >= -323) {
    const m = -n;
    return (POW10_NEG_TAB32[Math.trunc(m / 32)] as number) / (POW10_TAB[m % 32] as number);
  }
  return n > 0 ? Infinity : 0;
}

/** Parses a quantity string (errors as values). */
export function parseQuantity(str: string): QuantityParseResult {
  return Quantity.parse(str);
}

/** Parses a quantity or throws {@link QuantityParseError}. */
export function mustParseQuantity(str: string): Quantity {
  return Quantity.mustParse(str);
}
