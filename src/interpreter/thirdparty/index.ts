/**
 * The thirdparty layer: Karta's own interpreters for third-party kinds that no Karta answers (a Karta
 * sits above this layer). Two parts:
 * - ResourceInterpreterCustomizations bundled with Karta, run by the declarative machinery with the
 *   layer name "thirdparty". They are our own scripts (Karmada's bundled ones are not copied), kept as
 *   YAML files under `interpreter-customizations/<group>/<version>/<Kind>.yaml` at the repository root
 *   so that they can be read, linted and checked with `karta interpret --check` like any user
 *   customization. The directory is found from this module's location (source or compiled), or given
 *   explicitly.
 * - TypeScript interpreters for kinds that are not workloads: the reconciled kinds (reconciled.ts: Flux
 *   and Kyverno objects) and OpenKruise SidecarSet (sidecarset.ts); and for the operations a workload's
 *   Karta leaves to this layer (`spec.karmada.deferOperations`) because the answer comes from operator
 *   settings or spans several pod templates (settings.ts: FlinkDeployment, RayService, SparkApplication).
 */
import { bundledDirectory } from "../../files/package.js";
import type { CustomizationIssue, CustomizationLoad } from "../declarative/customization.js";
import { findConflicts } from "../declarative/customization.js";
import { createDeclarativeInterpreter, type DeclarativeInterpreter, type DeclarativeOptions } from "../declarative/interpreter.js";
import { loadCustomizationFiles } from "../declarative/load.js";
import type { AggregatedStatusItem, Component, DependentObjectReference, Interpreter, JsonValue, KubeObject, Operation, Outcome, ReplicaResult, ResourceKind, TargetComponent } from "../types.js";
import { goInt32, kindOf, ok } from "../types.js";
import { ownInterpreters, type OwnInterpreter } from "./own.js";

export { RECONCILED_KINDS, ReconciledInterpreter, type ReconciledKind } from "./reconciled.js";
export { SidecarSetInterpreter } from "./sidecarset.js";
export { FlinkDeploymentInterpreter, RayServiceInterpreter, SparkApplicationInterpreter } from "./settings.js";
export { ownInterpreters, type OwnInterpreter } from "./own.js";

/** The thirdparty layer: the bundled customizations, then Karta's TypeScript interpreters. */
export class ThirdpartyInterpreter implements Interpreter {
  /** The TypeScript interpreters: the reconciled kinds (Flux, Kyverno) and SidecarSet. */
  readonly own: readonly OwnInterpreter[];

  constructor(
    readonly customizations: DeclarativeInterpreter,
    own: readonly OwnInterpreter[] = ownInterpreters(),
  ) {
    this.own = own;
  }

  supports(kind: ResourceKind, op: Operation): boolean {
    return this.customizations.supports(kind, op) || this.own.some((i) => i.supports(kind, op));
  }

  private pick(obj: KubeObject, op: Operation): Interpreter {
    const kind = kindOf(obj);
    if (this.customizations.supports(kind, op)) return this.customizations;
    return this.own.find((i) => i.supports(kind, op)) ?? this.customizations;
  }

  interpretReplica(object: KubeObject): Outcome<ReplicaResult> {
    const r = this.pick(object, "InterpretReplica").interpretReplica(object) as Outcome<ReplicaResult>;
    // Karmada's script for the kind returns a Lua number, which its typed result takes as Go's int32 does.
    return r.ok ? ok({ ...r.value, replicas: goInt32(r.value.replicas) }) : r;
  }
  interpretComponent(object: KubeObject): Outcome<Component[] | null> {
    return this.pick(object, "InterpretComponent").interpretComponent(object) as Outcome<Component[] | null>;
  }
  reviseReplica(object: KubeObject, replicas: number): Outcome<KubeObject> {
    return this.pick(object, "ReviseReplica").reviseReplica(object, replicas) as Outcome<KubeObject>;
  }
  reviseComponents(object: KubeObject, components: TargetComponent[]): Outcome<KubeObject> {
    return this.pick(object, "ReviseComponents").reviseComponents(object, components) as Outcome<KubeObject>;
  }
  retain(desired: KubeObject, observed: KubeObject): Outcome<KubeObject> {
    return this.pick(desired, "Retain").retain(desired, observed) as Outcome<KubeObject>;
  }
  aggregateStatus(object: KubeObject, items: AggregatedStatusItem[] | undefined): Outcome<KubeObject> {
    return this.pick(object, "AggregateStatus").aggregateStatus(object, items) as Outcome<KubeObject>;
  }
  interpretStatus(object: KubeObject): Outcome<JsonValue | undefined> {
    return this.pick(object, "InterpretStatus").interpretStatus(object) as Outcome<JsonValue | undefined>;
  }
  interpretHealth(object: KubeObject): Outcome<boolean> {
    return this.pick(object, "InterpretHealth").interpretHealth(object) as Outcome<boolean>;
  }
  interpretDependency(object: KubeObject): Outcome<DependentObjectReference[] | null> {
    return this.pick(object, "InterpretDependency").interpretDependency(object) as Outcome<DependentObjectReference[] | null>;
  }

