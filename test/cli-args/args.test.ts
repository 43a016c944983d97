/** The one argument parser of every command (src/cli/args.ts). */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { parseCommandLine, type Flags } from "../../src/cli/args.js";
import { memoryIO } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

const FLAGS = {
  output: { type: "string", short: "o", choices: ["yaml", "json"], default: "yaml" },
  pods: { type: "string", multiple: true },
  check: { type: "boolean", short: "c" },
  replicas: { type: "integer", min: 0, max: 2 ** 31 - 1 },
  arg: { type: "string", multiple: true, operands: () => ["VALUE"] },
  patch: { type: "string", operands: (v: string) => (v === "set-label" ? ["KEY=VALUE"] : []) },
} as const satisfies Flags;

function ok(args: string[], positionals = true) {
  const p = parseCommandLine(args, FLAGS, { positionals });
  assert.equal(p.kind, "ok", p.kind === "error" ? p.message : p.kind);
  return p as Extract<typeof p, { kind: "ok" }>;
}

function error(args: string[], positionals = false): string {
  const p = parseCommandLine(args, FLAGS, { positionals });
  assert.equal(p.kind, "error");
  return (p as { message: string }).message;
}

describe("parseCommandLine", () => {
  test("every spelling of a value: -ojson, -o=json, -o json, --output json, --output=json", () => {
    for (const args of [["-ojson"], ["-o=json"], ["-o", "json"], ["--output", "json"], ["--output=json"]]) assert.equal(ok(args).values.output, "json", args.join(" "));
    assert.equal(ok([]).values.output, "yaml");
  });

  test("short flags group, and a value ends the group", () => {
    const p = ok(["-co", "json", "-coyaml"]);
    assert.equal(p.values.check, true);
    assert.equal(p.values.output, "yaml");
  });

  test("repeated flags collect; positionals in order; -- ends the options", () => {
    const p = ok(["a", "--pods", "p1", "--pods=p2", "b", "--", "-o", "--check"]);
    assert.deepEqual(p.values.pods, ["p1", "p2"]);
    assert.deepEqual(p.positionals, ["a", "b", "-o", "--check"]);
    assert.equal(p.values.check, false);
  });

  test("- is a positional (stdin)", () => {
    assert.deepEqual(ok(["-", "--check"]).positionals, ["-"]);
  });

  test("-h and --help anywhere ask for help", () => {
    assert.equal(parseCommandLine(["--pods", "x", "-h"], FLAGS).kind, "help");
    assert.equal(parseCommandLine(["--help", "--bogus"], FLAGS).kind, "help");
    // A value, as pflag reads a boolean: --help=true is help, --help=false none, --help=maybe an error.
    assert.equal(parseCommandLine(["--help=true"], FLAGS).kind, "help");
    assert.equal(parseCommandLine(["--help=false"], FLAGS).kind, "ok");
    assert.deepEqual(parseCommandLine(["--help=maybe"], FLAGS), { kind: "error", message: "invalid value 'maybe' for --help: expected true or false" });
  });

  test("unknown flags: one wording, with a did-you-mean for a near miss", () => {
    assert.equal(error(["--ouptut", "json"]), "unknown flag: --ouptut (did you mean --output?)");
    assert.equal(error(["--pod", "x"]), "unknown flag: --pod (did you mean --pods?)");
    assert.equal(error(["--zzzzzzzz"]), "unknown flag: --zzzzzzzz");
    assert.equal(error(["-x"]), "unknown flag: -x");
  });

  test("an empty value: \"\" as pflag reads it, the default with emptyIsUnset (kubectl's flags); -o= takes no next argument", () => {
    const KUBECTL = { output: { type: "string", short: "o", choices: ["wide", "json"], emptyIsUnset: true }, namespace: { type: "string", short: "n", emptyIsUnset: true, default: "x" }, all: { type: "boolean", short: "A" }, group: { type: "string", multiple: true, emptyIsUnset: true } } as const satisfies Flags;
    const parse = (args: string[]) => parseCommandLine(args, KUBECTL, { positionals: true });
    assert.deepEqual(parse(["-o=", "pods"]), { kind: "ok", values: { all: false, namespace: "x", group: [] }, positionals: ["pods"], operands: {}, withOperands: [] });
    assert.deepEqual(parse(["-n", "a", "--namespace=", "-Ao=", "--group=", "--group=g"]), { kind: "ok", values: { all: true, namespace: "x", group: ["g"] }, positionals: [], operands: {}, withOperands: [] });
    assert.deepEqual(ok(["--pods=", "--pods", ""]).values.pods, ["", ""]);
    assert.equal(error(["-o="]), "invalid value '' for --output: expected yaml or json");
    assert.equal(error(["--replicas="]), "invalid value '' for --replicas: expected an integer from 0 to 2147483647");
  });

  test("a missing value, a bad choice, a bad boolean and unexpected positionals", () => {
    assert.equal(error(["--pods"]), "flag needs an argument: --pods");
    assert.equal(error(["-o", "xml"]), "invalid value 'xml' for -o: expected yaml or json");
    assert.equal(error(["--check=maybe"]), "invalid value 'maybe' for --check: expected true or false");
    assert.equal(ok(["--check=false"]).values.check, false);
    // Every spelling of Go's strconv.ParseBool, as pflag reads --flag=VALUE.
    for (const v of ["1", "t", "T", "true", "TRUE", "True"]) assert.equal(ok([`--check=${v}`]).values.check, true, v);
    for (const v of ["0", "f", "F", "false", "FALSE", "False"]) assert.equal(ok([`--check=${v}`]).values.check, false, v);
    assert.equal(error(["--check=yes"]), "invalid value 'yes' for --check: expected true or false");
    assert.equal(error(["file.yaml"]), "unexpected argument 'file.yaml'");
  });

  test("integers are range-checked", () => {
    assert.equal(ok(["--replicas", "3"]).values.replicas, 3);
    assert.equal(ok(["--replicas=2147483647"]).values.replicas, 2147483647);
    assert.equal(error(["--replicas", "-1"]), "invalid value '-1' for --replicas: expected an integer from 0 to 2147483647");
    assert.equal(error(["--replicas", "2147483648"]), "invalid value '2147483648' for --replicas: expected an integer from 0 to 2147483647");
    assert.equal(error(["--replicas", "1.5"]), "invalid value '1.5' for --replicas: expected an integer from 0 to 2147483647");
    assert.equal(error(["--replicas", "three"]), "invalid value 'three' for --replicas: expected an integer from 0 to 2147483647");
  });

  test("operands after a flag's value (--arg NAME VALUE, --patch set-label K=V)", () => {
    const p = ok(["--arg", "a", "-1", "--arg=b", "--check", "x", "--patch", "set-label", "k=v"]);
    assert.deepEqual(p.values.arg, ["a", "b"]);
    assert.deepEqual(p.operands.arg, [["-1"], ["--check"]]);
    assert.deepEqual(p.operands.patch, [["k=v"]]);
    // Across flags, in command-line order (a value given inline too).
    assert.deepEqual(p.withOperands, [
      { flag: "arg", value: "a", operands: ["-1"] },
      { flag: "arg", value: "b", operands: ["--check"] },
      { flag: "patch", value: "set-label", operands: ["k=v"] },
    ]);
    assert.deepEqual(p.positionals, ["x"]);
    assert.equal(p.values.check, false);
    assert.equal(error(["--arg", "a"]), "--arg a needs VALUE");
    assert.equal(error(["--patch", "set-label"]), "--patch set-label needs KEY=VALUE");
  });
});

