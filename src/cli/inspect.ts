/**
 * `karta inspect`: what a Karta sees in a live workload object and its pods. Reads the files, validates
 * the definition, interprets, and prints a tree for people or the whole result as YAML/JSON; or prints a
 * JSON Patch (suspend, resume, scheduler name, label, annotation, priority class).
 * Exit codes, one meaning each (EXIT below): 0 printed without errors, 1 the definition has errors
 * (nothing printed) or reading the cluster failed, 2 usage or unreadable input, 3 the named live workload does not exist, 4 no definition
 * for the object's kind, 5 internal error, 6 printed but the definition failed on this object or its pods.
 */
import { formatDiagnostic, sortDiagnostics } from "../definition/diagnostic.js";
// The module itself, not the index, which also brings the JSON Patch engine.
import { apiVersionOf, compileInterpreter } from "../interpret/interpret.js";
import { SKIP_PODGROUPER_ANNOTATION } from "../interpret/groups.js";
import type { Interpretation } from "../interpret/types.js";
import type { PodField } from "../interpret/patch.js";
import { parseCommand, usageError, type Flags, type ParsedArgs } from "./args.js";
import { internalErrorLine, type CliIO } from "./io.js";
import { EXIT_ERROR, EXIT_EVALUATION_FAILED, EXIT_INTERNAL, EXIT_NO_DEFINITION, EXIT_OK, EXIT_USAGE, EXIT_WORKLOAD_NOT_FOUND } from "./exit-codes.js";
import { catalogDefinition, readCatalog, type Catalog } from "./catalog.js";
import { governedMessage, liveGovernor } from "./governor.js";
import type { LiveWorkload } from "./live.js";
import { yamlDocument } from "./yaml-output.js";
import { handwritten, isLabelValue } from "../names/index.js";
import { displayName, InputError, readPodsAndChildren, readWorkloadObject } from "./objects.js";
import { kaiGroupsNotice, type KaiPluginSummary } from "../scheduling/kai-plugins.js";
import { LIVE_FLAGS, liveHelp, liveTarget, WORKLOAD_FLAGS, type LiveTarget } from "./live-ref.js";

export const INSPECT_HELP = `Usage: karta inspect -f OBJECT [-d DEFINITION] [--pods SOURCE]... [--children SOURCE]...
                     [-o tree|yaml|json] [--patch OPERATION]
       karta inspect KIND/NAME [-n NAMESPACE] [--kubeconfig FILE] [--context NAME] [-d DEFINITION] ...

Shows what a Karta sees in a live workload: the component tree with instances, replicas and
resources (Karmada's per-replica requirements and totals), the generic status with the matcher that
matched, each pod's component and instance, the gang groups KAI Scheduler's Karta grouper builds with
their members and minMember (with a notice when KAI groups the kind with a plugin of its own, or would
not find this Karta by its run.ai/karta-* labels), and the pods that matched nothing.

  -d, --definition PATH   the Karta: a file (YAML or JSON; with several, the one whose root kind is the
                          object's) or a directory of them; default: the definition bundled for the
                          object's kind ('karta definitions list')
  -f, --object FILE       the workload object (the custom resource with its status); - for stdin;
                          may be repeated, as kubectl's -f (the files together hold one object)
      --pods SOURCE       pods: a file (YAML documents, JSON, or a List as 'kubectl get pods -o yaml'
                          prints), a directory of such files, or - for stdin; may be repeated
      --children SOURCE   objects the workload created (ReplicaSets, Jobs...), matched to components;
                          pods' owner chains are followed through them (non-pod objects given
                          with --pods count as children too)
${liveHelp(26)}
  -o, --output FORMAT     tree (default), yaml or json (the whole interpretation); with --patch,
                          json (default) or yaml
      --patch OPERATION   print a JSON Patch (RFC 6902) instead (one operation):
                            suspend | resume
                            set-scheduler NAME | set-priority-class NAME
                            set-label KEY=VALUE | set-annotation KEY=VALUE
                          set-* change every pod template of the workload (the pods' schedulerName,
                          priorityClassName, labels, annotations), not the object's own metadata
                          as 'kubectl label' does: on a Deployment, StatefulSet or DaemonSet that
                          is a new revision, a rollout that replaces every pod
  -h, --help              show this help

Exit codes:
  0  printed; no errors
  1  the definition has errors (nothing printed; karta validate shows them all), or reading
     the cluster failed (KIND/NAME: unreachable, credentials, an API error)
  2  usage, or input that cannot be read or parsed
  3  the named live workload does not exist (or its kind is not installed)
  4  no definition for the object's kind, or the object is not of the definition's kind
  5  internal error
  6  printed, but evaluating the definition on this object or its pods failed somewhere
     (each error on stderr and under Problems; the rest of the result stands); with --patch,
     the patch could not be made: the error on stderr, nothing on stdout

Example:
  karta inspect -f examples/pytorchjob.yaml --pods examples/pytorchjob-pods.yaml
  karta inspect -d definitions/kubeflow.org/v1/PyTorchJob.yaml -f examples/pytorchjob.yaml \\
      --pods examples/pytorchjob-pods.yaml
  kubectl get pytorchjob bert -o yaml > job.yaml
  kubectl get pods -l training.kubeflow.org/job-name=bert -o yaml | \\
      karta inspect -d definitions/kubeflow.org/v1/PyTorchJob.yaml -f job.yaml --pods -
  karta inspect -f examples/pytorchjob.yaml --patch set-scheduler kai-scheduler
  karta inspect pytorchjob/bert -n team-a
`;

