import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { cutBytes, fnv32a, generatePodGroupName, generateWorkloadName, podGroupTemplateName, safeEncodeString } from "../../src/scheduling/index.js";

describe("fnv32a and safe encoding", () => {
  test("FNV-1a 32-bit test vectors", () => {
    assert.equal(fnv32a(""), 0x811c9dc5);
    assert.equal(fnv32a("a"), 0xe40c292c);
    assert.equal(fnv32a("foobar"), 0xbf9cf968);
    // UTF-8 bytes, not UTF-16 code units.
    assert.equal(fnv32a("é"), fnv32a(new Uint8Array([0xc3, 0xa9])));
  });

  test("SafeEncodeString maps each digit into the vowel-free alphabet", () => {
    // '0'..'9' are 48..57; 48 % 27 = 21 → '4'.
    assert.equal(safeEncodeString("0123456789"), "456789bcdf");
    assert.equal(safeEncodeString(String(0x811c9dc5)), "65bb57b6b5");
    assert.match(safeEncodeString(String(fnv32a("x"))), /^[bcdfghjklmnpqrstvwxz2456789]+$/);
  });
});

describe("Job integration names", () => {
  // Expected values computed by an independent implementation of fnv32a + SafeEncodeString.
  const uid = "0f5c7f64-8b1d-4a8e-9d0a-2b3c4d5e6f70";

  test("template, Workload and PodGroup names of a training Job", () => {
    assert.equal(podGroupTemplateName("llm-pretrain"), "llm-pretrain-pgt-0");
    assert.equal(podGroupTemplateName("llm-pretrain", 3), "llm-pretrain-pgt-3");
    const wl = generateWorkloadName("llm-pretrain", uid);
    assert.equal(wl, "llm-pretrain-6b68cf7cdb");
    assert.equal(generatePodGroupName(wl, "llm-pretrain-pgt-0"), "llm-pretrain-6b68cf7cdb-llm-pretrain-pgt-0-78785cc4b6");
  });

  test("deterministic, and the UID (not only the name) decides the Workload name", () => {
    assert.equal(generateWorkloadName("llm-pretrain", uid), generateWorkloadName("llm-pretrain", uid));
    assert.notEqual(generateWorkloadName("llm-pretrain", uid), generateWorkloadName("llm-pretrain", "1f5c7f64-8b1d-4a8e-9d0a-2b3c4d5e6f70"));
    assert.equal(generatePodGroupName("a", "b"), generatePodGroupName("a", "b"));
  });

  test("empty names keep their separators, as the Job controller formats them", () => {
    const hash = safeEncodeString(String(fnv32a("")));
    assert.match(generateWorkloadName("", uid), /^-[bcdfghjklmnpqrstvwxz2456789]+$/);
    assert.equal(generatePodGroupName("", ""), `--${hash}`);
    assert.ok(generatePodGroupName("", "tpl").startsWith("-tpl-"));
    assert.ok(generatePodGroupName("wl", "").startsWith("wl--"));
  });

  test("lengths are UTF-8 bytes, and a cut inside a character leaves one U+FFFD per stray byte", () => {
    // "é" is 2 bytes; the hash of "uid-1" leaves 244 bytes for the name.
    assert.equal(generateWorkloadName("é".repeat(130), "uid-1"), `${"é".repeat(122)}-647cf7d9`);
    // One ASCII byte first puts the cut inside an "é": its first byte is left over.
    assert.equal(generateWorkloadName(`a${"é".repeat(130)}`, "uid-1"), `a${"é".repeat(121)}\ufffd-647cf7d9`);
    assert.equal(cutBytes("aé", 2), "a\ufffd");
    assert.equal(cutBytes("a中", 3), "a\ufffd\ufffd");
    assert.equal(cutBytes("a中", 4), "a中");
    assert.equal(cutBytes("a😀", 1), "a");
  });

  test("names are capped at 253 bytes", () => {
    const wl = generateWorkloadName("a".repeat(300), "uid-1");
    assert.equal(wl.length, 253);
    assert.ok(wl.endsWith("-647cf7d9"));
    const both = generatePodGroupName("w".repeat(200), "t".repeat(200));
    assert.equal(both.length, 253);
    // Both long: split evenly, the workload name gets the extra character.
    assert.equal((both.match(/w/g) ?? []).length, 121);
    assert.equal((both.match(/t/g) ?? []).length, 120);
    const shortWl = generatePodGroupName("wl", "t".repeat(250));
    assert.equal(shortWl.length, 253);
    assert.ok(shortWl.startsWith("wl-ttt"));
    const shortTpl = generatePodGroupName("w".repeat(250), "pgt-0");
    assert.equal(shortTpl.length, 253);
    assert.ok(shortTpl.includes("-pgt-0-"));
  });

  test("truncated prefixes that collide still differ by hash", () => {
    const a = generatePodGroupName("w".repeat(240) + "a", "tpl");
    const b = generatePodGroupName("w".repeat(240) + "b", "tpl");
    assert.notEqual(a, b);
    assert.equal(a.slice(0, 230), b.slice(0, 230));
  });
});
