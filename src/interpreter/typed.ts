/**
 * Karmada's typed results: a value decoded as Go's `json.Unmarshal` into
 * `workv1alpha2.ReplicaRequirements`, `[]workv1alpha2.Component` and
 * `[]configv1alpha1.DependentObjectReference` would decode it: unknown fields are dropped, types are
 * checked (with Go's error wording), quantities are parsed, and the result is what the typed value
 * marshals back to (empty optional fields omitted, each Quantity as resource.Quantity prints it). Every
 * layer's answer passes through these (a script's table, a webhook's response, Karta's own layers), as
 * every interpreter's answer is held in these types in Karmada.
 */
import { Quantity } from "../quantity/index.js";
import type { Component, DependentObjectReference, JsonValue, ReplicaRequirements } from "./types.js";

type Shape =
  | "string"
  | "int32"
  | "int64"
  | "bool"
  | "quantity"
  | { map: Shape }
  | { list: Shape }
  | { struct: string; fields: Record<string, Field> };

interface Field {
  shape: Shape;
  /** Kept even when empty (a field without `omitempty`). */
  keep?: boolean;
}

const stringMap: Shape = { map: "string" };
const nodeSelectorRequirement: Shape = {
  struct: "NodeSelectorRequirement",
  fields: { key: { shape: "string", keep: true }, operator: { shape: "string", keep: true }, values: { shape: { list: "string" } } },
};
const nodeSelector: Shape = {
  struct: "NodeSelector",
  fields: {
    nodeSelectorTerms: {
      shape: { list: { struct: "NodeSelectorTerm", fields: { matchExpressions: { shape: { list: nodeSelectorRequirement } }, matchFields: { shape: { list: nodeSelectorRequirement } } } } },
      keep: true,
    },
  },
};
const toleration: Shape = {
  struct: "Toleration",
  fields: {
    key: { shape: "string" },
    operator: { shape: "string" },
    value: { shape: "string" },
    effect: { shape: "string" },
    tolerationSeconds: { shape: "int64" },
  },
};
const nodeClaim: Shape = {
  struct: "NodeClaim",
  fields: { hardNodeAffinity: { shape: nodeSelector }, nodeSelector: { shape: stringMap }, tolerations: { shape: { list: toleration } } },
};
const resourceList: Shape = { map: "quantity" };

const replicaRequirementsShape: Shape = {
  struct: "ReplicaRequirements",
  fields: {
    nodeClaim: { shape: nodeClaim },
    resourceRequest: { shape: resourceList },
    namespace: { shape: "string" },
    priorityClassName: { shape: "string" },
  },
};

const componentShape: Shape = {
  struct: "Component",
  fields: {
    name: { shape: "string", keep: true },
    replicas: { shape: "int32", keep: true },
    replicaRequirements: {
      shape: {
        struct: "ComponentReplicaRequirements",
        fields: { nodeClaim: { shape: nodeClaim }, resourceRequest: { shape: resourceList }, priorityClassName: { shape: "string" } },
      },
    },
  },
};

const labelSelector: Shape = {
  struct: "LabelSelector",
  fields: {
    matchLabels: { shape: stringMap },
    matchExpressions: {
      shape: {
        list: {
          struct: "LabelSelectorRequirement",
          fields: { key: { shape: "string", keep: true }, operator: { shape: "string", keep: true }, values: { shape: { list: "string" } } },
        },
      },
    },
  },
};

const dependencyShape: Shape = {
  struct: "DependentObjectReference",
  fields: {
    apiVersion: { shape: "string", keep: true },
    kind: { shape: "string", keep: true },
    namespace: { shape: "string" },
    name: { shape: "string" },
    labelSelector: { shape: labelSelector },
  },
};

class DecodeError extends Error {}

function jsonKind(v: JsonValue): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "object") return "object";
  return typeof v === "boolean" ? "bool" : typeof v;
}

function goType(shape: Shape): string {
  if (shape === "quantity") return "resource.Quantity";
  if (shape === "bool") return "bool";
  if (typeof shape === "string") return shape;
  if ("map" in shape) return `map[string]${goType(shape.map)}`;
  if ("list" in shape) return `[]${goType(shape.list)}`;
  return shape.struct;
}

function typeError(v: JsonValue, shape: Shape, where: string): DecodeError {
  const what = typeof v === "number" && (shape === "int32" || shape === "int64") ? `number ${v}` : jsonKind(v);
  return new DecodeError(`json: cannot unmarshal ${what} into ${where} of type ${goType(shape)}`);
}

