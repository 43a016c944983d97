/**
 * The structural rules of a Karta: the reference validator's rules with its messages word for word
 * (so users can search them), then the seed checklist's rules and the CRD's own constraints.
 * Every rule runs; all findings are returned together.
 */
import { decodeActionValue } from "./action-value.js";
import type { PathSegment } from "./diagnostic.js";
import type { Finding } from "./finding.js";
import { STATUS_MAPPING_KEYS, type ComponentDefinition, type GroupVersionKind, type Karta } from "./types.js";

/** Kinds of the core group that the reference accepts without a group on the root. */
const KINDS_WITHOUT_GROUP = new Set(["Pod"]);

const ROOT: PathSegment[] = ["spec", "structureDefinition", "rootComponent"];
const CHILDREN: PathSegment[] = ["spec", "structureDefinition", "childComponents"];
const GANG: PathSegment[] = ["spec", "optimizationInstructions", "gangScheduling"];

interface Located {
  component: ComponentDefinition;
  path: PathSegment[];
}

/** The root and child components with their paths, skipping entries that did not decode. */
export function componentsOf(karta: Karta): { root?: Located; children: Located[] } {
  const sd = karta.spec?.structureDefinition;
  const children: Located[] = [];
  (sd?.childComponents ?? []).forEach((c, i) => {
    if (c) children.push({ component: c, path: [...CHILDREN, i] });
  });
  const out: { root?: Located; children: Located[] } = { children };
  if (sd?.rootComponent) out.root = { component: sd.rootComponent, path: ROOT };
  return out;
}

/** Runs every structural rule. */
export function checkStructure(karta: Karta): Finding[] {
  const findings: Finding[] = [];
  const err = (path: PathSegment[], message: string, code: string, atKey = false): void => {
    findings.push({ severity: "error", path, message, code, ...(atKey ? { atKey } : {}) });
  };
  const warn = (path: PathSegment[], message: string, code: string): void => {
    findings.push({ severity: "warning", path, message, code });
  };
  const { root, children } = componentsOf(karta);
  if (!root) return findings; // decoding reported the missing root

  // Names: unique (in document order, root first) and non-empty. Two children of one name are the
  // list map's duplicate, which decoding reports in the API server's words; the root is not in that list.
  const byName = new Map<string, Located>();
  let repeatedChildName = false;
  for (const c of [root, ...children]) {
    const name = c.component.name ?? "";
    const first = byName.get(name);
    if (first === undefined) byName.set(name, c);
    else if (first === root) err([...c.path, "name"], `component name ${name} is not unique`, "duplicate-name");
    else repeatedChildName = true;
  }

  // Root component.
  const rc = root.component;
  const kind = rc.kind;
  if (!kind || !kind.version || !kind.kind || (!kind.group && !KINDS_WITHOUT_GROUP.has(kind.kind))) {
    err(kind ? [...ROOT, "kind"] : ROOT, "root component must have full kind (group, version, kind)", "root-kind");
  }
  if (rc.ownerRef !== undefined) err([...ROOT, "ownerRef"], "root component cannot have owner ref", "root-owner-ref", true);
  if (!rc.statusDefinition) err(ROOT, "root component must have status definition", "root-status");
  checkComponent(root, err, warn);

  for (const c of children) {
    const comp = c.component;
    if (comp.ownerRef === undefined || comp.ownerRef === "") {
      err(comp.ownerRef === undefined ? c.path : [...c.path, "ownerRef"], `child component '${comp.name ?? ""}' has no owner ref`, "owner-ref");
    } else if (!byName.has(comp.ownerRef)) {
      err(
        [...c.path, "ownerRef"],
        `child component '${comp.name ?? ""}' has owner ref to non-existing component '${comp.ownerRef}'`,
        "owner-ref",
      );
    }
    checkComponent(c, err, warn);
    if (comp.statusDefinition) warn([...c.path, "statusDefinition"], "statusDefinition is read only on the root component", "child-status");
  }
  const structureErrors = findings.filter((f) => f.severity === "error").length;

  // Like the reference, cycles are looked for only when the structure is otherwise valid.
  if (structureErrors === 0 && !repeatedChildName) {
    const cycle = findCycle(children, byName);
    if (cycle) err([...cycle.path, "ownerRef"], `ownership cycle detected involving component ${cycle.name}`, "ownership-cycle");
  }

  checkStatus(karta, warn);
  checkAdditionalKinds(karta, [root, ...children], warn);
  checkGangScheduling(karta, byName, err, warn);
  return findings;
}

type Report = (path: PathSegment[], message: string, code: string, atKey?: boolean) => void;

