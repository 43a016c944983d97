/**
 * Validation of the scheduler-facing objects themselves (what the API server checks on
 * Workload, PodGroup and CompositePodGroup), on create and, with the old object, on update:
 * the template-list union and limits, names, policies, constraints, claims, priorities,
 * the immutable fields with ratcheting, and items neither added nor removed; plus the tree rules
 * of the Workload (depth at most 4, template names unique across the whole tree).
 * Used to check that everything the builder emits would be accepted.
 */

import {
  CREATE,
  UPDATE,
  immutable,
  semanticEqual as deepEqual,
  union,
  updatePointer,
  validateConstraintsBlock,
  validateDisruptionModeBlock,
  validateResourceClaimList,
  type Operation,
} from "./blocks.js";
import {
  childPath,
  duplicate,
  forbidden,
  indexPath,
  invalid,
  notSupported,
  required,
  tooMany,
  type FieldError,
} from "./fielderrors.js";
import { handwritten, isDNS1123Label, isDNS1123Subdomain, isValidPathSegmentName } from "../names/index.js";
import {
  HIGHEST_USER_DEFINABLE_PRIORITY,
  PREEMPTION_POLICIES,
  WORKLOAD_MAX_POD_GROUP_TEMPLATES,
  WORKLOAD_MAX_TREE_DEPTH,
  type CompositePodGroup,
  type CompositePodGroupSchedulingFields,
  type CompositePodGroupTemplate,
  type ObjectMeta,
  type PodGroup,
  type PodGroupSchedulingFields,
  type PodGroupTemplate,
  type TypedLocalObjectReference,
  type Workload,
  type WorkloadReference,
} from "./types.js";

/** Fields shared by templates and runtime group specs, of either level. */
type SchedulingFields = PodGroupSchedulingFields | CompositePodGroupSchedulingFields;

/** The previous value on an update (`{ value: undefined }` when it was not set); `undefined` on a create. */
type Old<T> = { value: T | undefined } | undefined;

function old<T>(prev: T | undefined, isUpdate: boolean): Old<T> {
  return isUpdate ? { value: prev } : undefined;
}

/** A child of a path that is never nil here. */
function child(parent: string, ...names: string[]): string {
  return childPath(parent, ...names) ?? parent;
}

function operation(isUpdate: boolean): Operation {
  return isUpdate ? UPDATE : CREATE;
}

/** An immutable field: any change on update is `Invalid value: null: field is immutable`. */
function validateImmutable(path: string, value: unknown, prev: Old<unknown>): FieldError[] {
  if (prev === undefined || deepEqual(value, prev.value)) return [];
  return immutable(UPDATE, path);
}

function validateObjectName(meta: ObjectMeta, path = "metadata"): FieldError[] {
  const namePath = child(path, "name");
  if (!meta.name && !meta.generateName) return [required(namePath, "name or generateName is required")];
  if (!meta.name) return [];
  return handwritten.isDNS1123Subdomain(meta.name).map((m) => invalid(namePath, meta.name, m));
}

function validateShortName(path: string, value: string | undefined): FieldError[] {
  if (value === undefined || value === "") return [required(path)];
  return isDNS1123Label(value).map((m) => invalid(path, value, m, "format=k8s-short-name"));
}

function validateLongName(path: string, value: string | undefined, isRequired: boolean): FieldError[] {
  if (value === undefined || value === "") return isRequired ? [required(path)] : [];
  return isDNS1123Subdomain(value).map((m) => invalid(path, value, m, "format=k8s-long-name"));
}

function validatePathSegmentName(path: string, value: string | undefined): FieldError[] {
  if (value === undefined || value === "") return [required(path)];
  return isValidPathSegmentName(value).map((m) => invalid(path, value, m, "format=k8s-path-segment-name"));
}

function validateControllerRef(path: string, ref: TypedLocalObjectReference): FieldError[] {
  return [
    ...validateLongName(child(path, "apiGroup"), ref.apiGroup, false),
    ...validatePathSegmentName(child(path, "kind"), ref.kind),
    ...validatePathSegmentName(child(path, "name"), ref.name),
  ];
}

