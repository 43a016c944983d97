/**
 * Deterministic object names, computed as the Job controller integration and the
 * workloadbuilder's names.go compute them:
 * - template: `<job>-pgt-<i>`;
 * - Workload: `<owner name>-<safe-encoded fnv32a of the owner UID>`, where the UID is hashed in
 *   the canonical form Kubernetes' `DeepHashObject` writes for a `types.UID` (`(types.UID)<uid>`);
 * - PodGroup: `<workload>-<template>-<safe-encoded fnv32a of workload+template>`, both prefixes
 *   truncated fairly so the result fits a DNS-1123 subdomain (253 characters).
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

/**
 * Workload name for an owner: `<owner name>-<hash of UID>`; the hash alone for an unnamed owner.
 * The owner name is truncated so that the whole fits in 253 characters.
 */
export function generateWorkloadName(ownerName: string, ownerUID: string): string {
  // DeepHashObject prints a types.UID with spew's %#v: the type in parentheses, then the raw string.
  const hash = hashSuffix(`(types.UID)${ownerUID}`);
  if (ownerName === "") return hash;
  const maxPrefix = DNS1123_SUBDOMAIN_MAX_LENGTH - hash.length - 1;
  return `${ownerName.slice(0, maxPrefix)}-${hash}`;
}

/**
 * PodGroup (or CompositePodGroup) name derived from its Workload and template. Both names are kept
 * as prefixes where possible; when too long, each keeps up to half of the room and a short one
 * yields its unused share to the other. The hash covers the full names, so truncated prefixes
 * cannot collide.
 */
export function generatePodGroupName(workloadName: string, templateName: string): string {
  const hash = hashSuffix(workloadName + templateName);
  const maxPrefix = DNS1123_SUBDOMAIN_MAX_LENGTH - hash.length - 1;
  if (workloadName === "") {
    if (templateName === "") return hash;
    return `${templateName.slice(0, maxPrefix)}-${hash}`;
  }
  if (templateName === "") return `${workloadName.slice(0, maxPrefix)}-${hash}`;

  const maxAvailable = DNS1123_SUBDOMAIN_MAX_LENGTH - hash.length - 2;
  let wl = workloadName;
  let tpl = templateName;
  if (wl.length + tpl.length > maxAvailable) {
    const half = Math.floor(maxAvailable / 2);
    if (wl.length <= half) tpl = tpl.slice(0, maxAvailable - wl.length);
    else if (tpl.length <= half) wl = wl.slice(0, maxAvailable - tpl.length);
    else {
      wl = wl.slice(0, maxAvailable - half);
      tpl = tpl.slice(0, half);
    }
  }
  return `${wl}-${tpl}-${hash}`;
}
