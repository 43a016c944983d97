/**
 * A definition evaluated on one workload object: for each component its instances, normalised pod
 * templates, scale, Karmada requirements and totals, and KAI's subtree scale. Evaluated once per object;
 * pods and groups are then worked out against it.
 */
import type { Diagnostic } from "../definition/index.js";
import { POD_SPEC, OBJECT_META } from "../definition/pod-schema.js";
import { addResourceLists, dropZeroResources, formatResourceList, multiplyResourceList, parseResourceList, type ResourceListJSON } from "../quantity/index.js";
import { replicaRequirements } from "../resources/replica-requirements.js";
import type { CompiledComponent, CompiledDefinition, FragmentField } from "./compile.js";
import { FRAGMENT_FIELDS } from "./compile.js";
import type { CompiledExpression } from "./expression.js";
import type { ComponentInstance, ComponentView, PodTemplateSpec, Scale } from "./types.js";
import { isObject } from "./plain.js";

/** What the evaluation of one component gave. */
export interface EvaluatedComponent {
  compiled: CompiledComponent;
  /** Instance ids, or undefined when they could not be read (an error was reported). */
  instanceIds: string[] | undefined;
  /** Scale per instance id; undefined when the component has no scaleDefinition or it failed. */
  scales: Map<string, Scale> | undefined;
  view: ComponentView;
}

/** The definition evaluated on one object. */
export interface WorkloadView {
  definition: CompiledDefinition;
  object: Record<string, unknown>;
  components: Map<string, EvaluatedComponent>;
  diagnostics: Diagnostic[];
}

const POD_SPEC_FIELDS = new Set(Object.keys(POD_SPEC.properties ?? {}));
const OBJECT_META_FIELDS = new Set(Object.keys(OBJECT_META.properties ?? {}));

/** Evaluates every component of the definition on `object`. Never throws. */
export function evaluateWorkload(definition: CompiledDefinition, object: Record<string, unknown>): WorkloadView {
  const diagnostics: Diagnostic[] = [];
  const view: WorkloadView = { definition, object, components: new Map(), diagnostics };
  const namespace = typeof (object.metadata as Record<string, unknown> | undefined)?.namespace === "string" ? ((object.metadata as Record<string, unknown>).namespace as string) : "";
  for (const c of definition.components) view.components.set(c.name, evaluateComponent(c, object, namespace, diagnostics));
  for (const e of view.components.values()) {
    const s = subtreeScale(view, e.compiled.name, undefined);
    if (s.ok) e.view.subtreeScale = s.value;
    else diagnostics.push({ severity: "error", path: e.compiled.path, message: `subtree scale of '${e.compiled.name}': ${s.error}`, code: "scale" });
  }
  return view;
}

function runAll(e: CompiledExpression, object: unknown, diagnostics: Diagnostic[], what: string): unknown[] | undefined {
  const r = e.run(object);
  if (!r.ok) {
    diagnostics.push({ severity: "error", path: e.path, message: `failed to evaluate ${what} '${e.text}': ${r.error}`, code: "jq-eval" });
    return undefined;
  }
  return r.values;
}