/** Policy with a required count (`minCount` / `minGroupCount`): 0 is "missing", as declarative validation treats it. */
function validateGroupPolicy(
  path: string,
  policy: { basic?: object; gang?: Record<string, number> } | undefined,
  countField: "minCount" | "minGroupCount",
  prev: Old<{ basic?: object; gang?: Record<string, number> }>,
): FieldError[] {
  const p = policy ?? {};
  const isUpdate = prev !== undefined;
  const before = prev?.value;
  if (isUpdate && deepEqual(p, before)) return [];
  const errs = union(operation(isUpdate), path, ["basic", "gang"], p, before);
  if (isUpdate && before !== undefined && (p.basic !== undefined) !== (before.basic !== undefined)) errs.push(...immutable(UPDATE, child(path, "basic")));
  // A gang added or removed by an update is refused as such; its count is not looked at then.
  const gangSet = isUpdate && before !== undefined ? updatePointer(UPDATE, child(path, "gang"), p.gang, before.gang) : [];
  errs.push(...gangSet);
  if (p.gang !== undefined && gangSet.length === 0) {
    const countPath = child(path, "gang", countField);
    const v = p.gang[countField];
    const unchanged = isUpdate && before?.gang !== undefined && before.gang[countField] === v;
    if (!unchanged) {
      if (v === undefined || v === 0) errs.push(required(countPath));
      else if (v < 1) errs.push(invalid(countPath, v, "must be greater than or equal to 1", "minimum"));
    }
  }
  return errs;
}

function validatePriorityFields(path: string, obj: SchedulingFields, prev: SchedulingFields | undefined, isUpdate: boolean): FieldError[] {
  const errs: FieldError[] = [];
  // A field an update changed is refused as immutable, and its value is not checked then (the declarative
  // immutability short-circuits); an unchanged one is not checked again (ratcheting).
  const pcnPath = child(path, "priorityClassName");
  const pcnFrozen = validateImmutable(pcnPath, obj.priorityClassName ?? "", old(prev?.priorityClassName ?? "", isUpdate));
  errs.push(...pcnFrozen);
  if (pcnFrozen.length === 0 && !(isUpdate && obj.priorityClassName === prev?.priorityClassName)) errs.push(...validateLongName(pcnPath, obj.priorityClassName, false));
  const prioPath = child(path, "priority");
  const prioFrozen = validateImmutable(prioPath, obj.priority, old(prev?.priority, isUpdate));
  errs.push(...prioFrozen);
  if (prioFrozen.length === 0 && obj.priority !== undefined && !(isUpdate && obj.priority === prev?.priority) && obj.priority > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errs.push(invalid(prioPath, obj.priority, `must be less than or equal to ${HIGHEST_USER_DEFINABLE_PRIORITY}`, "maximum"));
  }
  const ppPath = child(path, "preemptionPolicy");
  const ppFrozen = validateImmutable(ppPath, obj.preemptionPolicy, old(prev?.preemptionPolicy, isUpdate));
  errs.push(...ppFrozen);
  if (ppFrozen.length === 0 && obj.preemptionPolicy !== undefined && !(isUpdate && obj.preemptionPolicy === prev?.preemptionPolicy) && !PREEMPTION_POLICIES.includes(obj.preemptionPolicy)) {
    // The API server lists the supported values sorted.
    errs.push(notSupported(ppPath, obj.preemptionPolicy, [...PREEMPTION_POLICIES].sort()));
  }
  return errs;
}

/**
 * The scheduling fields of a template or runtime group spec (everything but names and references): a leaf's
 * gang counts `minCount` and it may share resource claims; a composite's counts `minGroupCount`.
 */