describe("every command parses alike", () => {
  const commands = ["validate", "inspect", "compile", "interpret", "jq", "definitions"];

  test("an unknown flag is worded the same way by every command, with exit code 2", async () => {
    for (const c of commands) {
      const io = memoryIO();
      assert.equal(await main([c, "--hepl"], io), 2, c);
      assert.match(io.err, new RegExp(`^karta ${c}: unknown flag: --hepl \\(did you mean --help\\?\\)\\nRun 'karta ${c} --help' for usage\\.\\n$`), c);
    }
  });

  test("-h and --help print the help with an example on stdout", async () => {
    for (const c of [...commands, "completion", "version"]) {
      for (const h of ["-h", "--help"]) {
        const io = memoryIO();
        assert.equal(await main([c, h], io), 0, `${c} ${h}`);
        assert.match(io.out, /^Usage: karta /, c);
        assert.match(io.out, /Example/, c);
      }
    }
  });

  test("every help's Usage block is followed by a blank line and lists every -o value the command takes", async () => {
    const { commandNames } = await import("../../src/cli/commands.js");
    for (const c of commandNames()) {
      const io = memoryIO();
      assert.equal(await main([c.name, "--help"], io), 0, c.name);
      const lines = io.out.split("\n");
      let end = 1;
      while (/^\s/.test(lines[end] ?? "")) end++;
      assert.equal(lines[end], "", `karta ${c.name} --help: no blank line after Usage`);
      const usage = lines.slice(0, end).join(" ");
      const shown = /\[-o ([a-z|]+)\]/.exec(usage)?.[1];
      const output = (await c.flags())["output"];
      if (shown !== undefined && output?.type === "string" && output.choices) assert.deepEqual(shown.split("|").sort(), [...output.choices].sort(), `karta ${c.name} --help: Usage's -o`);
    }
  });

  test("--desired-replica -1 is refused", async () => {
    const io = memoryIO();
    assert.equal(await main(["interpret", "--operation", "ReviseReplica", "--desired-file", "examples/deployment.yaml", "--desired-replica", "-1"], io), 2);
    assert.match(io.err, /invalid value '-1' for --desired-replica: expected an integer from 0 to 2147483647/);
  });

  test("a `once` flag given twice with different values (or operands) is an error; the same twice is not; other flags keep the last, as pflag", () => {
    const flags = { ...FLAGS, file: { type: "string", short: "f", once: true }, op: { type: "string", once: true, operands: (v: string) => (v === "set" ? ["KV"] : []) } } as const satisfies Flags;
    const parse = (args: string[]) => parseCommandLine(args, flags, {});
    for (const args of [["-f", "a", "-f", "b"], ["-fa", "--file=b"], ["--op", "set", "k=1", "--op", "set", "k=2"], ["--op", "x", "--op=y"]]) {
      const p = parse(args);
      assert.deepEqual(p.kind === "error" ? p.message : p.kind, `flag given twice with different values: ${args[0]!.startsWith("-f") ? "-f" : "--op"}`.replace("-f", "--file"), args.join(" "));
    }
    const same = parse(["-f", "a", "--file", "a", "--op", "set", "k=1", "--op", "set", "k=1"]);
    assert.equal(same.kind, "ok");
    const last = parse(["-o", "yaml", "-o", "json"]);
    assert.equal(last.kind === "ok" && last.values.output, "json");
    // -h still shows the help.
    assert.equal(parse(["-h", "-f", "a", "-f", "b"]).kind, "help");
    assert.equal(parse(["-f", "a", "-f", "b", "--help"]).kind, "help");
  });

  test("a choice and its operands given as one argument: the error says to split them", () => {
    const flags = { patch: { type: "string", choices: ["suspend", "set-label"], operands: (v: string) => (v === "set-label" ? ["KEY=VALUE"] : []) } } as const satisfies Flags;
    const p = parseCommandLine(["--patch", "set-label k=v"], flags, {});
    assert.equal(p.kind === "error" && p.message, "invalid value 'set-label k=v' for --patch: give KEY=VALUE as a separate argument: --patch set-label KEY=VALUE");
  });
});
