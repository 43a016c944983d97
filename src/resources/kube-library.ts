/**
 * The quantity functions of Karmada's Lua `kube` library, as pure functions with errors as values.
 * The Lua adapter maps a `nil` argument to `undefined` and raises the error message.
 */
import { Quantity } from "../quantity/index.js";

/**
 * A result or the message the Lua library would raise. `panic`: upstream does not raise the error but
 * panics (resource.MustParse), and gopher-lua reports a panic's text without the script position.
 */
export type KubeResult<T> = { ok: true; value: T } | { ok: false; error: string; panic?: true };

/** A quantity argument as upstream's checkResourceQuantity reads it: nil is zero, strings must parse. */
function quantityArgument(arg: string | null | undefined, position: number): KubeResult<Quantity> {
  if (arg === null || arg === undefined) return { ok: true, value: Quantity.zero() };
  if (typeof arg !== "string") return { ok: false, error: `bad argument #${position} (string expected, got ${typeof arg})` };
  const r = Quantity.parse(arg);
  if (!r.ok) return { ok: false, error: `cannot parse '${arg}': ${r.error.message}`, panic: true };
  return { ok: true, value: r.quantity };
}

/** `kube.resourceAdd(q1, q2, ...)`: the sum as a canonical quantity string ("1500m" + "500m" → "2"). */
export function resourceAdd(...quantities: (string | null | undefined)[]): KubeResult<string> {
  let sum = Quantity.zero();
  for (let i = 0; i < quantities.length; i++) {
    const r = quantityArgument(quantities[i], i + 1);
    if (!r.ok) return r;
    sum = sum.add(r.value);
  }
  return { ok: true, value: sum.toString() };
}

/** `kube.getResourceQuantity(q)`: the quantity as a float ("100m" → 0.1); negative or infinite values are errors. */
export function getResourceQuantity(quantity: string | null | undefined): KubeResult<number> {
  const r = quantityArgument(quantity, 1);
  if (!r.ok) return r;
  const num = r.value.asApproximateFloat64();
  if (num < 0) return { ok: false, error: `int approximation unexpectedly returned a negative value: ${goSyntax(r.value)},` };
  if (num === Infinity) return { ok: false, error: `int approximation unexpectedly returned an infinite value: ${goSyntax(r.value)},` };
  return { ok: true, value: num };
}

/**
 * A quantity as Go's `%#v` prints a resource.Quantity: its int64 form (value, scale), or the pointer to
 * its arbitrary-precision form, the string kept from parsing and the format. Go prints that pointer's
 * address, which differs on every run; it is written here as `0x?`.
 */
function goSyntax(q: Quantity): string {
  const int64 = q.arbitraryPrecision ? "value:0, scale:0" : `value:${q.unscaled}, scale:${q.exponent}`;
  const dec = q.arbitraryPrecision ? "(*inf.Dec)(0x?)" : "(*inf.Dec)(nil)";
  return `resource.Quantity{i:resource.int64Amount{${int64}}, d:resource.infDecAmount{Dec:${dec}}, s:${JSON.stringify(q.parsedString ?? "")}, Format:${JSON.stringify(q.format)}}`;
}