function validateSchedulingFields(path: string, obj: SchedulingFields, prev: SchedulingFields | undefined, isUpdate: boolean, level: "leaf" | "composite"): FieldError[] {
  const errs: FieldError[] = [];
  const countField = level === "leaf" ? "minCount" : "minGroupCount";
  errs.push(...validateGroupPolicy(child(path, "schedulingPolicy"), obj.schedulingPolicy as never, countField, old(prev?.schedulingPolicy as never, isUpdate)));
  const op = operation(isUpdate);
  // An immutable block that changed is refused as such; its content is not looked at then.
  const cPath = child(path, "schedulingConstraints");
  const constraintsFrozen = validateImmutable(cPath, obj.schedulingConstraints, old(prev?.schedulingConstraints, isUpdate));
  errs.push(...constraintsFrozen);
  if (obj.schedulingConstraints !== undefined && constraintsFrozen.length === 0 && !(isUpdate && deepEqual(obj.schedulingConstraints, prev?.schedulingConstraints))) {
    errs.push(...validateConstraintsBlock(op, cPath, obj.schedulingConstraints, isUpdate ? prev?.schedulingConstraints : undefined));
  }
  if (level === "leaf") {
    const claims = (obj as PodGroupSchedulingFields).resourceClaims;
    const prevClaims = (prev as PodGroupSchedulingFields | undefined)?.resourceClaims;
    errs.push(...validateResourceClaimList(op, child(path, "resourceClaims"), claims, prevClaims, isUpdate));
  }
  const dPath = child(path, "disruptionMode");
  const modeFrozen = validateImmutable(dPath, obj.disruptionMode, old(prev?.disruptionMode, isUpdate));
  errs.push(...modeFrozen);
  if (obj.disruptionMode !== undefined && modeFrozen.length === 0 && !(isUpdate && deepEqual(obj.disruptionMode, prev?.disruptionMode))) {
    errs.push(...validateDisruptionModeBlock(op, dPath, obj.disruptionMode, isUpdate ? prev?.disruptionMode : undefined));
  }
  errs.push(...validatePriorityFields(path, obj, prev, isUpdate));
  return errs;
}

// ---------------------------------------------------------------- bad values as the API server prints them

/** A list as Go holds it: absent is nil. */
function list<T, U>(xs: readonly T[] | null | undefined, f: (x: T) => U): U[] | null {
  return xs == null ? null : xs.map(f);
}

function orNull<T>(v: T | null | undefined): T | null {
  return v ?? null;
}

/** A leaf template as scheduling/v1beta1 prints in a Duplicate error: `schedulingConstraints` always (no `omitempty`). */
function versionedLeaf(t: PodGroupTemplate): Record<string, unknown> {
  const out: Record<string, unknown> = { name: t.name, schedulingPolicy: t.schedulingPolicy ?? {}, schedulingConstraints: orNull(t.schedulingConstraints) };
  if ((t.resourceClaims?.length ?? 0) > 0) out.resourceClaims = t.resourceClaims;
  return { ...out, ...versionedTail(t) };
}

/** A composite template as scheduling/v1beta1 prints in a Duplicate error, its children too. */
function versionedComposite(t: CompositePodGroupTemplate): Record<string, unknown> {
  const out: Record<string, unknown> = { name: t.name, schedulingPolicy: t.schedulingPolicy ?? {} };
  if (t.schedulingConstraints != null) out.schedulingConstraints = t.schedulingConstraints;
  Object.assign(out, versionedTail(t));
  if ((t.podGroupTemplates?.length ?? 0) > 0) out.podGroupTemplates = t.podGroupTemplates!.map(versionedLeaf);
  if ((t.compositePodGroupTemplates?.length ?? 0) > 0) out.compositePodGroupTemplates = t.compositePodGroupTemplates!.map(versionedComposite);
  return out;
}

/** The `omitempty` fields both levels end with. */
function versionedTail(t: SchedulingFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (t.disruptionMode != null) out.disruptionMode = t.disruptionMode;
  if (t.priorityClassName) out.priorityClassName = t.priorityClassName;
  if (t.priority != null) out.priority = t.priority;
  if (t.preemptionPolicy != null) out.preemptionPolicy = t.preemptionPolicy;
  return out;
}