/** Decodes `v` as `shape`; returns undefined for values that marshal as omitted. */
function decode(v: JsonValue, shape: Shape, where: string, field: string): JsonValue | undefined {
  if (v === null) return undefined;
  if (shape === "string") {
    if (typeof v !== "string") throw typeError(v, shape, where);
    return v;
  }
  if (shape === "bool") {
    if (typeof v !== "boolean") throw typeError(v, shape, where);
    return v;
  }
  if (shape === "int32" || shape === "int64") {
    if (typeof v !== "number") throw typeError(v, shape, where);
    const limit = shape === "int32" ? 2 ** 31 : 2 ** 63;
    if (!Number.isInteger(v) || v < -limit || v >= limit) throw typeError(v, shape, where);
    return v;
  }
  if (shape === "quantity") {
    const parsed = Quantity.fromJSON(v);
    if (!parsed.ok) throw new DecodeError(parsed.error.message);
    return parsed.quantity.toString();
  }
  if ("map" in shape) {
    if (typeof v !== "object" || Array.isArray(v)) throw typeError(v, shape, where);
    const out: { [k: string]: JsonValue } = {};
    for (const [k, item] of Object.entries(v)) {
      const d = decode(item, shape.map, where, field);
      out[k] = d === undefined ? zeroOf(shape.map) : d;
    }
    return out;
  }
  if ("list" in shape) {
    if (!Array.isArray(v)) throw typeError(v, shape, where);
    return v.map((item) => {
      const d = decode(item, shape.list, where, field);
      return d === undefined ? zeroOf(shape.list) : d;
    });
  }
  if (typeof v !== "object" || Array.isArray(v)) throw typeError(v, shape, where);
  const out: { [k: string]: JsonValue } = {};
  for (const [name, f] of Object.entries(shape.fields)) {
    const key = fieldKey(v, name);
    if (key === undefined) {
      if (f.keep) out[name] = zeroOf(f.shape);
      continue;
    }
    const path = field === "" ? `${shape.struct}.${name}` : `${field}.${name}`;
    const d = decode(v[key]!, f.shape, `Go struct field ${path}`, path);
    if (d === undefined || (!f.keep && isEmpty(d, f.shape))) {
      if (f.keep) out[name] = d === undefined ? zeroOf(f.shape) : d;
      continue;
    }
    out[name] = d;
  }
  return out;
}

/**
 * The key of `obj` that sets the struct field `name`: Go's decoder takes the exact name, or else a
 * key equal to it ignoring case (the last such key wins, as each one overwrites the field).
 */
function fieldKey(obj: { [k: string]: JsonValue }, name: string): string | undefined {
  if (Object.prototype.hasOwnProperty.call(obj, name)) return name;
  const lower = name.toLowerCase();
  let found: string | undefined;
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) found = k;
  return found;
}

function zeroOf(shape: Shape): JsonValue {
  if (shape === "string") return "";
  if (shape === "int32" || shape === "int64") return 0;
  if (shape === "bool") return false;
  if (shape === "quantity") return "0";
  if (typeof shape === "object" && "struct" in shape) return decode({}, shape, "", "") as JsonValue;
  return null;
}

/** Go's omitempty: empty strings, zero numbers, false, empty maps and slices (pointers to structs are never empty). */
function isEmpty(v: JsonValue, shape: Shape): boolean {
  if (shape === "string") return v === "";
  if (shape === "bool") return v === false;
  if (shape === "int32") return v === 0;
  if (shape === "int64") return false; // *int64: a set pointer is kept even at 0
  if (typeof shape === "object" && ("map" in shape || "list" in shape)) {
    return Array.isArray(v) ? v.length === 0 : Object.keys(v as object).length === 0;
  }
  return false;
}

/** Decodes a script's requirements table. Throws an Error with Go's message on a type mismatch. */
export function toReplicaRequirements(v: JsonValue): ReplicaRequirements {
  return decodeRoot(v, replicaRequirementsShape) as ReplicaRequirements;
}

/** Decodes a script's components table. */
export function toComponents(v: JsonValue): Component[] {
  return decodeRoot(v, { list: componentShape }) as unknown as Component[];
}

/** Decodes a script's dependencies table. */
export function toDependencies(v: JsonValue): DependentObjectReference[] {
  return decodeRoot(v, { list: dependencyShape }) as unknown as DependentObjectReference[];
}

function decodeRoot(v: JsonValue, shape: Shape): JsonValue {
  try {
    const d = decode(v, shape, `Go value of type ${goType(shape)}`, "");
    return d === undefined ? (typeof shape === "object" && "list" in shape ? [] : {}) : d;
  } catch (e) {
    if (e instanceof DecodeError) throw new Error(e.message);
    throw e;
  }
}
