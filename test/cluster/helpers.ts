/** Shared steps of the cluster tests. */
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { kartaBin, repoRoot } from "../support/conformance.js";
import { attempt, type TestCluster } from "../support/cluster.js";
import { keepPlainJson } from "../support/kube.js";

export const CRD_NAME = "kartas.run.ai";

/** Creates the CRD (once per run; other files may have done it) and waits until it is Established. */
export async function installKartaCrd(c: TestCluster): Promise<void> {
  // As kubectl sends it: client-node's CRD model would drop the schema's x-kubernetes-* fields.
  keepPlainJson([{ group: "apiextensions.k8s.io", version: "v1", kind: "CustomResourceDefinition" }]);
  const crd = parse(readFileSync(path.join(repoRoot, "deploy", "crd", "run.ai_kartas.yaml"), "utf8")) as KubernetesObject;
  const created = await attempt(() => c.objects.create(crd));
  if (!created.ok && created.reason !== "AlreadyExists") assert.fail(`the server refused the Karta CRD: ${created.message}`);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const got = (await c.objects.read({ apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", metadata: { name: CRD_NAME } })) as {
      status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
    };
    const conditions = got.status?.conditions ?? [];
    const established = conditions.find((x) => x.type === "Established");
    const nonStructural = conditions.find((x) => x.type === "NonStructuralSchema" && x.status === "True");
    assert.equal(nonStructural, undefined, `the CRD's schema is not structural: ${nonStructural?.message}`);
    if (established?.status === "True") return;
    if (Date.now() > deadline) assert.fail(`the Karta CRD did not become Established: ${JSON.stringify(conditions)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}


/**
 * The object without null-valued fields: v1beta1 PodGroupTemplate.schedulingConstraints is a pointer
 * without omitempty (k8s.io/api scheduling/v1beta1/types.go), so the server writes `null` for "unset".
 */
export function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
  return v;
}


/** The parts of an OpenAPI v3 schema the API server's structural defaulting reads. */
interface DefaultingSchema {
  default?: unknown;
  properties?: Record<string, DefaultingSchema>;
  additionalProperties?: DefaultingSchema | boolean;
  items?: DefaultingSchema;
}

/**
 * `value` with the schema's defaults filled in where a field is missing from an object that is present,
 * as the API server defaults a custom resource on write (a missing object is not created for its fields).
 */
export function withSchemaDefaults(schema: DefaultingSchema, value: unknown): unknown {
  if (Array.isArray(value)) return schema.items ? value.map((v) => withSchemaDefaults(schema.items!, v)) : value;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (!(key in out) && sub.default !== undefined) out[key] = structuredClone(sub.default);
  }
  for (const [key, v] of Object.entries(out)) {
    const sub = schema.properties?.[key] ?? (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    if (sub) out[key] = withSchemaDefaults(sub, v);
  }
  return out;
}

/** `karta controller` (bin/karta.js) as a child process, with its JSON log lines on standard error. */
export interface ControllerProcess {
  child: ChildProcess;
  /** Everything logged so far. */
  log(): string;
  /** The first log line with this message, parsed. */
  line(msg: string): Record<string, unknown> | undefined;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts `karta controller ARGS...`. */
export function spawnController(args: string[]): ControllerProcess {
  const child = spawn(process.execPath, [kartaBin, "controller", ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr!.on("data", (b: Buffer) => (err += b.toString()));
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    log: () => err,
    line: (msg) => {
      const l = err.split("\n").find((x) => x.includes(`"msg":${JSON.stringify(msg)}`));
      return l === undefined ? undefined : (JSON.parse(l) as Record<string, unknown>);
    },
    exited,
  };
}