/** The internal (unversioned) Go types, as `encoding/json` prints them: Go's field names, every field, nil as null. */
function internalPolicy(p: object | undefined, count: "MinCount" | "MinGroupCount"): unknown {
  const policy = p as { basic?: object | null; gang?: Record<string, number | undefined> | null } | undefined;
  const gang = policy?.gang ?? null;
  return { Basic: policy?.basic != null ? {} : null, Gang: gang === null ? null : { [count]: gang[count === "MinCount" ? "minCount" : "minGroupCount"] ?? 0 } };
}
function internalConstraints(c: { topology?: { key: string }[] } | null | undefined): unknown {
  return c == null ? null : { Topology: list(c.topology, (x) => ({ Key: x.key ?? "" })) };
}
function internalMode(m: { single?: object | null; all?: object | null } | null | undefined): unknown {
  return m == null ? null : { Single: m.single != null ? {} : null, All: m.all != null ? {} : null };
}
function internalLeaf(t: PodGroupTemplate): unknown {
  return {
    Name: t.name ?? "",
    SchedulingPolicy: internalPolicy(t.schedulingPolicy, "MinCount"),
    SchedulingConstraints: internalConstraints(t.schedulingConstraints),
    ResourceClaims: list(t.resourceClaims, (c) => ({ Name: c.name ?? "", ResourceClaimName: orNull(c.resourceClaimName), ResourceClaimTemplateName: orNull(c.resourceClaimTemplateName) })),
    DisruptionMode: internalMode(t.disruptionMode),
    PriorityClassName: t.priorityClassName ?? "",
    Priority: orNull(t.priority),
    PreemptionPolicy: orNull(t.preemptionPolicy),
  };
}
function internalComposite(t: CompositePodGroupTemplate): unknown {
  return {
    Name: t.name ?? "",
    SchedulingPolicy: internalPolicy(t.schedulingPolicy, "MinGroupCount"),
    SchedulingConstraints: internalConstraints(t.schedulingConstraints),
    DisruptionMode: internalMode(t.disruptionMode),
    PriorityClassName: t.priorityClassName ?? "",
    Priority: orNull(t.priority),
    PreemptionPolicy: orNull(t.preemptionPolicy),
    PodGroupTemplates: list(t.podGroupTemplates, internalLeaf),
    CompositePodGroupTemplates: internalTemplates(t.compositePodGroupTemplates),
  };
}
/** CompositePodGroupTemplates as the handwritten validation's bad value prints (the internal type). */
function internalTemplates(ts: CompositePodGroupTemplate[] | null | undefined): unknown {
  return list(ts, internalComposite);
}

interface TreeState {
  isUpdate: boolean;
}

/** A template list keyed by name: at most 8, unique, no items added or removed on update. */
function validateTemplateList<T extends { name: string }>(
  path: string,
  list: T[] | undefined,
  prevList: T[] | undefined,
  state: TreeState,
  each: (itemPath: string, item: T, prev: T | undefined) => FieldError[],
  value: (item: T) => unknown,
): FieldError[] {
  const items = list ?? [];
  const before = prevList ?? [];
  if (state.isUpdate && deepEqual(items, before)) return [];
  const errs: FieldError[] = [];
  // Both short-circuit the items' own checks, and an update reports both.
  const tooLong = items.length > WORKLOAD_MAX_POD_GROUP_TEMPLATES ? [tooMany(path, items.length, WORKLOAD_MAX_POD_GROUP_TEMPLATES)] : [];
  if (state.isUpdate) {
    const shortCircuit: FieldError[] = [];
    items.forEach((it, i) => {
      if (!before.some((b) => b.name === it.name)) shortCircuit.push(forbidden(indexPath(path, i), "item may not be added", "update"));
    });
    for (const b of before) if (!items.some((it) => it.name === b.name)) shortCircuit.push(forbidden(path, "item may not be removed", "update"));
    if (shortCircuit.length > 0) return [...tooLong, ...shortCircuit];
  }
  if (tooLong.length > 0) return tooLong;
  const seen = new Set<string>();
  items.forEach((it, i) => {
    if (seen.has(it.name)) errs.push(duplicate(indexPath(path, i), value(it)));
    seen.add(it.name);
  });
  items.forEach((it, i) => {
    const prev = before.find((b) => b.name === it.name);
    errs.push(...each(indexPath(path, i), it, prev));
  });
  return errs;
}

/**
 * Names are unique across the tree, checked as ValidateWorkloadSpec does on every create and update: the
 * top-level PodGroupTemplates' names first, then each list of composites before what is under them, a
 * level's names registered after the level is checked (a repeat within one list is the list's Duplicate).
 */
