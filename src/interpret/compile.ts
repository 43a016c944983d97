/**
 * Compiling a definition for interpretation: every jq expression once, the component tree, and the
 * pod-group candidates per component. The result is reused for every object and pod.
 */
import type {
  ComponentDefinition,
  Diagnostic,
  FragmentedPodSpecDefinition,
  Karta,
  PathSegment,
  PodGroupMember,
  StatusMappingKey,
  StatusMatcher,
} from "../definition/index.js";
import { formatPath } from "../definition/diagnostic.js";
import { CompiledExpression } from "./expression.js";
import { isObject, listOf } from "./plain.js";
import type { JqProgram } from "../jq/index.js";
import type { GenericStatus, SpecKind } from "./types.js";

/** The fragmented pod-spec fields, in the order the reference reads them. */
export const FRAGMENT_FIELDS = [
  "schedulerNamePath",
  "labelsPath",
  "annotationsPath",
  "resourcesPath",
  "resourceClaimsPath",
  "podAffinityPath",
  "nodeAffinityPath",
  "containersPath",
  "containerPath",
  "priorityClassNamePath",
  "imagePath",
] as const satisfies readonly (keyof FragmentedPodSpecDefinition)[];
export type FragmentField = (typeof FRAGMENT_FIELDS)[number];

/** Status mapping keys in the order the reference evaluates them (StatusMappings.Entries). */
export const STATUS_ORDER: readonly [StatusMappingKey, GenericStatus][] = [
  ["resuming", "Resuming"],
  ["suspending", "Suspending"],
  ["suspended", "Suspended"],
  ["running", "Running"],
  ["failed", "Failed"],
  ["completed", "Completed"],
  ["initializing", "Initializing"],
  ["degraded", "Degraded"],
];

export interface CompiledAction {
  expr: CompiledExpression;
  value: unknown;
  path: string;
}

export interface CompiledMatcher {
  matcher: StatusMatcher;
  path: string;
  expression?: CompiledExpression;
  /**
   * The reference's comparison as text, `(EXPRESSION) | tostring == "EXPECTED"`, when the expected
   * result holds a quote or backslash (which the text then reads differently); otherwise the first
   * output's tostring is compared, which is the same.
   */
  comparison?: CompiledExpression;
}

export interface CompiledStatus {
  phase?: CompiledExpression;
  conditions?: CompiledExpression;
  typeField: string;
  statusField: string;
  messageField?: string;
  reasonField?: string;
  mappings: { key: StatusMappingKey; status: GenericStatus; matchers: CompiledMatcher[] }[];
}

/** A component with its expressions compiled. */
export interface CompiledComponent {
  definition: ComponentDefinition;
  name: string;
  segments: PathSegment[];
  path: string;
  parent?: string;
  children: string[];
  depth: number;
  specKind?: SpecKind;
  podTemplateSpec?: CompiledExpression;
  podSpec?: CompiledExpression;
  metadata?: CompiledExpression;
  fragments: Partial<Record<FragmentField, CompiledExpression>>;
  replicas?: CompiledExpression;
  minReplicas?: CompiledExpression;
  maxReplicas?: CompiledExpression;
  hasScale: boolean;
  instanceId?: CompiledExpression;
  typeKey?: CompiledExpression;
  typeValue?: string;
  /**
   * The reference's equality test, `KEYPATH == "VALUE"` as text (so `A // "x" == "v"` is
   * `A // ("x" == "v")`), when the key path is not a plain path (for which it is the outputs' equality).
   */
  typeEquals?: CompiledExpression;
  matchLabels?: Record<string, string>;
  hasTypeSelector: boolean;
  instanceSelector?: CompiledExpression;
  replicaSelector?: CompiledExpression;
  suspend: CompiledAction[];
  resume: CompiledAction[];
  status?: CompiledStatus;
}

/** A pod-group member a pod of some component may fall under. */
export interface GroupCandidate {
  group: string;
  groupIndex: number;
  memberIndex: number;
  member: PodGroupMember;
  memberComponent: string;
  keys: CompiledExpression[];
  filters: CompiledExpression[];
}

