/**
 * Deterministic object names, computed as the Job controller integration and the
 * workloadbuilder's names.go compute them:
 * - template: `<job>-pgt-<i>`;
 * - Workload: `<owner name>-<safe-encoded fnv32a of the owner UID>`, where the UID is hashed in
 *   the canonical form Kubernetes' `DeepHashObject` writes for a `types.UID` (`(types.UID)<uid>`);
 * - PodGroup: `<workload>-<template>-<safe-encoded fnv32a of workload+template>`, both prefixes
 *   truncated fairly so the result fits a DNS-1123 subdomain (253 bytes).
 * Lengths are counted and names cut in UTF-8 bytes, as Go does.
 */

import { DNS1123_SUBDOMAIN_MAX_LENGTH } from "../names/index.js";

const FNV32_OFFSET = 0x811c9dc5;
const FNV32_PRIME = 0x01000193;

/** FNV-1a, 32 bits, over the UTF-8 bytes of `data` (Go's `hash/fnv` `New32a`). */
export function fnv32a(data: string | Uint8Array): number {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let h = FNV32_OFFSET;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, FNV32_PRIME) >>> 0;
  }
  return h >>> 0;
}

/** The alphabet of `k8s.io/apimachinery/pkg/util/rand`: no vowels, so no words. */
const SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

/** `rand.SafeEncodeString`: maps each character to the vowel-free alphabet. */
export function safeEncodeString(s: string): string {
  let out = "";
  for (const ch of s) out += SAFE_ALPHANUMS[ch.codePointAt(0)! % SAFE_ALPHANUMS.length];
  return out;
}

/** The hash suffix: safe encoding of the decimal fnv32a value. */
function hashSuffix(data: string): string {
  return safeEncodeString(String(fnv32a(data)));
}

/** Name of the i-th PodGroupTemplate the Job controller compiles for a Job. */
export function podGroupTemplateName(jobName: string, index = 0): string {
  return `${jobName}-pgt-${index}`;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Go's `s[:n]` on a string: its first n UTF-8 bytes. A cut inside a multi-byte character leaves stray
 * bytes that no JavaScript string holds; each becomes U+FFFD, as Go's JSON encoding of the name shows it.
 */
export function cutBytes(s: string, n: number): string {
  const bytes = encoder.encode(s);
  if (bytes.length <= n) return s;
  // Back up to the first byte of the last character that starts within the cut.
  let start = n;
  while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start--;
  return decoder.decode(bytes.subarray(0, start)) + "\ufffd".repeat(n - start);
}

function byteLength(s: string): number {
  return encoder.encode(s).length;
}

/**
 * Workload name for an owner (the Job controller's `computeWorkloadName`): `<owner name>-<hash of UID>`,
 * the owner name cut (in bytes) so that the whole fits in 253 bytes.
 */
export function generateWorkloadName(ownerName: string, ownerUID: string): string {
  // DeepHashObject prints a types.UID with spew's %#v: the type in parentheses, then the raw string.
  const hash = hashSuffix(`(types.UID)${ownerUID}`);
  return `${cutBytes(ownerName, DNS1123_SUBDOMAIN_MAX_LENGTH - hash.length - 1)}-${hash}`;
}

/**
 * PodGroup (or CompositePodGroup) name derived from its Workload and template (the Job controller's
 * `computePodGroupName`): `<workload>-<template>-<hash>`. When the two names are too long for 253 bytes,
 * each keeps up to half of the room and a short one yields its unused share to the other (the workload
 * name gets the odd byte). The hash covers the full names, so truncated prefixes cannot collide.
 */
export function generatePodGroupName(workloadName: string, templateName: string): string {
  const hash = hashSuffix(workloadName + templateName);
  const maxAvailable = DNS1123_SUBDOMAIN_MAX_LENGTH - hash.length - 2;
  const wlLen = byteLength(workloadName);
  const tplLen = byteLength(templateName);
  let wl = workloadName;
  let tpl = templateName;
  if (wlLen + tplLen > maxAvailable) {
    const half = Math.floor(maxAvailable / 2);
    if (wlLen <= half) tpl = cutBytes(tpl, maxAvailable - wlLen);
    else if (tplLen <= half) wl = cutBytes(wl, maxAvailable - tplLen);
    else {
      wl = cutBytes(wl, maxAvailable - half);
      tpl = cutBytes(tpl, half);
    }
  }
  return `${wl}-${tpl}-${hash}`;
}
