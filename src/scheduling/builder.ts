/**
 * The workload builder: compiles a controller's {@link WorkloadItem} tree into a
 * `scheduling.k8s.io/v1beta1` Workload and materializes runtime PodGroups (v1beta1) and
 * CompositePodGroups (v1alpha3) from it, as Kubernetes'
 * `k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder` (v0.37.2) does, call for call:
 *
 * - {@link WorkloadBuilder.validate} returns field errors: per item, the declarative validation of the
 *   user's blocks (unless disabled; on update against the old item of the same name at the same level),
 *   the controller's allow-lists, and the `all` disruption mode refused with the basic policy; a tree
 *   that cannot compile (missing item, empty or repeated name, a block of the other level) is one
 *   internal error. It checks nothing else: the Workload API's own rules on the compiled Workload (name
 *   formats, tree depth and width, immutability) are {@link validateWorkloadTree}'s;
 * - {@link WorkloadBuilder.buildWorkload} compiles (result cached) and does not validate;
 * - {@link WorkloadBuilder.newPodGroup} / {@link WorkloadBuilder.newCompositePodGroup} copy a
 *   template into a runtime group owned by the builder's owner ({@link podGroupFromTemplate}); a
 *   PodGroup is made only from a top-level PodGroupTemplate, a CompositePodGroup from any
 *   CompositePodGroupTemplate of the tree. Groups of nested templates, linked to their parents, are
 *   {@link groupHierarchy}'s.
 *
 * Failures are values: validation returns a list, the other calls a {@link BuildResult}; the messages
 * are upstream's, word for word.
 */

import {
  CREATE,
  UPDATE,
  validateConstraintsBlock,
  validateDisruptionModeBlock,
  validatePolicyBlock,
  validateResourceClaim,
  type Operation,
} from "./blocks.js";
import { checkWorkloadItemTree, copyClaim, isComposite, itemPath, resolveSchedulingConfig, type SchedulingConfig, type WorkloadItem } from "./config.js";
import { childPath, forbidden, indexPath, internal, invalid, type FieldError, type FieldPath } from "./fielderrors.js";
import { goQuote, goStringList } from "../gofmt/index.js";
import { compositePodGroupFromTemplate, indexCompositePodGroupTemplates, indexPodGroupTemplates, ownerReference, podGroupFromTemplate } from "./podgroup.js";
import {
  SCHEDULING_V1BETA1,
  type CompositePodGroup,
  type CompositePodGroupSchedulingPolicy,
  type CompositePodGroupTemplate,
  type DisruptionMode,
  type OwnerReference,
  type PodGroup,
  type PodGroupSchedulingPolicy,
  type PodGroupTemplate,
  type Workload,
} from "./types.js";

/** A scheduling policy a controller opts into. */
export type SchedulingPolicyOption = "Basic" | "Gang";
/** Allows the basic policy. */
export const BasicPolicy: SchedulingPolicyOption = "Basic";
/** Allows the gang policy. */
export const GangPolicy: SchedulingPolicyOption = "Gang";
/** A disruption mode a controller opts into. */
export type DisruptionModeOption = "Single" | "All";
/** Allows the `single` disruption mode. */
export const SingleMode: DisruptionModeOption = "Single";
/** Allows the `all` disruption mode. */
export const AllMode: DisruptionModeOption = "All";

/** Identity of the compiled Workload and the controller's allow-lists. */
export interface BuildOptions {
  name?: string;
  namespace?: string;
  /** Controller owner: becomes the ownerReference of every object and the Workload's controllerRef. */
  owner?: OwnerReference;
  /** Policies the controller supports; an empty list allows none. */
  allowedPolicies?: readonly SchedulingPolicyOption[];
  /** Disruption modes the controller supports; an empty list allows none. */
  allowedDisruptionModes?: readonly DisruptionModeOption[];
  /** In-tree controllers whose API server already validates the blocks skip that layer. */
  disableDeclarativeValidation?: boolean;
}

/** Parameters of {@link WorkloadBuilder.validate}: an old root makes it an update. */
export interface ValidationInput {
  /** The previously stored tree; only names, inputs and children are consulted. */
  oldRoot?: WorkloadItem;
}

/** A value or the reason there is none. */
export type BuildResult<T> = { ok: true; value: T } | { ok: false; error: string };

export const ok = <T>(value: T): BuildResult<T> => ({ ok: true, value });
export const fail = <T>(error: string): BuildResult<T> => ({ ok: false, error });

/** Turns a WorkloadItem tree into scheduler-facing objects. */
export class WorkloadBuilder {
  private workload: Workload | undefined;

  private constructor(
    private readonly root: WorkloadItem | undefined,
    private readonly options: BuildOptions,
    private readonly existingWorkload: Workload | undefined,
  ) {}

