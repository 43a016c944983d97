/**
 * Go's json.Unmarshal into typed values (src/resources/go-json.ts), against Go itself: the type table
 * (src/resources/go-types.ts) is what `tools/karmada-luavm -go-types` reads off k8s.io/api and
 * Karmada's result types, and decoding a pod template or a script's typed result, with every field
 * given a value of each other JSON type, odd numbers, quantities, times and case-folded keys, gives
 * Go's result or Go's error text. Skips with a notice when the tool is not built (Go missing).
 */
import { before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import type { JsonValue } from "../../src/input/index.js";
import { unmarshalGo } from "../../src/resources/go-json.js";
import type { GoType } from "../../src/resources/go-type-table.js";
import { GO_TYPES } from "../../src/resources/go-types.js";
import { karmadaLuaVM, runKarmadaLuaVM, type LuaOracleAnswer, type LuaOracleCase } from "../support/karmada-luavm.js";

const oracle = karmadaLuaVM();

/** A pod template touching every kind of field: ints, int64 pointers, quantities, IntOrString, times, raw JSON, embedded structs. */
const TEMPLATE: JsonValue = {
  metadata: {
    name: "t",
    labels: { app: "web" },
    annotations: { "example.com/a": "b" },
    creationTimestamp: "2024-01-02T03:04:05Z",
    generation: 3,
    ownerReferences: [{ apiVersion: "v1", kind: "X", name: "o", uid: "u", controller: true }],
    finalizers: ["f"],
    managedFields: [{ manager: "m", operation: "Apply", time: "2024-01-02T03:04:05+02:00", fieldsV1: { "f:spec": {} } }],
  },
  spec: {
    serviceAccountName: "sa",
    terminationGracePeriodSeconds: 30,
    nodeSelector: { disk: "ssd" },
    hostNetwork: true,
    overhead: { cpu: "100m" },
    tolerations: [{ key: "k", operator: "Exists", effect: "NoSchedule", tolerationSeconds: 60 }],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "z", operator: "In", values: ["a"] }] }] } } },
    securityContext: { runAsUser: 1000, fsGroup: 2000, sysctls: [{ name: "n", value: "v" }] },
    containers: [
      {
        name: "c",
        image: "i",
        ports: [{ containerPort: 80, protocol: "TCP" }],
        env: [{ name: "A", value: "1" }, { name: "B", valueFrom: { secretKeyRef: { name: "s", key: "k", optional: true } } }],
        resources: { requests: { cpu: "250m", memory: "64Mi" }, limits: { cpu: 1, memory: "1Gi" } },
        livenessProbe: { httpGet: { path: "/", port: 8080 }, periodSeconds: 10 },
        readinessProbe: { tcpSocket: { port: "http" } },
        lifecycle: { preStop: { sleep: { seconds: 5 } } },
        securityContext: { privileged: false, capabilities: { add: ["NET_ADMIN"] } },
      },
    ],
    ephemeralContainers: [{ name: "e", image: "d", stdin: true }],
    volumes: [
      { name: "v1", emptyDir: { sizeLimit: "1Gi" } },
      { name: "v2", secret: { secretName: "s", defaultMode: 420 } },
      { name: "v3", projected: { sources: [{ configMap: { name: "c" } }, { serviceAccountToken: { path: "p", expirationSeconds: 3600 } }] } },
    ],
  },
};

/** Values that are not what a field holds, or odd ones of its kind. */
const REPLACEMENTS: JsonValue[] = ["text", 1.5, 2147483648, -1, 1e21, true, {}, [], null, "2024-13-01T00:00:00Z", " 1 ", "1.2.3", 2 ** 53 + 2];

type Path = (string | number)[];

function leafAndContainerPaths(v: JsonValue, prefix: Path = [], out: Path[] = []): Path[] {
  const visit = (key: string | number, item: JsonValue): void => {
    out.push([...prefix, key]);
    leafAndContainerPaths(item, [...prefix, key], out);
  };
  if (Array.isArray(v)) v.forEach((item, i) => visit(i, item));
  else if (v !== null && typeof v === "object") for (const [k, item] of Object.entries(v)) visit(k, item);
  return out;
}

function replaced(v: JsonValue, path: Path, to: JsonValue): JsonValue {
  if (path.length === 0) return to;
  const [head, ...rest] = path;
  if (Array.isArray(v)) return v.map((item, i) => (i === head ? replaced(item, rest, to) : item));
  const obj = v as { [k: string]: JsonValue };
  return { ...obj, [head as string]: replaced(obj[head as string]!, rest, to) };
}

