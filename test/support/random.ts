/** Seeded pseudo-random numbers for generated test cases: deterministic, the same on every platform. */
import { fnv32a } from "../../src/controller/shard.js";

/** mulberry32: a small seeded generator of numbers in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable seed for a text: its FNV-1a hash, as the controller's sharding computes it. */
export function seedOf(text: string): number {
  return fnv32a(text);
}
