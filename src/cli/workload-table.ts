/**
 * The rows `karta get` prints for workloads: the table's header and cells (kubectl's column layout, see
 * table.ts), and the machine formats (indented JSON, YAML documents).
 */
import { age } from "./table.js";
import type { ServedType } from "./workload-types.js";
import type { DescribeView, WorkloadView } from "./workload-view.js";
import { yamlDocument } from "./yaml-output.js";

/** A value in the machine formats: JSON (indented) or a YAML document. */
export function machine(value: unknown, format: "json" | "yaml"): string {
  return format === "json" ? JSON.stringify(value, null, 2) + "\n" : yamlDocument(value);
}

/** A workload as `kubectl get -o name` prints an object: `kind.group/name` (`kind/name` in the core group). */
export function nameLine(v: WorkloadView): string {
  return `${v.type.kind.toLowerCase()}${v.type.group ? `.${v.type.group}` : ""}/${v.name}\n`;
}

/** The list row of a describe view. */
export function listRow(v: DescribeView): WorkloadView {
  const { tree: _t, resources: _r, problems: _p, ...rest } = v;
  return rest;
}

/** `Kind`, or `Kind.group` when two listed types share the kind. */
export function typeNames(types: readonly ServedType[]): (v: WorkloadView) => string {
  const kinds = new Map<string, number>();
  for (const t of types) kinds.set(t.type.kind, (kinds.get(t.type.kind) ?? 0) + 1);
  return (v) => ((kinds.get(v.type.kind) ?? 0) > 1 && v.type.group ? `${v.type.kind}.${v.type.group}` : v.type.kind);
}

/** The table rows (without the header) of some views. */
export function tableRows(views: readonly WorkloadView[], wide: boolean, typeName?: (v: WorkloadView) => string, now = Date.now()): string[][] {
  return views.map((v) => [
    v.name,
    v.namespace || "<none>",
    ...(typeName ? [typeName(v)] : []),
    v.phases.join(","),
    v.components.join(",") || "<none>",
    `${v.pods.ready}/${v.pods.total}`,
    String(v.gpus),
    age(v.createdAt, now),
    ...(wide ? [String(v.desiredPods), v.nodes.join(",") || "<none>", v.karta, v.origin] : []),
  ]);
}

/** The table's header. */
export function tableHeader(wide: boolean, withType: boolean): string[] {
  return ["NAME", "NAMESPACE", ...(withType ? ["TYPE"] : []), "PHASE", "COMPONENTS", "PODS", "GPUS", "AGE", ...(wide ? ["DESIRED", "NODES", "KARTA", "ORIGIN"] : [])];
}


