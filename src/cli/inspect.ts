/**
 * `karta inspect`: what a Karta sees in a live workload object and its pods. Reads the files, validates
 * the definition, interprets, and prints a tree for people or the whole result as YAML/JSON; or prints a
 * JSON Patch (suspend, resume, scheduler name, label, annotation, priority class).
 * Exit code: 0 fine, 1 errors found (definition, object, pods), 2 usage or unreadable input.
 */
import { stringify } from "yaml";
import { formatDiagnostic, sortDiagnostics } from "../definition/index.js";
import { apiVersionOf, compileInterpreter, type Interpretation, type PodField } from "../interpret/index.js";
import { commandLine } from "./args.js";
import type { CliIO } from "./io.js";
import { displayName, InputError, isPodLike, readDefinitions, readObjects, readWorkloadObject, usableDefinition } from "./objects.js";

export const INSPECT_HELP = `Usage: karta inspect -d DEFINITION -f OBJECT [--pods SOURCE]... [--children SOURCE]...
                     [-o tree|yaml|json] [--patch OPERATION]

Shows what a Karta sees in a live workload: the component tree with instances, replicas and
resources (Karmada's per-replica requirements and totals), the generic status with the matcher that
matched, each pod's component and instance, KAI Scheduler's gang groups with their members and
minMember, and the pods that matched nothing.

  -d, --definition FILE   the Karta (YAML or JSON; with several, the one whose root kind is the object's)
  -f, --object FILE       the workload object (the custom resource with its status); - for stdin
      --pods SOURCE       pods: a file (YAML documents, JSON, or a List as 'kubectl get pods -o yaml'
                          prints), a directory of such files, or - for stdin; may be repeated
      --children SOURCE   objects the workload created (ReplicaSets, Jobs...), matched to components
  -o, --output FORMAT     tree (default), yaml or json (the whole interpretation)
      --patch OPERATION   print a JSON Patch (RFC 6902) instead:
                            suspend | resume
                            set-scheduler NAME | set-priority-class NAME
                            set-label KEY=VALUE | set-annotation KEY=VALUE
  -h, --help              show this help

Exit code: 0 fine, 1 errors (the definition's, the object's or the pods'), 2 usage or unreadable input.

Example:
  karta inspect -d definitions/kubeflow.org/v1/PyTorchJob.yaml -f examples/pytorchjob.yaml \\
      --pods examples/pytorchjob-pods.yaml
  kubectl get pytorchjob bert -o yaml > job.yaml
  kubectl get pods -l training.kubeflow.org/job-name=bert -o yaml | \\
      karta inspect -d definitions/kubeflow.org/v1/PyTorchJob.yaml -f job.yaml --pods -
  karta inspect -d definitions/kubeflow.org/v1/PyTorchJob.yaml -f job.yaml --patch set-scheduler kai-scheduler
`;

interface Options {
  definition?: string;
  object?: string;
  pods: string[];
  children: string[];
  output: "tree" | "yaml" | "json";
  patch?: { op: "suspend" | "resume" } | { op: "field"; field: PodField };
}

function parseArgs(args: string[]): Options | "help" | { error: string } {
  const o: Options = { pods: [], children: [], output: "tree" };
  for (const arg of commandLine(args)) {
    const { flag, value } = arg;
    switch (flag) {
      case "-h":
      case "--help":
        return "help";
      case "-d":
      case "--definition": {
        const v = value();
        if (v === undefined) return { error: `${flag} needs a file` };
        o.definition = v;
        break;
      }
      case "-f":
      case "--object":
      case "--filename": {
        const v = value();
        if (v === undefined) return { error: `${flag} needs a file` };
        o.object = v;
        break;
      }
      case "--pods": {
        const v = value();
        if (v === undefined) return { error: "--pods needs a file, a directory or -" };
        o.pods.push(v);
        break;
      }
      case "--children": {
        const v = value();
        if (v === undefined) return { error: "--children needs a file, a directory or -" };
        o.children.push(v);
        break;
      }
      case "-o":
      case "--output": {
        const v = value();
        if (v !== "tree" && v !== "yaml" && v !== "json") return { error: `-o must be tree, yaml or json${v === undefined ? "" : `, not '${v}'`}` };
        o.output = v;
        break;
      }
      case "--patch": {
        const v = value();
        if (v === "suspend" || v === "resume") o.patch = { op: v };
        else if (v === "set-scheduler" || v === "set-priority-class") {
          const name = arg.operand();
          if (name === undefined || name === "") return { error: `--patch ${v} needs a NAME` };
          o.patch = { op: "field", field: v === "set-scheduler" ? { field: "schedulerName", value: name } : { field: "priorityClassName", value: name } };
        } else if (v === "set-label" || v === "set-annotation") {
          const kv = arg.operand();
          const at = kv?.indexOf("=") ?? -1;
          if (kv === undefined || at <= 0) return { error: `--patch ${v} needs KEY=VALUE` };
          const key = kv.slice(0, at);
          const val = kv.slice(at + 1);
          o.patch = { op: "field", field: v === "set-label" ? { field: "label", key, value: val } : { field: "annotation", key, value: val } };
        } else return { error: `--patch takes suspend, resume, set-scheduler NAME, set-priority-class NAME, set-label K=V or set-annotation K=V${v === undefined ? "" : `, not '${v}'`}` };
        break;
      }
      default:
        return { error: `unknown argument '${arg.text}'` };
    }
  }
  if (!o.definition) return { error: "a definition is required (-d FILE)" };
  if (!o.object) return { error: "a workload object is required (-f FILE)" };
  const stdin = [o.object, ...o.pods, ...o.children, o.definition].filter((s) => s === "-").length;
  if (stdin > 1) return { error: "only one input can be read from standard input" };
  return o;
}


