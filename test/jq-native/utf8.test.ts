/**
 * Bytes that are not UTF-8 made text as jq 1.8.2 makes them (one U+FFFD per bad sequence, by
 * jvp_utf8_next; a sequence cut short by the end of a string swallows what is left of it), where
 * Node's decoder splits some sequences into several U+FFFD. The expected values are what jq 1.8.2 printed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeFileBlocks, decodeUtf8, decodeUtf8Marked, replaceMarked, replaceMarkedIn } from "../../src/jq/native/utf8.js";
import { spawnSync } from "node:child_process";
import { kartaBin } from "../support/conformance.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const codepoints = (s: string): number[] => [...s].map((c) => c.codePointAt(0)!);
const bytes = (...b: number[]): Uint8Array => Uint8Array.from(b);

test("decodeUtf8: each bad sequence one U+FFFD, as jq's @base64d gives it", () => {
  const cases: [Uint8Array, number[]][] = [
    [bytes(0xe0, 0x80), [0xfffd]], // a start and its one continuation, cut short: one (Node: two)
    [bytes(0xed, 0xa0, 0x80), [0xfffd]], // a surrogate: one (Node: three)
    [bytes(0xf4, 0x90, 0x80, 0x80), [0xfffd]], // above U+10FFFF: one (Node: four)
    [bytes(0xc0, 0x80), [0xfffd, 0xfffd]], // C0 starts nothing: each byte alone
    [bytes(0x61, 0x62, 0xff, 0x63), [0x61, 0x62, 0xfffd, 0x63]],
    [bytes(0xe2, 0x82, 0xac, 0xe2, 0x82), [0x20ac, 0xfffd]],
    [bytes(0xf0, 0x9f, 0x98, 0x82), [0x1f602]],
    [bytes(0xe9, 0xed, 0x66), [0xfffd, 0xfffd]], // ED cut by the end swallows the f
  ];
  for (const [b, want] of cases) assert.deepEqual(codepoints(decodeUtf8(b)), want, Buffer.from(b).toString("hex"));
});

test("marked text: bad bytes kept until each string is made, so that the string's end decides", () => {
  const { text, marked } = decodeUtf8Marked(Buffer.from([0x22, 0x78, 0xed, 0x66, 0x22, 0x20, 0xf0, 0x9f, 0x98, 0x82]));
  assert.equal(marked, true);
  // The quote ends the string: within it, ED swallows the f (jq: "x\ufffd").
  assert.deepEqual(codepoints(replaceMarked(text.slice(1, 4))), [0x78, 0xfffd]);
  assert.deepEqual(codepoints(replaceMarked(text.slice(6))), [0x1f602], "a character above U+FFFF is not a marker");
  assert.deepEqual(decodeUtf8Marked(Buffer.from("plain ü")), { text: "plain ü", marked: false });
  const deep = JSON.parse('{"a":[' + "[".repeat(5000) + "1" + "]".repeat(5000) + "]}");
  assert.doesNotThrow(() => replaceMarkedIn(deep), "nested 5,000 deep: no stack per level");
  assert.deepEqual(replaceMarkedIn({ b: 1, ["k\udcff"]: ["\udce0\udc80"], c: 2 }), { b: 1, "k\ufffd": ["\ufffd"], c: 2 }, "keys replaced in their place");
});

test("decodeFileBlocks: --rawfile's 4096-byte reads, each completed to the end of the character it cuts", () => {
  // A 3-byte character across the first read's end is read whole; a bad one there is cut.
  const euro = Buffer.concat([Buffer.alloc(4095, 0x61), Buffer.from("€")]);
  assert.equal(decodeFileBlocks(euro), "a".repeat(4095) + "€");
  const cut = Buffer.concat([Buffer.alloc(4095, 0x61), Buffer.from([0xed, 0x66])]);
  assert.deepEqual(codepoints(decodeFileBlocks(cut).slice(4095)), [0xfffd]);
});

test("karta jq reads files, lines, --rawfile and --slurpfile with bad bytes as jq 1.8.2 printed them", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "karta-utf8-"));
  try {
    const json = path.join(dir, "bad.json");
    const txt = path.join(dir, "bad.txt");
    writeFileSync(json, Buffer.from('"a\xe0\x80b" "\xf4\x90\x80\x80" "\xed\xa0\x80" "x\xed\x66" {"k\xff":1}\n', "latin1"));
    writeFileSync(txt, Buffer.from("x\xe0\x80y\n\xe9\xed\x66\n\xf0\x9f\x98\n", "latin1"));
    // The command as a user runs it: the bytes come from the files, through its own reading.
    const jq = async (...args: string[]) => {
      const r = spawnSync(process.execPath, [kartaBin, "jq", "-c", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      return { code: r.status, out: r.stdout, err: r.stderr };
    };
    assert.deepEqual(await jq('if type == "string" then explode else keys[0] | explode end', json), { code: 0, out: "[97,65533,98]\n[65533]\n[65533]\n[120,65533]\n[107,65533]\n", err: "" });
    assert.deepEqual(await jq("-R", "explode", txt), { code: 0, out: "[120,65533,121]\n[65533,65533]\n[65533]\n", err: "" });
    const whole = "[120,65533,121,10,65533,65533,102,10,65533,10]\n";
    assert.deepEqual(await jq("-R", "-s", "explode", txt), { code: 0, out: whole, err: "" });
    assert.deepEqual(await jq("-n", "--rawfile", "x", txt, "$x | explode"), { code: 0, out: whole, err: "" });
    assert.deepEqual(await jq("-n", "--slurpfile", "x", json, "$x[3] | explode"), { code: 0, out: "[120,65533]\n", err: "" });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
