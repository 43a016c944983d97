/**
 * The `kube` Lua library (`local kube = require("kube")`), with the semantics of Karmada's luavm
 * kube.go, on top of the pure functions in src/resources.
 */
import type { JsonValue } from "../types.js";
import {
  accuratePodRequirements as podTemplateRequirements,
  getResourceQuantity as quantityAsNumber,
  podDependencies,
  resourceAdd as addQuantities,
  unmarshalGo,
} from "../../resources/index.js";
import { repairEmptyTables } from "./repair.js";
import { HostFunctionError, type HostArgs, type HostFunction } from "./vm.js";

/** Argument i as upstream's checkResourceQuantity accepts it: nil or a string. */
function quantityArg(args: HostArgs, i: number, fn: string): string | undefined {
  const t = args.type(i);
  if (t === "nil") return undefined;
  if (t !== "string") throw new HostFunctionError(`bad argument #${i} to ${fn} (string expected, got ${t})`);
  return args.string(i);
}

/** Argument i must be a table (upstream's CheckTable). */
function tableArg(args: HostArgs, i: number, fn: string): void {
  const t = args.type(i);
  if (t !== "table") throw new HostFunctionError(`bad argument #${i} to ${fn} (table expected, got ${t})`);
}

/**
 * A Lua table read as a corev1.PodTemplateSpec, as ConvertLuaResultInto does: gopher-json encoding,
 * empty tables (no reference objects) removed, an empty template being `{}`, then Go's json.Unmarshal
 * into the typed template (type errors and bad quantities refuse it); the result is the template as it
 * marshals back. Karmada's message names the table with Go's %#v (memory addresses) where this one
 * says nothing: "fail to convert lua value to <what>: <why>".
 */
function podTemplateArg(args: HostArgs, i: number, what: string): JsonValue {
  const fail = (why: string): HostFunctionError => new HostFunctionError(`fail to convert lua value to ${what}: ${why}`);
  let value: JsonValue;
  try {
    value = args.json(i);
  } catch (e) {
    throw fail(`encode lua result to json failed: ${(e as Error).message}`);
  }
  const decoded = unmarshalGo(repairEmptyTables(value, [], true), "v1.PodTemplateSpec");
  if (!decoded.ok) throw fail(`json unmarshal obj failed: ${decoded.error}`);
  return decoded.value;
}

/** `kube.resourceAdd(q1, q2, ...)`: the sum of quantity strings (nil counts as zero), as a string. */
export const resourceAdd: HostFunction = (args) => {
  const quantities: (string | undefined)[] = [];
  for (let i = 1; i <= args.count; i++) quantities.push(quantityArg(args, i, "resourceAdd"));
  const r = addQuantities(...quantities);
  if (!r.ok) throw new HostFunctionError(r.error, r.panic);
  return [r.value];
};

/** `kube.getResourceQuantity(q)`: the quantity as an approximate number ("100m" → 0.1). */
export const getResourceQuantity: HostFunction = (args) => {
  if (args.count !== 1) throw new HostFunctionError("getResourceQuantity only accepts one argument");
  const r = quantityAsNumber(quantityArg(args, 1, "getResourceQuantity"));
  if (!r.ok) throw new HostFunctionError(r.error, r.panic);
  return [r.value];
};

/**
 * `kube.accuratePodRequirements(podTemplate)`: `{nodeClaim, resourceRequest}` of one replica, or nil
 * when the template has neither.
 */
export const accuratePodRequirements: HostFunction = (args) => {
  if (args.count !== 1) throw new HostFunctionError("getPodRequirements only accepts one argument");
  tableArg(args, 1, "accuratePodRequirements");
  const { value, issues } = podTemplateRequirements(podTemplateArg(args, 1, "PodTemplateSpec"));
  // The template decoded as Go decodes it: its quantities parse.
  if (issues.length > 0) throw new HostFunctionError(`fail to convert lua value to PodTemplateSpec: ${issues[0]!.message}`);
  return [value as JsonValue | undefined];
};

/**
 * `kube.getPodDependencies(podTemplate, namespace)`: the ConfigMaps, Secrets, ServiceAccount and
 * PVCs the template refers to, in `namespace` (nil means "default"); nil when there are none.
 */
export const getPodDependencies: HostFunction = (args) => {
  if (args.count !== 2) throw new HostFunctionError("getPodDependencies only accepts two argument");
  tableArg(args, 1, "getPodDependencies");
  const nsType = args.type(2);
  let namespace: string;
  if (nsType === "nil") namespace = "default";
  else if (nsType === "string" || nsType === "number") namespace = args.string(2);
  else throw new HostFunctionError(`bad argument #2 to getPodDependencies (string expected, got ${nsType})`);
  return [podDependencies(podTemplateArg(args, 1, "corev1.PodTemplateSpec"), namespace) as JsonValue | undefined];
};

/** The kube library's functions by name. */
export function kubeLibrary(): Record<string, HostFunction> {
  return { resourceAdd, accuratePodRequirements, getPodDependencies, getResourceQuantity };
}