function checkComponent(c: Located, err: Report, warn: Report): void {
  const comp = c.component;
  const name = comp.name ?? "";
  // At the name itself, missing or empty, where the API server reports a missing name (Required value).
  if (name === "") err([...c.path, "name"], "component name is empty", "empty-name");
  const sd = comp.specDefinition;
  if (sd) {
    const count = [sd.podTemplateSpecPath, sd.podSpecPath, sd.fragmentedPodSpecDefinition].filter((x) => x !== undefined).length;
    if (count > 1) err([...c.path, "specDefinition"], `component '${name}' has multiple pod spec definitions`, "multiple-pod-specs");
    if (sd.metadataPath !== undefined && sd.podSpecPath === undefined) {
      warn([...c.path, "specDefinition", "metadataPath"], "metadataPath is read only together with podSpecPath", "metadata-path");
    }
  }
  const instanceSelector = comp.podSelector?.componentInstanceSelector;
  if (comp.instanceIdPath !== undefined && !instanceSelector) {
    err([...c.path, "instanceIdPath"], `component '${name}' has instance id path but no pod component instance selector`, "instance-selector");
  } else if (instanceSelector && comp.instanceIdPath === undefined) {
    err(
      [...c.path, "podSelector", "componentInstanceSelector"],
      `component '${name}' has pod component instance selector but no instance id path`,
      "instance-selector",
    );
  }
  for (const list of ["suspendActions", "resumeActions"] as const) {
    comp.suspendDefinition?.[list]?.forEach((a, i) => {
      if (typeof a?.value !== "string") return;
      // Upstream decodes the text when it suspends (json.Unmarshal): such a value fails then, not here.
      const decoded = decodeActionValue(a.value);
      if (!decoded.ok) warn([...c.path, "suspendDefinition", list, i, "value"], `value ${JSON.stringify(a.value)} is not JSON text: ${list === "suspendActions" ? "suspending" : "resuming"} fails (failed to decode value); ${decoded.hint}`, "action-value");
    });
  }
  const ts = comp.podSelector?.componentTypeSelector;
  if (ts) {
    const tsPath = [...c.path, "podSelector", "componentTypeSelector"];
    // The reference CRD's own validation rules, with their messages.
    if (ts.keyPath === undefined && ts.matchLabels === undefined) err(tsPath, "at least one of keyPath or matchLabels must be set", "type-selector");
    if (ts.value !== undefined && ts.keyPath === undefined) err([...tsPath, "value"], "value requires keyPath", "type-selector");
  }
}

/** Follows owner refs from every child; returns the first component found on a cycle. */
function findCycle(children: Located[], byName: Map<string, Located>): { name: string; path: PathSegment[] } | undefined {
  const reachesRoot = new Set<string>();
  for (const child of children) {
    const seen = new Set<string>();
    let current: Located | undefined = child;
    while (current && current.component.ownerRef !== undefined) {
      const name: string = current.component.name ?? "";
      if (reachesRoot.has(name)) break;
      if (seen.has(name)) return { name, path: current.path };
      seen.add(name);
      current = byName.get(current.component.ownerRef);
    }
    for (const n of seen) reachesRoot.add(n);
  }
  return undefined;
}