  /** A builder for a tree. */
  static fromItems(root: WorkloadItem, options: BuildOptions): WorkloadBuilder {
    return new WorkloadBuilder(root ?? undefined, options, undefined);
  }

  /**
   * A builder that only materializes groups from an already stored Workload (compiled by a parent
   * controller or written by hand) with `options.owner` as their owner; it never recompiles, and
   * refuses BuildWorkload and Validate.
   */
  static fromExistingWorkload(workload: Workload, options: BuildOptions): WorkloadBuilder {
    return new WorkloadBuilder(undefined, options, workload);
  }

  /**
   * Validate the tree (a create, or an update when `input.oldRoot` is given). Errors are reported
   * at each item's `path` plus the block's path elements, so the controller can return them from
   * its own API validation.
   */
  validate(input: ValidationInput = {}): FieldError[] {
    if (this.existingWorkload !== undefined) {
      return [internal(undefined, "cannot validate a builder constructed from an existing workload")];
    }
    if (this.root === undefined) return [invalid(undefined, null, "invalid builder: missing root WorkloadItem")];
    const rootPath = itemPath(this.root);
    const oldRoot = input.oldRoot ?? undefined;
    // Pairing unrelated trees is a caller bug, not a user error.
    if (oldRoot !== undefined && (oldRoot.name ?? "") !== (this.root.name ?? "")) {
      return [internal(rootPath, `old root name ${goQuote(oldRoot.name ?? "")} does not match new root name ${goQuote(this.root.name ?? "")}`)];
    }
    const treeErr = checkWorkloadItemTree(this.root);
    if (treeErr !== undefined) return [internal(rootPath, treeErr)];
    return this.validateItem(oldRoot === undefined ? CREATE : UPDATE, this.root, oldRoot);
  }

  /** Compile the tree into a Workload (once; later calls return the same object). */
  buildWorkload(): BuildResult<Workload> {
    if (this.existingWorkload !== undefined) {
      return fail("BuildWorkload is not available on a Builder created from an existing Workload: it materializes from the supplied Workload");
    }
    if (this.workload !== undefined) return ok(this.workload);
    const built = this.build();
    if (built.ok) this.workload = built.value;
    return built;
  }

  /** A runtime PodGroup from the named top-level PodGroupTemplate, in the Workload's namespace, owned by the builder's owner. */
  newPodGroup(podGroupName: string, templateName: string): BuildResult<PodGroup> {
    return this.materialize("podGroupTemplate", indexPodGroupTemplates, templateName, (wl, t) => podGroupFromTemplate(wl, t, podGroupName, this.owners()));
  }

  /**
   * A runtime CompositePodGroup from the named CompositePodGroupTemplate (searched through the whole
   * tree). The parent link and the child groups are left to the caller.
   */
  newCompositePodGroup(name: string, templateName: string): BuildResult<CompositePodGroup> {
    return this.materialize("compositePodGroupTemplate", indexCompositePodGroupTemplates, templateName, (wl, t) => compositePodGroupFromTemplate(wl, t, name, this.owners()));
  }

  /** A group from the template of that name in an index of the Workload's templates, or upstream's "not found". */
  private materialize<T, G>(
    what: string,
    indexOf: (wl: Workload) => { index: Map<string, T>; names: string[] },
    templateName: string,
    make: (wl: Workload, template: T) => G,
  ): BuildResult<G> {
    const wl = this.resolveWorkload();
    if (!wl.ok) return wl;
    const { index, names } = indexOf(wl.value);
    const tmpl = index.get(templateName);
    if (tmpl === undefined) return fail(`${what} ${goQuote(templateName)} not found in workload ${goQuote(wl.value.metadata?.name ?? "")} (have ${goStringList(names)})`);
    return ok(make(wl.value, tmpl));
  }

  /** The Workload groups are made from: the existing one, or the one BuildWorkload compiled. */
  resolveWorkload(): BuildResult<Workload> {
    if (this.existingWorkload !== undefined) return ok(this.existingWorkload);
    if (this.workload === undefined) return fail("no Workload available: call BuildWorkload or use NewBuilderFromExistingWorkload first");
    return ok(this.workload);
  }

  /** The owner references of the groups the builder makes. */
  owners(): OwnerReference[] | undefined {
    return this.options.owner === undefined ? undefined : [this.options.owner];
  }

  // ------------------------------------------------------------ internals

