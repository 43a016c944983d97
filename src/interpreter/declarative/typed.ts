/**
 * Decoding of script results into Karmada's typed results, as Go's `json.Unmarshal` into
 * `workv1alpha2.ReplicaRequirements`, `[]workv1alpha2.Component` and
 * `[]configv1alpha1.DependentObjectReference` does (the Go types' table in src/resources/go-types.ts):
 * unknown fields are dropped, types are checked (with Go's error wording), quantities are parsed, and
 * the result is what the typed value marshals back to (empty optional fields omitted).
 */
import { unmarshalGo } from "../../resources/index.js";
import type { Component, DependentObjectReference, JsonValue, ReplicaRequirements } from "../types.js";

function decode(v: JsonValue, type: string): JsonValue {
  const r = unmarshalGo(v, type);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** Decodes a script's requirements table. Throws an Error with Go's message on a type mismatch. */
export function toReplicaRequirements(v: JsonValue): ReplicaRequirements {
  return decode(v, "v1alpha2.ReplicaRequirements") as ReplicaRequirements;
}

/** Decodes a script's components table. */
export function toComponents(v: JsonValue): Component[] {
  return decode(v, "[]v1alpha2.Component") as unknown as Component[];
}

/** Decodes a script's dependencies table. */
export function toDependencies(v: JsonValue): DependentObjectReference[] {
  return decode(v, "[]v1alpha1.DependentObjectReference") as unknown as DependentObjectReference[];
}