/** A definition ready to interpret objects: compile once, use for every object and pod. */
export interface CompiledDefinition {
  karta: Karta;
  components: CompiledComponent[];
  byName: Map<string, CompiledComponent>;
  root: CompiledComponent | undefined;
  /** Components that define pods, root first then children in order (the reference's leaves). */
  leaves: CompiledComponent[];
  /** Whether any component has a scaleDefinition (else subtree scale counts leaves). */
  hasScaleDefinition: boolean;
  /** Per component: the pod-group members it may fall under, its own first, then its ancestors'. */
  candidates: Map<string, GroupCandidate[]>;
  /** Newer format: the podGroup's grouping keys (on the Pod) and its minSubGroupPath (on the workload). */
  podGroupKeys: CompiledExpression[];
  minSubGroup?: CompiledExpression;
  /** Problems found while compiling (expressions that do not compile, broken references). */
  diagnostics: Diagnostic[];
}

const STRUCTURE: PathSegment[] = ["spec", "structureDefinition"];

/** Compiles every expression of a definition once. Never throws: problems become diagnostics. */
export function compileDefinition(karta: Karta): CompiledDefinition {
  const diagnostics: Diagnostic[] = [];
  const programs = new Map<string, JqProgram | Error>();
  const expr = (text: string | undefined, segments: PathSegment[], literalWord = false): CompiledExpression | undefined => {
    if (typeof text !== "string") return undefined;
    const e = new CompiledExpression(text, segments, { literalWord, programs });
    if (e.compileError !== undefined) {
      diagnostics.push({ severity: "error", path: e.path, message: `jq: failed to parse JQ expression '${text}': ${e.compileError}`, code: "jq-parse" });
    }
    return e;
  };

  const structure = karta?.spec?.structureDefinition;
  const definitions: { def: ComponentDefinition; segments: PathSegment[] }[] = [];
  if (structure?.rootComponent) definitions.push({ def: structure.rootComponent, segments: [...STRUCTURE, "rootComponent"] });
  listOf(structure?.childComponents).forEach((def, i) => definitions.push({ def, segments: [...STRUCTURE, "childComponents", i] }));

  const components: CompiledComponent[] = [];
  const byName = new Map<string, CompiledComponent>();
  for (const { def, segments } of definitions) {
    if (!def || typeof def.name !== "string") continue;
    const at = (...rest: PathSegment[]): PathSegment[] => [...segments, ...rest];
    const spec = def.specDefinition;
    let specKind: SpecKind | undefined;
    if (spec?.podTemplateSpecPath !== undefined) specKind = "podTemplateSpec";
    else if (spec?.podSpecPath !== undefined) specKind = "podSpec";
    else if (spec?.fragmentedPodSpecDefinition !== undefined) specKind = "fragmented";
    const fragments: Partial<Record<FragmentField, CompiledExpression>> = {};
    const fragmented = spec?.fragmentedPodSpecDefinition;
    if (fragmented) {
      for (const f of FRAGMENT_FIELDS) {
        const e = expr(fragmented[f], at("specDefinition", "fragmentedPodSpecDefinition", f));
        if (e) fragments[f] = e;
      }
    }
    const selector = def.podSelector;
    const type = selector?.componentTypeSelector;
    const c: CompiledComponent = {
      definition: def,
      name: def.name,
      segments,
      path: formatPath(segments),
      children: [],
      depth: 0,
      fragments,
      hasScale: def.scaleDefinition !== undefined,
      hasTypeSelector: isObject(type) && (type.keyPath !== undefined || type.matchLabels !== undefined),
      suspend: [],
      resume: [],
    };
    if (specKind) c.specKind = specKind;
    if (def.ownerRef !== undefined) c.parent = def.ownerRef;
    const set = <K extends keyof CompiledComponent>(key: K, v: CompiledComponent[K] | undefined): void => {
      if (v !== undefined) c[key] = v;
    };
    set("podTemplateSpec", expr(spec?.podTemplateSpecPath, at("specDefinition", "podTemplateSpecPath")));
    set("podSpec", expr(spec?.podSpecPath, at("specDefinition", "podSpecPath")));
    set("metadata", expr(spec?.metadataPath, at("specDefinition", "metadataPath")));
    set("replicas", expr(def.scaleDefinition?.replicasPath, at("scaleDefinition", "replicasPath")));
    set("minReplicas", expr(def.scaleDefinition?.minReplicasPath, at("scaleDefinition", "minReplicasPath")));
    set("maxReplicas", expr(def.scaleDefinition?.maxReplicasPath, at("scaleDefinition", "maxReplicasPath")));
    set("instanceId", expr(def.instanceIdPath, at("instanceIdPath")));
    set("typeKey", expr(type?.keyPath, at("podSelector", "componentTypeSelector", "keyPath")));
    set("typeValue", type?.value);
    if (c.typeKey?.program && !c.typeKey.isPlainPath && typeof type?.value === "string") {
      c.typeEquals = new CompiledExpression(`${type.keyPath} == ${JSON.stringify(type.value)}`, at("podSelector", "componentTypeSelector", "keyPath"), { programs });
    }
    set("matchLabels", type?.matchLabels);
    set("instanceSelector", expr(selector?.componentInstanceSelector?.idPath, at("podSelector", "componentInstanceSelector", "idPath")));
    set("replicaSelector", expr(selector?.replicaSelector?.keyPath, at("podSelector", "replicaSelector", "keyPath")));
    const actions = (list: unknown, key: "suspendActions" | "resumeActions"): CompiledAction[] => {
      if (!Array.isArray(list)) return [];
      const out: CompiledAction[] = [];
      list.forEach((a: { path?: string; value?: unknown }, i) => {
        const e = expr(a?.path, at("suspendDefinition", key, i, "path"));
        if (e) out.push({ expr: e, value: a.value, path: formatPath(at("suspendDefinition", key, i)) });
      });
      return out;
    };
    c.suspend = actions(def.suspendDefinition?.suspendActions, "suspendActions");
    c.resume = actions(def.suspendDefinition?.resumeActions, "resumeActions");
    if (def.statusDefinition) c.status = compileStatus(def, at, expr);
    if (byName.has(c.name)) {
      diagnostics.push({ severity: "error", path: c.path, message: `component name ${c.name} is not unique`, code: "structure" });
      continue;
    }
    byName.set(c.name, c);
    components.push(c);
  }

  const root = components[0] && components[0].segments.includes("rootComponent") ? components[0] : undefined;
  for (const c of components) {
    if (c === root || c.parent === undefined) continue;
    const parent = byName.get(c.parent);
    if (!parent) {
      diagnostics.push({ severity: "error", path: `${c.path}.ownerRef`, message: `child component '${c.name}' has owner ref to non-existing component '${c.parent}'`, code: "structure" });
      continue;
    }
    parent.children.push(c.name);
  }
  for (const c of components) {
    let depth = 0;
    const seen = new Set<string>([c.name]);
    for (let p = c.parent; p !== undefined; p = byName.get(p)?.parent) {
      if (seen.has(p)) {
        diagnostics.push({ severity: "error", path: `${c.path}.ownerRef`, message: `ownership cycle detected involving component ${c.name}`, code: "structure" });
        break;
      }
      seen.add(p);
      depth++;
    }
    c.depth = depth;
  }

  const leaves = components.filter((c) => c.specKind !== undefined);
  const hasScaleDefinition = components.some((c) => c.hasScale);
  const candidates = compileCandidates(karta, byName, expr, diagnostics);
  const compiled: CompiledDefinition = { karta, components, byName, root, leaves, hasScaleDefinition, candidates, podGroupKeys: [], diagnostics };
  const podGroup = karta?.spec?.optimizationInstructions?.gangScheduling?.podGroup;
  const pgPath: PathSegment[] = ["spec", "optimizationInstructions", "gangScheduling", "podGroup"];
  listOf(podGroup?.groupByKeyPaths).forEach((k, i) => {
    const e = expr(k, [...pgPath, "groupByKeyPaths", i], true);
    if (e) compiled.podGroupKeys.push(e);
  });
  const minSub = expr(podGroup?.minSubGroupPath, [...pgPath, "minSubGroupPath"]);
  if (minSub) compiled.minSubGroup = minSub;
  return compiled;
}

