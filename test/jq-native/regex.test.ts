import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { matchRegex, type RegexMatch } from "../../src/jq/native/regex.js";
import { errorOf } from "../support/errors.js";

function matches(input: string, re: string, flags: string | null = null): RegexMatch[] {
  const r = matchRegex(input, re, flags, false);
  assert.ok(Array.isArray(r));
  return r;
}
const strings = (input: string, re: string, flags: string | null = null) => matches(input, re, flags).map((m) => m.string);
const t = (input: string, re: string, flags: string | null = null) => matchRegex(input, re, flags, true);


/** jq's `sub`/`gsub` as defined in jq 1.7.1's builtin.jq, on top of the match results (for checking). */
function gsub(input: string, re: string, repl: (caps: Record<string, string | null>) => string, flags: string): string {
  const cps = Array.from(input);
  let out = "";
  let prev = 0;
  for (const m of matches(input, re, flags)) {
    const caps: Record<string, string | null> = {};
    for (const c of m.captures) if (c.name !== null) caps[c.name] = c.string;
    out += cps.slice(prev, m.offset).join("") + repl(caps);
    prev = m.offset + m.length;
  }
  return out + cps.slice(prev).join("");
}

describe("matchRegex: jq onig.test / manual cases", () => {
  test("global empty matches: every position; a capture that took no part is -1 and null (jq 1.8)", () => {
    assert.deepEqual(matches("abc", "( )*", "g"), [0, 1, 2, 3].map((o) => ({
      offset: o,
      length: 0,
      string: "",
      captures: [{ offset: -1, string: null, length: 0, name: null }],
    })));
    assert.deepEqual(matches("c", "(?<x>a?)?b?", "g")[0]!.captures, [{ offset: 0, string: "", length: 0, name: "x" }]);
    assert.deepEqual(matches("abc", "( )*", "gn"), []);
    assert.deepEqual(matches("ab", "", "g"), [0, 1, 2].map((o) => ({ offset: o, length: 0, string: "", captures: [] })));
    assert.equal(t("abc", "( )*", "gn"), false);
  });
  test("offsets and lengths count codepoints (combining marks included)", () => {
    assert.deepEqual(matches("\u0101\u00e1\u00e0\u00e4", "a", "gi"), []);
    assert.deepEqual(matches("foo bar", "(bar)"), [
      { offset: 4, length: 3, string: "bar", captures: [{ offset: 4, length: 3, string: "bar", name: null }] },
    ]);
    assert.deepEqual(matches("a\u0304 bar with a combining codepoint U+0304", "bar"), [{ offset: 3, length: 3, string: "bar", captures: [] }]);
    assert.deepEqual(matches("a b\u0101r", "b\u0101r"), [{ offset: 2, length: 3, string: "b\u0101r", captures: [] }]);
    assert.deepEqual(matches("a ba\u0304r", "ba\u0304r"), [{ offset: 2, length: 4, string: "ba\u0304r", captures: [] }]);
    assert.deepEqual(matches("a\u0304 two-codepoint grapheme", ".+?\\b"), [{ offset: 0, length: 2, string: "a\u0304", captures: [] }]);
    assert.deepEqual(matches("\u{1F600}x\u{1F600}y", "[a-z]", "g").map((m) => m.offset), [1, 3]);
    assert.deepEqual(matches("\u{1F600}\u{1F600}", ".", "g").map((m) => [m.offset, m.length]), [[0, 1], [1, 1]]);
    assert.equal(t("\u0101", "\u0101"), true);
  });
  test("named captures, optional groups that did not participate", () => {
    assert.deepEqual(matches("foo bar foo foo  foo", "foo (?<bar123>bar)? foo", "ig"), [
      { offset: 0, length: 11, string: "foo bar foo", captures: [{ offset: 4, length: 3, string: "bar", name: "bar123" }] },
      { offset: 12, length: 8, string: "foo  foo", captures: [{ offset: -1, string: null, length: 0, name: "bar123" }] },
    ]);
    const [m] = matches("xyzzy-14", "(?<a>[a-z]+)-(?<n>[0-9]+)");
    assert.deepEqual(m.captures.map((c) => [c.name, c.string]), [["a", "xyzzy"], ["n", "14"]]);
    assert.deepEqual(matches("abab", "(?<x>a)(b)", "g")[1].captures, [
      { offset: 2, length: 1, string: "a", name: "x" },
      { offset: 3, length: 1, string: "b", name: null },
    ]);
  });
  test("plain, global and case-insensitive matching", () => {
    assert.deepEqual(matches("foo bar foo", "foo"), [{ offset: 0, length: 3, string: "foo", captures: [] }]);
    assert.deepEqual(strings("foo bar FOO", "foo", "ig"), ["foo", "FOO"]);
    assert.deepEqual(matches("abc abc", "(abc)+", "g").map((m) => m.offset), [0, 4]);
    assert.equal(matches("abc", ".", "g").length, 3);
    assert.deepEqual(strings("abcdefabc", "c", "g"), ["c", "c"]);
    assert.deepEqual(strings("bBb", "b+", "gi"), ["bBb"]);
    assert.deepEqual(strings("abcABBBCabbbc", "b+", "gi"), ["b", "BBB", "bbb"]);
    assert.equal(t("foo", "foo"), true);
    assert.equal(t("xabcd", "a b c # spaces are ignored", "ix"), true);
    assert.equal(t("ABC", "a b c # spaces are ignored", "ix"), true);
  });
  test("sub/gsub built on the matches reproduce jq's results", () => {
    assert.equal(gsub("a,b, c, d, e,f", ", ", () => ":", "g"), "a,b:c:d:e,f");
    assert.equal(gsub(", a,b, c, d, e,f, ", ", ", () => ":", "g"), ":a,b:c:d:e,f:");
    assert.equal(gsub("a1b2", "(?<d>\\d)", (c) => `:${c.d};`, "g"), "a:1;b:2;");
    assert.equal(gsub("", "", () => "a", "g"), "a");
    assert.equal(gsub("a", "", () => "a", "g"), "aaa");
    assert.equal(gsub("a", "$", () => "a", "g"), "aa");
    assert.equal(gsub("a", "^", () => "", "g"), "a");
    assert.equal(gsub("qux", "(?=u)", () => "u", "g"), "quux");
    assert.equal(gsub("aaa", "^.*a", () => "b", ""), "b");
    assert.equal(gsub("aaa", "^.*?a", () => "b", ""), "baa");
    assert.equal(gsub("Abcabc", "(?<x>.)[^a]*", (c) => `+${c.x}-`, "g"), "+A-+a-");
    assert.equal(gsub("123foo456bar", "[^a-z]*(?<x>[a-z]*)", (c) => `Z${c.x}`, "g"), "ZfooZbarZ");
    assert.equal(gsub("ABC DEF", "\\b(?<x>.)", (c) => c.x!.toLowerCase(), "g"), "aBC dEF");
    assert.equal(gsub("\u2019", "(?<x>.)", (c) => `${c.x}!`, ""), "\u2019!");
    assert.deepEqual(strings("ab,cd, ef", ", *", "g"), [",", ", "]);
    assert.deepEqual(strings(", a,b, c, d, e,f, ", ", *", "g"), [", ", ",", ", ", ", ", ", ", ",", ", "]);
  });
});