function evaluateComponent(c: CompiledComponent, object: Record<string, unknown>, namespace: string, diagnostics: Diagnostic[]): EvaluatedComponent {
  // Fields in reading order (the view is printed as is).
  const view: ComponentView = {
    name: c.name,
    ...(c.definition.kind ? { kind: c.definition.kind } : {}),
    ...(c.parent !== undefined ? { parent: c.parent } : {}),
    children: [...c.children],
    depth: c.depth,
    path: c.path,
    ...(c.specKind ? { specKind: c.specKind } : {}),
    ...(c.definition.podSelector?.componentTypeSelector ? { typeSelector: c.definition.podSelector.componentTypeSelector } : {}),
    instances: [],
    subtreeScale: 0,
  };

  // Instance ids: from instanceIdPath, else one instance with the empty id.
  let instanceIds: string[] | undefined = [""];
  if (c.instanceId) {
    const values = runAll(c.instanceId, object, diagnostics, "instance id path");
    if (values === undefined) instanceIds = undefined;
    else {
      const ids: string[] = [];
      const field = c.instanceId.objectFields(object, values.length);
      for (const [i, raw] of values.entries()) {
        // Go decodes a JSON null into a string as "" (then refused below as an empty id).
        const v = raw === null ? "" : raw;
        if (typeof v !== "string") {
          diagnostics.push({ severity: "error", path: c.instanceId.path, message: `instance id must be a string, got ${JSON.stringify(v)}${field(i)}`, code: "instances" });
          instanceIds = undefined;
          break;
        }
        ids.push(v);
      }
      if (instanceIds !== undefined) {
        if (ids.includes("")) {
          diagnostics.push({ severity: "error", path: c.instanceId.path, message: `instance id path contained empty string values [${ids.join(",")}]`, code: "instances" });
          instanceIds = undefined;
        } else instanceIds = ids;
      }
    }
  }

  // A component without instanceIdPath is one instance: each of its paths gives one value, or none when a
  // select() filters it away (no value, as null). Its pod specification selecting nothing means the
  // component is absent from this object: zero instances, whatever its other paths give.
  const single = !c.instanceId;
  const zip = <T>(results: T[] | undefined, path: string): T[] | undefined => {
    if (results === undefined || instanceIds === undefined) return undefined;
    if (single && results.length === 0) return instanceIds.map(() => undefined as T);
    if (single && instanceIds.length === 0) return [];
    if (instanceIds.length !== results.length) {
      diagnostics.push({
        severity: "error",
        path,
        message: `instance ids count (${instanceIds.length}) does not match results count (${results.length})`,
        code: "instances",
      });
      return undefined;
    }
    return results;
  };

  // Pod templates.
  let templates: (PodTemplateSpec | undefined)[] | undefined;
  /** The expression whose value is null for some instances, and which: warned about below if they run pods. */
  let nullSpec: { e: CompiledExpression; at: Set<number> } | undefined;
  const absentWhenEmpty = (values: unknown[] | undefined): void => {
    if (single && values?.length === 0) instanceIds = [];
  };
  if (c.specKind === "podTemplateSpec" && c.podTemplateSpec) {
    const values = runAll(c.podTemplateSpec, object, diagnostics, "pod template spec path");
    absentWhenEmpty(values);
    templates = zip(values, c.podTemplateSpec.path)?.map((v) => fromTemplate(v));
    nullSpec = nullsOf(values, c.podTemplateSpec);
  } else if (c.specKind === "podSpec" && c.podSpec) {
    const values = runAll(c.podSpec, object, diagnostics, "pod spec path");
    absentWhenEmpty(values);
    const specs = zip(values, c.podSpec.path);
    const metas = c.metadata ? zip(runAll(c.metadata, object, diagnostics, "metadata path"), c.metadata.path) : undefined;
    nullSpec = nullsOf(specs, c.podSpec);
    templates = specs?.map((s, i) => fromPodSpec(s, metas?.[i]));
  } else if (c.specKind === "fragmented") {
    const results: Partial<Record<FragmentField, unknown[]>> = {};
    let count = 0;
    for (const f of FRAGMENT_FIELDS) {
      const e = c.fragments[f];
      if (!e) continue;
      const values = runAll(e, object, diagnostics, "fragmented pod spec path");
      if (values === undefined) continue;
      results[f] = values;
      count = Math.max(count, values.length);
    }
    if (Object.keys(results).length > 0) absentWhenEmpty(Array.from({ length: count }));
    const entries = Array.from({ length: count }, (_, i) => fromFragments(results, i));
    const fragmentPath = `${c.path}.specDefinition.fragmentedPodSpecDefinition`;
    templates = zip(entries, fragmentPath);
  }

  // Scale.
  let scales: Map<string, Scale> | undefined;
  let scaleList: Scale[] | undefined;
  if (c.hasScale) {
    // A count upstream cannot decode (a string, a fraction) fails its scale there, and every subtree scale
    // over it: shown as read, not counted.
    let refused = false;
    const read = (e: CompiledExpression | undefined): (number | undefined)[] | undefined => {
      if (!e) return [];
      const values = runAll(e, object, diagnostics, "scale path");
      if (values === undefined) return undefined;
      const field = e.objectFields(object, values.length);
      return values.map((v, i) => {
        const n = toReplicaCount(v, e, diagnostics, () => field(i));
        if (n === undefined && v !== null && v !== undefined) refused = true;
        return n;
      });
    };
    const replicas = read(c.replicas);
    const min = read(c.minReplicas);
    const max = read(c.maxReplicas);
    if (replicas && min && max) {
      // One instance whose scale paths all select nothing has an empty scale, as with null values.
      const n = Math.max(replicas.length, min.length, max.length, single && instanceIds?.length === 1 ? 1 : 0);
      const list: Scale[] = [];
      for (let i = 0; i < n; i++) {
        const s: Scale = {};
        if (replicas[i] !== undefined) s.replicas = replicas[i]!;
        if (min[i] !== undefined) s.minReplicas = min[i]!;
        if (max[i] !== undefined) s.maxReplicas = max[i]!;
        list.push(s);
      }
      scaleList = zip(list, `${c.path}.scaleDefinition`);
      if (scaleList && instanceIds && !refused) scales = new Map(instanceIds.map((id, i) => [id, scaleList![i]!]));
    }
  }

  // Instances, requirements and totals.
  let componentTotal: ReturnType<typeof parseResourceList>["list"] | undefined;
  for (const [i, id] of (instanceIds ?? []).entries()) {
    const instance: ComponentInstance = { id };
    const template = templates?.[i];
    if (template) instance.podTemplate = template;
    const scale = scaleList?.[i];
    if (scale) instance.scale = scale;
    // A negative count (kept in the scale, with a warning) counts no pods, as a scale counts only above 0.
    const counted = Math.max(0, scale?.replicas ?? scale?.minReplicas ?? 1);
    // An empty pod specification matters where pods are made from it: a role absent from this object
    // (a TFJob without a Chief, its replicas 0) is not a problem.
    if (nullSpec?.at.has(i) && counted > 0) {
      diagnostics.push({ severity: "warning", path: nullSpec.e.path, message: `'${nullSpec.e.text}' yields null on this object: the pod specification is empty`, code: "spec-null" });
      nullSpec = undefined;
    }
    if (template) {
      const req = replicaRequirements(template, namespace);
      for (const issue of req.issues) {
        diagnostics.push({ severity: "error", path: c.path, message: `instance ${JSON.stringify(id)}: pod template ${issue.path}: ${issue.message}`, code: "resources" });
      }
      if (req.value) instance.replicaRequirements = req.value;
      instance.countedReplicas = counted;
      const perReplica = req.value?.resourceRequest;
      if (perReplica) {
        const total = dropZeroResources(multiplyResourceList(parseResourceList(perReplica).list, counted));
        if (Object.keys(total).length > 0) {
          instance.totalRequests = formatResourceList(total);
          componentTotal = componentTotal ? addResourceLists(componentTotal, total) : total;
        }
      }
    }
    view.instances.push(instance);
  }
  if (instanceIds === undefined && scaleList === undefined && templates === undefined) view.instances = [];
  if (componentTotal) view.totalRequests = formatResourceList(componentTotal);
  return { compiled: c, instanceIds, scales, view };
}

