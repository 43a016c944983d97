/**
 * One Karta as a resource interpreter for its root kind: Karmada's answers derived from the definition
 * by the interpretation library (src/interpret), with no script of any kind.
 *
 * - InterpretComponent: one Karmada Component per pod specification: each pod-spec component, and
 *   each instance of a multi-instance one (names: see naming.ts). Replicas are the instance's replicas
 *   (else minReplicas, else 1) times its ancestors' (a LeaderWorkerSet leader is one per group);
 *   requirements are Karmada's `accuratePodRequirements` of the pod template. An instance with neither
 *   a pod specification nor replicas (an optional role the object leaves out) is not reported.
 * - InterpretReplica: only for a definition with a single pod specification (one pod-spec component,
 *   no instances); Karmada treats componentResource and replicaResource as exclusive per kind, and so
 *   does this layer: a multi-template kind answers InterpretComponent only.
 * - ReviseReplica: the same single pod specification, when its replicasPath is an assignable jq path
 *   and no ancestor scales it; written with jq's `path(...)` and a JSON Patch.
 * - ReviseComponents (Karmada #7830/#7841): wherever InterpretComponent is answered; every component of
 *   the InterpretComponent result must be assigned (by the same names). A component whose assignment
 *   differs from its current replicas is written through its own scaleDefinition's replicasPath (`P` of
 *   `P // default`), the i-th location of the path for the i-th instance; one without a replicasPath,
 *   or scaled by an ancestor's scaleDefinition, cannot take a different count and is an error.
 * - InterpretHealth: from the root's status mappings: Failed or Degraded is unhealthy (and wins),
 *   Running or Completed healthy, anything else undecided (the next layer is asked).
 * - InterpretDependency: the ConfigMaps, Secrets, ServiceAccount and PVCs of every pod specification,
 *   deduplicated and sorted (apiVersion, kind, namespace, name).
 */
import type { Definition, Diagnostic, Karta } from "../../definition/index.js";
import { analyze, formatSteps, nonAssignablePart } from "../../definition/jq-analysis.js";
import type { CompiledComponent, CompiledDefinition, CompiledStatus } from "../../interpret/compile.js";
import { compileDefinition } from "../../interpret/compile.js";
import { CompiledExpression } from "../../interpret/expression.js";
import { applyJsonPatch } from "../../jsonpatch/index.js";
import { locations, setOperation } from "../../interpret/patch.js";
import { evaluateStatus } from "../../interpret/status.js";
import type { ComponentInstance, GenericStatus, PodTemplateSpec, Scale } from "../../interpret/types.js";
import { evaluateWorkload, type WorkloadView } from "../../interpret/workload.js";
import { accuratePodRequirements, podDependencies, replicaRequirements } from "../../resources/index.js";
import { sortDependencies } from "../dependencies.js";
import { UNDECIDED } from "../framework.js";
import {
  fail,
  ok,
  type Component,
  type ComponentReplicaRequirements,
  type DependentObjectReference,
  type KubeObject,
  type Operation,
  type Outcome,
  type ReplicaRequirements,
  type ReplicaResult,
  type ResourceKind,
  type TargetComponent,
} from "../types.js";
import { assignmentByName } from "../components.js";
import { KarmadaExtension } from "./karmada.js";
import { componentNames, positionalInstanceId, type ComponentSlot } from "./naming.js";

/** The layer name in error values. */
export const KARTA_LAYER = "karta";

/** Options of the Karta-derived answers. */
export interface KartaWorkloadOptions {
  /**
   * Karmada's ResourceQuotaEstimate feature gate (off by default, as in Karmada): when on, replica
   * requirements carry the pod template's priorityClassName (and InterpretReplica's the namespace).
   */
  resourceQuotaEstimate?: boolean;
}

