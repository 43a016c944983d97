/**
 * Sharding as kube-state-metrics shards (`--total-shards N --shard I`): every process watches everything,
 * and a workload belongs to the shard its uid hashes to (FNV-1a, 32 bits, modulo N), so shards need no
 * coordination and a workload's objects (its pods, its groups) all land on its shard. Each shard elects
 * its own leader on a Lease of its own.
 */

export interface Shard {
  /** How many shards (N ≥ 1). */
  total: number;
  /** This process's shard, 0 ≤ index < total. */
  index: number;
}

/** The one shard of an unsharded controller. */
export const WHOLE: Shard = { total: 1, index: 0 };

/** FNV-1a over the string's UTF-16 code units (a uid is ASCII), as an unsigned 32-bit integer. */
export function fnv32a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The shard a workload's uid belongs to. */
export function shardOf(uid: string, total: number): number {
  return total <= 1 ? 0 : fnv32a(uid) % total;
}

/** Whether `shard` owns the workload with this uid. */
export function owns(shard: Shard, uid: string): boolean {
  return shard.total <= 1 || shardOf(uid, shard.total) === shard.index;
}

/** The Lease of a shard: the name itself when unsharded, else `NAME-shard-I` (one Lease per shard). */
export function shardLeaseName(name: string, shard: Shard): string {
  return shard.total <= 1 ? name : `${name}-shard-${shard.index}`;
}
