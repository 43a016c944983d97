/**
 * Resource interpreter throughput, InterpretHealth on one KubeRay RayCluster of 4 KB (the bundled
 * fixture, with the last-applied-configuration annotation kubectl leaves on real objects):
 *
 * 1. the Karta layer (bundled RayCluster Karta, status mappings on the plain object) against Karmada's
 *    own Ray customization run by our declarative (Lua) layer, in the same run. Target: ratio ≥ 10.
 *    Karmada's script is read at run time from the conformance data
 *    ($KARTA_CONFORMANCE/karmada-thirdparty/...); without it the row is skipped with a note.
 * 2. Lua InterpretHealth calls per second, conversion of the object into Lua included, with a health
 *    script of our own (so that the row needs no external data). Target: ≥ 15,000/s on a 2-core machine.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { createDeclarativeInterpreter, type DeclarativeInterpreter } from "../src/interpreter/declarative/interpreter.js";
import { customizationOf } from "../src/interpreter/declarative/customization.js";
import { loadCustomizationFiles } from "../src/interpreter/declarative/load.js";
import { createKartaInterpreter } from "../src/interpreter/karta/index.js";
import type { KubeObject, ResourceInterpreterCustomization } from "../src/interpreter/types.js";
import { conformanceRoot, opsPerSecond, repoRoot, type BenchResult } from "./harness.js";

const OBJECT_BYTES = 4096;

/** The bundled RayCluster fixture padded to 4 KB with a kubectl last-applied-configuration annotation. */
function rayCluster(): KubeObject {
  const obj = parse(readFileSync(path.join(repoRoot, "test", "fixtures", "bundled", "RayCluster", "workload.yaml"), "utf8")) as KubeObject;
  const meta = obj.metadata as Record<string, KubeObject | string>;
  const applied = JSON.stringify({ apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name: meta.name, namespace: meta.namespace }, spec: { rayVersion: (obj.spec as KubeObject).rayVersion } });
  const annotations: Record<string, string> = { "kubectl.kubernetes.io/last-applied-configuration": applied };
  meta.annotations = annotations;
  // Fill with the spec as kubectl would have recorded it, cut to the size wanted (JSON escaping
  // inside the annotation makes the first guess long, hence the few corrections).
  const filler = applied + JSON.stringify(obj.spec).repeat(2);
  let keep = applied.length + OBJECT_BYTES - JSON.stringify(obj).length;
  for (let i = 0; i < 20 && keep > applied.length; i++) {
    annotations["kubectl.kubernetes.io/last-applied-configuration"] = filler.slice(0, keep);
    const over = JSON.stringify(obj).length - OBJECT_BYTES;
    if (over <= 0) break;
    keep -= Math.max(1, Math.ceil(over / 2));
  }
  return obj;
}

/** Our own RayCluster health rule in Lua (head ready and provisioned, no replica failure). */
const OWN_HEALTH = customizationOf("bench-raycluster-health", { apiVersion: "ray.io/v1", kind: "RayCluster" }, {
  healthInterpretation: `
function InterpretHealth(observedObj)
  local status = observedObj.status
  if status == nil or status.conditions == nil then return false end
  local ready, provisioned = false, false
  for _, c in ipairs(status.conditions) do
    if c.type == "RayClusterReplicaFailure" and c.status == "True" then return false end
    if c.type == "HeadPodReady" then ready = c.status == "True" end
    if c.type == "RayClusterProvisioned" then provisioned = c.status == "True" end
  end
  return ready and provisioned
end`,
});

function karmadaRayCustomizations(): ResourceInterpreterCustomization[] | string {
  const base = conformanceRoot;
  const file = path.join(base, "karmada-thirdparty", "resourcecustomizations", "ray.io", "v1", "RayCluster", "customizations.yaml");
  if (!existsSync(file)) return `skipped: ${file} absent (set KARTA_CONFORMANCE)`;
  const loaded = loadCustomizationFiles([file]);
  if (loaded.issues.length > 0) return `skipped: ${file}: ${loaded.issues[0]!.message}`;
  return loaded.customizations;
}

function healthOf(ipt: DeclarativeInterpreter, obj: KubeObject): boolean {
  const r = ipt.interpretHealth(obj);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** The interpreter benchmarks (rows for bench/run.ts). */
export async function benchInterpreter(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const obj = rayCluster();
  const size = JSON.stringify(obj).length;

  const { interpreter: karta, issues } = createKartaInterpreter();
  if (issues.length > 0) throw new Error(`bundled Kartas: ${issues.join("; ")}`);
  const kartaOnce = karta.interpretHealth(obj);
  if (!kartaOnce.ok || kartaOnce.value !== true) throw new Error(`the Karta layer does not find the RayCluster healthy: ${JSON.stringify(kartaOnce)}`);

  const karmada = karmadaRayCustomizations();
  let luaOps: number | undefined;
  const luaName = "Lua InterpretHealth, Karmada's Ray script";
  if (typeof karmada === "string") {
    results.push({ name: luaName, opsPerSec: 0, note: karmada });
  } else {
    const lua = await createDeclarativeInterpreter(karmada);
    try {
      if (healthOf(lua, obj) !== true) throw new Error("Karmada's Ray script does not find the RayCluster healthy");
      luaOps = opsPerSecond(() => healthOf(lua, obj));
      results.push({ name: luaName, opsPerSec: luaOps, note: `RayCluster of ${size} B` });
    } finally {
      lua.close();
    }
  }
  const kartaOps = opsPerSecond(() => karta.interpretHealth(obj));
  const kartaRow: BenchResult = { name: "Karta layer InterpretHealth, bundled RayCluster Karta", opsPerSec: kartaOps };
  if (luaOps !== undefined) {
    kartaRow.baseline = luaName;
    kartaRow.ratio = kartaOps / luaOps;
    kartaRow.note = `same object; target ≥ 10x: ${kartaRow.ratio >= 10 ? "met" : "NOT met"}`;
  } else {
    kartaRow.note = "no Lua baseline (conformance data absent)";
  }
  results.push(kartaRow);

  const own = await createDeclarativeInterpreter([OWN_HEALTH]);
  try {
    if (healthOf(own, obj) !== true) throw new Error("the Lua health script does not find the RayCluster healthy");
    const ops = opsPerSecond(() => healthOf(own, obj), 600);
    results.push({
      name: `Lua InterpretHealth incl. conversion, ${size} B object`,
      opsPerSec: ops,
      note: `target ≥ 15,000/s on 2 cores: ${ops >= 15000 ? "met" : "NOT met"}`,
    });
  } finally {
    own.close();
  }
  return results;
}