const HEALTHY: ReadonlySet<GenericStatus> = new Set(["Running", "Completed"]);
const UNHEALTHY: ReadonlySet<GenericStatus> = new Set(["Failed", "Degraded"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** `group/version`, or `version` for the core group. */
function apiVersionOf(group: string, version: string): string {
  return group ? `${group}/${version}` : version;
}

/**
 * The instance id expression with Karmada's positional names for instances without an id: the
 * library refuses empty ids, while Karmada's scripts name such an instance by its position.
 */
function withPositionalIds(c: CompiledComponent): CompiledComponent {
  if (!c.instanceId?.program) return c;
  const prefix = JSON.stringify(`${c.name}-`);
  const text = `[\n${c.instanceId.text}\n] | to_entries[] | if .value == null or .value == "" then ${prefix} + ((.key + 1) | tostring) else .value end`;
  const wrapped = new CompiledExpression(text, c.instanceId.segments);
  if (wrapped.compileError !== undefined) return c;
  return { ...c, instanceId: wrapped };
}

/** The compiled definition with positional instance ids (see {@link withPositionalIds}). */
/**
 * A Karta compiled once per object: compiled definitions hold no state, and the same Kartas (the
 * bundled ones) are built into a framework again at every reload and every run in one process.
 */
const compiledKartas = new WeakMap<object, { compiled: CompiledDefinition; derived: CompiledDefinition }>();

function compiledKarta(karta: Karta): { compiled: CompiledDefinition; derived: CompiledDefinition } {
  if (karta === null || typeof karta !== "object") {
    const compiled = compileDefinition(karta);
    return { compiled, derived: deriveDefinition(compiled) };
  }
  let known = compiledKartas.get(karta);
  if (known === undefined) {
    const compiled = compileDefinition(karta);
    known = { compiled, derived: deriveDefinition(compiled) };
    compiledKartas.set(karta, known);
  }
  return known;
}

/** A Karta's `spec.karmada` extension compiled once per object and source (it holds no state either). */
const extensions = new WeakMap<object, { source: string; extension: KarmadaExtension }>();

function karmadaExtension(karta: Karta, source: string): KarmadaExtension {
  if (karta === null || typeof karta !== "object") return new KarmadaExtension(undefined, source);
  const known = extensions.get(karta);
  if (known !== undefined && known.source === source) return known.extension;
  const extension = new KarmadaExtension(karta.spec?.karmada, source);
  extensions.set(karta, { source, extension });
  return extension;
}

function deriveDefinition(compiled: CompiledDefinition): CompiledDefinition {
  if (!compiled.components.some((c) => c.instanceId)) return compiled;
  const components = compiled.components.map(withPositionalIds);
  const byName = new Map(components.map((c) => [c.name, c]));
  return {
    ...compiled,
    components,
    byName,
    root: compiled.root ? byName.get(compiled.root.name) : undefined,
    leaves: compiled.leaves.map((c) => byName.get(c.name)!),
  };
}

/**
 * The assignable part of a replicas expression: the expression itself when it is a path, or `P` of
 * `P // default` (the default is what the workload's API assumes when the field is absent).
 */
function assignablePart(e: CompiledExpression | undefined): CompiledExpression | undefined {
  const ast = e?.program?.ast;
  if (!e || !ast) return undefined;
  if (!nonAssignablePart(ast)) return e;
  if (ast.type === "Alternative" && !nonAssignablePart(ast.left)) {
    const left = new CompiledExpression(e.text.slice(ast.left.span.start, ast.left.span.end), e.segments);
    return left.compileError === undefined ? left : undefined;
  }
  return undefined;
}

/**
 * Where ReviseComponents writes a component's replicas: the assignable part of its replicasPath, else
 * the one document path the expression reads (the one ending in `replicas` when it reads several), as
 * in `if .spec.x.Worker then (.spec.x.Worker.replicas // 1) else 0 end`. What is written is checked by
 * evaluating the definition again, so a path that does not give the count back is refused.
 */
function componentWritePath(e: CompiledExpression): CompiledExpression | undefined {
  const direct = assignablePart(e);
  if (direct || !e.program?.ast) return direct;
  const reads = analyze(e.program.ast).reads.filter((r) => r.steps.length > 0);
  const named = reads.filter((r) => {
    const last = r.steps[r.steps.length - 1]!;
    return last.type === "field" && last.name === "replicas";
  });
  const pick = named.length === 1 ? named[0] : reads.length === 1 ? reads[0] : undefined;
  if (!pick) return undefined;
  const path = new CompiledExpression(formatSteps(pick.steps), e.segments);
  return path.compileError === undefined ? path : undefined;
}

/** The status definition reduced to the statuses health depends on (the others need not be evaluated). */
function healthStatus(status: CompiledStatus | undefined): CompiledStatus | undefined {
  if (!status) return undefined;
  const mappings = status.mappings.filter((m) => HEALTHY.has(m.status) || UNHEALTHY.has(m.status));
  return mappings.length === 0 ? undefined : { ...status, mappings };
}

/** Whether a path is `prefix` or lies under it. */
function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
}

/** A counted replica number: replicas, else minReplicas, else 1 (the library's countedReplicas). */
function counted(scale: Scale | undefined): number {
  return scale?.replicas ?? scale?.minReplicas ?? 1;
}

/** A pod template that specifies something (fragments of an absent role give an empty one). */
function present(t: PodTemplateSpec | undefined): t is PodTemplateSpec {
  return t !== undefined && Object.keys(t.spec).length > 0;
}

/** One pod specification of the workload, as the operations see it. */
interface PodSlot extends ComponentSlot {
  compiled: CompiledComponent;
  instanceView: ComponentInstance;
  replicas: number;
  /** The instance's position among its component's instances (0 for a single-instance component). */
  index: number;
  /** How many instances the component has on this object. */
  instances: number;
  /** The nearest ancestor with a scaleDefinition, whose scale multiplies this slot's replicas. */
  scaledBy?: string;
}

/** A Karta compiled as an interpreter of its root kind. */
export class KartaWorkload {
  readonly karta: Karta;
  /** Where the definition came from (a file name, or the Karta's metadata.name). */
  readonly source: string;
  /** The root kind the definition interprets. */
  readonly kind: ResourceKind;
  /** Problems of the definition found while compiling; with errors the workload is not served. */
  diagnostics: readonly Diagnostic[];
  private readonly definition: CompiledDefinition;
  private readonly podComponents: CompiledComponent[];
  private readonly health: CompiledStatus | undefined;
  private readonly hasStatus: boolean;
  private readonly reviseUnsupported: string | undefined;
  private readonly options: KartaWorkloadOptions;
  /** The `spec.karmada` extension (empty when the Karta has none). */
  readonly karmada: KarmadaExtension;
  /** The pod-spec component answering InterpretReplica/ReviseReplica, if any. */
  private readonly replicaComponent: CompiledComponent | undefined;
  /** The path ReviseReplica writes: the replicasPath, or its left side when it is `path // default`. */
  private readonly revisePath: CompiledExpression | undefined;

  constructor(input: Karta | Definition, options: KartaWorkloadOptions = {}) {
    const definition = "karta" in input && isObject((input as Definition).karta) ? (input as Definition) : undefined;
    this.karta = definition ? definition.karta : (input as Karta);
    this.source = definition?.file ?? this.karta?.metadata?.name ?? "<karta>";
    this.options = options;
    const { compiled, derived } = compiledKarta(this.karta);
    this.diagnostics = compiled.diagnostics;
    this.definition = derived;
    const gvk = this.karta?.spec?.structureDefinition?.rootComponent?.kind;
    this.kind = { apiVersion: gvk ? apiVersionOf(gvk.group ?? "", gvk.version ?? "") : "", kind: gvk?.kind ?? "" };
    this.podComponents = this.definition.components.filter((c) => c.specKind !== undefined);
    this.hasStatus = this.definition.root?.status !== undefined;
    this.health = healthStatus(this.definition.root?.status);
    this.karmada = karmadaExtension(this.karta, this.source);
    const named = this.karmada.replicaComponent;
    this.replicaComponent = named !== undefined ? this.podComponents.find((c) => c.name === named && c.instanceId === undefined) : this.singlePodSpec ? this.podComponents[0] : undefined;
    if (named !== undefined && this.replicaComponent === undefined) {
      this.diagnostics = [...this.diagnostics, { severity: "error", path: "spec.karmada.replicas.component", message: `component '${named}' is not a pod-spec component without instances`, code: "karmada-replicas" }];
    }
    this.revisePath = assignablePart(this.replicaComponent?.replicas);
    this.reviseUnsupported = this.whyNotRevisable();
  }

  /** Whether the definition has a single pod specification (InterpretReplica rather than InterpretComponent). */
  get singlePodSpec(): boolean {
    return this.podComponents.length === 1 && this.podComponents[0]!.instanceId === undefined;
  }

  /** Why ReviseReplica cannot be answered from this definition, or undefined when it can. */
  private whyNotRevisable(): string | undefined {
    const c = this.replicaComponent;
    if (!c) return "the definition has several pod specifications or none";
    if (!c.replicas?.program) return `component ${c.name} has no replicasPath`;
    if (!this.revisePath) return `'${c.replicas.text}' is not an assignable path`;
    for (let p = c.parent; p !== undefined; p = this.definition.byName.get(p)?.parent) {
      if (this.definition.byName.get(p)?.hasScale) return `component ${c.name}'s replicas are scaled by ${p}`;
    }
    return undefined;
  }

  /** Whether this definition answers `op` (for objects of its kind). */
  supports(op: Operation): boolean {
    // The Karta leaves these to the layers below it (a thirdparty interpreter reads settings it cannot).
    if (this.karta?.spec?.karmada?.deferOperations?.includes(op)) return false;
    switch (op) {
      case "InterpretComponent":
        return this.podComponents.length > 0 && !this.singlePodSpec;
      case "InterpretReplica":
        // A pod specification without a replicasPath (a DaemonSet's) has no replica count to schedule.
        return this.replicaComponent?.replicas !== undefined;
      case "ReviseReplica":
        return this.reviseUnsupported === undefined;
      case "ReviseComponents":
        // Revises what InterpretComponent reports, with the same names (and defers with it).
        return this.supports("InterpretComponent");
      case "InterpretHealth":
        return this.hasStatus || this.karmada.supports(op);
      case "InterpretDependency":
        return this.podComponents.length > 0 || this.karta?.spec?.karmada?.dependencies !== undefined;
      default:
        return this.karmada.supports(op);
    }
  }

  /** The definition evaluated on the object, or the errors that concern `components`' pod specifications. */
  private evaluate(op: Operation, object: KubeObject): Outcome<{ view: WorkloadView; slots: PodSlot[] }> {
    const view = evaluateWorkload(this.definition, object);
    const slots: PodSlot[] = [];
    const errors: Diagnostic[] = [];
    for (const c of this.podComponents) {
      // The errors that matter: the component's pod specification, instance ids and scale (a failing
      // minReplicasPath leaves the whole scale unread), and its ancestors' scale.
      const prefixes = [`${c.path}.specDefinition`, `${c.path}.instanceIdPath`, `${c.path}.scaleDefinition`];
      const ancestors: CompiledComponent[] = [];
      for (let p = c.parent; p !== undefined; ) {
        const a = this.definition.byName.get(p);
        if (!a || ancestors.includes(a)) break;
        ancestors.push(a);
        prefixes.push(`${a.path}.scaleDefinition`);
        p = a.parent;
      }
      errors.push(...view.diagnostics.filter((d) => d.severity === "error" && prefixes.some((x) => under(d.path, x))));
      let multiplier = 1;
      const scaledBy = ancestors.find((a) => a.hasScale)?.name;
      for (const a of ancestors) {
        const e = view.components.get(a.name);
        if (!e || !a.hasScale || !e.scales) continue;
        let sum = 0;
        for (const s of e.scales.values()) sum += counted(s);
        multiplier *= sum;
      }
      const e = view.components.get(c.name)!;
      e.view.instances.forEach((instance, i) => {
        const replicas = counted(instance.scale) * multiplier;
        if (!present(instance.podTemplate) && replicas === 0) return;
        const slot: PodSlot = { component: c.name, compiled: c, instanceView: instance, replicas, index: i, instances: e.view.instances.length };
        if (scaledBy !== undefined) slot.scaledBy = scaledBy;
        if (c.instanceId) slot.instance = instance.id || positionalInstanceId(c.name, i + 1);
        slots.push(slot);
      });
    }
    if (errors.length > 0) {
      const first = errors[0]!;
      const more = errors.length > 1 ? ` (and ${errors.length - 1} more: ${errors.slice(1).map((d) => `${d.path}: ${d.message}`).join("; ")})` : "";
      return fail(op, `Karta ${this.source}: ${first.message}${more}`, first.path, KARTA_LAYER);
    }
    return ok({ view, slots });
  }

  /** The requirements of one replica of a slot (Karmada's accuratePodRequirements), or an error. */
  private requirements(op: Operation, slot: PodSlot, namespace: string | undefined): Outcome<ReplicaRequirements | undefined> {
    const template = slot.instanceView.podTemplate;
    if (!present(template)) return ok(undefined);
    const options = { resourceQuotaEstimate: this.options.resourceQuotaEstimate === true };
    const r = namespace !== undefined ? replicaRequirements(template, namespace, options) : accuratePodRequirements(template, options);
    if (r.issues.length > 0) {
      const where = slot.instance !== undefined ? `${slot.component} instance ${slot.instance}` : slot.component;
      return fail(op, `Karta ${this.source}: ${where}: pod template ${r.issues[0]!.path}: ${r.issues[0]!.message}`, slot.compiled.path, KARTA_LAYER);
    }
    return ok(r.value as ReplicaRequirements | undefined);
  }

  /** The pod specifications InterpretComponent reports, and their Karmada component names. */
  private namedSlots(op: Operation, object: KubeObject): Outcome<{ slots: PodSlot[]; names: string[] }> {
    const evaluated = this.evaluate(op, object);
    if (!evaluated.ok) return evaluated;
    // A role listed without a pod template is reported without requirements, unless the Karta says
    // Karmada leaves such roles out.
    const omit = this.karta?.spec?.karmada?.omitComponentsWithoutTemplate === true;
    const slots = evaluated.value.slots.filter((slot) => !omit || present(slot.instanceView.podTemplate));
    const renamed = this.karta?.spec?.karmada?.componentNames ?? {};
    const names = componentNames(slots.map((slot) => (slot.instance === undefined && typeof renamed[slot.component] === "string" ? { component: renamed[slot.component]! } : slot)));
    return ok({ slots, names });
  }

  /** InterpretComponent: one Karmada Component per pod specification. */
  interpretComponent(object: KubeObject): Outcome<Component[]> {
    const op: Operation = "InterpretComponent";
    const named = this.namedSlots(op, object);
    if (!named.ok) return named;
    const { slots, names } = named.value;
    const components: Component[] = [];
    for (const [i, slot] of slots.entries()) {
      const req = this.requirements(op, slot, undefined);
      if (!req.ok) return req;
      const component: Component = { name: names[i]!, replicas: slot.replicas };
      if (req.value !== undefined) {
        const { namespace: _namespace, ...rest } = req.value;
        void _namespace;
        component.replicaRequirements = rest as ComponentReplicaRequirements;
      }
      components.push(component);
    }
    return ok(components);
  }

  /** InterpretReplica: the replicas and per-replica requirements of the single pod specification. */
  interpretReplica(object: KubeObject): Outcome<ReplicaResult> {
    const op: Operation = "InterpretReplica";
    const c = this.replicaComponent;
    if (!c) return fail(op, `Karta ${this.source}: the definition has several pod specifications: use InterpretComponent`, undefined, KARTA_LAYER);
    const evaluated = this.evaluate(op, object);
    if (!evaluated.ok) return evaluated;
    const slot = evaluated.value.slots.find((s) => s.component === c.name);
    const fixed = this.karmada.replicasExpression;
    let replicas = slot?.replicas ?? 0;
    if (fixed) {
      const r = fixed.first(object);
      if (!r.ok) return fail(op, `Karta ${this.source}: ${fixed.path}: ${r.error}`, fixed.path, KARTA_LAYER);
      if (typeof r.value !== "number" || !Number.isInteger(r.value)) return fail(op, `Karta ${this.source}: ${fixed.path}: expected an integer, got ${JSON.stringify(r.value)}`, fixed.path, KARTA_LAYER);
      replicas = r.value;
    }
    if (!slot) return ok({ replicas });
    const meta = isObject(object.metadata) ? object.metadata : {};
    const namespace = this.options.resourceQuotaEstimate && typeof meta.namespace === "string" ? meta.namespace : undefined;
    const req = this.requirements(op, slot, namespace);
    if (!req.ok) return req;
    const result: ReplicaResult = { replicas };
    if (req.value !== undefined) result.replicaRequirements = req.value;
    return ok(result);
  }

  /** ReviseReplica: the object with the single pod specification's replicasPath set to `replicas`. */
  reviseReplica(object: KubeObject, replicas: number): Outcome<KubeObject> {
    const op: Operation = "ReviseReplica";
    if (this.reviseUnsupported !== undefined) return fail(op, `Karta ${this.source}: ${this.reviseUnsupported}`, undefined, KARTA_LAYER);
    const expr = this.revisePath!;
    const where = locations(expr, object);
    if (!where.ok) return fail(op, `Karta ${this.source}: ${where.error}`, expr.path, KARTA_LAYER);
    if (where.locations.length === 0) return fail(op, `Karta ${this.source}: '${expr.text}' selects nothing on this object`, expr.path, KARTA_LAYER);
    const patched = applyJsonPatch(
      object,
      where.locations.map((loc) => setOperation(object, loc, replicas)),
    );
    if (!patched.ok) return fail(op, `Karta ${this.source}: ${patched.error}`, expr.path, KARTA_LAYER);
    return ok(patched.value as KubeObject);
  }

  /** ReviseComponents: each component's assigned replicas written through its scaleDefinition (see the top of this file). */
  reviseComponents(object: KubeObject, components: TargetComponent[]): Outcome<KubeObject> {
    const op: Operation = "ReviseComponents";
    const named = this.namedSlots(op, object);
    if (!named.ok) return named;
    const { slots, names } = named.value;
    const assigned = assignmentByName(components, names);
    if (!assigned.ok) return fail(op, `Karta ${this.source}: ${assigned.error}`, undefined, KARTA_LAYER);
    let current: KubeObject = object;
    for (const [i, slot] of slots.entries()) {
      const n = assigned.replicas.get(names[i]!)!;
      if (n === slot.replicas) continue;
      const c = slot.compiled;
      const at = `component ${JSON.stringify(names[i])} (${slot.instance !== undefined ? `${c.name} instance ${slot.instance}` : c.name})`;
      const cannot = (why: string, path?: string): Outcome<KubeObject> => fail(op, `Karta ${this.source}: ${at}: cannot set ${n} replicas (it has ${slot.replicas}): ${why}`, path ?? c.path, KARTA_LAYER);
      if (slot.scaledBy !== undefined) return cannot(`its replicas are scaled by ${slot.scaledBy}`);
      if (!c.replicas?.program) return cannot("its component has no scaleDefinition.replicasPath");
      const path = componentWritePath(c.replicas);
      if (!path) return cannot(`'${c.replicas.text}' is not an assignable path and reads no single replicas field`, c.replicas.path);
      const where = locations(path, object);
      if (!where.ok) return cannot(where.error, path.path);
      // One location per instance, in the order the scale was read.
      if (where.locations.length !== slot.instances) return cannot(`'${path.text}' selects ${where.locations.length} place(s) on this object, expected ${slot.instances} (one per instance)`, path.path);
      const patched = applyJsonPatch(current, [setOperation(current, where.locations[slot.index]!, n)]);
      if (!patched.ok) return cannot(patched.error, path.path);
      current = patched.value as KubeObject;
    }
    if (current === object) return ok(structuredClone(object));
    // The definition must read the assignment back from what was written.
    const again = this.namedSlots(op, current);
    if (!again.ok) return fail(op, `Karta ${this.source}: the revised object no longer evaluates: ${again.error.message}`, again.error.path, KARTA_LAYER);
    for (const [i, slot] of again.value.slots.entries()) {
      const want = assigned.replicas.get(again.value.names[i]!);
      if (want !== undefined && want !== slot.replicas) {
        const c = slot.compiled;
        return fail(op, `Karta ${this.source}: component ${JSON.stringify(again.value.names[i])}: writing ${want} through '${c.replicas?.text ?? ""}' gives ${slot.replicas} replicas; its count cannot be set through that path`, c.replicas?.path ?? c.path, KARTA_LAYER);
      }
    }
    if (again.value.names.length !== names.length || again.value.names.some((n, i) => n !== names[i])) {
      return fail(op, `Karta ${this.source}: the revised object has components ${again.value.names.join(", ")}, not ${names.join(", ")}`, undefined, KARTA_LAYER);
    }
    return ok(current);
  }

  /** InterpretHealth: Failed/Degraded unhealthy, Running/Completed healthy, otherwise undecided. */
  interpretHealth(object: KubeObject): Outcome<boolean | typeof UNDECIDED> {
    const decided = this.karmada.interpretHealth(object);
    if (!decided.ok) return decided;
    if (decided.value !== undefined) return ok(decided.value);
    if (!this.hasStatus && this.karmada.supports("InterpretHealth")) return ok(UNDECIDED);
    if (!this.hasStatus) return fail("InterpretHealth", `Karta ${this.source}: the root component has no statusDefinition`, undefined, KARTA_LAYER);
    if (!this.health) return ok(UNDECIDED);
    // Evaluation errors make a matcher not match, as in the reference; they are not this operation's.
    const result = evaluateStatus(this.health, object, []);
    let healthy = false;
    for (const s of result.statuses) {
      if (UNHEALTHY.has(s)) return ok(false);
      if (HEALTHY.has(s)) healthy = true;
    }
    return ok(healthy ? true : UNDECIDED);
  }

  /** InterpretDependency: the pod specifications' ConfigMaps, Secrets, ServiceAccount and PVCs. */
  interpretDependency(object: KubeObject): Outcome<DependentObjectReference[]> {
    const op: Operation = "InterpretDependency";
    const evaluated = this.evaluate(op, object);
    if (!evaluated.ok) return evaluated;
    const meta = isObject(object.metadata) ? object.metadata : {};
    const namespace = typeof meta.namespace === "string" ? meta.namespace : "";
    const seen = new Map<string, DependentObjectReference>();
    const add = (ref: DependentObjectReference): void => {
      const key = `${ref.apiVersion}\u0000${ref.kind}\u0000${ref.namespace ?? ""}\u0000${ref.name ?? JSON.stringify(ref.labelSelector ?? null)}`;
      if (!seen.has(key)) seen.set(key, ref);
    };
    for (const slot of evaluated.value.slots) {
      const template = slot.instanceView.podTemplate;
      if (!present(template)) continue;
      for (const ref of podDependencies(template, namespace) ?? []) add(ref as DependentObjectReference);
    }
    const templates = this.karmada.dependencyTemplates(object);
    if (!templates.ok) return templates;
    for (const t of templates.value) for (const ref of podDependencies(t as unknown as PodTemplateSpec, namespace) ?? []) add(ref as DependentObjectReference);
    const extra = this.karmada.extraDependencies(object);
    if (!extra.ok) return extra;
    extra.value.forEach(add);
    return ok(sortDependencies([...seen.values()]));
  }
}