function validateTemplateNames(spec: Workload["spec"]): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>((spec.podGroupTemplates ?? []).map((t) => t.name ?? ""));
  const checkLevel = (path: string, templates: readonly { name?: string }[]): void => {
    templates.forEach((t, i) => {
      if (names.has(t.name ?? "")) errs.push(duplicate(child(indexPath(path, i), "name"), t.name ?? ""));
    });
    for (const t of templates) names.add(t.name ?? "");
  };
  const composites = (path: string, templates: readonly CompositePodGroupTemplate[]): void => {
    checkLevel(child(path, "compositePodGroupTemplates"), templates);
    templates.forEach((t, i) => {
      const at = indexPath(child(path, "compositePodGroupTemplates"), i);
      checkLevel(child(at, "podGroupTemplates"), t.podGroupTemplates ?? []);
      composites(at, t.compositePodGroupTemplates ?? []);
    });
  };
  composites("spec", spec.compositePodGroupTemplates ?? []);
  return errs;
}

/** At most WORKLOAD_MAX_TREE_DEPTH levels of composites: one at that level is too deep, reported at its top-level template. */
function validateTemplatesDepth(spec: Workload["spec"]): FieldError[] {
  const fits = (t: CompositePodGroupTemplate, depth: number): boolean => depth !== WORKLOAD_MAX_TREE_DEPTH && (t.compositePodGroupTemplates ?? []).every((c) => fits(c, depth + 1));
  return (spec.compositePodGroupTemplates ?? []).flatMap((t, i) =>
    fits(t, 1) ? [] : [invalid(`spec.compositePodGroupTemplates[${i}]`, internalTemplates(t.compositePodGroupTemplates), `maximum template hierarchy depth is ${WORKLOAD_MAX_TREE_DEPTH}`)],
  );
}

function validatePodGroupTemplate(path: string, t: PodGroupTemplate, prev: PodGroupTemplate | undefined, state: TreeState): FieldError[] {
  const errs: FieldError[] = [];
  if (state.isUpdate && prev !== undefined && deepEqual(t, prev)) return errs;
  errs.push(...validateShortName(child(path, "name"), t.name));
  errs.push(...validateSchedulingFields(path, t, prev, state.isUpdate && prev !== undefined, "leaf"));
  return errs;
}

function validateCompositeTemplate(
  path: string,
  t: CompositePodGroupTemplate,
  prev: CompositePodGroupTemplate | undefined,
  state: TreeState,
): FieldError[] {
  const errs: FieldError[] = [];
  const ownUpdate = state.isUpdate && prev !== undefined;
  errs.push(...validateShortName(child(path, "name"), t.name));
  errs.push(...validateSchedulingFields(path, t, prev, ownUpdate, "composite"));
  const childState: TreeState = { ...state, isUpdate: ownUpdate };
  errs.push(
    ...validateTemplateList(child(path, "podGroupTemplates"), t.podGroupTemplates, prev?.podGroupTemplates, childState, (p, c, pc) =>
      validatePodGroupTemplate(p, c, pc, childState),
      versionedLeaf,
    ),
  );
  errs.push(
    ...validateTemplateList(child(path, "compositePodGroupTemplates"), t.compositePodGroupTemplates, prev?.compositePodGroupTemplates, childState, (p, c, pc) =>
      validateCompositeTemplate(p, c, pc, childState),
      versionedComposite,
    ),
  );
  return errs;
}

/**
 * One priority for the whole tree: every template has the first one's priorityClassName and priority (both
 * unset or both set). Reported once at `spec`, worded by the list where the first difference is.
 */
function validateWorkloadPriority(spec: Workload["spec"]): FieldError[] {
  let first: { cls: string; prio: number | undefined } | undefined;
  const same = (t: SchedulingFields): boolean => {
    const cls = t.priorityClassName ?? "";
    const prio = t.priority ?? undefined;
    if (first === undefined) {
      first = { cls, prio };
      return true;
    }
    return first.cls === cls && first.prio === prio;
  };
  for (const t of spec.podGroupTemplates ?? []) if (!same(t)) return [invalid("spec", null, "detected multiple priority configurations")];
  const composite = (t: CompositePodGroupTemplate): boolean =>
    same(t) && (t.compositePodGroupTemplates ?? []).every(composite) && (t.podGroupTemplates ?? []).every(same);
  for (const t of spec.compositePodGroupTemplates ?? []) {
    if (!composite(t)) return [invalid("spec", null, "all priority and priorityClassName values must be identical, detected multiple values")];
  }
  return [];
}

