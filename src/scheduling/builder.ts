/**
 * The workload builder: compiles a controller's {@link WorkloadItem} tree into a
 * `scheduling.k8s.io/v1beta1` Workload and materializes runtime PodGroups (v1beta1) and
 * CompositePodGroups (v1alpha3) from it, with the same shape and semantics as Kubernetes'
 * `k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder`:
 *
 * - {@link WorkloadBuilder.validate} returns field errors: per node, declarative validation of the
 *   user's blocks (unless disabled; on update against the old tree, with ratcheting and the
 *   frozen fields), the allow-lists, and the cross-field rules (no `all` disruption with the basic
 *   policy; under an `all` composite only `all` children), plus the tree limits (names unique and
 *   DNS labels, at most 8 templates per list, depth at most 4);
 * - {@link WorkloadBuilder.buildWorkload} compiles (result cached) and does not validate;
 * - {@link WorkloadBuilder.newPodGroup} / {@link WorkloadBuilder.newCompositePodGroup} copy a
 *   template into a runtime group owned by the builder's owner.
 *
 * Failures are values: validation returns a list, the other calls a {@link BuildResult}.
 */

import {
  validateBlockPresence,
  validateConstraintsBlock,
  validateDisruptionModeBlock,
  validateImmutable,
  validatePolicyBlock,
  validateResourceClaimsBlock,
  type Old,
} from "./blocks.js";
import {
  checkWorkloadItemTree,
  isComposite,
  itemPath,
  resolveSchedulingConfig,
  type BlockInput,
  type SchedulingConfig,
  type WorkloadItem,
} from "./config.js";
import { childPath, forbidden, internal, invalid, tooMany, type FieldError } from "./fielderrors.js";
import { isDNS1123Label } from "../names/index.js";
import { generatePodGroupName } from "./naming.js";
import {
  SCHEDULING_V1ALPHA3,
  SCHEDULING_V1BETA1,
  WORKLOAD_MAX_POD_GROUP_TEMPLATES,
  WORKLOAD_MAX_TREE_DEPTH,
  type CompositePodGroup,
  type CompositePodGroupSchedulingPolicy,
  type CompositePodGroupSpec,
  type CompositePodGroupTemplate,
  type DisruptionMode,
  type OwnerReference,
  type PodGroup,
  type PodGroupSchedulingPolicy,
  type PodGroupSpec,
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

/** Extra links of a runtime group to its place in a hierarchy. */
export interface GroupPlacement {
  /** Name of the parent CompositePodGroup instance. */
  parentCompositePodGroupName?: string;
}

/** The runtime groups of one Workload instance, parents before children. */
export interface GroupHierarchy {
  compositePodGroups: CompositePodGroup[];
  podGroups: PodGroup[];
}

const ok = <T>(value: T): BuildResult<T> => ({ ok: true, value });
const fail = <T>(error: string): BuildResult<T> => ({ ok: false, error });

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
    return new WorkloadBuilder(root, options, undefined);
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
      return [internal("", "cannot validate a builder constructed from an existing workload")];
    }
    if (this.root === undefined) return [invalid("", null, "invalid builder: missing root WorkloadItem")];
    const rootPath = itemPath(this.root);
    const oldRoot = input.oldRoot;
    // Pairing unrelated trees is a caller bug, not a user error.
    if (oldRoot !== undefined && oldRoot.name !== this.root.name) {
      return [internal(rootPath, `old root name ${JSON.stringify(oldRoot.name)} does not match new root name ${JSON.stringify(this.root.name)}`)];
    }
    const treeErr = checkWorkloadItemTree(this.root);
    if (treeErr !== undefined) return [internal(rootPath, treeErr)];
    return this.validateItem(this.root, oldRoot, oldRoot !== undefined, 1, undefined);
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

  /**
   * A runtime PodGroup from the named PodGroupTemplate (searched through the whole tree), in the
   * Workload's namespace, owned by the builder's owner.
   */
  newPodGroup(podGroupName: string, templateName: string, placement: GroupPlacement = {}): BuildResult<PodGroup> {
    const found = this.findTemplate("leaves", templateName);
    if (!found.ok) return found;
    const { workload, template: tmpl } = found.value;
    const pg: PodGroup = {
      apiVersion: SCHEDULING_V1BETA1,
      kind: "PodGroup",
      metadata: this.groupMetadata(podGroupName, workload),
      spec: runtimeSpec(tmpl, workload, placement),
    };
    return ok(pg);
  }

  /**
   * A runtime CompositePodGroup from the named CompositePodGroupTemplate (searched recursively).
   * The parent link is set from `placement`; creating the children is left to the caller.
   */
  newCompositePodGroup(name: string, templateName: string, placement: GroupPlacement = {}): BuildResult<CompositePodGroup> {
    const found = this.findTemplate("composites", templateName);
    if (!found.ok) return found;
    const { workload, template: tmpl } = found.value;
    const cpg: CompositePodGroup = {
      apiVersion: SCHEDULING_V1ALPHA3,
      kind: "CompositePodGroup",
      metadata: this.groupMetadata(name, workload),
      spec: runtimeSpec(tmpl, workload, placement),
    };
    return ok(cpg);
  }

  /**
   * Every runtime group of one instance of the Workload, top-down as controllers create them:
   * each CompositePodGroup before its children, children linked to their parent instance.
   * `nameFor` names the group of a template (default: {@link generatePodGroupName} of the
   * Workload and template names; pass a suffixing function for several instances).
   */
  newGroupHierarchy(nameFor?: (templateName: string) => string): BuildResult<GroupHierarchy> {
    const wl = this.resolveWorkload();
    if (!wl.ok) return wl;
    const workloadName = wl.value.metadata.name ?? "";
    const name = nameFor ?? ((t: string) => generatePodGroupName(workloadName, t));
    const out: GroupHierarchy = { compositePodGroups: [], podGroups: [] };
    const addLeaves = (list: PodGroupTemplate[] | undefined, parent: string | undefined): string | undefined => {
      for (const t of list ?? []) {
        const pg = this.newPodGroup(name(t.name), t.name, parent === undefined ? {} : { parentCompositePodGroupName: parent });
        if (!pg.ok) return pg.error;
        out.podGroups.push(pg.value);
      }
      return undefined;
    };
    const addComposites = (list: CompositePodGroupTemplate[] | undefined, parent: string | undefined): string | undefined => {
      for (const t of list ?? []) {
        const cpg = this.newCompositePodGroup(name(t.name), t.name, parent === undefined ? {} : { parentCompositePodGroupName: parent });
        if (!cpg.ok) return cpg.error;
        out.compositePodGroups.push(cpg.value);
        const self = cpg.value.metadata.name;
        const err = addLeaves(t.podGroupTemplates, self) ?? addComposites(t.compositePodGroupTemplates, self);
        if (err !== undefined) return err;
      }
      return undefined;
    };
    const err = addLeaves(wl.value.spec.podGroupTemplates, undefined) ?? addComposites(wl.value.spec.compositePodGroupTemplates, undefined);
    return err === undefined ? ok(out) : fail(err);
  }

  // ------------------------------------------------------------ internals

  private resolveWorkload(): BuildResult<Workload> {
    if (this.existingWorkload !== undefined) return ok(this.existingWorkload);
    if (this.workload === undefined) return fail("no Workload available: call BuildWorkload or use NewBuilderFromExistingWorkload first");
    return ok(this.workload);
  }

  /** The Workload and its (composite) template of that name, searched through the whole tree. */
  private findTemplate<L extends keyof TemplateIndex>(level: L, templateName: string): BuildResult<{ workload: Workload; template: TemplateIn<L> }> {
    const wl = this.resolveWorkload();
    if (!wl.ok) return wl;
    const templates: Map<string, PodGroupTemplate | CompositePodGroupTemplate> = collectTemplates(wl.value)[level];
    const template = templates.get(templateName);
    if (template === undefined) {
      const what = level === "leaves" ? "podGroupTemplate" : "compositePodGroupTemplate";
      return fail(`${what} ${JSON.stringify(templateName)} not found in workload ${JSON.stringify(wl.value.metadata.name ?? "")} (have [${[...templates.keys()].join(" ")}])`);
    }
    return ok({ workload: wl.value, template: template as TemplateIn<L> });
  }

  private groupMetadata(name: string, workload: Workload): PodGroup["metadata"] {
    const meta: PodGroup["metadata"] = { name };
    if (workload.metadata.namespace !== undefined) meta.namespace = workload.metadata.namespace;
    if (this.options.owner !== undefined) meta.ownerReferences = [{ ...this.options.owner }];
    return meta;
  }

  private build(): BuildResult<Workload> {
    if (this.root === undefined) return fail("invalid builder: missing root WorkloadItem");
    const treeErr = checkWorkloadItemTree(this.root);
    if (treeErr !== undefined) return fail(treeErr);
    const spec: Workload["spec"] = {};
    if (isComposite(this.root)) {
      const t = compileComposite(this.root);
      if (!t.ok) return t;
      spec.compositePodGroupTemplates = [t.value];
    } else {
      const t = compileLeaf(this.root);
      if (!t.ok) return t;
      spec.podGroupTemplates = [t.value];
    }
    const owner = this.options.owner;
    if (owner === undefined) return fail("a Workload must be owned by its controller for garbage collection");
    const gv = parseGroupVersion(owner.apiVersion);
    if (!gv.ok) return fail(`invalid owner apiVersion ${JSON.stringify(owner.apiVersion)}: ${gv.error}`);
    const metadata: Workload["metadata"] = { name: this.options.name ?? "" };
    if (this.options.namespace !== undefined) metadata.namespace = this.options.namespace;
    metadata.ownerReferences = [{ ...owner }];
    return ok({
      apiVersion: SCHEDULING_V1BETA1,
      kind: "Workload",
      metadata,
      spec: { controllerRef: { apiGroup: gv.value, kind: owner.kind, name: owner.name }, ...spec },
    });
  }

  private validateItem(
    item: WorkloadItem,
    oldItem: WorkloadItem | undefined,
    isUpdate: boolean,
    depth: number,
    parentConfig: SchedulingConfig | undefined,
  ): FieldError[] {
    const errs: FieldError[] = [];
    const path = itemPath(item);
    if (!this.options.disableDeclarativeValidation) errs.push(...validateItemDeclarative(item, oldItem));

    // Tree limits the compiled Workload must satisfy.
    for (const m of isDNS1123Label(item.name)) errs.push(invalid(path, item.name, m, "format=k8s-short-name"));
    // As the API server: a tree too deep is reported once, at its top-level template.
    if (depth === 1 && itemDepth(item) > WORKLOAD_MAX_TREE_DEPTH) {
      errs.push(invalid(path, null, `maximum template hierarchy depth is ${WORKLOAD_MAX_TREE_DEPTH}`));
    }
    if (depth > WORKLOAD_MAX_TREE_DEPTH) return errs;
    const children = item.children ?? [];
    const leafCount = children.filter((c) => !isComposite(c)).length;
    const compositeCount = children.length - leafCount;
    if (leafCount > WORKLOAD_MAX_POD_GROUP_TEMPLATES) errs.push(tooMany(childPath(path, "podGroupTemplates"), leafCount, WORKLOAD_MAX_POD_GROUP_TEMPLATES));
    if (compositeCount > WORKLOAD_MAX_POD_GROUP_TEMPLATES) {
      errs.push(tooMany(childPath(path, "compositePodGroupTemplates"), compositeCount, WORKLOAD_MAX_POD_GROUP_TEMPLATES));
    }

    const resolved = resolveSchedulingConfig(item);
    const policyPath = blockPath(item, item.input?.policy);
    const modePath = blockPath(item, item.input?.disruptionMode);
    const policy = resolved.policy;
    const allowedPolicies = this.options.allowedPolicies ?? [];
    if (policy?.basic !== undefined && !allowedPolicies.includes(BasicPolicy)) {
      errs.push(forbidden(policyPath, "basic scheduling policy is not supported by this controller"));
    }
    if (policy?.gang !== undefined && !allowedPolicies.includes(GangPolicy)) {
      errs.push(forbidden(policyPath, "gang scheduling policy is not supported by this controller"));
    }
    const mode = resolved.disruptionMode;
    const allowedModes = this.options.allowedDisruptionModes ?? [];
    if (mode?.single !== undefined && !allowedModes.includes(SingleMode)) {
      errs.push(forbidden(modePath, "the disruptionMode `single` is not supported by this controller"));
    }
    if (mode?.all !== undefined && !allowedModes.includes(AllMode)) {
      errs.push(forbidden(modePath, "the disruptionMode `all` is not supported by this controller"));
    }
    // A group scheduled pod by pod has no group-level unit to disrupt.
    if (policy?.basic !== undefined && mode?.all !== undefined) {
      errs.push(invalid(modePath, "", "the disruptionMode `all` is not supported with the Basic scheduling policy"));
    }
    // The preemption unit must not shrink below the parent's: under `all`, children are `all` too.
    if (parentConfig?.disruptionMode?.all !== undefined && mode?.all === undefined) {
      errs.push(invalid(modePath, "", "the disruptionMode `single` is not supported under a parent with the disruptionMode `all`"));
    }

    // Children are matched with their previous selves by name, at this level only.
    const oldChildren = new Map((oldItem?.children ?? []).map((c) => [c.name, c] as const));
    for (const child of children) {
      const oldChild = oldChildren.get(child.name);
      if (isUpdate && oldItem !== undefined && oldChild === undefined && !this.options.disableDeclarativeValidation) {
        errs.push(forbidden(itemPath(child), "item may not be added", "update"));
      }
      errs.push(...this.validateItem(child, oldChild, isUpdate, depth + 1, resolved));
    }
    if (isUpdate && oldItem !== undefined && !this.options.disableDeclarativeValidation) {
      const names = new Set(children.map((c) => c.name));
      for (const oldChild of oldItem.children ?? []) {
        if (!names.has(oldChild.name)) errs.push(forbidden(path, "item may not be removed", "update"));
      }
    }
    return errs;
  }
}