/** `karta inspect`'s exit codes: each says one thing (documented in INSPECT_HELP and the README). */
export const EXIT = {
  ok: EXIT_OK,
  invalidDefinition: EXIT_ERROR,
  usage: EXIT_USAGE,
  notFound: EXIT_WORKLOAD_NOT_FOUND,
  noDefinition: EXIT_NO_DEFINITION,
  internal: EXIT_INTERNAL,
  evaluationErrors: EXIT_EVALUATION_FAILED,
} as const;

export const FLAGS = {
  ...LIVE_FLAGS,
  ...WORKLOAD_FLAGS,
  children: { type: "string", multiple: true },
  // No default: with --patch, an explicit -o tree is refused (a patch is not a tree).
  output: { type: "string", short: "o", choices: ["tree", "yaml", "json"] },
  patch: {
    type: "string",
    // One patch is printed: a second operation would be dropped.
    once: true,
    choices: ["suspend", "resume", "set-scheduler", "set-priority-class", "set-label", "set-annotation"],
    operands: (v: string) => (v === "set-scheduler" || v === "set-priority-class" ? ["NAME"] : v === "set-label" || v === "set-annotation" ? ["KEY=VALUE"] : []),
  },
} as const satisfies Flags;

interface Options {
  definition?: string;
  /** The file, or how the cluster object is named in messages. */
  object: string;
  /** The files of -f (repeatable, as kubectl's): together they hold the one object. */
  files: string[];
  live?: LiveTarget;
  pods: string[];
  children: string[];
  output: "tree" | "yaml" | "json";
  patch?: { op: "suspend" | "resume" } | { op: "field"; field: PodField };
}