/** Every CompositePodGroupTemplate has a child template. */
function validateHasChild(t: CompositePodGroupTemplate, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if ((t.podGroupTemplates?.length ?? 0) === 0 && (t.compositePodGroupTemplates?.length ?? 0) === 0) {
    errs.push(invalid(path, t.name, "must have at least one child PodGroupTemplate or CompositePodGroupTemplate"));
  }
  (t.compositePodGroupTemplates ?? []).forEach((c, i) => errs.push(...validateHasChild(c, `${path}.compositePodGroupTemplates[${i}]`)));
  return errs;
}

/**
 * An object as the API server decodes its JSON into the Go types: a null member is the field unset, and a
 * null element of a list (every list here holds structs) is the zero struct.
 */
function decoded<T>(v: T): T {
  if (Array.isArray(v)) return v.map((x) => (x === null ? {} : decoded(x))) as T;
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = decoded(x);
  return out as T;
}

/** The int32 fields of the scheduling objects: a value Go cannot decode into one fails the request at decoding. */
const INT32_FIELDS = new Set(["minCount", "minGroupCount", "priority"]);

/** Whether Go decodes the JSON value into an int32: a whole number from -2^31 to 2^31-1. */
export function isInt32(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647;
}

/** The int32 fields holding what the API server cannot decode into an int32 (a string, a fraction, a number past int32). */
function undecodable(v: unknown, path: string): FieldError[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => undecodable(x, indexPath(path, i)));
  if (v === null || typeof v !== "object") return [];
  return Object.entries(v).flatMap(([k, x]) => {
    const at = path === "" ? k : child(path, k);
    if (!INT32_FIELDS.has(k)) return undecodable(x, at);
    return isInt32(x) ? [] : [invalid(at, x, "must be an int32: the API server cannot decode it into its int32 field")];
  });
}

/** Validate a Workload (a create, or an update when `oldWorkload` is given). */
export function validateWorkload(input: Workload, oldInput?: Workload): FieldError[] {
  const workload = decoded(input);
  const oldWorkload = oldInput && decoded(oldInput);
  const refused = undecodable(workload.spec, "spec");
  if (refused.length > 0) return refused;
  const isUpdate = oldWorkload !== undefined;
  const errs: FieldError[] = [...validateObjectName(workload.metadata)];
  const spec = workload.spec ?? {};
  const prev = oldWorkload?.spec;
  const lists = {
    podGroupTemplates: (spec.podGroupTemplates ?? []).length > 0 ? true : undefined,
    compositePodGroupTemplates: (spec.compositePodGroupTemplates ?? []).length > 0 ? true : undefined,
  };
  const prevLists = prev && {
    podGroupTemplates: (prev.podGroupTemplates ?? []).length > 0 ? true : undefined,
    compositePodGroupTemplates: (prev.compositePodGroupTemplates ?? []).length > 0 ? true : undefined,
  };
  errs.push(...union(operation(isUpdate), "spec", ["podGroupTemplates", "compositePodGroupTemplates"], lists, prevLists));
  const refPath = "spec.controllerRef";
  errs.push(...validateImmutable(refPath, spec.controllerRef, old(prev?.controllerRef, isUpdate)));
  if (spec.controllerRef !== undefined && !(isUpdate && deepEqual(spec.controllerRef, prev?.controllerRef))) {
    errs.push(...validateControllerRef(refPath, spec.controllerRef));
  }
  const state: TreeState = { isUpdate };
  errs.push(
    ...validateTemplateList("spec.podGroupTemplates", spec.podGroupTemplates, prev?.podGroupTemplates, state, (p, t, pt) =>
      validatePodGroupTemplate(p, t, pt, state),
      versionedLeaf,
    ),
  );
  errs.push(
    ...validateTemplateList("spec.compositePodGroupTemplates", spec.compositePodGroupTemplates, prev?.compositePodGroupTemplates, state, (p, t, pt) =>
      validateCompositeTemplate(p, t, pt, state),
      versionedComposite,
    ),
  );
  errs.push(...validateTemplateNames(spec), ...validateTemplatesDepth(spec));
  errs.push(...validateWorkloadPriority(spec));
  (spec.compositePodGroupTemplates ?? []).forEach((t, i) => errs.push(...validateHasChild(t, `spec.compositePodGroupTemplates[${i}]`)));
  return errs;
}