/** Runs `karta inspect`; returns the exit code. Never throws. */
export async function runInspect(args: string[], io: CliIO): Promise<number> {
  try {
    return await inspect(args, io);
  } catch (err) {
    // A bug of ours: one line, not a stack trace.
    io.stderr(`karta inspect: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    return 5;
  }
}

async function inspect(args: string[], io: CliIO): Promise<number> {
  const parsed = parseArgs(args);
  if (parsed === "help") {
    io.stdout(INSPECT_HELP);
    return 0;
  }
  if ("error" in parsed) {
    io.stderr(`karta inspect: ${parsed.error}\n\nRun 'karta inspect --help' for usage.\n`);
    return 2;
  }
  let object: unknown;
  let loaded: Awaited<ReturnType<typeof readDefinitions>>;
  let pods: unknown[];
  let children: unknown[];
  try {
    loaded = await readDefinitions(io, parsed.definition!);
    object = await readWorkloadObject(io, parsed.object!);
    pods = (await readObjects(io, parsed.pods, isPodLike)).map((p) => p.object);
    children = (await readObjects(io, parsed.children)).map((c) => c.object);
  } catch (err) {
    if (err instanceof InputError) {
      io.stderr(`karta inspect: ${err.message}\n`);
      return 2;
    }
    throw err;
  }

  const definition = usableDefinition("inspect", io, parsed.definition!, loaded, object);
  if (typeof definition === "number") return definition;

  const interpreter = compileInterpreter(definition);
  if (parsed.patch) {
    const result = parsed.patch.op === "field" ? interpreter.setPodFieldPatch(object, parsed.patch.field) : interpreter.suspendPatch(object, parsed.patch.op);
    const w = interpreter.workload(object);
    const kindErrors = w.diagnostics.filter((d) => d.code === "object-kind" || d.code === "object");
    const diagnostics = [...kindErrors, ...result.diagnostics];
    for (const d of diagnostics) io.stderr(formatDiagnostic(d) + "\n");
    if (kindErrors.some((d) => d.severity === "error")) return 1;
    io.stdout(JSON.stringify(result.patch, null, 2) + "\n");
    return diagnostics.some((d) => d.severity === "error") ? 1 : 0;
  }

  const result = interpreter.interpret(object, { pods, children });
  // An object of another kind (or of none) has no interpretation to show: refused, not printed empty.
  const wrongKind = result.diagnostics.find((d) => d.code === "object-kind" && d.severity === "error");
  if (wrongKind !== undefined) {
    io.stderr(`karta inspect: ${displayName(parsed.object!)}: ${wrongKind.message}\n`);
    return 1;
  }
  if (parsed.output === "json") io.stdout(JSON.stringify(result, null, 2) + "\n");
  else if (parsed.output === "yaml") io.stdout(stringify(result, { aliasDuplicateObjects: false, lineWidth: 0 }));
  else io.stdout(renderTree(result, definition.file));
  if (parsed.output !== "tree") for (const d of result.diagnostics) if (d.severity === "error") io.stderr(formatDiagnostic(d) + "\n");
  return result.diagnostics.some((d) => d.severity === "error") ? 1 : 0;
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

/** The interpretation for people: components, status, groups, unmatched pods, problems. */
export function renderTree(r: Interpretation, definitionFile: string): string {
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
    if (m.matcher.byExpression) why.push(`${m.matcher.byExpression.expression} == ${m.matcher.byExpression.expectedResult}`);
    lines.push(`  ${m.status.padEnd(12)} ${m.path.replace(/^.*statusMappings\./, "")}: ${why.join("; ")}`);
  }
  lines.push("");
  if (r.groups.length === 0 && r.gangPlan.length > 0) {
    lines.push(`Groups: ${r.pods.length === 0 ? "give --pods to see them" : "none formed"}; the definition's members:`);
    for (const p of r.gangPlan) {
      lines.push(`  ${p.definition}: ${p.memberComponent}${p.instance !== undefined ? `/${p.instance}` : ""}  minMember ${p.minMember}  keys ${p.groupByKeyPaths.length > 0 ? p.groupByKeyPaths.join(", ") : "(owner)"}${p.filters.length > 0 ? `  filters ${p.filters.join(" and ")}` : ""}`);
    }
  } else if (r.groups.length === 0) lines.push("Groups: none (no gang scheduling instructions)");
  else lines.push("Groups:");
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
