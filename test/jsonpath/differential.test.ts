/**
 * Karta's JSONPath templates and custom columns against kubectl's own printers: tools/kubeprint (built by
 * scripts/go-tool) prints each case with cli-runtime's JSONPathPrinter and kubectl's custom-columns printer
 * as `kubectl get -o jsonpath=… / custom-columns=…` builds them (k8s.io/kubectl v0.37.2), over the same JSON.
 * The corpus: hand-written templates for every feature and error, templates composed at random from path
 * steps, and templates with a character dropped or added (mostly parse errors), over documents as kubectl
 * and `karta get` print them. Output text and error text must be identical, except for the classes below,
 * each with its reason, whose counts are printed (KARTA_JSONPATH_DIFFERENCES=1 prints every such case).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { customColumnsFilePrinter, customColumnsPrinter, jsonPathPrinter, type Printed } from "../../src/jsonpath/index.js";
import type { JsonValue } from "../../src/input/index.js";
import { kubeprint, kubeprintSkip as skip } from "../support/kubeprint.js";
import { prng } from "../support/random.js";
import { KUBECTL_DOC } from "./kubectl-doc.js";


/** What `karta get -o json` prints: {items, count} of workload views. */
const KARTA_DOC: JsonValue = {
  items: [
    {
      name: "llama-finetune",
      namespace: "ml-team",
      uid: "u-1",
      type: { group: "kubeflow.org", version: "v1", kind: "PyTorchJob" },
      phases: ["Running"],
      components: ["master", "worker"],
      pods: { ready: 3, total: 4 },
      gpus: 8,
      desiredPods: 4,
      nodes: ["node-a", "node-b"],
      karta: "kubeflow-org-v1-pytorchjob",
      origin: "catalog",
      createdAt: "2026-01-02T03:04:05Z",
    },
    {
      name: "bert",
      namespace: "ml-team",
      uid: "u-2",
      type: { group: "kubeflow.org", version: "v1", kind: "PyTorchJob" },
      phases: ["Pending", "Suspended"],
      components: [],
      pods: { ready: 0, total: 0 },
      gpus: 0,
      desiredPods: 2,
      nodes: [],
      karta: "kubeflow-org-v1-pytorchjob",
      origin: "cluster",
    },
  ],
  count: 2,
};

/** Values that print differently in Go: numbers of both kinds, strings to escape, null, empty containers. */
const EDGE_DOC: JsonValue = {
  ints: [0, -3, 7, 9007199254740991, 1000000],
  floats: [1.5, -0.25, 1.5e-7, 1e21, 123456789.5],
  strings: ["plain", "a b", "<tag>&amp;", "tab\there", "line\nbreak", "é ü 中文 🙂", "\u2028", "esc\u001b[0m", "cr\r", ""],
  mixed: [1, "1", true, null, 2.5, { a: 1 }, [1, 2]],
  nested: { a: { b: { c: [{ d: 1 }, { d: 2, e: null }] } } },
  empty: { map: {}, list: [], str: "" },
  flags: [true, false],
  n: null,
  one: { only: "x" },
  keys: { B: 1, a: 2, "a b": 3, "\u00e9": 4, "x.y": 5, "\ud83d\ude00": 6, "\uffff": 7, "": 8, x: { y: 9 } },
};

const DOCS: Record<string, JsonValue> = { kubectl: KUBECTL_DOC, karta: KARTA_DOC, edge: EDGE_DOC, single: (KARTA_DOC as { items: JsonValue[] }).items[0]! };

