/**
 * `karta compile`: the Workload API objects for one workload object — the Workload it owns, its
 * CompositePodGroups and PodGroups — compiled from a Karta's gang instructions (or, for a plain batch/v1
 * Job without a definition, as the Job controller's integration compiles `spec.scheduling`); or the
 * patch that puts each pod in its PodGroup.
 * Exit code: 0 fine, 1 errors (the definition's, the object's or the pods'; reading the cluster failed), 2 usage
 * or unreadable input, 3 the named live workload does not exist (or its kind is not installed), 4 no definition
 * covers its kind (or the object is not of the definition's kind).
 */
import { formatDiagnostic, type Diagnostic, type PathSegment } from "../definition/diagnostic.js";
import type { Definition } from "../definition/load.js";
import { compileKarta, compiledObjects, type WorkloadCompilation } from "../scheduling/karta.js";
import { compileBatchJob, isBatchJob } from "../scheduling/karta/batch-job.js";
import type { CompileIssue } from "../scheduling/karta/issues.js";
import { validateSchedulingIntent, type SchedulingIntent } from "../scheduling/karta/options.js";
import { parseCommand, usageError, type Flags, type ParsedArgs } from "./args.js";
import type { CliIO } from "./io.js";
import { EXIT_NO_DEFINITION } from "./exit-codes.js";
import { catalogDefinition, readCatalog, type Catalog } from "./catalog.js";
import { governedMessage, liveGovernor } from "./governor.js";
import type { LiveWorkload } from "./live.js";
import { yamlStream } from "./yaml-output.js";
import { displayName, InputError, isPodLike, readObjects, readWorkloadObject } from "./objects.js";
import { LIVE_FLAGS, liveHelp, liveTarget, WORKLOAD_FLAGS, type LiveTarget } from "./live-ref.js";

export const COMPILE_HELP = `Usage: karta compile -f OBJECT [-d DEFINITION] [--pods SOURCE]...
                     [--policy gang|basic] [--disruption single|all] [--priority-class NAME]
                     [--topology-key KEY] [--group-shape auto|composite|flat] [-o yaml|json|name]
                     [--pod-patches]
       karta compile KIND/NAME [-n NAMESPACE] [--kubeconfig FILE] [--context NAME] [-d DEFINITION] ...

Compiles one workload object into the Kubernetes Workload API objects a controller would create for
it: the Workload (scheduling.k8s.io/v1beta1) owned by the object, its CompositePodGroups
(v1alpha3) and PodGroups (v1beta1), named deterministically and linked to their parents.

With a Karta, its gang instructions give the templates: each older \`podGroups\` definition becomes a
PodGroupTemplate (gang minCount = the subtree scale of its members), and one PodGroup is made per
group (for keyed definitions, per distinct key of the pods: give --pods); a newer \`podGroup\` with
\`subGroups\` becomes a CompositePodGroupTemplate (minGroupCount = the subgroups it needs) over one
PodGroupTemplate per subgroup (minCount = the pods it holds; a subgroup with none is left out), and
with podGroup.groupByKeyPaths one CompositePodGroup per distinct key of the pods (give --pods); a
required topology level that is a node label key becomes schedulingConstraints.topology[].key.
Without -d, the definition bundled for the object's kind is used, except that a batch/v1 Job compiles
as the Job controller does from spec.scheduling (no scheduling: basic; gang without minCount:
max(1, parallelism)).

  -f, --object FILE         the workload object as stored (with metadata.uid); - for stdin; may be
                            repeated, as kubectl's -f (the files together hold one object)
  -d, --definition PATH     the Karta: a file (with several, the one whose root kind is the object's)
                            or a directory of them; default: the definition bundled for the
                            object's kind ('karta definitions list'), except for a batch/v1 Job
      --pods SOURCE         the object's pods: a file (YAML documents, JSON, or a List), a directory
                            of such files, or - for stdin; may be repeated. Other objects in it
                            (ReplicaSets, Jobs, StatefulSets...) link pods to the object they own
${liveHelp(28)}
      --policy P            gang (default) or basic, for every group
      --disruption MODE     single or all, for every group
      --priority-class NAME priority class of every group (default: the pod templates', when they agree)
      --topology-key KEY    node label key the pods of each top-level group must share
      --group-shape SHAPE   how a gang with subgroups is made: composite (a CompositePodGroup over a
                            PodGroup per subgroup), flat (one PodGroup for all its pods, for a scheduler
                            without the CompositePodGroup gate) or auto (default: composite, or with
                            KIND/NAME flat when the cluster does not serve CompositePodGroup)
  -o, --output FORMAT       yaml (default: a YAML stream), json (a v1 List) or name (kind.group/name,
                            as kubectl prints them; pod/NAME with --pod-patches)
      --pod-patches         print, per pod, the JSON Patch (RFC 6902) that sets
                            spec.schedulingGroup.podGroupName, instead of the objects
  -h, --help                show this help

Exit code: 0 fine, 1 errors (the definition's, the object's or the pods'), or reading the cluster failed,
2 usage or unreadable input, 3 the named live workload does not exist (or its kind is not installed),
4 no definition covers its kind, or the object is not of the definition's kind.

Example:
  karta compile -d definitions/kubeflow.org/v1/PyTorchJob.yaml -f examples/pytorchjob.yaml
  karta compile -f examples/pytorchjob.yaml --pods examples/pytorchjob-pods.yaml --pod-patches
  karta compile -f examples/job.yaml --policy gang -o json
  kubectl get pytorchjob bert-pretrain -o yaml > job.yaml
  kubectl get pods -l training.kubeflow.org/job-name=bert-pretrain -o yaml > pods.yaml
  karta compile -f job.yaml --pods pods.yaml --pod-patches
  karta compile pytorchjob/bert-pretrain -n team-a --pod-patches
`;