/** Where an expression's values are null (by index), or undefined when none is. */
function nullsOf(values: unknown[] | undefined, e: CompiledExpression): { e: CompiledExpression; at: Set<number> } | undefined {
  const at = new Set<number>();
  values?.forEach((v, i) => v === null && at.add(i));
  return at.size > 0 ? { e, at } : undefined;
}

/**
 * A replica count as the reference reads it: JSON into an int32, so a string (an annotation's "2") is
 * refused as a fraction is; a definition converts it (`| tonumber`).
 */
function toReplicaCount(v: unknown, e: CompiledExpression, diagnostics: Diagnostic[], field: () => string): number | undefined {
  if (v === null || v === undefined) return undefined;
  const n = typeof v === "number" ? v : undefined;
  if (n === undefined || !Number.isInteger(n) || n > 2147483647 || n < -2147483648) {
    // A whole number past the int32 range is refused as upstream's decoding refuses it: say that, not "integer".
    const what = n !== undefined && Number.isInteger(n) ? "an int32 replica count (-2147483648 to 2147483647)" : "an integer replica count";
    diagnostics.push({ severity: "error", path: e.path, message: `'${e.text}' must yield ${what}, got ${typeof v === "number" && !Number.isFinite(v) ? `${v} (out of range)` : JSON.stringify(v)}${field()}`, code: "scale" });
    return undefined;
  }
  // Kept, as the reference keeps any int32 (a scale counts only when above 0), but no controller runs a negative count.
  if (n < 0) diagnostics.push({ severity: "warning", path: e.path, message: `'${e.text}' yields a negative replica count (${n}) on this object${field()} (a scale counts only above 0)`, code: "scale-negative" });
  return n;
}