/** Templates for every feature of kubectl's dialect, and its errors. */
const TEMPLATES = [
  // kubectl's documented examples
  "kind is {.kind}",
  "{@}",
  "{.kind}",
  "{['kind']}",
  "{['name\\.type']}",
  "{..name}",
  "{.items[*].metadata.name}",
  "{.users[0].name}",
  "{.items[*]['metadata.name', 'status.capacity']}",
  '{.users[?(@.name=="e2e")].user.password}',
  "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
  "{.users[-1:].name}",
  '{range .items[*]}{.metadata.name}{"\\t"}{.status.capacity.cpu}{"\\n"}{end}',
  "{.items[*].status.addresses[*].address}",
  // roots, fields, keys
  "{$}",
  "{$.kind}",
  "{.}",
  "{.nope}",
  "{.kind.nope}",
  "{.items.nope}",
  "{.metadata}",
  "{.items[0].metadata.labels}",
  "{.items[0].metadata.labels.kubernetes\\.io/hostname}",
  "{.items[0].metadata['labels']}",
  "{.items[0]['metadata']['name']}",
  "{.items[*]['metadata.name']}",
  "{.count}",
  "{.name}",
  "{.pods}",
  "{.pods.ready}/{.pods.total}",
  "{.items[*].name}",
  "{.items[*].type.kind}",
  "{.items[*].phases}",
  "{.items[*].phases[*]}",
  "{.items[*].nodes[0]}",
  "{.items[*].pods}",
  "{.items[*].gpus}",
  "{.items[*].createdAt}",
  // indexes and slices
  "{.items[0]}",
  "{.items[1].metadata.name}",
  "{.items[-1].metadata.name}",
  "{.items[-2].metadata.name}",
  "{.items[-3].metadata.name}",
  "{.items[2]}",
  "{.items[1:]}",
  "{.items[:1]}",
  "{.items[0:2:1]}",
  "{.items[::2]}",
  "{.items[0:0]}",
  "{.items[1:1]}",
  "{.items[2:1]}",
  "{.items[0:5]}",
  "{.items[-5:]}",
  "{.items[1:2:0]}",
  "{.items[::-1]}",
  "{.items[]}",
  "{.items[*]}",
  "{.ints[1:4]}",
  "{.ints[-2:]}",
  "{.strings[1:9:3]}",
  "{.items[0,1].metadata.name}",
  "{.items[1,0].name}",
  "{.items[0, 1].name}",
  "{.items[0,5].name}",
  "{.items[9223372036854775807]}",
  "{.items[-9223372036854775808]}",
  "{.items[99999999999999999999]}",
  "{.items[a]}",
  "{.items[1:a]}",
  "{.items[--1]}",
  "{.kind[0]}",
  "{.count[0]}",
  "{.n[0]}",
  "{@[0]}",
  // wildcards and recursion
  "{.*}",
  "{.one.*}",
  "{.items[0].*}",
  "{.kind.*}",
  "{.flags.*}",
  "{.users[*].user.*}",
  "{..}",
  "{..address}",
  "{.items..address}",
  "{..d}",
  "{..e}",
  "{..[0]}",
  "{.nested..[0]}",
  "{..*}",
  "{....a}",
  "{.nested..c[*].d}",
  "{.nested.a..c}",
  // filters
  '{.users[?(@.name=="e2e")]}',
  "{.users[?(@.name=='e2e')].name}",
  '{.users[?(@.name!="e2e")].name}',
  '{.users[?(@.name<"f")].name}',
  '{.users[?(@.name>="e2e")].name}',
  '{.users[?(@.name <= "e2e")].name}',
  "{.users[?(@.user.password)].name}",
  "{.users[?(@.nope)].name}",
  "{.items[?(@.metadata.labels)].metadata.name}",
  '{.items[*].status.addresses[?(@.type=="another")].address}',
  "{.ints[?(@ > 2)]}",
  "{.ints[?(@ >= 7)]}",
  "{.ints[?(@ == 7)]}",
  "{.ints[?(@ != 0)]}",
  "{.ints[?(@ < 1.5)]}",
  "{.floats[?(@ > 1)]}",
  "{.floats[?(@ > 1.0)]}",
  "{.floats[?(@ == -0.25)]}",
  "{.flags[?(@ == true)]}",
  "{.flags[?(@ < true)]}",
  "{.mixed[?(@ == 1)]}",
  '{.mixed[?(@ == "1")]}',
  "{.mixed[?(@)]}",
  "{.mixed[?(@.a)]}",
  "{.mixed[?(@.a == 1)]}",
  "{.strings[?(@ > \"b\")]}",
  "{.items[?(@.pods.ready == @.pods.total)].name}",
  "{.items[?(@.gpus > 0)].name}",
  "{.items[?(@.phases[0] == \"Running\")].name}",
  "{.items[?(@.phases[*] == \"Running\")].name}",
  "{.items[?(@.nodes[0])].name}",
  '{.kind[?(@ == "x")]}',
  "{.metadata[?(@.name)]}",
  "{.n[?(@.a)]}",
  "{.users[?(@.name=~\"e2e\")]}",
  "{.users[?(@.name==)]}",
  "{.users[?(@.name == \"a)b\")].name}",
  "{.users[?(@.name == 'it\\'s')].name}",
  "{.users[?(@.name}",
  "{.users[?(@.name)}",
  "{.users[?(@.name == x)]}",
  "{.items[?(@.metadata.name == 1)]}",
  // literal text, quotes, numbers, words
  '{"\\n"}',
  '{"\\t"}',
  "{'single'}",
  '{"a" "b"}',
  '{"\\u00e9\\U0001F642"}',
  '{"\\x41\\101"}',
  '{"\\q"}',
  "{\"it's\"}",
  "{'say \"hi\"'}",
  '{"\\\'"}',
  '{"unterminated}',
  "{1}",
  "{-7}",
  "{+3}",
  "{1.5}",
  "{1.}",
  "{1000000.0}",
  "{1.2.3}",
  "{-}",
  "{99999999999999999999}",
  "{true}",
  "{false}",
  "{.items[*] true}",
  "{range}",
  "{end}",
  "{foo}",
  "{.kind range}",
  // range
  "{range .items[*]}{.metadata.name}{end}",
  "{range .items[*]}{.metadata.name}",
  "{range .items[*]}{.metadata.name}{end}{end}",
  "{range .items[*]}{range .status.addresses[*]}{.address}{\",\"}{end}{\";\"}{end}",
  "{range .nope[*]}{.x}{end}after",
  "{range .items[*]}{@}{end}",
  "{range .mixed[*]}{@}{\"|\"}{end}",
  "{range .mixed[*]}{.a}{end}",
  "{range .items}{.name}{end}",
  "{range .items[*]}{.name}{\"=\"}{.pods.ready}{\"\\n\"}{end}",
  "{range .items[*]}{.phases[*]}{end}",
  "{range .items[*]}x{end}",
  "{range .empty.list[*]}{.a}{end}done",
  "{range .empty.list[*]}{[0]}{end}",
  "{range .users[*]}{range .user}{.username}{end}{end}",
  // unions
  "{.kind,.items}",
  "{.users[0,1].name}",
  "{.users['name','user']}",
  "{.users[0]['name','user']}",
  "{.users[*]['name','nope']}",
  "{.items[,]}",
  // parse errors
  "",
  "{",
  "}",
  "{}",
  "{{.a}}",
  "{.a",
  "{.a}}",
  "{.a[}",
  "{.a[0}",
  "{.a\n}",
  "{.a\t}",
  "{*}",
  "{.a,.b}",
  "{.items[?(@.x}",
  "{.items[?@.x]}",
  "{#}",
  "{.a b}",
  "{\u00e9t\u00e9}",
  "{\u0663}",
  "text only",
  "{.items[*].metadata.name} and {.kind}",
  // odd corners
  "a}b{.kind}c}",
  "{007}",
  "{+.5}",
  "{1e5}",
  "{-.5}",
  "{.keys}",
  "{.keys.*}",
  "{.keys['a b']}",
  "{.keys.a b}",
  "{.keys.\u00e9}",
  "{.keys['\u00e9']}",
  "{.keys.x\\.y}",
  "{.keys['x.y']}",
  "{.keys['x\\.y']}",
  "{.keys[*]}",
  "{..x}",
  "{.ints[?(@ == 1000000.0)]}",
  "{.ints[?(@ == 9007199254740991)]}",
  "{.ints[?(@ > -4)]}",
  '{.strings[?(@ == "")]}',
  '{.strings[?(@ == "\\u2028")]}',
  '{.strings[?(@ < "\u00e9")]}',
  "{.strings[*].*}",
  "{.strings[5].*}",
  "{.strings[?(@.*)]}",
  "{.mixed[1].*}",
  "{.mixed[?(@ == true)]}",
  "{.mixed[?(@ != null)]}",
  "{.mixed[?(@[0])]}",
  "{.mixed[?(@[0] == 1)]}",
  "{.nested.a.b.c[?(@.e)]}",
  "{.nested.a.b.c[?(@.e == null)]}",
  "{range .strings[*]}[{@}]{end}",
  '{range .keys.*}{@}{";"}{end}',
  '{range .floats[*]}{@}{" "}{end}',
  "{range @}{range @}{.kind}{end}{end}",
  "{range .items[*]}{end}",
  "{range .items[*]}{range}{end}{end}",
  '{"{"}{.kind}{"}"}',
  "{'\\101\\x42\\u0043'}",
  '{"\\0"}',
  '{"\\400"}',
  '{"\\uD800"}',
  '{"\\U00110000"}',
  '{"\\xff\\xfe"}',
  '{"\\xc3\\xa9"}',
];

