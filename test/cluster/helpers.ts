/** Shared steps of the cluster tests. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import type { KubernetesObject } from "@kubernetes/client-node";
import { repoRoot } from "../support/conformance.js";
import { attempt, type TestCluster } from "../support/cluster.js";

export const CRD_NAME = "kartas.run.ai";

/** Creates the CRD (once per run; other files may have done it) and waits until it is Established. */
export async function installKartaCrd(c: TestCluster): Promise<void> {
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