function compileStatus(
  def: ComponentDefinition,
  at: (...rest: PathSegment[]) => PathSegment[],
  expr: (text: string | undefined, segments: PathSegment[]) => CompiledExpression | undefined,
): CompiledStatus {
  const sd = def.statusDefinition!;
  const status: CompiledStatus = {
    // An explicit "" names the field "" (upstream reads that key); only an absent name takes the CRD's default.
    typeField: sd.conditionsDefinition?.typeFieldName ?? "type",
    statusField: sd.conditionsDefinition?.statusFieldName ?? "status",
    mappings: [],
  };
  const phase = expr(sd.phaseDefinition?.path, at("statusDefinition", "phaseDefinition", "path"));
  if (phase) status.phase = phase;
  const conditions = expr(sd.conditionsDefinition?.path, at("statusDefinition", "conditionsDefinition", "path"));
  if (conditions) status.conditions = conditions;
  // The CRD's defaults (message, reason), which the API server writes into every stored Karta: a
  // definition read from a file reads the same fields as the one read back from a cluster.
  const cd = sd.conditionsDefinition;
  if (cd) {
    status.messageField = cd.messageFieldName ?? "message";
    status.reasonField = cd.reasonFieldName ?? "reason";
  }
  for (const [key, generic] of STATUS_ORDER) {
    const list = sd.statusMappings?.[key];
    if (!Array.isArray(list)) continue;
    const matchers = list.map((matcher, i): CompiledMatcher => {
      const segments = at("statusDefinition", "statusMappings", key, i);
      const m: CompiledMatcher = { matcher, path: formatPath(segments) };
      const e = expr(matcher?.byExpression?.expression, [...segments, "byExpression", "expression"]);
      if (e) m.expression = e;
      const expected = matcher?.byExpression?.expectedResult;
      if (e?.program && typeof expected === "string" && /["\\]/.test(expected)) {
        m.comparison = new CompiledExpression(`(${e.text}) | tostring == "${expected}"`, [...segments, "byExpression", "expression"]);
      }
      return m;
    });
    status.mappings.push({ key, status: generic, matchers });
  }
  return status;
}

function compileCandidates(
  karta: Karta,
  byName: Map<string, CompiledComponent>,
  expr: (text: string | undefined, segments: PathSegment[], literalWord?: boolean) => CompiledExpression | undefined,
  diagnostics: Diagnostic[],
): Map<string, GroupCandidate[]> {
  const out = new Map<string, GroupCandidate[]>();
  const gang = karta?.spec?.optimizationInstructions?.gangScheduling;
  const groups = gang?.podGroups;
  if (!Array.isArray(groups)) return out;
  const all: GroupCandidate[] = [];
  groups.forEach((g, gi) => {
    listOf(g?.members).forEach((member, mi) => {
      if (typeof member !== "object" || member === null) return;
      const segments: PathSegment[] = ["spec", "optimizationInstructions", "gangScheduling", "podGroups", gi, "members", mi];
      if (!byName.has(member.componentName)) {
        diagnostics.push({
          severity: "error",
          path: formatPath([...segments, "componentName"]),
          message: `pod-group member component '${member.componentName}' is not defined (should be a root or child component)`,
          code: "structure",
        });
      }
      const keys: CompiledExpression[] = [];
      listOf(member.groupByKeyPaths).forEach((k, ki) => {
        const e = expr(k, [...segments, "groupByKeyPaths", ki], true);
        if (e) keys.push(e);
      });
      const filters: CompiledExpression[] = [];
      listOf(member.filters).forEach((f, fi) => {
        const e = expr(f, [...segments, "filters", fi]);
        if (e) filters.push(e);
      });
      all.push({ group: g.name, groupIndex: gi, memberIndex: mi, member, memberComponent: member.componentName, keys, filters });
    });
  });
  for (const c of byName.values()) {
    // The component's own mentions first, then its ancestors' in order up the tree (stable within a level).
    const list: GroupCandidate[] = [];
    const seen = new Set<string>();
    for (let cur: string | undefined = c.name; cur !== undefined && !seen.has(cur); cur = byName.get(cur)?.parent) {
      seen.add(cur);
      for (const cand of all) if (cand.memberComponent === cur) list.push(cand);
    }
    const direct = list.filter((x) => x.memberComponent === c.name);
    const others = list.filter((x) => x.memberComponent !== c.name);
    if (list.length > 0) out.set(c.name, [...direct, ...others]);
  }
  return out;
}

/** A component and its descendants, by name, parents before children (each once, whatever the ownerRefs). */
export function subtreeOf(definition: CompiledDefinition, component: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const walk = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    out.push(name);
    for (const child of definition.byName.get(name)?.children ?? []) walk(child);
  };
  walk(component);
  return out;
}