/** Steps composed at random into paths. */
const STEPS = [
  ".items", ".users", ".metadata", ".name", ".status", ".capacity", ".cpu", ".addresses", ".address", ".type", ".kind", ".user",
  ".pods", ".ready", ".phases", ".nodes", ".ints", ".floats", ".strings", ".mixed", ".nested", ".a", ".b", ".c", ".d", ".empty",
  "[*]", "[0]", "[1]", "[-1]", "[1:]", "[:1]", "[::2]", "[0,1]", "[5]", ".*", "..name", "..address", "..d", "['metadata.name']",
  '[?(@.type=="LegacyHostIP")]', "[?(@.name)]", "[?(@ > 1)]", '[?(@.name=="e2e")]', "[?(@.ready < @.total)]",
];

/** A template for a random path: plain, with text around, in a range, or two actions. */
function composed(random: () => number): string {
  const path = (): string => Array.from({ length: 1 + Math.floor(random() * 4) }, () => STEPS[Math.floor(random() * STEPS.length)]).join("");
  switch (Math.floor(random() * 4)) {
    case 0:
      return `{${path()}}`;
    case 1:
      return `<{${path()}}>`;
    case 2:
      return `{range ${path()}}{${path()}}{"\\n"}{end}`;
    default:
      return `{${path()}}{" "}{${path()}}`;
  }
}