  private build(): BuildResult<Workload> {
    const treeErr = checkWorkloadItemTree(this.root as WorkloadItem);
    if (treeErr !== undefined) return fail(treeErr);
    const root = this.root!;
    const spec: Workload["spec"] = {};
    if (isComposite(root)) {
      const t = compileComposite(root);
      if (!t.ok) return t;
      spec.compositePodGroupTemplates = [t.value];
    } else {
      const t = compileLeaf(root);
      if (!t.ok) return t;
      spec.podGroupTemplates = [t.value];
    }
    const owner = this.options.owner;
    if (owner === undefined) return fail("a Workload must be owned by its controller for garbage collection");
    const ref = ownerReference(owner);
    const gv = parseGroupVersion(ref.apiVersion);
    if (!gv.ok) return fail(`invalid owner apiVersion ${goQuote(ref.apiVersion)}: ${gv.error}`);
    const metadata: Workload["metadata"] = {};
    if (this.options.name) metadata.name = this.options.name;
    if (this.options.namespace) metadata.namespace = this.options.namespace;
    metadata.ownerReferences = [ref];
    const controllerRef: NonNullable<Workload["spec"]["controllerRef"]> = { ...(gv.value !== "" ? { apiGroup: gv.value } : {}), kind: ref.kind, name: ref.name };
    return ok({ apiVersion: SCHEDULING_V1BETA1, kind: "Workload", metadata, spec: { controllerRef, ...spec } });
  }

  private validateItem(op: Operation, item: WorkloadItem, oldItem: WorkloadItem | undefined): FieldError[] {
    const errs: FieldError[] = [];
    if (!this.options.disableDeclarativeValidation) errs.push(...validateItemDeclarative(op, item, oldItem));
    const resolved = resolveSchedulingConfig(item);
    errs.push(...this.validateAllowed(item, resolved));
    // A group scheduled pod by pod has no group-level unit to disrupt.
    if (resolved.policy?.basic != null && resolved.disruptionMode?.all != null) {
      errs.push(invalid(blockPath(item, item.input?.disruptionMode), "", "the disruptionMode `all` is not supported with the Basic scheduling policy"));
    }
    // Children are matched with their previous selves by name, at this level only (a later one of a repeated name wins).
    const oldChildren = new Map<string, WorkloadItem>();
    for (const c of oldItem?.children ?? []) if (c) oldChildren.set(c.name ?? "", c);
    for (const child of item.children ?? []) errs.push(...this.validateItem(op, child, oldChildren.get(child.name ?? "")));
    return errs;
  }

  /** The controller's allow-lists, on the resolved policy and mode. */
  private validateAllowed(item: WorkloadItem, resolved: SchedulingConfig): FieldError[] {
    const errs: FieldError[] = [];
    const policies = this.options.allowedPolicies ?? [];
    const modes = this.options.allowedDisruptionModes ?? [];
    const policyPath = blockPath(item, item.input?.policy);
    const modePath = blockPath(item, item.input?.disruptionMode);
    const policy = resolved.policy ?? undefined;
    if (policy?.basic != null && !policies.includes(BasicPolicy)) errs.push(forbidden(policyPath, "basic scheduling policy is not supported by this controller"));
    if (policy?.gang != null && !policies.includes(GangPolicy)) errs.push(forbidden(policyPath, "gang scheduling policy is not supported by this controller"));
    const mode = resolved.disruptionMode ?? undefined;
    if (mode?.single != null && !modes.includes(SingleMode)) errs.push(forbidden(modePath, "the disruptionMode `single` is not supported by this controller"));
    if (mode?.all != null && !modes.includes(AllMode)) errs.push(forbidden(modePath, "the disruptionMode `all` is not supported by this controller"));
    return errs;
  }
}

/** A builder for a tree (upstream's `NewBuilder`). */
export function newBuilder(root: WorkloadItem, options: BuildOptions): WorkloadBuilder {
  return WorkloadBuilder.fromItems(root, options);
}

/** A builder over a stored Workload (upstream's `NewBuilderFromExistingWorkload`). */
export function fromExistingWorkload(workload: Workload, options: BuildOptions): WorkloadBuilder {
  return WorkloadBuilder.fromExistingWorkload(workload, options);
}

// ---------------------------------------------------------------- validation of one item

/** Where a block's errors are reported: the item's path and the block's path elements. */
export function blockPath(item: WorkloadItem, block: { pathElements?: string[] | null } | undefined | null): FieldPath {
  return childPath(itemPath(item), ...(block?.pathElements ?? []));
}