/** A builder for a tree (upstream's `NewBuilder`). */
/** Levels of an item's subtree, the item itself being 1. */
function itemDepth(item: WorkloadItem): number {
  return 1 + Math.max(0, ...(item.children ?? []).map(itemDepth));
}

export function newBuilder(root: WorkloadItem, options: BuildOptions): WorkloadBuilder {
  return WorkloadBuilder.fromItems(root, options);
}

/** A builder over a stored Workload (upstream's `NewBuilderFromExistingWorkload`). */
export function fromExistingWorkload(workload: Workload, options: BuildOptions): WorkloadBuilder {
  return WorkloadBuilder.fromExistingWorkload(workload, options);
}

// ---------------------------------------------------------------- validation of one item

function blockPath(item: WorkloadItem, block: { pathElements?: string[] } | undefined): string {
  return childPath(itemPath(item), ...(block?.pathElements ?? []));
}

/** `{value}` of the old block when the item existed before, else undefined (a create). */
function oldOf<T>(oldItem: WorkloadItem | undefined, get: (i: WorkloadItem) => T | undefined): Old<T> {
  return oldItem === undefined ? undefined : { value: get(oldItem) };
}

function validateItemDeclarative(item: WorkloadItem, oldItem: WorkloadItem | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const composite = isComposite(item);
  const input = item.input;
  const pick = <L, C>(b: BlockInput<L, C> | undefined): L | C | undefined => (composite ? b?.compositePodGroupData : b?.podGroupData);

  const policyPath = blockPath(item, input?.policy);
  const policy = pick(input?.policy) as { basic?: object; gang?: Record<string, number | undefined> } | undefined;
  const oldPolicy = oldOf(oldItem, (o) => pick(o.input?.policy) as typeof policy);
  if (oldPolicy !== undefined) errs.push(...validateBlockPresence(policyPath, policy !== undefined, oldPolicy.value !== undefined));
  if (policy !== undefined) errs.push(...validatePolicyBlock(policyPath, policy, composite ? "minGroupCount" : "minCount", oldPolicy));

  const constraintsPath = blockPath(item, input?.constraints);
  const constraints = pick(input?.constraints);
  const oldConstraints = oldOf(oldItem, (o) => pick(o.input?.constraints));
  errs.push(...validateImmutable(constraintsPath, constraints, oldConstraints));
  if (constraints !== undefined) errs.push(...validateConstraintsBlock(constraintsPath, constraints, oldConstraints));

  const modePath = blockPath(item, input?.disruptionMode);
  const mode = pick(input?.disruptionMode);
  const oldMode = oldOf(oldItem, (o) => pick(o.input?.disruptionMode));
  errs.push(...validateImmutable(modePath, mode, oldMode));
  if (mode !== undefined) errs.push(...validateDisruptionModeBlock(modePath, mode, oldMode));

  if (!composite) {
    const claimsPath = blockPath(item, input?.resourceClaims);
    const claims = input?.resourceClaims?.podGroupData ?? [];
    const oldClaims = oldOf(oldItem, (o) => o.input?.resourceClaims?.podGroupData ?? []);
    errs.push(...validateImmutable(claimsPath, claims, oldClaims));
    if (claims.length > 0) errs.push(...validateResourceClaimsBlock(claimsPath, claims, oldClaims));
  }
  return errs;
}