/** A template with one character dropped or one added. */
function mutated(template: string, random: () => number): string {
  const at = Math.floor(random() * (template.length + 1));
  if (random() < 0.5 && template.length > 0) return template.slice(0, at) + template.slice(at + 1);
  const chars = "{}[]().,'\"@$*?=<>!:- \\0a";
  return template.slice(0, at) + chars[Math.floor(random() * chars.length)] + template.slice(at);
}

interface Case {
  label: string;
  request: object;
  karta: () => Printed;
  /** Whether the output may depend on Go's random map order (a `*` or `..` over a map). */
  orderFree: boolean;
}

function jsonpathCase(template: string, doc: string, options: { asJSON?: boolean; allowMissingKeys?: boolean } = {}): Case {
  const data = DOCS[doc]!;
  return {
    label: `jsonpath${options.asJSON ? "-as-json" : ""}${options.allowMissingKeys === false ? " (missing keys fail)" : ""} ${JSON.stringify(template)} on ${doc}`,
    request: { jsonpath: { template, data, asJSON: options.asJSON ?? false, allowMissingKeys: options.allowMissingKeys ?? true } },
    karta: () => {
      const p = jsonPathPrinter(template, options);
      return p.ok ? p.printer.print(data) : p;
    },
    orderFree: /\*|\.\./.test(template),
  };
}