function options(p: ParsedArgs<typeof FLAGS>): Options | { error: string } {
  const v = p.values;
  const files = [...v.object, ...v.filename];
  const live = liveTarget(p.positionals, v, { object: files.length > 0, podFlags: [...(v.pods.length > 0 ? ["--pods"] : []), ...(v.children.length > 0 ? ["--children"] : [])] });
  if (live && "error" in live) return live;
  const object = files.length > 0 ? files.map(displayName).join(", ") : live ? `${live.ref.kind}/${live.ref.name}` : undefined;
  if (object === undefined) return { error: "a workload object is required (-f FILE, or KIND/NAME from a cluster)" };
  // A JSON Patch prints as JSON (the default) or YAML; a tree has no meaning for it.
  if (v.patch !== undefined && v.output === "tree") return { error: "--patch prints a JSON Patch: -o takes yaml or json with it" };
  const o: Options = { object, files, pods: v.pods, children: v.children, output: v.output ?? (v.patch !== undefined ? "json" : "tree"), ...(v.definition !== undefined ? { definition: v.definition } : {}), ...(live ? { live } : {}) };
  const op = v.patch;
  const arg = p.operands.patch?.at(-1)?.[0];
  if (op === "suspend" || op === "resume") o.patch = { op };
  else if (op === "set-scheduler" || op === "set-priority-class") {
    if (!arg) return { error: `--patch ${op} needs a NAME` };
    // What the API server would refuse in the patched pod templates (pod spec validation: DNS-1123 subdomains).
    const bad = handwritten.isDNS1123Subdomain(arg);
    if (bad.length > 0) return { error: `--patch ${op}: Invalid value: ${JSON.stringify(arg)}: ${bad.join("; ")}` };
    o.patch = { op: "field", field: op === "set-scheduler" ? { field: "schedulerName", value: arg } : { field: "priorityClassName", value: arg } };
  } else if (op === "set-label" || op === "set-annotation") {
    const at = arg?.indexOf("=") ?? -1;
    if (arg === undefined || at < 0) return { error: `--patch ${op} needs KEY=VALUE` };
    const key = arg.slice(0, at);
    const value = arg.slice(at + 1);
    // Label and annotation keys are qualified names, label values at most 63 characters: as metadata validation checks them.
    const badKey = handwritten.isLabelKey(key);
    if (badKey.length > 0) return { error: `--patch ${op}: Invalid value: ${JSON.stringify(key)}: ${badKey.join("; ")}` };
    const badValue = op === "set-label" ? isLabelValue(value) : [];
    if (badValue.length > 0) return { error: `--patch ${op}: Invalid value: ${JSON.stringify(value)}: ${badValue.join("; ")}` };
    o.patch = { op: "field", field: op === "set-label" ? { field: "label", key, value } : { field: "annotation", key, value } };
  }
  const stdin = [...(live ? [] : files), ...o.pods, ...o.children, o.definition].filter((s) => s === "-").length;
  if (stdin > 1) return { error: "only one input can be read from standard input" };
  return o;
}

/** Runs `karta inspect`; returns the exit code. Never throws. */
export async function runInspect(args: string[], io: CliIO): Promise<number> {
  try {
    return await inspect(args, io);
  } catch (err) {
    // A bug of ours: one line, not a stack trace.
    io.stderr(internalErrorLine("inspect", err));
    return EXIT.internal;
  }
}