function pickMeta(v: unknown): Record<string, unknown> | undefined {
  if (!isObject(v)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (OBJECT_META_FIELDS.has(k) && x !== null && x !== undefined) out[k] = x;
  return Object.keys(out).length > 0 ? out : undefined;
}

// null decodes into the reference's PodTemplateSpec (or PodSpec) as its zero value: the instance has an
// empty template, as upstream's has.
function fromTemplate(v: unknown): PodTemplateSpec | undefined {
  if (v === null) return { spec: {} };
  if (!isObject(v)) return undefined;
  const out: PodTemplateSpec = { spec: isObject(v.spec) ? v.spec : {} };
  const meta = pickMeta(v.metadata);
  if (meta) out.metadata = meta;
  return out;
}

function fromPodSpec(spec: unknown, meta: unknown): PodTemplateSpec | undefined {
  if (spec === null) spec = {};
  if (!isObject(spec)) return undefined;
  // A podSpecPath may point at a larger object (KServe's component spec): keep the PodSpec fields only.
  const out: PodTemplateSpec = { spec: {} };
  for (const [k, x] of Object.entries(spec)) if (POD_SPEC_FIELDS.has(k)) out.spec[k] = x;
  const m = pickMeta(meta);
  if (m) out.metadata = m;
  return out;
}

/** The partial pod template the fragments of instance `i` describe. */
function fromFragments(results: Partial<Record<FragmentField, unknown[]>>, i: number): PodTemplateSpec {
  const get = (f: FragmentField): unknown => results[f]?.[i] ?? undefined;
  const spec: Record<string, unknown> = {};
  const metadata: Record<string, unknown> = {};
  const labels = get("labelsPath");
  if (isObject(labels)) metadata.labels = labels;
  const annotations = get("annotationsPath");
  if (isObject(annotations)) metadata.annotations = annotations;
  const schedulerName = get("schedulerNamePath");
  if (typeof schedulerName === "string" && schedulerName !== "") spec.schedulerName = schedulerName;
  const priorityClassName = get("priorityClassNamePath");
  if (typeof priorityClassName === "string" && priorityClassName !== "") spec.priorityClassName = priorityClassName;
  const affinity: Record<string, unknown> = {};
  const nodeAffinity = get("nodeAffinityPath");
  if (isObject(nodeAffinity)) affinity.nodeAffinity = nodeAffinity;
  const podAffinity = get("podAffinityPath");
  if (isObject(podAffinity)) affinity.podAffinity = podAffinity;
  if (Object.keys(affinity).length > 0) spec.affinity = affinity;
  const claims = get("resourceClaimsPath");
  if (Array.isArray(claims) && claims.length > 0) spec.resourceClaims = claims;
  const containers: Record<string, unknown>[] = [];
  const listed = get("containersPath");
  if (Array.isArray(listed)) for (const c of listed) if (isObject(c)) containers.push(c);
  const single = get("containerPath");
  if (isObject(single) && !containers.some((c) => c.name !== undefined && c.name === single.name)) containers.push(single);
  const resources = get("resourcesPath");
  const image = get("imagePath");
  if (containers.length === 0 && (isObject(resources) || typeof image === "string")) containers.push({ name: "main" });
  if (containers.length > 0) {
    // Stand-alone resources and image describe the main (first) container when it does not state them.
    const first = { ...containers[0]! };
    if (isObject(resources) && first.resources === undefined) first.resources = resources;
    if (typeof image === "string" && image !== "" && first.image === undefined) first.image = image;
    containers[0] = first;
    spec.containers = containers;
  }
  const out: PodTemplateSpec = { spec };
  if (Object.keys(metadata).length > 0) out.metadata = metadata;
  return out;
}

/** A per-instance effective minimum: minReplicas if > 0, else replicas if > 0, else 0. */
function effectiveMin(s: Scale): number {
  if (s.minReplicas !== undefined && s.minReplicas > 0) return s.minReplicas;
  if (s.replicas !== undefined && s.replicas > 0) return s.replicas;
  return 0;
}

/**
 * KAI's subtree scale of a component (karta.md, "Subtree scale"): with scale definitions, a
 * component's scale (one instance's when `instance` is given for the subtree root, else the sum of its
 * instances) times the sum of its children's, either side standing in when the other is 0; with none
 * anywhere, the number of leaf components (instances) in the subtree. Components in `exclude` are cut
 * off with their subtrees (a subgroup counts without the subgroups nested in it).
 */
export function subtreeScale(
  view: WorkloadView,
  component: string,
  instance: string | undefined,
  exclude: ReadonlySet<string> = new Set(),
): { ok: true; value: number } | { ok: false; error: string } {
  if (instance === "") return { ok: false, error: "instance id is empty" };
  const def = view.definition;
  const seen = new Set<string>();
  const byDefinition = (name: string): number => {
    if (seen.has(name)) throw new Error(`ownership cycle detected involving component ${name}`);
    seen.add(name);
    const e = view.components.get(name);
    if (!e) throw new Error(`component ${name} not found`);
    if (e.compiled.hasScale && e.scales === undefined) throw new Error(`the scale of component ${name} could not be read`);
    let own = 0;
    if (name === component && instance !== undefined) {
      // A component without a scale definition has no scales to find the instance in: upstream fails too.
      const s = e.scales?.get(instance);
      if (!s) throw new Error(`instance id ${instance} not found`);
      own = effectiveMin(s);
    } else if (e.scales) {
      for (const s of e.scales.values()) own += effectiveMin(s);
    }
    const children = e.compiled.children.filter((c) => !exclude.has(c));
    if (children.length === 0) return own;
    let sum = 0;
    for (const child of children) sum += byDefinition(child);
    if (sum === 0) return own;
    if (own === 0) return sum;
    return own * sum;
  };
  const byLeaves = (name: string): number => {
    if (seen.has(name)) throw new Error(`ownership cycle detected involving component ${name}`);
    seen.add(name);
    const e = view.components.get(name);
    if (!e) throw new Error(`component ${name} not found`);
    if (e.compiled.specKind !== undefined) {
      if (!e.compiled.instanceId) return 1;
      const ids = e.instanceIds;
      if (!ids) throw new Error(`the instance ids of component ${name} could not be read`);
      if (name === component && instance !== undefined) {
        if (ids.includes(instance)) return 1;
        throw new Error(`instance id ${instance} not found`);
      }
      return ids.length;
    }
    let count = 0;
    for (const child of e.compiled.children) if (!exclude.has(child)) count += byLeaves(child);
    return count;
  };
  try {
    return { ok: true, value: def.hasScaleDefinition ? byDefinition(component) : byLeaves(component) };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/** The sum of the components' totals. */
export function workloadTotal(view: WorkloadView): ResourceListJSON | undefined {
  const lists = [...view.components.values()].map((e) => e.view.totalRequests).filter((l): l is ResourceListJSON => l !== undefined);
  if (lists.length === 0) return undefined;
  return formatResourceList(addResourceLists(...lists.map((l) => parseResourceList(l).list)));
}
