/**
 * The status a Karta should have, computed from the Karta and what the cluster serves: pure, so the
 * controller only reads, calls this, and writes the difference.
 *
 * Conditions (metav1.Condition): `KartaValidated` (the same validation as `karta validate`; the message
 * lists the errors with their field paths), `CRDExists` (the root kind is served at that version) and
 * `Ready` (both True). Labels `run.ai/karta-group|version|kind` index the root kind.
 */
import { loadDefinitionValue, validateDefinition, type Diagnostic } from "../definition/index.js";
import type { Condition } from "../scheduling/types.js";

export const CONDITION_VALIDATED = "KartaValidated";
export const CONDITION_CRD_EXISTS = "CRDExists";
export const CONDITION_READY = "Ready";

export const LABEL_GROUP = "run.ai/karta-group";
export const LABEL_VERSION = "run.ai/karta-version";
export const LABEL_KIND = "run.ai/karta-kind";

/** metav1.Condition as stored (one type for the whole project). */
export type { Condition };

/** The root kind of a Karta. */
export interface RootKind {
  group: string;
  version: string;
  kind: string;
}

/** Whether the cluster serves a kind: served, not served (with why), or not known yet. */
export type KindAvailability = { served: true } | { served: false; reason: string; message: string };

/** What {@link desiredKartaState} decides. */
export interface KartaState {
  /** The root kind, when the Karta names a full one. */
  root?: RootKind;
  /** The Karta validates (no error). */
  valid: boolean;
  /** The validation errors, `path: message`. */
  errors: string[];
  conditions: Condition[];
  labels: Record<string, string>;
  ready: boolean;
}

/** The root kind a Karta object names (undefined when it names none completely). */
export function rootKindOf(karta: unknown): RootKind | undefined {
  const k = (karta as { spec?: { structureDefinition?: { rootComponent?: { kind?: Partial<RootKind> } } } })?.spec?.structureDefinition?.rootComponent?.kind;
  if (!k || typeof k.kind !== "string" || k.kind === "" || typeof k.version !== "string" || k.version === "") return undefined;
  return { group: typeof k.group === "string" ? k.group : "", version: k.version, kind: k.kind };
}

/** The errors `karta validate` reports for a Karta object as read from the API (paths, no positions). */
export function validateKartaObject(karta: unknown): Diagnostic[] {
  const loaded = loadDefinitionValue(karta, "karta");
  const out = loaded.diagnostics.filter((d) => d.severity === "error");
  for (const def of loaded.definitions) out.push(...validateDefinition(def, { lint: false }).filter((d) => d.severity === "error"));
  return out;
}

const MAX_MESSAGE = 32 * 1024;

function condition(type: string, ok: boolean, reason: string, message: string, generation: number | undefined, previous: Condition[] | undefined, now: string): Condition {
  const status = ok ? "True" : "False";
  const old = previous?.find((c) => c.type === type);
  // lastTransitionTime moves only when the status changes.
  const lastTransitionTime = old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : now;
  const c: Condition = { type, status, lastTransitionTime, reason, message: message.length > MAX_MESSAGE ? message.slice(0, MAX_MESSAGE - 3) + "..." : message };
  if (generation !== undefined) c.observedGeneration = generation;
  return c;
}

/**
 * The Karta's desired conditions and labels. `availability` says whether the root kind is served
 * (undefined when the Karta names no root kind).
 */
export function desiredKartaState(karta: unknown, availability: KindAvailability | undefined, now: string = new Date().toISOString()): KartaState {
  const meta = ((karta as { metadata?: { generation?: unknown; labels?: Record<string, string> } })?.metadata ?? {}) as { generation?: unknown; labels?: Record<string, string> };
  const generation = typeof meta.generation === "number" ? meta.generation : undefined;
  const previous = (karta as { status?: { conditions?: Condition[] } })?.status?.conditions;
  const diagnostics = validateKartaObject(karta);
  const errors = diagnostics.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
  const valid = errors.length === 0;
  const root = rootKindOf(karta);
  const validated = condition(
    CONDITION_VALIDATED,
    valid,
    valid ? "Valid" : "ValidationFailed",
    valid ? "the definition validates" : `${errors.length} error${errors.length === 1 ? "" : "s"}: ${errors.join("; ")}`,
    generation,
    previous,
    now,
  );
  const gv = root ? `${root.group ? `${root.group}/` : ""}${root.version}` : "";
  const crd =
    root === undefined
      ? condition(CONDITION_CRD_EXISTS, false, "NoRootKind", "the definition names no complete root kind (group, version, kind)", generation, previous, now)
      : availability === undefined || !availability.served
        ? condition(CONDITION_CRD_EXISTS, false, availability?.served === false ? availability.reason : "Unknown", availability?.served === false ? availability.message : `${root.kind} ${gv} not checked yet`, generation, previous, now)
        : condition(CONDITION_CRD_EXISTS, true, "Served", `${root.kind} ${gv} is served by the API server`, generation, previous, now);
  const ready = valid && crd.status === "True";
  const readyCond = condition(
    CONDITION_READY,
    ready,
    ready ? "Ready" : !valid ? "ValidationFailed" : crd.reason,
    ready ? `workloads of ${root!.kind} ${gv} get Workload API objects` : !valid ? "the definition has errors (see KartaValidated)" : crd.message,
    generation,
    previous,
    now,
  );
  const labels = { ...(meta.labels ?? {}) };
  if (root) {
    labels[LABEL_GROUP] = root.group;
    labels[LABEL_VERSION] = root.version;
    labels[LABEL_KIND] = root.kind;
  }
  return { ...(root ? { root } : {}), valid, errors, conditions: [validated, crd, readyCond], labels, ready };
}

/** Whether the stored conditions already say the same (ignoring lastTransitionTime, which only moves on change). */
export function sameConditions(a: Condition[] | undefined, b: Condition[]): boolean {
  if (!a || a.length !== b.length) return false;
  return b.every((c) => {
    const o = a.find((x) => x.type === c.type);
    return o !== undefined && o.status === c.status && o.reason === c.reason && o.message === c.message && o.observedGeneration === c.observedGeneration;
  });
}
