/**
 * The `kube` Lua library (`local kube = require("kube")`), with the semantics of Karmada's luavm
 * kube.go: resource quantity arithmetic and pod requirement/dependency helpers.
 */
import { Quantity } from "../../quantity/index.js";
import { HostFunctionError, type HostArgs, type HostFunction } from "./vm.js";

/** Reads argument i as a quantity: nil is zero, a string is parsed, anything else is a type error. */
function quantityArg(args: HostArgs, i: number, fn: string): Quantity {
  const t = args.type(i);
  if (t === "nil") return Quantity.zero();
  if (t !== "string") throw new HostFunctionError(`bad argument #${i} to ${fn} (string expected, got ${t})`);
  const parsed = Quantity.parse(args.string(i));
  if (!parsed.ok) throw new HostFunctionError(parsed.error.message);
  return parsed.quantity;
}

/** `kube.resourceAdd(q1, q2, ...)`: the sum of quantity strings (nil counts as zero), as a string. */
export const resourceAdd: HostFunction = (args) => {
  let sum = Quantity.zero();
  for (let i = 1; i <= args.count; i++) sum = sum.add(quantityArg(args, i, "resourceAdd"));
  return [sum.toString()];
};

/** `kube.getResourceQuantity(q)`: the quantity as an approximate number ("100m" → 0.1). */
export const getResourceQuantity: HostFunction = (args) => {
  if (args.count !== 1) throw new HostFunctionError("getResourceQuantity only accepts one argument");
  const q = quantityArg(args, 1, "getResourceQuantity");
  const n = q.asApproximateFloat64();
  if (n < 0) throw new HostFunctionError(`int approximation unexpectedly returned a negative value: ${q.toString()},`);
  if (n === Infinity) throw new HostFunctionError(`int approximation unexpectedly returned an infinite value: ${q.toString()},`);
  return [n];
};

/** The kube library's functions by name. */
export function kubeLibrary(): Record<string, HostFunction> {
  return { resourceAdd, getResourceQuantity };
}