export const FLAGS = {
  ...LIVE_FLAGS,
  ...WORKLOAD_FLAGS,
  policy: { type: "string", choices: ["gang", "basic"] },
  disruption: { type: "string", choices: ["single", "all"] },
  "priority-class": { type: "string" },
  "topology-key": { type: "string" },
  "group-shape": { type: "string", choices: ["auto", "composite", "flat"], default: "auto" },
  output: { type: "string", short: "o", choices: ["yaml", "json", "name"], default: "yaml" },
  "pod-patches": { type: "boolean" },
} as const satisfies Flags;

interface Options extends SchedulingIntent {
  definition?: string;
  /** The file, or how the cluster object is named in messages. */
  object: string;
  /** The files of -f (repeatable, as kubectl's): together they hold the one object. */
  files: string[];
  live?: LiveTarget;
  pods: string[];
  output: "yaml" | "json" | "name";
  podPatches: boolean;
}

function options(p: ParsedArgs<typeof FLAGS>): Options | { error: string } {
  const v = p.values;
  const files = [...v.object, ...v.filename];
  const live = liveTarget(p.positionals, v, { object: files.length > 0, podFlags: v.pods.length > 0 ? ["--pods"] : [] });
  if (live && "error" in live) return live;
  const object = files.length > 0 ? files.map(displayName).join(", ") : live ? `${live.ref.kind}/${live.ref.name}` : undefined;
  if (object === undefined) return { error: "a workload object is required (-f FILE, or KIND/NAME from a cluster)" };
  // Without pods (a live workload's are read from the cluster) there would be nothing to print.
  if (v["pod-patches"] && !live && v.pods.length === 0) return { error: "--pod-patches needs the object's pods: give --pods SOURCE (or a live workload KIND/NAME)" };
  const o: Options = { object, files, pods: v.pods, output: v.output, podPatches: v["pod-patches"] };
  if (v.definition !== undefined) o.definition = v.definition;
  if (live) o.live = live;
  if (v.policy !== undefined) o.policy = v.policy;
  if (v.disruption !== undefined) o.disruptionMode = v.disruption;
  if (v["priority-class"] !== undefined) o.priorityClassName = v["priority-class"];
  if (v["topology-key"] !== undefined) o.topologyKey = v["topology-key"];
  if (v["group-shape"] !== "auto") o.groupShape = v["group-shape"];
  const stdin = [...(live ? [] : files), ...o.pods, o.definition].filter((s) => s === "-").length;
  if (stdin > 1) return { error: "only one input can be read from standard input" };
  // A bad flag value is a usage error said as every command says one (`karta compile: --priority-class:
  // Invalid value: ...` and the Run line), before any input is read.
  const bad = validateSchedulingIntent(o).find((i) => i.severity === "error");
  if (bad) return { error: `${bad.path}: ${bad.message}` };
  return o;
}