async function inspect(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "inspect", args, FLAGS, INSPECT_HELP, { positionals: true });
  if (typeof p === "number") return p;
  const parsed = options(p);
  if ("error" in parsed) return usageError(io, "inspect", parsed.error);
  let object: unknown;
  let catalog: Catalog;
  let pods: unknown[];
  let children: unknown[];
  let live: LiveWorkload | undefined;
  try {
    if (parsed.live) {
      const { readLiveWorkload } = await import("./live.js");
      live = await readLiveWorkload(parsed.live.ref, parsed.live);
      parsed.object = live.source;
      object = live.object;
      pods = live.pods;
      children = live.owners;
    } else {
      ({ object, file: parsed.object } = await readWorkloadObject(io, parsed.files));
      ({ pods, children } = await readPodsAndChildren(io, parsed.pods, parsed.children));
    }
    catalog = await readCatalog(io, parsed.definition, object);
    // What it sees is still shown; its pods' groups are the governing owner's (as the controller decides).
    const governor = live && (await liveGovernor(io, live, parsed.definition, catalog));
    if (governor) io.stderr(`karta inspect: notice: ${parsed.object}: ${governedMessage(governor)}\n`);
  } catch (err) {
    if (err instanceof InputError) {
      io.stderr(`karta inspect: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }

  const definition = await catalogDefinition("inspect", io, catalog, object, { invalid: EXIT.invalidDefinition, none: EXIT.noDefinition }, parsed.object);
  if (typeof definition === "number") return definition;

  const interpreter = compileInterpreter(definition);
  if (parsed.patch) {
    const result = parsed.patch.op === "field" ? interpreter.setPodFieldPatch(object, parsed.patch.field) : interpreter.suspendPatch(object, parsed.patch.op);
    const w = interpreter.workload(object);
    const kindErrors = w.diagnostics.filter((d) => d.code === "object-kind" || d.code === "object");
    const diagnostics = [...kindErrors, ...result.diagnostics];
    for (const d of diagnostics) io.stderr(formatDiagnostic(d) + "\n");
    if (kindErrors.some((d) => d.severity === "error")) return EXIT.noDefinition;
    // A patch that could not be made (wholly or in part) is not printed: `[]` or part of the operations
    // would read as a patch to a pipeline (`kubectl patch --type json -p "$(karta inspect ...)"`).
    if (diagnostics.some((d) => d.severity === "error")) return EXIT.evaluationErrors;
    io.stdout(parsed.output === "yaml" ? yamlDocument(result.patch) : JSON.stringify(result.patch, null, 2) + "\n");
    return EXIT.ok;
  }

  const result = interpreter.interpret(object, { pods, children });
  // An object of another kind (or of none) has no interpretation to show: refused, not printed empty.
  const wrongKind = result.diagnostics.find((d) => d.code === "object-kind" && d.severity === "error");
  if (wrongKind !== undefined) {
    io.stderr(`karta inspect: ${displayName(parsed.object!)}: ${wrongKind.message}\n`);
    return EXIT.noDefinition;
  }
  // Which KAI plugin groups this kind: a native one builds its own PodGroups, not these groups.
  // Read from a cluster: KAI's Karta fallback reads the Kartas stored there, not this definition.
  const stored = live?.kaiFallbackKartas ? { storedKartas: live.kaiFallbackKartas } : undefined;
  const kai = kaiGroupsNotice(result, definition.karta, object, stored);
  if (parsed.output === "json") io.stdout(JSON.stringify(withKaiPlugin(result, kai.summary), null, 2) + "\n");
  else if (parsed.output === "yaml") io.stdout(yamlDocument(withKaiPlugin(result, kai.summary)));
  else io.stdout(renderTree(result, definition.file, kai.notice));
  // On stderr in every format, as the exit code says (a script keeping stderr in a log has them), and in the tree under Problems.
  for (const d of result.diagnostics) if (d.severity === "error") io.stderr(formatDiagnostic(d) + "\n");
  return result.diagnostics.some((d) => d.severity === "error") ? EXIT.evaluationErrors : EXIT.ok;
}

/** The interpretation with `kaiPlugin` after `groups` (a field added to what -o yaml|json printed before). */
function withKaiPlugin(r: Interpretation, kaiPlugin: KaiPluginSummary): Interpretation & { kaiPlugin: KaiPluginSummary } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(r)) {
    out[key] = value;
    if (key === "groups") out.kaiPlugin = kaiPlugin;
  }
  return out as unknown as Interpretation & { kaiPlugin: KaiPluginSummary };
}

function resources(list: Record<string, string> | undefined): string {
  if (!list) return "-";
  return Object.entries(list)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}

function scaleText(s: { replicas?: number; minReplicas?: number; maxReplicas?: number } | undefined): string {
  if (!s) return "";
  const parts: string[] = [];
  if (s.replicas !== undefined) parts.push(`replicas ${s.replicas}`);
  if (s.minReplicas !== undefined) parts.push(`min ${s.minReplicas}`);
  if (s.maxReplicas !== undefined) parts.push(`max ${s.maxReplicas}`);
  return parts.join(", ");
}

/**
 * An expression on one line of the tree: its leading helper `def`s left out, whitespace collapsed, a long
 * one cut (-o yaml|json print it whole).
 */
function oneLine(expression: string): string {
  const flat = withoutLeadingDefs(expression.replace(/\s+/g, " ").trim());
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
}

/** The expression after its leading `def name: body;` helpers (a `;` inside parentheses or a string is the body's). */
function withoutLeadingDefs(text: string): string {
  let rest = text;
  while (rest.startsWith("def ")) {
    let depth = 0;
    let end = -1;
    for (let i = 0; i < rest.length && end < 0; i++) {
      const ch = rest[i]!;
      if (ch === '"') {
        for (i++; i < rest.length && rest[i] !== '"'; i++) if (rest[i] === "\\") i++;
      } else if (ch === "(" || ch === "[" || ch === "{") depth++;
      else if (ch === ")" || ch === "]" || ch === "}") depth--;
      else if (ch === ";" && depth === 0) end = i;
    }
    if (end < 0) return rest;
    rest = rest.slice(end + 1).trimStart();
  }
  return rest;
}

/**
 * The interpretation for people: components, status, groups, unmatched pods, problems. `kaiNotice`: the lines
 * of a notice under Groups (KAI's plugin for the root's kind, when KAI would not use these groups).
 */
export function renderTree(r: Interpretation, definitionFile: string, kaiNotice: readonly string[] = []): string {
  const lines: string[] = [];
  const root = r.root;
  const ns = root.namespace ? `${root.namespace}/` : "";
  lines.push(`${root.kind} ${ns}${root.name}${root.uid ? ` (uid ${root.uid})` : ""}  [${definitionFile}]`);
  lines.push("");
  lines.push("Components:");
  const byName = new Map(r.components.map((c) => [c.name, c]));
  const printed = new Set<string>();
  const walk = (name: string, prefix: string, last: boolean, top: boolean): void => {
    const c = byName.get(name);
    if (!c || printed.has(name)) return;
    printed.add(name);
    const branch = top ? "" : last ? "└─ " : "├─ ";
    const kind = c.kind ? ` (${c.kind.kind} ${apiVersionOf(c.kind)})` : "";
    const single = c.instances.length === 1 && c.instances[0]!.id === "" ? c.instances[0] : undefined;
    const head = [`${prefix}${branch}${c.name}${kind}`, `subtree scale ${c.subtreeScale}`];
    if (single && single.scale) head.push(scaleText(single.scale));
    lines.push(head.join("  "));
    const inner = prefix + (top ? "" : last ? "   " : "│  ");
    const detail = (text: string): void => void lines.push(`${inner}${c.children.length > 0 ? "│ " : "  "} ${text}`);
    if (single && single.podTemplate) {
      detail(`per replica: ${resources(single.replicaRequirements?.resourceRequest)}`);
      if (single.replicaRequirements?.nodeClaim) detail(`node claim: ${JSON.stringify(single.replicaRequirements.nodeClaim)}`);
      if (single.replicaRequirements?.priorityClassName) detail(`priority class: ${single.replicaRequirements.priorityClassName}`);
      if (single.totalRequests) detail(`total (${single.countedReplicas} replica${single.countedReplicas === 1 ? "" : "s"}): ${resources(single.totalRequests)}`);
    } else if (!single) {
      for (const inst of c.instances) {
        const parts = [`instance ${inst.id}`];
        if (inst.scale) parts.push(scaleText(inst.scale));
        if (inst.podTemplate) parts.push(`per replica: ${resources(inst.replicaRequirements?.resourceRequest)}`);
        if (inst.totalRequests) parts.push(`total: ${resources(inst.totalRequests)}`);
        detail(parts.join("  "));
      }
      if (c.instances.length === 0) detail("no instances");
    }
    c.children.forEach((child, i) => walk(child, inner, i === c.children.length - 1, false));
  };
  for (const c of r.components) if (c.parent === undefined || !byName.has(c.parent)) walk(c.name, "  ", true, true);
  if (r.totalRequests) lines.push(`  total requests: ${resources(r.totalRequests)}`);
  lines.push("");
  lines.push(`Status: ${r.status.statuses.join(", ")}`);
  for (const m of r.status.matches) {
    const why: string[] = [];
    if (m.phase !== undefined) why.push(`phase ${m.phase}`);
    for (const c of m.conditions ?? []) {
      let t = `${c.type}=${c.status ?? "?"}`;
      if (c.reason) t += ` (${c.reason})`;
      if (c.message) t += `: ${c.message}`;
      why.push(t);
    }
    if (m.matcher.byExpression) why.push(`${oneLine(m.matcher.byExpression.expression)} == ${m.matcher.byExpression.expectedResult}`);
    lines.push(`  ${m.status.padEnd(12)} ${m.path.replace(/^.*statusMappings\./, "")}: ${why.join("; ")}`);
  }
  // What the operator reported, for a matcher that reads it through an expression.
  if (r.status.matches.some((m) => m.matcher.byExpression)) {
    if (r.status.phase !== undefined) lines.push(`  phase: ${r.status.phase === "" ? '""' : r.status.phase}`);
    if (r.status.conditions.length > 0) lines.push(`  conditions: ${r.status.conditions.map((c) => `${c.type}=${c.status ?? "?"}${c.reason ? ` (${c.reason})` : ""}`).join(", ")}`);
  }
  lines.push("");
  const notice = (): void => kaiNotice.forEach((text, i) => void lines.push(`  ${i === 0 ? "notice: " : "        "}${text}`));
  if (r.groups.length === 0 && r.gangPlan.length > 0) {
    lines.push(`Groups: ${r.pods.length === 0 ? "give --pods to see them" : "none formed"}; the definition's members:`);
    notice();
    for (const p of r.gangPlan) {
      lines.push(`  ${p.definition}: ${p.memberComponent}${p.instance !== undefined ? `/${p.instance}` : ""}  minMember ${p.minMember}  keys ${p.groupByKeyPaths.length > 0 ? p.groupByKeyPaths.join(", ") : "(owner)"}${p.filters.length > 0 ? `  filters ${p.filters.join(" and ")}` : ""}`);
    }
  } else if (r.groups.length === 0) {
    const failed = r.diagnostics.some((d) => d.severity === "error" && d.path.startsWith("spec.optimizationInstructions.gangScheduling"));
    const optedOut = r.diagnostics.some((d) => d.code === "gang-skip" && d.path !== "");
    lines.push(
      optedOut
        ? `Groups: none (the workload opts out of KAI's pod grouper: ${SKIP_PODGROUPER_ANNOTATION})`
        : failed
          ? "Groups: none (KAI would group none of the pods: see Problems)"
          : "Groups: none (no gang scheduling instructions)",
    );
    notice();
  } else {
    lines.push("Groups:");
    notice();
  }
  for (const g of r.groups) {
    const parts = [`  ${g.name}`, `minMember ${g.minMember}`];
    if (g.minSubGroup !== undefined) parts.push(`minSubGroup ${g.minSubGroup}`);
    if (g.topology) parts.push(`topology ${g.topology.topologyName} (required ${g.topology.requiredTopologyLevel || "-"}, preferred ${g.topology.preferredTopologyLevel || "-"})`);
    parts.push(`[${g.definition}${g.keys && g.keys.length ? `: ${g.keys.join(", ")}` : ""}]`);
    lines.push(parts.join("  "));
    for (const s of g.subGroups ?? []) {
      lines.push(`    subgroup ${s.name}  minMember ${s.minMember}${s.topology ? `  topology ${s.topology.topologyName}` : ""}  pods: ${s.pods.length}`);
    }
    for (const m of g.members) {
      const via = m.memberComponent !== m.component ? ` via ${m.memberComponent}` : "";
      lines.push(`    ${m.pod}  ${m.component}${m.instance !== undefined ? `/${m.instance}` : ""}${via}`);
    }
  }
  const unmatched = r.pods.filter((p) => p.component === undefined);
  if (r.pods.length > 0) {
    lines.push("");
    lines.push(`Pods: ${r.pods.length}, matched ${r.pods.length - unmatched.length}, unmatched ${unmatched.length}`);
    for (const p of unmatched) lines.push(`  ${p.pod.name}: ${p.reason ?? "no component"}`);
    for (const p of r.pods) if (p.component !== undefined && p.reason) lines.push(`  ${p.pod.name} (${p.component}): ${p.reason}`);
  }
  if (r.children.length > 0) {
    lines.push("");
    lines.push("Children:");
    for (const c of r.children) {
      const to = c.component ?? (c.candidates ? c.candidates.join(" or ") : c.additional ? "(additionalChildKinds)" : "(no component)");
      lines.push(`  ${c.kind} ${c.name}  → ${to}`);
    }
  }
  const problems = sortDiagnostics(r.diagnostics);
  if (problems.length > 0) {
    lines.push("");
    lines.push("Problems:");
    for (const d of problems) lines.push(`  ${formatDiagnostic(d)}`);
  }
  return lines.join("\n") + "\n";
}