// ---------------------------------------------------------------- compilation

function compilePolicy(policy: SchedulingConfig["policy"]): BuildResult<PodGroupSchedulingPolicy> {
  // Absent, basic, or an empty policy all compile to basic; the union itself is the API's to enforce.
  if (policy?.gang === undefined) return ok({ basic: {} });
  if (policy.gang.minCount === undefined) return fail("gang scheduling requires minCount to be set after resolution");
  return ok({ gang: { minCount: policy.gang.minCount } });
}

function compileCompositePolicy(policy: SchedulingConfig["policy"]): BuildResult<CompositePodGroupSchedulingPolicy> {
  if (policy?.gang === undefined) return ok({ basic: {} });
  if (policy.gang.minCount === undefined) return fail("composite gang scheduling requires minGroupCount to be set after resolution");
  return ok({ gang: { minGroupCount: policy.gang.minCount } });
}

function compileDisruptionMode(mode: SchedulingConfig["disruptionMode"]): DisruptionMode | undefined {
  if (mode?.all !== undefined) return { all: {} };
  if (mode?.single !== undefined) return { single: {} };
  return undefined;
}

function compileLeaf(item: WorkloadItem): BuildResult<PodGroupTemplate> {
  const cfg = resolveSchedulingConfig(item);
  const policy = compilePolicy(cfg.policy);
  if (!policy.ok) return policy;
  const tmpl: PodGroupTemplate = { name: item.name, schedulingPolicy: policy.value };
  if (cfg.constraints !== undefined && cfg.constraints.topology.length > 0) {
    tmpl.schedulingConstraints = { topology: cfg.constraints.topology.map((t) => ({ key: t.key })) };
  }
  const mode = compileDisruptionMode(cfg.disruptionMode);
  if (mode !== undefined) tmpl.disruptionMode = mode;
  if (cfg.resourceClaims !== undefined && cfg.resourceClaims.length > 0) tmpl.resourceClaims = structuredClone(cfg.resourceClaims);
  if (cfg.priorityClassName) tmpl.priorityClassName = cfg.priorityClassName;
  return ok(tmpl);
}