describe("Oniguruma (Perl_NG) semantics translated to JS", () => {
  test("^ and $ are string anchors ($ also before a final newline) unless (?m)", () => {
    assert.equal(t("a\nb", "^b"), false);
    assert.equal(t("a\nb", "a$"), false);
    assert.equal(t("a\nb", "b$"), true);
    assert.equal(t("b\n", "b$"), true);
    assert.equal(t("b\n", "b\\z"), false);
    assert.equal(t("b\n", "b\\Z"), true);
    assert.equal(t("a\nb", "(?m)^b"), true);
    assert.equal(t("a\nb", "\\Ab"), false);
  });
  test(". excludes only \\n; (?s) and the p flag make it match newlines; s is already the default", () => {
    assert.equal(t("a\nb", "a.b"), false);
    assert.equal(t("a\nb", "a.b", "s"), false);
    assert.equal(t("a\nb", "(?s)a.b"), true);
    assert.equal(t("a\nb", "a.b", "p"), true);
    assert.equal(t("a\rb", "a.b"), true);
    assert.equal(t("a\u2028b", "a.b"), true);
  });
  test("Unicode \\w \\d \\s and POSIX brackets; \\h is a literal h in Perl_NG syntax", () => {
    assert.deepEqual(strings("a1_\u00e9\u0663 b", "\\w", "g"), ["a", "1", "_", "\u00e9", "\u0663", "b"]);
    assert.deepEqual(strings("a1_\u00e9\u0663 b", "\\d", "g"), ["1", "\u0663"]);
    assert.deepEqual(strings("a1_\u00e9\u0663 b", "[[:alpha:]]", "g"), ["a", "\u00e9", "b"]);
    assert.deepEqual(strings("a\u00a0b c", "\\s", "g"), ["\u00a0", " "]);
    assert.deepEqual(strings("a1 b2", "[[:alpha:]][[:digit:]]", "g"), ["a1", "b2"]);
    assert.equal(t("test", "[[:^alpha:]]"), false);
    assert.deepEqual(
      [..."h 1a\t"].map((c) => t(c, "\\h")),
      [true, false, false, false, false],
    );
    assert.equal(t("DEADbeef", "^[[:xdigit:]]+$"), true);
    assert.equal(t("\u03b1\u03b2", "^\\p{Greek}+$"), true);
    assert.equal(t("ab", "\\p{Lu}"), false);
    assert.equal(t("aB", "\\p{^Ll}"), true);
  });
  test("n (FIND_NOT_EMPTY) backtracks into non-empty alternatives, as Oniguruma does", () => {
    const spans = (input: string, re: string, flags: string) => matches(input, re, flags).map((m) => [m.offset, m.string]);
    assert.deepEqual(spans("aa", "a*?", "gn"), [[0, "a"], [1, "a"]]);
    assert.deepEqual(spans("xaay", "a*", "gn"), [[1, "aa"]]);
    assert.deepEqual(spans("ab", "|b", "n"), [[1, "b"]]);
    assert.deepEqual(spans("Running", "", "gn"), []);
  });
  test("inline options are scoped", () => {
    assert.equal(t("xAy", "x(?i)a"), true);
    assert.equal(t("XAY", "x(?i)a"), false);
    assert.equal(t("xAy", "(?i:a)y"), true);
    assert.equal(t("xAY", "(?i:a)y"), false);
    assert.equal(t("ABC", "(?i)[a-c]+$"), true);
    assert.equal(t("abC", "a(?-i)b(?i)c", "i"), true);
    assert.equal(t("aBc", "a(?-i)b(?i)c", "i"), false);
  });
  test("atomic groups, possessive quantifiers, backreferences, \\Q...\\E, intervals", () => {
    assert.equal(t("aaa", "a*+a"), false);
    assert.equal(t("aaa", "(?>a*)a"), false);
    assert.equal(t("aaab", "(?>a*)b"), true);
    assert.deepEqual(matches("abab", "(?<x>ab)\\k<x>")[0].captures, [{ offset: 0, length: 2, string: "ab", name: "x" }]);
    assert.equal(t("abab", "(ab)\\1"), true);
    assert.equal(t("abba", "(ab)\\1"), false);
    assert.deepEqual(strings("foo.bar", "\\Q.\\E"), ["."]);
    assert.deepEqual(strings("aaaa", "a{2}", "g"), ["aa", "aa"]);
    assert.deepEqual(strings("a{", "a{"), ["a{"]);
    assert.deepEqual(strings("a{,2}", "a{,2}"), ["a{,2}"]);
    assert.deepEqual(strings("aa", "a**"), ["aa"]);
    assert.equal(t("x\r\ny", "x\\Ry"), true);
    assert.deepEqual(strings("a-b", "[a\\-z]+"), ["a-"]);
    assert.deepEqual(strings("a]b", "[]a]+"), ["a]"]);
    // jq's syntax has no class set operations: `[` and `&&` in a class are literals, as in jq 1.8.2.
    assert.deepEqual(strings("hello world", "[a-z&&[^aeiou]]+", "g"), []);
    assert.deepEqual(strings("hello wor]ld", "[a-z&&[^aeiou]]+", "g"), ["r]"]);
    assert.deepEqual(strings("x[:b", "[[:b]", "g"), ["[", ":", "b"]);
    assert.throws(() => t("x", "[\\w-z]"), /unmatched range specifier in char-class/);
    assert.throws(() => t("x", "[a-[:alpha:]]"), /char-class value at end of range/);
    // Oniguruma's parse depth limit as jq sets it (1,024: two levels a group, one a repeat operator).
    assert.equal(t("a", "(".repeat(511) + "a" + ")".repeat(511)), true);
    assert.throws(() => t("a", "(".repeat(512) + "a" + ")".repeat(512)), /Regex failure: parse depth limit over/);
    assert.equal(t("a", "a" + "*".repeat(1022)), true);
    assert.throws(() => t("a", "a" + "*".repeat(1023)), /Regex failure: parse depth limit over/);
    assert.equal(t("a#b", "a\\#b", "x"), true);
    assert.equal(t("ab", "a # comment\n b", "x"), true);
  });
  test("Kubernetes strings: images, label keys, quantities", () => {
    const image = "registry.k8s.io/ingress-nginx/controller:v1.9.4@sha256:5b161f051d017e55d358435f295f5e9a297e66158f136321d9b04520ec6c48a3";
    const [m] = matches(image, "^(?<repo>[^:@]+)(?::(?<tag>[^@]+))?(?:@(?<digest>sha256:[0-9a-f]{64}))?$");
    assert.deepEqual(
      m.captures.map((c) => [c.name, c.string]),
      [
        ["repo", "registry.k8s.io/ingress-nginx/controller"],
        ["tag", "v1.9.4"],
        ["digest", "sha256:5b161f051d017e55d358435f295f5e9a297e66158f136321d9b04520ec6c48a3"],
      ],
    );
    const [n] = matches("nginx", "^(?<repo>[^:@]+)(?::(?<tag>[^@]+))?$");
    assert.deepEqual(n.captures[1], { offset: -1, string: null, length: 0, name: "tag" });
    assert.equal(t("app.kubernetes.io/name", "^([a-z0-9.-]+/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"), true);
    assert.deepEqual(
      matches("500Mi", "^(?<num>[0-9.]+)(?<unit>[KMGTPE]i?|m)?$")[0].captures.map((c) => c.string),
      ["500", "Mi"],
    );
    assert.deepEqual(strings("Back-off restarting failed container nginx in pod web-0 of shop", "\\b[a-z]+-\\d+\\b", "g"), ["web-0"]);
  });
  test("results are cached and reusable", () => {
    for (let i = 0; i < 3; i++) assert.deepEqual(strings("a1b22", "\\d+", "g"), ["1", "22"]);
    for (let i = 0; i < 600; i++) assert.equal(t(`x${i}`, `x${i}$`), true);
  });
});