/** `a.b[1]["x.y"]` back into segments, to find a field's position in the Karta's file. */
function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  const re = /([^.[\]]+)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(`"${m[3]}"`) as string);
  }
  return out;
}

/** Where each kind of issue points: the Karta's file (with a position), the object's, a pod's file, or the command line. */
function renderIssue(issue: CompileIssue, where: { definition?: Definition; object: string; podFiles: Map<string, string> }): string {
  const d: Diagnostic = { severity: issue.severity, path: issue.path, message: issue.message };
  if (issue.input === "definition" && where.definition) {
    const pos = issue.path ? where.definition.locate(parsePath(issue.path)) : undefined;
    if (pos) return formatDiagnostic({ ...d, source: pos });
    return `${where.definition.file}: ${formatDiagnostic(d)}`;
  }
  if (issue.input === "object") return `${where.object}: ${formatDiagnostic(d)}`;
  if (issue.input === "pod") {
    const file = issue.pod !== undefined ? where.podFiles.get(issue.pod) : undefined;
    return `${file ?? "pods"}: pod ${issue.pod ?? "?"}: ${formatDiagnostic(d)}`;
  }
  return `karta compile: ${formatDiagnostic(d)}`;
}

function podKey(pod: unknown): string {
  const meta = (pod as { metadata?: { name?: unknown; namespace?: unknown } }).metadata ?? {};
  const name = typeof meta.name === "string" ? meta.name : "";
  return typeof meta.namespace === "string" && meta.namespace !== "" ? `${meta.namespace}/${name}` : name;
}

