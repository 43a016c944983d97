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