function compileComposite(item: WorkloadItem): BuildResult<CompositePodGroupTemplate> {
  const cfg = resolveSchedulingConfig(item);
  const policy = compileCompositePolicy(cfg.policy);
  if (!policy.ok) return policy;
  const tmpl: CompositePodGroupTemplate = { name: item.name, schedulingPolicy: policy.value };
  if (cfg.priorityClassName) tmpl.priorityClassName = cfg.priorityClassName;
  if (cfg.constraints !== undefined && cfg.constraints.topology.length > 0) {
    tmpl.schedulingConstraints = { topology: cfg.constraints.topology.map((t) => ({ key: t.key })) };
  }
  const mode = compileDisruptionMode(cfg.disruptionMode);
  if (mode !== undefined) tmpl.disruptionMode = mode;
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

/** The templates of a Workload by name, as {@link collectTemplates} finds them. */
type TemplateIndex = ReturnType<typeof collectTemplates>;
/** A leaf or composite template, by the index it is in. */
type TemplateIn<L extends keyof TemplateIndex> = TemplateIndex[L] extends Map<string, infer T> ? T : never;

/** Every template of a Workload by name, leaves and composites apart, in pre-order. */
export function collectTemplates(workload: Workload): {
  leaves: Map<string, PodGroupTemplate>;
  composites: Map<string, CompositePodGroupTemplate>;
} {
  const leaves = new Map<string, PodGroupTemplate>();
  const composites = new Map<string, CompositePodGroupTemplate>();
  for (const t of workload.spec.podGroupTemplates ?? []) leaves.set(t.name, t);
  const walk = (list: CompositePodGroupTemplate[] | undefined) => {
    for (const c of list ?? []) {
      composites.set(c.name, c);
      for (const t of c.podGroupTemplates ?? []) leaves.set(t.name, t);
      walk(c.compositePodGroupTemplates);
    }
  };
  walk(workload.spec.compositePodGroupTemplates);
  return { leaves, composites };
}

/**
 * A runtime group's spec: its links to the Workload's template (and to its parent group), then copies of
 * the template's scheduling fields (empty claim lists and priority class names left out).
 */
function runtimeSpec(tmpl: PodGroupTemplate, workload: Workload, placement: GroupPlacement): PodGroupSpec;
function runtimeSpec(tmpl: CompositePodGroupTemplate, workload: Workload, placement: GroupPlacement): CompositePodGroupSpec;
function runtimeSpec(tmpl: PodGroupTemplate | CompositePodGroupTemplate, workload: Workload, placement: GroupPlacement): PodGroupSpec | CompositePodGroupSpec {
  const spec: Record<string, unknown> = {};
  if (placement.parentCompositePodGroupName !== undefined) spec.parentCompositePodGroupName = placement.parentCompositePodGroupName;
  spec.workloadRef = { workloadName: workload.metadata.name ?? "", templateName: tmpl.name };
  spec.schedulingPolicy = structuredClone(tmpl.schedulingPolicy);
  for (const k of ["schedulingConstraints", "disruptionMode", "priority", "preemptionPolicy"] as const) if (tmpl[k] !== undefined) spec[k] = structuredClone(tmpl[k]);
  if ("resourceClaims" in tmpl && tmpl.resourceClaims !== undefined && tmpl.resourceClaims.length > 0) spec.resourceClaims = structuredClone(tmpl.resourceClaims);
  if (tmpl.priorityClassName) spec.priorityClassName = tmpl.priorityClassName;
  return spec as unknown as PodGroupSpec | CompositePodGroupSpec;
}
