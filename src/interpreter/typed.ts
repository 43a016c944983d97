/**
 * Karmada's typed results: a value decoded as Go's `json.Unmarshal` into
 * `workv1alpha2.ReplicaRequirements`, `[]workv1alpha2.Component` and
 * `[]configv1alpha1.DependentObjectReference` would decode it (the Go types' table in
 * src/resources/go-types.ts): unknown fields are dropped, types are checked (with Go's error wording),
 * quantities are parsed, and the result is what the typed value marshals back to (empty optional fields
 * omitted, each Quantity as resource.Quantity prints it). Every layer's answer passes through these (a
 * script's table, a webhook's response, Karta's own layers), as every interpreter's answer is held in
 * these types in Karmada.
 */
import { unmarshalGo } from "../resources/index.js";
import type { Component, DependentObjectReference, JsonValue, ReplicaRequirements } from "./types.js";

function decode(v: JsonValue, type: string): JsonValue {
  const r = unmarshalGo(v, type);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** Decodes a requirements value. Throws an Error with Go's message on a type mismatch. */
export function toReplicaRequirements(v: JsonValue): ReplicaRequirements {
  return decode(v, "v1alpha2.ReplicaRequirements") as ReplicaRequirements;
}

/** Decodes a components value. */
export function toComponents(v: JsonValue): Component[] {
  return decode(v, "[]v1alpha2.Component") as unknown as Component[];
}

/** Decodes a dependencies value. */
export function toDependencies(v: JsonValue): DependentObjectReference[] {
  return decode(v, "[]v1alpha1.DependentObjectReference") as unknown as DependentObjectReference[];
}