/** Keys spelled otherwise: Go's decoder matches them case-insensitively (and with Unicode folding). */
function renamedKeys(v: JsonValue, rename: (k: string) => string): JsonValue {
  if (Array.isArray(v)) return v.map((item) => renamedKeys(item, rename));
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, item]) => [rename(k), renamedKeys(item, rename)]));
  return v;
}

function cases(): { type: string; value: JsonValue }[] {
  const out: { type: string; value: JsonValue }[] = [];
  const add = (type: string, seed: JsonValue): void => {
    out.push({ type, value: seed });
    for (const p of leafAndContainerPaths(seed)) for (const r of REPLACEMENTS) out.push({ type, value: replaced(seed, p, r) });
  };
  add("v1.PodTemplateSpec", TEMPLATE);
  add("v1alpha2.ReplicaRequirements", {
    nodeClaim: { nodeSelector: { a: "b" }, tolerations: [{ key: "k", tolerationSeconds: 5 }], hardNodeAffinity: { nodeSelectorTerms: [{ matchFields: [{ key: "f", operator: "In", values: ["x"] }] }] } },
    resourceRequest: { cpu: "1", "nvidia.com/gpu": 2 },
    namespace: "n",
    priorityClassName: "p",
  });
  add("[]v1alpha2.Component", [{ name: "a", replicas: 2, replicaRequirements: { resourceRequest: { memory: "1Gi" }, priorityClassName: "p" } }, { name: "b", replicas: 0 }]);
  add("[]v1alpha1.DependentObjectReference", [{ apiVersion: "v1", kind: "Secret", namespace: "n", name: "s" }, { apiVersion: "v1", kind: "ConfigMap", labelSelector: { matchLabels: { a: "b" }, matchExpressions: [{ key: "k", operator: "In", values: ["v"] }] } }]);
  out.push({ type: "v1.PodTemplateSpec", value: renamedKeys(TEMPLATE, (k) => k.toUpperCase()) });
  out.push({ type: "v1.PodTemplateSpec", value: renamedKeys(TEMPLATE, (k) => k.replace(/s/g, "ſ")) });
  out.push({ type: "v1.PodTemplateSpec", value: { ...(TEMPLATE as object), Spec: { hostname: "first" }, extra: 1 } });
  out.push({ type: "v1.PodTemplateSpec", value: [] });
  out.push({ type: "[]v1alpha2.Component", value: {} });
  return out;
}

describe("Go's json.Unmarshal into typed values, against Go", () => {
  let skip: string | undefined;
  before(() => {
    if ("skip" in oracle) skip = oracle.skip;
  });

  test("the Go type table is what the tool reads off the types", (t) => {
    if (skip) return t.skip(skip);
    const binary = (oracle as { binary: string }).binary;
    const rows = JSON.parse(execFileSync(binary, ["-go-types"], { encoding: "utf8" })) as [string, { kind: string; elem?: string; fields?: unknown[][] }][];
    const derivable = (name: string, info: { kind: string; elem?: string }): boolean =>
      (info.kind === "pointer" && name === `*${info.elem}`) ||
      (info.kind === "slice" && name === `[]${info.elem}`) ||
      (info.kind === "map" && name === `map[string]${info.elem}`) ||
      (name === info.kind && ["string", "bool", "int32", "int64"].includes(name));
    const expected: Record<string, GoType> = {};
    for (const [name, info] of rows) if (!derivable(name, info)) expected[name] = info as GoType;
    assert.deepEqual(GO_TYPES, expected, "src/resources/go-types.ts is stale: run node scripts/go-types.mjs");
  });

  test("decoding gives Go's value or Go's error", async (t) => {
    if (skip) return t.skip(skip);
    const all = cases();
    const input: LuaOracleCase[] = all.map((c, i) => ({ id: String(i), operation: "GoDecode", type: c.type, object: c.value }) as LuaOracleCase);
    const answers: LuaOracleAnswer[] = await runKarmadaLuaVM((oracle as { binary: string }).binary, input);
    const differences: string[] = [];
    all.forEach((c, i) => {
      const go = answers[i]!;
      assert.ok(!("invalid" in go), JSON.stringify(go));
      const ours = unmarshalGo(c.value, c.type);
      const theirs = "error" in go ? { ok: false, error: go.error } : { ok: true, value: (go as { result: JsonValue }).result };
      try {
        assert.deepEqual(ours, theirs);
      } catch {
        differences.push(`${c.type} ${JSON.stringify(c.value).slice(0, 300)}\n    Go:    ${JSON.stringify(theirs).slice(0, 400)}\n    Karta: ${JSON.stringify(ours).slice(0, 400)}`);
      }
    });
    console.log(`# Go decoding differential: ${all.length - differences.length} of ${all.length} cases equal`);
    assert.equal(differences.length, 0, differences.slice(0, 10).join("\n"));
  });
});