describe("errors as jq 1.7.1 words them", () => {
  test("input, regex and flag types", () => {
    assert.equal(errorOf(() => matchRegex(1, "a", null, true)), "number (1) cannot be matched, as it is not a string");
    assert.equal(errorOf(() => matchRegex({ kind: "Pod" }, "a", null, true)), 'object ({"kind":"Pod"}) cannot be matched, as it is not a string');
    assert.equal(errorOf(() => matchRegex("a", 1, null, true)), "number (1) is not a string");
    assert.equal(errorOf(() => matchRegex("a", "a", 1, true)), "number (1) is not a string");
    assert.equal(errorOf(() => matchRegex("a", "a", "q", true)), "q is not a valid modifier string");
    assert.equal(errorOf(() => matchRegex("a", "a", "gq", true)), "gq is not a valid modifier string");
    assert.equal(t("a", "a", ""), true);
    assert.equal(t("a", "A", "gixnslpm"), true);
  });
  test("invalid patterns report Oniguruma's messages", () => {
    assert.equal(errorOf(() => t("a", "(")), "Regex failure: end pattern with unmatched parenthesis");
    assert.equal(errorOf(() => t("a", ")")), "Regex failure: unmatched close parenthesis");
    assert.equal(errorOf(() => t("a", "[b-a]")), "Regex failure: empty range in char class");
    assert.equal(errorOf(() => t("a", "[ab")), "Regex failure: premature end of char-class");
    assert.equal(errorOf(() => t("a", "*")), "Regex failure: target of repeat operator is not specified");
    assert.equal(errorOf(() => t("a", "a|+")), "Regex failure: target of repeat operator is not specified");
    assert.equal(errorOf(() => t("a", "^*")), "Regex failure: target of repeat operator is invalid");
    assert.equal(errorOf(() => t("a", "\\b+")), "Regex failure: target of repeat operator is invalid");
    assert.equal(errorOf(() => t("a", "a\\")), "Regex failure: end pattern at escape");
    assert.equal(errorOf(() => t("a", "(a)\\2")), "Regex failure: invalid backref number/name");
    assert.equal(errorOf(() => t("a", "\\k<nope>")), "Regex failure: undefined name <nope> reference");
    assert.equal(errorOf(() => t("a", "a{3,2}")), "Regex failure: upper is smaller than lower in repeat range");
    assert.equal(errorOf(() => t("a", "\\p{NoSuchProperty}")), "Regex failure: invalid character property name {NoSuchProperty}");
  });
});