function validateWorkloadRef(path: string, ref: WorkloadReference | undefined, prev: WorkloadReference | undefined, isUpdate: boolean, isRequired: boolean): FieldError[] {
  const errs = validateImmutable(path, ref, old(prev, isUpdate));
  if (ref === undefined) return isRequired ? [...errs, required(path)] : errs;
  if (isUpdate && deepEqual(ref, prev)) return errs;
  errs.push(...validateLongName(child(path, "workloadName"), ref.workloadName, true));
  errs.push(...validateShortName(child(path, "templateName"), ref.templateName));
  return errs;
}

function validateParentName(path: string, name: string | undefined, prev: string | undefined, isUpdate: boolean): FieldError[] {
  const errs = validateImmutable(path, name, old(prev, isUpdate));
  // A pointer: set to "", it is validated (and refused) as a name.
  if (name !== undefined && !(isUpdate && name === prev)) errs.push(...isDNS1123Subdomain(name).map((m) => invalid(path, name, m, "format=k8s-long-name")));
  return errs;
}

/** Validate a PodGroup (a create, or an update when `oldPodGroup` is given). */
export function validatePodGroup(input: PodGroup, oldInput?: PodGroup): FieldError[] {
  const podGroup = decoded(input);
  const oldPodGroup = oldInput && decoded(oldInput);
  const refused = undecodable(podGroup.spec, "spec");
  if (refused.length > 0) return refused;
  const isUpdate = oldPodGroup !== undefined;
  const spec = podGroup.spec;
  const prev = oldPodGroup?.spec;
  const errs: FieldError[] = [...validateObjectName(podGroup.metadata)];
  errs.push(...validateParentName("spec.parentCompositePodGroupName", spec.parentCompositePodGroupName, prev?.parentCompositePodGroupName, isUpdate));
  // ValidatePodGroup's manual rule, on create only (its declarative twin is alpha, not enforced).
  if (!isUpdate && spec.parentCompositePodGroupName !== undefined && spec.workloadRef === undefined) {
    errs.push(required("spec.workloadRef", "must be set when parentCompositePodGroupName is set"));
  }
  errs.push(...validateWorkloadRef("spec.workloadRef", spec.workloadRef, prev?.workloadRef, isUpdate, false));
  errs.push(...validateSchedulingFields("spec", spec, prev, isUpdate, "leaf"));
  const statuses = podGroup.status?.resourceClaimStatuses ?? [];
  if (statuses.length > 4) errs.push(tooMany("status.resourceClaimStatuses", statuses.length, 4));
  return errs;
}

/** Validate a CompositePodGroup (a create, or an update when `oldGroup` is given). */
export function validateCompositePodGroup(input: CompositePodGroup, oldInput?: CompositePodGroup): FieldError[] {
  const group = decoded(input);
  const oldGroup = oldInput && decoded(oldInput);
  const refused = undecodable(group.spec, "spec");
  if (refused.length > 0) return refused;
  const isUpdate = oldGroup !== undefined;
  const spec = group.spec;
  const prev = oldGroup?.spec;
  const errs: FieldError[] = [...validateObjectName(group.metadata)];
  errs.push(...validateParentName("spec.parentCompositePodGroupName", spec.parentCompositePodGroupName, prev?.parentCompositePodGroupName, isUpdate));
  errs.push(...validateWorkloadRef("spec.workloadRef", spec.workloadRef, prev?.workloadRef, isUpdate, true));
  // The policy of a runtime composite group is immutable as a whole: changed, that is its one error (the
  // declarative check short-circuits the policy's own).
  const frozen = validateImmutable("spec.schedulingPolicy", spec.schedulingPolicy, old(prev?.schedulingPolicy, isUpdate));
  errs.push(...frozen);
  errs.push(...validateSchedulingFields("spec", frozen.length > 0 ? { ...spec, schedulingPolicy: prev!.schedulingPolicy } : spec, prev, isUpdate, "composite"));
  return errs;
}