function columnsCase(spec: { spec: string } | { file: string }, doc: string, noHeaders = false): Case {
  const data = DOCS[doc]!;
  return {
    label: `custom-columns${"file" in spec ? `-file ${JSON.stringify(spec.file)}` : `=${JSON.stringify(spec.spec)}`}${noHeaders ? " --no-headers" : ""} on ${doc}`,
    request: { customColumns: { ...spec, data, noHeaders } },
    karta: () => {
      const p = "file" in spec ? customColumnsFilePrinter(spec.file) : customColumnsPrinter(spec.spec, { noHeaders });
      return p.ok ? p.printer.print(data) : p;
    },
    orderFree: /\*|\.\./.test("file" in spec ? spec.file : spec.spec),
  };
}

const COLUMN_SPECS = [
  "NAME:.metadata.name,CPU:.status.capacity.cpu",
  "NAME:metadata.name",
  "NAME:{.metadata.name}",
  "NAME:{metadata.name}",
  "ADDRESSES:.status.addresses[*].address",
  "LABELS:.metadata.labels,NOPE:.nope",
  ":.kind",
  "EMPTY:",
  "NAME",
  "",
  "X:{.a}{.b}",
  "X:{.a",
  "X:.status.addresses[5]",
  "X:..name",
  'X:.status.addresses[?(@.type=="another")].address',
  "X:.items[0,1]",
  "NAME:.name,TYPE:.type.kind,PHASE:.phases,PODS:.pods.ready,GPUS:.gpus,NODES:.nodes[*]",
  "NAME:.name,NS:.namespace,CREATED:.createdAt",
  "A:.name,B:.name,C:.name,D:.name",
  "WIDE_HEADER_HERE:.name,X:.pods",
  "K:.kind.nope[0]",
  "S:.kind[0]",
  "R:{.name range}",
  "T:.strings,I:.ints,F:.floats",
  "M:.mixed[*]",
  "E:.empty",
];

const COLUMN_FILES = ["NAME CPU\n.metadata.name .status.capacity.cpu\n", "NAME   KIND\r\n{.name}\t.type.kind", "NAME\n", "", "A B\n.a\n", "A\n\n", "N\n.name[\n", "  N  \n  .name  \n  extra line\n", "X\u00a0Y\n.a .b"];

function corpus(): Case[] {
  const cases: Case[] = [];
  for (const t of TEMPLATES) for (const doc of Object.keys(DOCS)) cases.push(jsonpathCase(t, doc));
  for (const t of TEMPLATES.slice(0, 60)) {
    cases.push(jsonpathCase(t, "kubectl", { asJSON: true }), jsonpathCase(t, "edge", { asJSON: true }));
    cases.push(jsonpathCase(t, "kubectl", { allowMissingKeys: false }), jsonpathCase(t, "karta", { allowMissingKeys: false }));
  }
  const random = prng(29);
  for (let i = 0; i < 400; i++) {
    const t = composed(random);
    const doc = ["kubectl", "karta", "edge"][i % 3]!;
    cases.push(jsonpathCase(t, doc, i % 7 === 0 ? { allowMissingKeys: false } : i % 11 === 0 ? { asJSON: true } : {}));
  }
  for (let i = 0; i < 300; i++) {
    const t = mutated(TEMPLATES[Math.floor(random() * TEMPLATES.length)]!, random);
    cases.push(jsonpathCase(t, ["kubectl", "karta", "edge"][i % 3]!));
  }
  for (const spec of COLUMN_SPECS) {
    for (const doc of ["kubectl", "karta", "single"]) cases.push(columnsCase({ spec }, doc));
    cases.push(columnsCase({ spec }, "karta", true));
  }
  for (const file of COLUMN_FILES) for (const doc of ["kubectl", "karta"]) cases.push(columnsCase({ file }, doc, true));
  return cases;
}

