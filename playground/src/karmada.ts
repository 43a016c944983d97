/**
 * Karmada's answer for each operation, as `karta interpret -d` gives it: the framework with the
 * editor's Karta (no deferral: the user's definition answers what it can), Karta's bundled
 * customizations (Lua, wasmoon) and Karmada's built-in interpreters below it. The Lua layer is
 * started only when a customization targets the object's kind, so pages that never need Lua never
 * fetch the wasm.
 */
import type { Definition } from "../../src/definition/load.js";
import { createInterpreterFramework, type FrameworkLayers, type LayerOutcome } from "../../src/interpreter/framework.js";
import { KartaLayer } from "../../src/interpreter/karta/layer.js";
import { createNativeInterpreter } from "../../src/interpreter/native/index.js";
import { parseCustomizations, targetKey } from "../../src/interpreter/declarative/customization.js";
import type { DeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import type { KubeObject, ResourceInterpreterCustomization } from "../../src/interpreter/types.js";

/** One operation's answer: the layer that gave it and its named results, or the error. */
export interface OperationAnswer {
  operation: string;
  /** What the operation was given, for the reader (e.g. ReviseReplica's replica count). */
  input?: string;
  ok: boolean;
  layer?: string;
  results?: [string, unknown][];
  error?: string;
}

/** A customization text bundled with Karta (interpreter-customizations/). */
export interface CustomizationText {
  file: string;
  text: string;
}

let parsed: ResourceInterpreterCustomization[] | undefined;
let lua: Promise<DeclarativeInterpreter> | undefined;

function bundledCustomizations(texts: readonly CustomizationText[]): ResourceInterpreterCustomization[] {
  parsed ??= texts.flatMap((t) => parseCustomizations(t.text, t.file).customizations);
  return parsed;
}

/** Whether the Lua layer has been started (the page shows it). */
export function luaStarted(): boolean {
  return lua !== undefined;
}

function done<T>(operation: string, out: LayerOutcome<T>, name: (v: T) => [string, unknown][], input?: string): OperationAnswer {
  const base: OperationAnswer = { operation, ok: out.ok, ...(input !== undefined ? { input } : {}) };
  return out.ok ? { ...base, layer: out.layer, results: name(out.value) } : { ...base, layer: out.error.layer, error: out.error.message };
}

/** Runs every operation Karmada asks an interpreter on the object (the object is desired and observed). */
export async function karmadaAnswers(definition: Definition, object: KubeObject, customizations: readonly CustomizationText[]): Promise<OperationAnswer[]> {
  const layers: FrameworkLayers = { native: createNativeInterpreter(), karta: new KartaLayer([definition]) };
  const all = bundledCustomizations(customizations);
  const want = targetKey(String(object.apiVersion ?? ""), String(object.kind ?? ""));
  if (all.some((c) => targetKey(c.spec.target.apiVersion, c.spec.target.kind) === want)) {
    lua ??= import("../../src/interpreter/declarative/interpreter.js").then((m) => m.createDeclarativeInterpreter(all, { layer: "thirdparty" }));
    layers.thirdparty = await lua;
  }
  const fw = createInterpreterFramework(layers);
  const replica = await fw.interpretReplica(object);
  const current = replica.ok ? replica.value.replicas : 1;
  const revised = current + 1;
  const components = await fw.interpretComponents(object);
  // ReviseComponents (proposed in Karmada #7830/#7841) is given each component's replicas plus one, as
  // ReviseReplica is given the object's; it is asked only of what InterpretComponent answers.
  const assigned = components.ok ? (components.value ?? []).map((c) => ({ name: c.name, replicas: c.replicas + 1 })) : [];
  return [
    done("InterpretReplica", replica, (v) => [
      ["replica", v.replicas],
      ["requires", v.replicaRequirements ?? null],
    ]),
    done("InterpretComponent", components, (v) => [["components", v]]),
    done("ReviseReplica", await fw.reviseReplica(object, revised), (v) => [["revised", v]], `desired replicas ${revised}`),
    ...(components.ok
      ? [done("ReviseComponents", await fw.reviseComponents(object, assigned), (v) => [["revised", v]], `desired ${assigned.map((c) => `${c.name}=${c.replicas}`).join(", ")}`)]
      : []),
    done("InterpretStatus", await fw.reflectStatus(object), (v) => [["status", v ?? null]]),
    done("InterpretHealth", await fw.interpretHealth(object), (v) => [["healthy", v]]),
    done("InterpretDependency", await fw.getDependencies(object), (v) => [["dependencies", v]]),
    done("Retain", await fw.retain(object, object), (v) => [["retained", v]], "desired = observed = the object"),
    done("AggregateStatus", await fw.aggregateStatus(object, []), (v) => [["aggregateStatus", v]], "no member clusters"),
  ];
}