  /** Every kind this layer answers for some operation: the customizations' targets, then the TypeScript interpreters' kinds. */
  get targets(): ResourceKind[] {
    return [...this.customizations.targets.map(({ apiVersion, kind }) => ({ apiVersion, kind })), ...this.own.flatMap((i) => i.kinds.map((k) => k.kind))];
  }

  /** Releases the customizations' Lua VMs. */
  close(): void {
    this.customizations.close();
  }
}

/** The directory name of the bundled customizations, at the package root. */
export const BUNDLED_DIRECTORY = "interpreter-customizations";

/** The bundled customizations' directory, in the installed package (never searched from the working directory); undefined when it was installed without it. */
export function bundledCustomizationsDir(): string | undefined {
  return bundledDirectory(BUNDLED_DIRECTORY);
}

/** Bundled customizations read in this process, by directory: they ship with the package and do not change while it runs. */
const bundledByDir = new Map<string, CustomizationLoad>();

/** Reads the bundled customizations (recursively, once per process and directory) and reports conflicts between them as issues. */
export function loadBundledCustomizations(dir: string | undefined = bundledCustomizationsDir()): CustomizationLoad {
  if (dir === undefined) return readBundledCustomizations(dir);
  let known = bundledByDir.get(dir);
  if (known === undefined) bundledByDir.set(dir, (known = readBundledCustomizations(dir)));
  return { customizations: [...known.customizations], issues: [...known.issues] };
}

function readBundledCustomizations(dir: string | undefined): CustomizationLoad {
  if (dir === undefined) return { customizations: [], issues: [{ file: BUNDLED_DIRECTORY, path: "", message: `bundled customizations directory ${BUNDLED_DIRECTORY}/ not found` }] };
  const loaded = loadCustomizationFiles([dir], { recursive: true });
  const conflicts: CustomizationIssue[] = findConflicts(loaded.customizations);
  return { customizations: loaded.customizations, issues: [...loaded.issues, ...conflicts] };
}

/** Options of the thirdparty layer. */
export interface ThirdpartyOptions extends Omit<DeclarativeOptions, "layer"> {
  /** The directory of customizations (default: the bundled one). */
  dir?: string;
}

/**
 * Creates the thirdparty layer. Problems in the bundled files are returned with the layer (a broken
 * file leaves the others working).
 */
export async function createThirdpartyInterpreter(options: ThirdpartyOptions = {}): Promise<{ interpreter: ThirdpartyInterpreter; issues: CustomizationIssue[] }> {
  const { dir, ...rest } = options;
  const loaded = loadBundledCustomizations(dir ?? bundledCustomizationsDir());
  const customizations = await createDeclarativeInterpreter(loaded.customizations, { ...rest, layer: "thirdparty" });
  const interpreter = new ThirdpartyInterpreter(customizations);
  const issues = [...loaded.issues];
  // A kind is answered by one of the two parts: a customization for a reconciled kind is a conflict.
  for (const c of loaded.customizations) {
    const t = c.spec.target;
    if (interpreter.own.some((i) => i.kinds.some((k) => k.kind.apiVersion === t.apiVersion && k.kind.kind === t.kind))) {
      issues.push({ file: BUNDLED_DIRECTORY, path: `${c.metadata.name}.spec.target`, message: `${t.kind} ${t.apiVersion} is interpreted by Karta's own TypeScript interpreter; remove the customization` });
    }
  }
  return { interpreter, issues };
}