/** A text's characters as a multiset: what printing the same results in another order cannot change. */
const multiset = (text: string): string => [...text].sort().join("");

/** The classes of deliberate difference: why each is one, and how to recognise it. */
const CLASSES = {
  "map order": "Go iterates a map in random order (`*` and `..` over a map of several keys); Karta in the document's order. Compared as multisets of results (or both failing, on whichever value Go met first).",
  "kubectl panics": "client-go calls reflect on the zero Value that `{range}` over nothing hands its body (`[...]` or a range on it, or marshalling it for jsonpath-as-json) and kubectl crashes; Karta skips it (prints null as JSON).",
  "column path checked first": "a custom column whose path does not parse: kubectl prints the header and then fails; Karta fails (same error) before printing anything.",
} as const;
type Class = keyof typeof CLASSES;

test("kubectl's JSONPath and custom-columns printers print what Karta's print (differential, against k8s.io/kubectl v0.37.2)", { skip }, async () => {
  const cases = corpus();
  const answers = await kubeprint(cases.map((c) => c.request));
  assert.equal(answers.length, cases.length);
  const counts: Record<Class | "identical", number> = { identical: 0, "map order": 0, "kubectl panics": 0, "column path checked first": 0 };
  const failures: string[] = [];
  const outcomes = { text: 0, empty: 0, error: 0, parseError: 0 };
  cases.forEach((c, i) => {
    const go = answers[i]!;
    const ts = c.karta();
    if (ts.ok) outcomes[ts.text === "" ? "empty" : "text"]++;
    // A failure while printing (columns print what came before it); else the printer was refused.
    else outcomes[/^error executing/.test(ts.error) || ts.text !== undefined ? "error" : "parseError"]++;
    const same = ts.ok ? go.error === undefined && go.panic === undefined && go.text === ts.text : go.error === ts.error && (go.text ?? "") === (ts.text ?? "");
    if (same) return void counts.identical++;
    let cls: Class | undefined;
    if (go.panic !== undefined) cls = "kubectl panics";
    else if (!ts.ok && go.error === ts.error && "customColumns" in c.request && ts.text === undefined) cls = "column path checked first";
    else if (c.orderFree && ts.ok && go.text !== undefined && go.error === undefined && multiset(go.text) === multiset(ts.text)) cls = "map order";
    else if (c.orderFree && !ts.ok && go.error !== undefined) cls = "map order";
    if (cls) {
      counts[cls]++;
      if (process.env["KARTA_JSONPATH_DIFFERENCES"]) console.log(`${cls}: ${c.label}\n    kubectl: ${JSON.stringify(go)}\n    karta:   ${JSON.stringify(ts)}`);
    } else failures.push(`${c.label}\n    kubectl: ${JSON.stringify(go)}\n    karta:   ${JSON.stringify(ts)}`);
  });
  const total = cases.length;
  console.log(`jsonpath differential: ${total} cases, ${counts.identical} identical, ${total - counts.identical - failures.length} in deliberate difference classes, ${failures.length} unexplained`);
  console.log(`  Karta's outcomes: ${outcomes.text} printed text, ${outcomes.empty} printed nothing, ${outcomes.error} failed running, ${outcomes.parseError} refused the template or spec`);
  for (const [cls, reason] of Object.entries(CLASSES)) console.log(`  ${counts[cls as Class]} × ${cls}: ${reason}`);
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} cases differ`);
  // The corpus reaches every outcome.
  assert.ok(counts.identical > total * 0.9, `${counts.identical} of ${total} identical`);
  for (const [outcome, n] of Object.entries(outcomes)) assert.ok(n > 50, `${n} cases of outcome ${outcome}`);
});