/** Status mapping checks: the reference accepts all of these, so they warn. */
function checkStatus(karta: Karta, warn: Report): void {
  const sd = karta.spec?.structureDefinition?.rootComponent?.statusDefinition;
  if (!sd || !sd.statusMappings) return;
  const base = [...ROOT, "statusDefinition"];
  const mappings = sd.statusMappings;
  const used = STATUS_MAPPING_KEYS.filter((k) => (mappings[k]?.length ?? 0) > 0);
  if (used.length === 0) {
    // Published definitions ship with an empty mapping, so this is a warning rather than an error.
    warn([...base, "statusMappings"], "statusMappings is empty: the workload's status is always Undefined", "status-mappings-empty");
  }
  for (const key of STATUS_MAPPING_KEYS) {
    (mappings[key] ?? []).forEach((m, i) => {
      if (!m) return;
      const p = [...base, "statusMappings", key, i];
      if (m.byPhase === undefined && m.byConditions === undefined && m.byExpression === undefined) {
        warn(p, "status matcher is empty: give byPhase, byConditions or byExpression", "empty-matcher");
      }
      if (m.byPhase !== undefined && !sd.phaseDefinition) {
        warn([...p, "byPhase"], "byPhase without phaseDefinition never matches: say where the phase is (path: .status.phase)", "phase-definition");
      }
      const expected = m.byExpression?.expectedResult;
      if (typeof expected === "string" && /["\\]/.test(expected)) {
        warn([...p, "byExpression", "expectedResult"], `expectedResult holds a quote or backslash: the reference pastes it into jq text as "${expected}" (so it fails there or compares with another string); compare in the expression instead`, "expected-result-text");
      }
      if (m.byConditions !== undefined && !sd.conditionsDefinition) {
        warn([...p, "byConditions"], "byConditions without conditionsDefinition: say where the conditions are (path: .status.conditions)", "conditions-definition");
      }
      (m.byConditions ?? []).forEach((c, j) => {
        if (c && c.status === undefined && c.reason === undefined) {
          warn([...p, "byConditions", j], "at least one of status or reason must be used", "condition-matcher");
        }
      });
    });
  }
}

function gvkKey(g: GroupVersionKind): string {
  return `${g.group}/${g.version}/${g.kind}`;
}

function gvkText(g: GroupVersionKind): string {
  return `${g.group ? g.group + "/" : ""}${g.version}, Kind=${g.kind}`;
}

function checkAdditionalKinds(karta: Karta, components: Located[], warn: Report): void {
  const extra = karta.spec?.structureDefinition?.additionalChildKinds ?? [];
  const componentKinds = new Map<string, string>();
  for (const c of components) if (c.component.kind) componentKinds.set(gvkKey(c.component.kind), c.component.name ?? "");
  extra.forEach((g, i) => {
    if (!g) return;
    const p: PathSegment[] = ["spec", "structureDefinition", "additionalChildKinds", i];
    const owner = componentKinds.get(gvkKey(g));
    // The seed says not to repeat component kinds; published definitions do, so this warns. A kind
    // listed twice is the list map's duplicate, an error that decoding reports.
    if (owner !== undefined) warn(p, `kind ${gvkText(g)} is already the kind of component '${owner}': list only kinds that are not components`, "duplicate-kind");
  });
}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** `pg-<root uid>-` in front of the group name: 3 + 36 + 1 characters. */
const GROUP_NAME_PREFIX = 40;

function dnsProblem(name: string, maxLength: number): string | undefined {
  if (!DNS1123_LABEL.test(name)) return "lowercase letters, digits and '-', starting and ending with a letter or digit";
  if (name.length > maxLength) return `at most ${maxLength} characters`;
  return undefined;
}

function checkGangScheduling(karta: Karta, byName: Map<string, Located>, err: Report, warn: Report): void {
  const gang = karta.spec?.optimizationInstructions?.gangScheduling;
  if (!gang) return;
  (gang.podGroups ?? []).forEach((g, i) => {
    if (!g) return;
    const gp = [...GANG, "podGroups", i];
    if (typeof g.name === "string") {
      const problem = dnsProblem(g.name, 253 - GROUP_NAME_PREFIX);
      if (problem) err([...gp, "name"], `pod group name '${g.name}' does not make a valid DNS-1123 name (${problem})`, "group-name");
    }
    // Repeated group names and members are the list maps' duplicates, which decoding reports.
    (g.members ?? []).forEach((m, j) => {
      if (!m || typeof m.componentName !== "string") return;
      const mp = [...gp, "members", j, "componentName"];
      if (!byName.has(m.componentName)) {
        err(mp, `pod-group member component '${m.componentName}' is not defined (should be a root or child component)`, "group-member");
      }
    });
  });
  const pg = gang.podGroup;
  if (pg) {
    const base = [...GANG, "podGroup"];
    if (gang.podGroups !== undefined && gang.podGroups.length > 0) {
      warn([...GANG, "podGroups"], "both podGroup and podGroups are set: podGroup wins and podGroups is ignored", "both-gang-formats");
    }
    if (typeof pg.name === "string") {
      const problem = dnsProblem(pg.name, 253 - GROUP_NAME_PREFIX);
      if (problem) err([...base, "name"], `pod group name '${pg.name}' does not make a valid DNS-1123 name (${problem})`, "group-name");
    }
    (pg.subGroups ?? []).forEach((s, i) => {
      if (!s || typeof s.componentName !== "string") return;
      const sp = [...base, "subGroups", i, "componentName"];
      if (!byName.has(s.componentName)) {
        err(sp, `subgroup component '${s.componentName}' is not defined (should be a root or child component)`, "subgroup-member");
      } else {
        const problem = dnsProblem(s.componentName, 63);
        if (problem) err(sp, `subgroup name '${s.componentName}' is not a valid DNS-1123 label (${problem})`, "subgroup-name");
      }
    });
  }
}
