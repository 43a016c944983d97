/** Load-balancer ingress points of Services and Ingresses: normalising, deduplicating and sorting as Karmada does. */
import { isDeepStrictEqual } from "node:util";
import { type Obj, asObjectArray, defined } from "./common.js";

/** A port status as Go writes it (port and protocol always, error when set). */
function portStatus(p: Obj): Obj {
  return defined({ port: typeof p["port"] === "number" ? p["port"] : 0, protocol: typeof p["protocol"] === "string" ? p["protocol"] : "", error: typeof p["error"] === "string" ? p["error"] : undefined });
}

/** A load-balancer ingress as Go writes it: empty fields left out. */
export function normalizeIngressPoint(i: Obj, withIPMode: boolean): Obj {
  const out: Obj = {};
  if (typeof i["ip"] === "string" && i["ip"] !== "") out["ip"] = i["ip"];
  if (typeof i["hostname"] === "string" && i["hostname"] !== "") out["hostname"] = i["hostname"];
  if (withIPMode && typeof i["ipMode"] === "string") out["ipMode"] = i["ipMode"];
  const ports = asObjectArray(i["ports"]).map(portStatus);
  if (ports.length > 0) out["ports"] = ports;
  return out;
}

function comparePorts(a: Obj, b: Obj): number {
  if (a["port"] !== b["port"]) return a["port"] < b["port"] ? -1 : 1;
  if (a["protocol"] !== b["protocol"]) return a["protocol"] < b["protocol"] ? -1 : 1;
  if (a["error"] === undefined) return b["error"] === undefined ? 0 : -1;
  if (b["error"] === undefined) return 1;
  return a["error"] < b["error"] ? -1 : a["error"] > b["error"] ? 1 : 0;
}

function str(o: Obj, k: string): string {
  return typeof o[k] === "string" ? o[k] : "";
}

/**
 * Merges ingress points with the same hostname, IP (and, for Services, ipMode), uniting their ports,
 * then sorts: hostnames first (alphabetically), then by IP, then by ipMode (unset last).
 */
export function dedupeAndSortIngressPoints(points: Obj[], withIPMode: boolean): Obj[] {
  const merged = new Map<string, { point: Obj; ports: Map<string, Obj> }>();
  for (const raw of points) {
    const p = normalizeIngressPoint(raw, withIPMode);
    const key = JSON.stringify([str(p, "hostname"), str(p, "ip"), withIPMode ? (p["ipMode"] ?? null) : null]);
    const entry = merged.get(key) ?? { point: p, ports: new Map<string, Obj>() };
    entry.point = p;
    for (const port of (p["ports"] as Obj[] | undefined) ?? []) entry.ports.set(JSON.stringify(port), port);
    merged.set(key, entry);
  }
  const out = [...merged.values()].map(({ point, ports }) => {
    const o: Obj = { ...point };
    delete o["ports"];
    const sorted = [...ports.values()].sort(comparePorts);
    if (sorted.length > 0) o["ports"] = sorted;
    return o;
  });
  return out.sort((a, b) => {
    const ha = str(a, "hostname");
    const hb = str(b, "hostname");
    if (ha !== hb) {
      if (hb === "") return -1;
      if (ha === "") return 1;
      return ha < hb ? -1 : 1;
    }
    const ia = str(a, "ip");
    const ib = str(b, "ip");
    if (ia !== ib) return ia < ib ? -1 : 1;
    if (!withIPMode) return 0;
    if (b["ipMode"] === undefined) return a["ipMode"] === undefined ? 0 : -1;
    if (a["ipMode"] === undefined) return 1;
    return a["ipMode"] < b["ipMode"] ? -1 : a["ipMode"] > b["ipMode"] ? 1 : 0;
  });
}

/** Whether any ingress point has an IP or a hostname. */
export function hasAddress(points: unknown): boolean {
  return asObjectArray(points).some((p) => str(p, "ip") !== "" || str(p, "hostname") !== "");
}

/** A port status in its typed form: a missing error is nil, distinct from an empty one. */
function typedPort(p: unknown): Obj {
  const o = p !== null && typeof p === "object" && !Array.isArray(p) ? (p as Obj) : {};
  return {
    port: typeof o["port"] === "number" ? o["port"] : 0,
    protocol: str(o, "protocol"),
    error: typeof o["error"] === "string" ? o["error"] : null,
  };
}

/** A list in its typed form: absent or null is nil (null here), an empty list is not. */
function typedList(v: unknown, item: (x: unknown) => Obj): Obj[] | null {
  return Array.isArray(v) ? v.map(item) : null;
}

/** An ingress point in its typed form, for comparing as Go's reflect.DeepEqual compares typed statuses. */
function typedPoint(p: unknown, withIPMode: boolean): Obj {
  const o = p !== null && typeof p === "object" && !Array.isArray(p) ? (p as Obj) : {};
  const out: Obj = { ip: str(o, "ip"), hostname: str(o, "hostname"), ports: typedList(o["ports"], typedPort) };
  if (withIPMode) out["ipMode"] = typeof o["ipMode"] === "string" ? o["ipMode"] : null;
  return out;
}

/**
 * Whether an old `loadBalancer.ingress` value equals freshly aggregated points the way Karmada's
 * reflect.DeepEqual sees them: the aggregated list is never nil, so an absent or null old list differs
 * even from an empty result, and an empty `ports` list differs from none.
 */
export function sameIngressPoints(old: unknown, next: Obj[], withIPMode: boolean): boolean {
  const before = typedList(old, (p) => typedPoint(p, withIPMode));
  if (before === null) return false;
  const after = next.map((p) => typedPoint(p, withIPMode));
  return isDeepStrictEqual(before, after);
}
