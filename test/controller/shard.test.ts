/**
 * Sharding (src/controller/shard.ts): FNV-1a as the published test vectors give it, every workload in
 * exactly one shard, the uids of a cluster spread evenly, and a Lease name per shard.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { fnv32a, owns, shardLeaseName, shardOf, WHOLE } from "../../src/controller/shard.js";

test("FNV-1a (32 bits) gives the reference values", () => {
  // From the FNV reference test suite (draft-eastlake-fnv, fnv32a of these strings).
  assert.equal(fnv32a(""), 0x811c9dc5);
  assert.equal(fnv32a("a"), 0xe40c292c);
  assert.equal(fnv32a("foobar"), 0xbf9cf968);
});

test("every workload belongs to exactly one shard; unsharded owns all", () => {
  for (let i = 0; i < 200; i++) {
    const uid = randomUUID();
    for (const total of [1, 2, 3, 7]) {
      const owners = Array.from({ length: total }, (_, index) => index).filter((index) => owns({ total, index }, uid));
      assert.deepEqual(owners, [shardOf(uid, total)]);
    }
    assert.ok(owns(WHOLE, uid));
  }
});

test("uids spread evenly over the shards (within 5% of an equal share at 20,000 workloads)", () => {
  const total = 4;
  const counts = new Array<number>(total).fill(0);
  for (let i = 0; i < 20_000; i++) counts[shardOf(randomUUID(), total)]!++;
  for (const c of counts) assert.ok(Math.abs(c - 5000) < 250, `shard counts ${counts.join(", ")}`);
});

test("a Lease per shard; the name itself unsharded", () => {
  assert.equal(shardLeaseName("karta-controller", WHOLE), "karta-controller");
  assert.equal(shardLeaseName("karta-controller", { total: 3, index: 2 }), "karta-controller-shard-2");
});