/** The declarative validation of an item's blocks, each against the old item's block of the same level when there is one. */
function validateItemDeclarative(op: Operation, item: WorkloadItem, oldItem: WorkloadItem | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const level = isComposite(item) ? "compositePodGroupData" : "podGroupData";
  const input = item.input ?? {};
  const old = oldItem?.input ?? {};
  const data = <T>(block: object | undefined | null): T | undefined => ((block as Record<string, T | null> | undefined)?.[level] ?? undefined) as T | undefined;
  const policy = data<Parameters<typeof validatePolicyBlock>[2]>(input.policy);
  if (policy !== undefined) errs.push(...validatePolicyBlock(op, blockPath(item, input.policy), policy, data(old.policy), level === "podGroupData" ? "minCount" : "minGroupCount"));
  const constraints = data<Parameters<typeof validateConstraintsBlock>[2]>(input.constraints);
  if (constraints !== undefined) errs.push(...validateConstraintsBlock(op, blockPath(item, input.constraints), constraints, data(old.constraints)));
  const mode = data<object>(input.disruptionMode);
  if (mode !== undefined) errs.push(...validateDisruptionModeBlock(op, blockPath(item, input.disruptionMode), mode, data(old.disruptionMode)));
  if (level === "podGroupData") {
    // Claims are keyed by name: each is checked against the old claim of its name.
    const claims = input.resourceClaims?.podGroupData ?? [];
    const oldByName = new Map((old.resourceClaims?.podGroupData ?? []).map((c) => [c.name ?? "", c] as const));
    const path = blockPath(item, input.resourceClaims);
    claims.forEach((c, i) => errs.push(...validateResourceClaim(op, indexPath(path, i), c, oldByName.get(c.name ?? ""))));
  }
  return errs;
}

// ---------------------------------------------------------------- compilation

function compilePolicy(policy: SchedulingConfig["policy"]): BuildResult<PodGroupSchedulingPolicy> {
  // Absent, basic, or an empty policy all compile to basic; the union itself is the API's to enforce.
  if (policy?.gang == null) return ok({ basic: {} });
  if (policy.gang.minCount == null) return fail("gang scheduling requires minCount to be set after resolution");
  return ok({ gang: { minCount: policy.gang.minCount } });
}

function compileCompositePolicy(policy: SchedulingConfig["policy"]): BuildResult<CompositePodGroupSchedulingPolicy> {
  if (policy?.gang == null) return ok({ basic: {} });
  if (policy.gang.minCount == null) return fail("composite gang scheduling requires minGroupCount to be set after resolution");
  return ok({ gang: { minGroupCount: policy.gang.minCount } });
}

/** All before single; a mode with neither compiles to none. */
function compileDisruptionMode(mode: SchedulingConfig["disruptionMode"]): DisruptionMode | undefined {
  if (mode?.all != null) return { all: {} };
  if (mode?.single != null) return { single: {} };
  return undefined;
}

/** The fields a template of either level compiles from its resolved config, in the API's field order. */
function templateFields(cfg: SchedulingConfig, withClaims: boolean): Partial<PodGroupTemplate> {
  const t: Partial<PodGroupTemplate> = {};
  const topology = cfg.constraints?.topology ?? [];
  if (cfg.constraints != null && topology.length > 0) t.schedulingConstraints = { topology: topology.map((x) => ({ key: x.key })) };
  if (withClaims && (cfg.resourceClaims?.length ?? 0) > 0) t.resourceClaims = cfg.resourceClaims!.map(copyClaim);
  const mode = compileDisruptionMode(cfg.disruptionMode);
  if (mode !== undefined) t.disruptionMode = mode;
  if (cfg.priorityClassName) t.priorityClassName = cfg.priorityClassName;
  return t;
}

function compileLeaf(item: WorkloadItem): BuildResult<PodGroupTemplate> {
  const cfg = resolveSchedulingConfig(item);
  const policy = compilePolicy(cfg.policy);
  if (!policy.ok) return policy;
  return ok({ name: item.name, schedulingPolicy: policy.value, ...templateFields(cfg, true) });
}

function compileComposite(item: WorkloadItem): BuildResult<CompositePodGroupTemplate> {
  const cfg = resolveSchedulingConfig(item);
  const policy = compileCompositePolicy(cfg.policy);
  if (!policy.ok) return policy;
  const tmpl: CompositePodGroupTemplate = { name: item.name, schedulingPolicy: policy.value, ...(templateFields(cfg, false) as Partial<CompositePodGroupTemplate>) };
  for (const child of item.children ?? []) {
    if (isComposite(child)) {
      const c = compileComposite(child);
      if (!c.ok) return c;
      (tmpl.compositePodGroupTemplates ??= []).push(c.value);
    } else {
      const c = compileLeaf(child);
      if (!c.ok) return c;
      (tmpl.podGroupTemplates ??= []).push(c.value);
    }
  }
  return ok(tmpl);
}

/** `schema.ParseGroupVersion`, returning the group. */
function parseGroupVersion(apiVersion: string): BuildResult<string> {
  if (apiVersion === "" || apiVersion === "/") return ok("");
  const parts = apiVersion.split("/");
  if (parts.length === 1) return ok("");
  if (parts.length === 2) return ok(parts[0]!);
  return fail(`unexpected GroupVersion string: ${apiVersion}`);
}