/** The objects (or patches) as a YAML stream or JSON. */
function render(result: WorkloadCompilation, output: "yaml" | "json" | "name", podPatches: boolean): string {
  if (podPatches) {
    if (output === "name") return result.podPatches.map((p) => `pod/${p.pod.name}\n`).join("");
    return output === "json" ? JSON.stringify(result.podPatches, null, 2) + "\n" : yamlStream(result.podPatches);
  }
  const objects = compiledObjects(result);
  // As kubectl's -o name: kind.group/name.
  if (output === "name") return objects.map((o) => `${o.kind.toLowerCase()}.${o.apiVersion.split("/")[0]}/${o.metadata.name}\n`).join("");
  if (output === "json") return JSON.stringify({ apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" }, items: objects }, null, 2) + "\n";
  return yamlStream(objects);
}

/** Runs `karta compile`; returns the exit code. */
export async function runCompile(args: string[], io: CliIO): Promise<number> {
  const p = parseCommand(io, "compile", args, FLAGS, COMPILE_HELP, { positionals: true });
  if (typeof p === "number") return p;
  const parsed = options(p);
  if ("error" in parsed) return usageError(io, "compile", parsed.error);
  let object: unknown;
  const pods: unknown[] = [];
  const owners: unknown[] = [];
  const podFiles = new Map<string, string>();
  let catalog: Catalog | undefined;
  let live: LiveWorkload | undefined;
  try {
    let given: { object: unknown; file: string }[];
    if (parsed.live) {
      const { readLiveWorkload } = await import("./live.js");
      const read = await readLiveWorkload(parsed.live.ref, parsed.live);
      live = read;
      parsed.object = read.source;
      // auto: what the cluster can gang (a composite where CompositePodGroup is served).
      if (parsed.groupShape === undefined && !read.servesCompositePodGroup) parsed.groupShape = "flat";
      object = read.object;
      given = [...read.pods, ...read.owners].map((o) => ({ object: o, file: `pods in ${read.source}` }));
    } else {
      ({ object, file: parsed.object } = await readWorkloadObject(io, parsed.files));
      given = await readObjects(io, parsed.pods);
    }
    for (const { object: pod, file } of given) {
      // Other objects given with the pods (ReplicaSets, Jobs, StatefulSets...) are the links of their owner chains.
      if (!isPodLike(pod)) {
        owners.push(pod);
        continue;
      }
      pods.push(pod);
      if (!podFiles.has(podKey(pod))) podFiles.set(podKey(pod), displayName(file));
    }
    // Without -d a batch/v1 Job compiles as the Job controller does; any other kind from its bundled definition.
    if (parsed.definition !== undefined || !isBatchJob(object)) catalog = await readCatalog(io, parsed.definition, object);
    // An owner of a described kind governs the pods (as the controller decides): it has the groups, this has none.
    const governor = live && (await liveGovernor(io, live, parsed.definition, catalog));
    if (governor) {
      io.stderr(`karta compile: ${parsed.object}: ${governedMessage(governor)}; no objects\n`);
      io.stdout(render({ ok: true, compositePodGroups: [], podGroups: [], podPatches: [], issues: [] }, parsed.output, parsed.podPatches));
      return 0;
    }
  } catch (err) {
    if (err instanceof InputError) {
      io.stderr(`karta compile: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }

  const intent: SchedulingIntent = {};
  if (parsed.policy !== undefined) intent.policy = parsed.policy;
  if (parsed.disruptionMode !== undefined) intent.disruptionMode = parsed.disruptionMode;
  if (parsed.priorityClassName !== undefined) intent.priorityClassName = parsed.priorityClassName;
  if (parsed.topologyKey !== undefined) intent.topologyKey = parsed.topologyKey;
  if (parsed.groupShape !== undefined) intent.groupShape = parsed.groupShape;

  let result: WorkloadCompilation;
  let definition: Definition | undefined;
  if (catalog === undefined) {
    result = compileBatchJob(object as Parameters<typeof compileBatchJob>[0], { ...intent, pods });
  } else {
    const usable = await catalogDefinition("compile", io, catalog, object, undefined, parsed.object);
    if (typeof usable === "number") return usable;
    definition = usable;
    result = compileKarta(definition, object, { ...intent, pods, owners });
  }

  // An object of another kind than the definition's: no definition covers it (4, as in inspect), nothing compiled.
  const wrongKind = result.issues.find((i) => i.code === "object-kind" && i.severity === "error");
  if (wrongKind !== undefined) {
    io.stderr(`karta compile: ${displayName(parsed.object!)}: ${wrongKind.message}\n`);
    return EXIT_NO_DEFINITION;
  }
  const rank = { error: 0, warning: 1, notice: 2 } as const;
  const issues = [...result.issues].sort((a, b) => rank[a.severity] - rank[b.severity]);
  for (const issue of issues) io.stderr(renderIssue(issue, { ...(definition ? { definition } : {}), object: displayName(parsed.object!), podFiles }) + "\n");
  if (!result.ok) {
    const errors = issues.filter((i) => i.severity === "error");
    // Bad option values are usage errors.
    return errors.length > 0 && errors.every((i) => i.input === "option") ? 2 : 1;
  }
  io.stdout(render(result, parsed.output, parsed.podPatches));
  return 0;
}
