/** `karta jq` run in-process: flags, output formats and exit codes as jq's. */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { main } from "../../src/cli/main.js";
import { memoryIO } from "../../src/cli/io.js";
import { repoRoot } from "../fixtures/objects.js";

async function karta(args: string[], stdin = "") {
  const io = memoryIO(stdin);
  const code = await main(args, io);
  return { code, out: io.out, err: io.err };
}
const example = path.join(repoRoot, "examples", "pytorchjob.yaml");

describe("karta jq", () => {
  test("pretty output by default, -c compact, -r raw", async () => {
    assert.deepEqual(await karta(["jq", ".a"], '{"a":{"b":[1]}}'), { code: 0, out: '{\n  "b": [\n    1\n  ]\n}\n', err: "" });
    assert.equal((await karta(["jq", "-c", ".a"], '{"a":{"b":[1]}}')).out, '{"b":[1]}\n');
    assert.equal((await karta(["jq", "-r", ".[]"], '["x","y"]')).out, "x\ny\n");
    assert.equal((await karta(["jq", "-j", ".[]"], '["x",1]')).out, "x1");
  });
  test("a stream of values, slurp and null input", async () => {
    assert.equal((await karta(["jq", "-c", ".n"], '{"n":1}\n{"n":2}\n{"n":\n3}')).out, "1\n2\n3\n");
    assert.equal((await karta(["jq", "-c", "-s", "map(.n) | add"], '{"n":1} {"n":2}')).out, "3\n");
    assert.equal((await karta(["jq", "-n", "-c", "[inputs.n]"], '{"n":1} {"n":2}')).out, "[1,2]\n");
    assert.equal((await karta(["jq", "-c", "-s", "."], "")).out, "[]\n");
  });
  test("-n with -s: . is null and input is the slurped array, as in jq", async () => {
    const pods = '{"kind":"Pod","metadata":{"name":"mnist-worker-0"}}\n{"kind":"Pod","metadata":{"name":"mnist-worker-1"}}';
    assert.equal((await karta(["jq", "-n", "-s", "-c", "."], pods)).out, "null\n");
    assert.equal((await karta(["jq", "-ns", "-c", "input | map(.metadata.name)"], pods)).out, '["mnist-worker-0","mnist-worker-1"]\n');
    assert.equal((await karta(["jq", "-ns", "-c", "[inputs] | length"], pods)).out, "1\n");
  });
  test("--arg, --argjson, $ARGS, --tab, --indent, -S", async () => {
    const r = await karta(["jq", "-n", "-c", "--arg", "ns", "ml-team", "--argjson", "n", "3", "[$ns, $n, $ARGS.named]"]);
    assert.equal(r.out, '["ml-team",3,{"ns":"ml-team","n":3}]\n');
    assert.equal((await karta(["jq", "--tab", "."], "[1]")).out, "[\n\t1\n]\n");
    assert.equal((await karta(["jq", "--indent", "1", "."], "[1]")).out, "[\n 1\n]\n");
    assert.equal((await karta(["jq", "-S", "-c", "."], '{"b":1,"a":2}')).out, '{"a":2,"b":1}\n');
  });
  test("YAML input: a bundled PyTorchJob", async () => {
    const r = await karta(["jq", "-r", "--yaml", '.spec.pytorchReplicaSpecs | to_entries[] | "\\(.key)=\\(.value.replicas)"', example]);
    assert.deepEqual(r, { code: 0, out: "Master=1\nWorker=3\n", err: "" });
  });
  test("exit codes: -e, compile error 3, runtime error 5 (of the last input, as jq), usage 2, unreadable input 2, unparsable input 5 (as jq 1.8.2)", async () => {
    assert.equal((await karta(["jq", "-e", ".a"], '{"a":false}')).code, 1);
    assert.equal((await karta(["jq", "-e", "empty"], "1")).code, 4);
    assert.equal((await karta(["jq", "-e", ".a"], '{"a":1}')).code, 0);
    assert.equal((await karta(["jq", "-e", ".a // empty"], '{"a":1}\n{}')).code, 0, "-e looks back past a run without output");
    const compile = await karta(["jq", ".a |"], "{}");
    assert.equal(compile.code, 3);
    assert.equal(compile.err, "jq: error: syntax error, unexpected end of file at <top-level>, line 1, column 4:\n    .a |\n       ^\njq: 1 compile error\n");
    const runtime = await karta(["jq", ".a.b"], '{"a":1}\n{"a":{"b":2}}');
    assert.equal(runtime.code, 0, "the last input's run succeeded");
    assert.equal(runtime.out, "2\n", "later inputs are still processed");
    assert.equal(runtime.err, 'jq: error (at <stdin>:1): Cannot index number with string ("b")\n');
    const last = await karta(["jq", ".a.b"], '{"a":{"b":2}}\n{"a":1}');
    assert.equal(last.code, 5);
    assert.equal((await karta(["jq", "-n", "error({a: 1})"])).err, 'jq: error (at <unknown>) (not a string): {"a":1}\n');
    assert.equal((await karta(["jq", "--bogus", "."])).code, 2);
    const missing = await karta(["jq", ".", "/nonexistent/pods.json"]);
    assert.equal(missing.code, 2);
    // jq 1.8.2's words (strerror's text), for an input file and for the files it loads whole.
    assert.equal(missing.err, "jq: error: Could not open file /nonexistent/pods.json: No such file or directory\n");
    // A directory is unreadable input, in every place jq reads a file.
    const cases: [string[], string][] = [
      [["jq", ".", repoRoot], "jq: error: Is a directory\n"],
      [["jq", "-n", "--slurpfile", "x", repoRoot, "1"], `jq: Bad JSON in --slurpfile x ${repoRoot}: Could not open ${repoRoot}: It's a directory\n`],
      [["jq", "-n", "--rawfile", "x", repoRoot, "1"], `jq: Bad JSON in --rawfile x ${repoRoot}: Could not open ${repoRoot}: It's a directory\n`],
      [["jq", "-n", "-f", repoRoot], `jq: Could not open ${repoRoot}: It's a directory\n`],
      [["jq", "-n", "--rawfile", "x", "/nonexistent/f", "1"], "jq: Bad JSON in --rawfile x /nonexistent/f: Could not open /nonexistent/f: No such file or directory\n"],
      // An empty file name is a file that cannot be opened too.
      [["jq", ".", ""], "jq: error: Could not open file : No such file or directory\n"],
    ];
    for (const [args, err] of cases) {
      const dir = await karta(args);
      assert.deepEqual([dir.code, dir.err], [2, err], args.join(" "));
    }
    const badJson = await karta(["jq", "."], '{"a":');
    assert.deepEqual(badJson, { code: 5, out: "", err: "jq: parse error: Unfinished JSON term at EOF at line 1, column 5\n" });
    // A file that could not be read before it decides the exit; -e does not change it; and no input is
    // read after the value being read then, so the bad text after it is never parsed (jq 1.8.2 printed these).
    const missingThenBad = await karta(["jq", ".", "/nonexistent/a.json", "-"], "1 {]");
    assert.deepEqual(missingThenBad, { code: 2, out: "1\n", err: "jq: error: Could not open file /nonexistent/a.json: No such file or directory\n" });
    assert.equal((await karta(["jq", "-e", "."], "1 {]")).code, 5);
  });
  test("a name bound twice keeps its first binding, whichever flag made it, as jq 1.8.2", async () => {
    assert.equal((await karta(["jq", "-nc", "--arg", "x", "1", "--arg", "x", "2", "$x"])).out, '"1"\n');
    assert.equal((await karta(["jq", "-nc", "--argjson", "x", "2", "--arg", "x", "1", "$x"])).out, "2\n");
    assert.equal((await karta(["jq", "-nc", "--arg", "x", "1", "--argjson", "x", "2", "$ARGS.named"])).out, '{"x":"1"}\n');
  });

  test("--slurpfile with a text that does not parse names the flag, the name and the file, as jq", async () => {
    const bad = path.join(repoRoot, "README.md");
    const r = await karta(["jq", "-n", "--slurpfile", "x", bad, "1"]);
    assert.equal(r.code, 2);
    assert.match(r.err, new RegExp(`^jq: Bad JSON in --slurpfile x ${bad.replace(/[.]/g, "\\.")}: Invalid numeric literal at line 1, column \\d+\n$`));
  });

  test("- is standard input among the files, as in jq (read once)", async () => {
    assert.deepEqual(await karta(["jq", "-c", ".a", "-"], '{"a":1}'), { code: 0, out: "1\n", err: "" });
    assert.deepEqual(await karta(["jq", "-c", ".a", "-", "-"], '{"a":1}'), { code: 0, out: "1\n", err: "" });
  });

  test("halt_error prints its message and exits with its code", async () => {
    const r = await karta(["jq", "-n", '"bye\\n" | halt_error(7)']);
    assert.deepEqual(r, { code: 7, out: "", err: "bye\n" });
  });
  test("the host environment is hidden unless --env", async () => {
    process.env["KARTA_TEST_SECRET"] = "s3cret";
    assert.equal((await karta(["jq", "-n", "-c", "$ENV.KARTA_TEST_SECRET"])).out, "null\n");
    assert.equal((await karta(["jq", "-n", "-c", "--env", "env.KARTA_TEST_SECRET"])).out, '"s3cret"\n');
    delete process.env["KARTA_TEST_SECRET"];
  });
  test("labels are numbered across the inputs, as one jq state numbers them (jq 1.8.2 printed these)", async () => {
    assert.equal((await karta(["jq", "-c", "[label $f | try break $f catch .]"], "1\n2\n")).out, '[{"__jq":0}]\n[{"__jq":1}]\n');
  });

  test("--help shows an example", async () => {
    const r = await karta(["jq", "--help"]);
    assert.equal(r.code, 0);
    assert.match(r.out, /Example:\n {2}karta jq/);
  });
});

describe("karta jq: the jq 1.8.2 command line (issues 12 and 31)", () => {
  async function withFiles(args: string[], files: Record<string, string>, stdin = "") {
    const io = memoryIO(stdin, files);
    const code = await main(args, io);
    return { code, out: io.out, err: io.err };
  }
  const files = { "l.json": "1\n2\n\n3 4\n", "p.json": '{"a":\n1}\n', "r.txt": "line one\nline two" };
  test("--unbuffered is accepted, as jq accepts it, and changes nothing", async () => {
    assert.deepEqual(await withFiles(["jq", "--unbuffered", "-c", "."], {}, '{"a":[1,2]} 3'), { code: 0, out: '{"a":[1,2]}\n3\n', err: "" });
  });
  test("-b and -L are accepted, as jq accepts them off Windows and without modules; -V prints the jq version followed, as jq 1.8.2 prints its own", async () => {
    assert.deepEqual(await withFiles(["jq", "-b", "-L", "/nonexistent", "-c", "."], {}, "[1]"), { code: 0, out: "[1]\n", err: "" });
    assert.deepEqual(await withFiles(["jq", "--binary", "--library-path", "/tmp", "-L/tmp", "."], {}, "2"), { code: 0, out: "2\n", err: "" });
    // -L does not make modules loadable: the program is still refused at compile time.
    assert.equal((await withFiles(["jq", "-L", "/tmp", 'import "m" as m; .'], {}, "1")).code, 3);
    for (const flag of ["--version", "-V"]) assert.deepEqual(await withFiles(["jq", flag, "."], {}, "1"), { code: 0, out: "jq-1.8.2\n", err: "" });
    assert.deepEqual(await withFiles(["jq", "-L"], {}), { code: 2, out: "", err: "karta jq: flag needs an argument: -L\nRun 'karta jq --help' for usage.\n" });
    // -L's value is a path, whatever it spells: no layout option read in it (jq 1.8.2 printed these).
    for (const args of [["-Lscripts", "."], ["-L", "-c", "."], ["--library-path", "-c", "."], ["-L", "--tab", "."], ["-Lc", "."]]) {
      assert.deepEqual(await withFiles(["jq", ...args], {}, '{"a":[1]}'), { code: 0, out: '{\n  "a": [\n    1\n  ]\n}\n', err: "" }, args.join(" "));
    }
    assert.equal((await withFiles(["jq", "-cL", "x", "."], {}, '{"a":[1]}')).out, '{"a":[1]}\n');
  });
  test("flags are read in order, as jq 1.8.2 reads them: the first of -h, -V or a bad flag decides, and --flag=value is an unknown option", async () => {
    const usage = (flag: string) => ({ code: 2, out: "", err: `karta jq: unknown flag: ${flag}\nRun 'karta jq --help' for usage.\n` });
    const run = async (args: string[]) => {
      const r = await withFiles(["jq", ...args], {}, "1");
      return { code: r.code, out: r.out.startsWith("Usage:") ? "help" : r.out, err: r.err };
    };
    assert.deepEqual(await run(["-V", "-h"]), { code: 0, out: "jq-1.8.2\n", err: "" });
    assert.deepEqual(await run(["-h", "-V"]), { code: 0, out: "help", err: "" });
    assert.deepEqual(await run(["-V", "--foo"]), { code: 0, out: "jq-1.8.2\n", err: "" });
    assert.deepEqual(await run(["-nV"]), { code: 0, out: "jq-1.8.2\n", err: "" });
    assert.deepEqual(await run(["--foo", "-V"]), usage("--foo"));
    assert.deepEqual(await run(["--foo", "-h"]), usage("--foo"));
    assert.deepEqual(await run(["-h", "--foo"]), { code: 0, out: "help", err: "" });
    for (const flag of ["--library-path=/tmp", "--indent=3", "--null-input=true", "--arg=x"]) assert.deepEqual(await run([flag, "-n", "1"]), usage(flag), flag);
    // -L's value may start with "=", as jq reads the rest of a short flag's argument as its value.
    assert.deepEqual(await run(["-L=/tmp", "-n", "1"]), { code: 0, out: "1\n", err: "" });
  });
  test("-R -s: after the slurp, the position is the last file's with all its lines read (errors, input_filename, input_line_number), as jq 1.8.2 prints", async () => {
    const f = { "f1.txt": "a\nb\n", "f2.txt": "c\nd", "f3.txt": "" };
    assert.deepEqual(await withFiles(["jq", "-Rs", "error(.)"], f, "x\ny\nz"), { code: 5, out: "", err: "jq: error (at <stdin>:2): x\ny\nz\n" });
    assert.deepEqual(await withFiles(["jq", "-Rs", "error(.)", "f2.txt", "f1.txt"], f), { code: 5, out: "", err: "jq: error (at f1.txt:2): c\nda\nb\n\n" });
    assert.equal((await withFiles(["jq", "-Rsc", "[input_filename, input_line_number]", "f1.txt", "f2.txt"], f)).out, '["f2.txt",1]\n');
    assert.equal((await withFiles(["jq", "-Rsc", "[input_filename, input_line_number]", "f1.txt", "f3.txt"], f)).out, '["f3.txt",0]\n');
    assert.equal((await withFiles(["jq", "-Rns", "input | error", "f1.txt"], f)).err, "jq: error (at f1.txt:2): a\nb\n\n");
  });

  // The inputs are one text, as jq reads them (its parser goes on from file to file): expected outputs as jq 1.8.2 printed them.
  const acrossFiles: [string, string[], Record<string, string>, { code: number; out: string; err: string }][] = [
    ["a value begun in one file ends in the next, in the file and at the line it ends", ["jq", "-c", "[., input_filename, input_line_number]", "d.json", "e.json"], { "d.json": "{\"a\":\n", "e.json": "1}\n" }, { code: 0, out: "[{\"a\":1},\"e.json\",1]\n", err: "" }],
    ["a file's last line without its break goes on in the next: 2 and 3 are 23", ["jq", "-c", "[., input_filename, input_line_number]", "g.json", "h.json"], { "g.json": "1 2", "h.json": "3\n" }, { code: 0, out: "[1,\"g.json\",0]\n[23,\"h.json\",1]\n", err: "" }],
    ["a value ended in a file without a last line break is that file's, at its lines", ["jq", "-c", "[., input_filename, input_line_number]", "x1.json", "x2.json", "x3.json"], { "x1.json": "{\"a\":1}", "x2.json": "\n[2]", "x3.json": " 3" }, { code: 0, out: "[{\"a\":1},\"x1.json\",0]\n[[2],\"x2.json\",1]\n[3,\"x3.json\",0]\n", err: "" }],
    ["a parse error's line counts the files before", ["jq", "-c", ".", "a.json", "f.json"], { "a.json": "1\n2\n3\n", "f.json": "{]\n" }, { code: 5, out: "1\n2\n3\n", err: "jq: parse error: Unmatched ']' at line 4, column 2\n" }],
    ["a byte-order mark is skipped at the start of the whole input only", ["jq", "-c", ".", "a.json", "bom.json"], { "a.json": "1\n2\n3\n", "bom.json": "\ufeff2\n" }, { code: 5, out: "1\n2\n3\n", err: "jq: parse error: Invalid numeric literal at line 5, column 0\n" }],
    ["an error at the end of the input is the last file's, empty or not", ["jq", "-nc", "[inputs, input_filename, input_line_number]", "f0.json", "f1.json", "f2.json"], { "f0.json": "{", "f1.json": "}tru", "f2.json": "" }, { code: 5, out: "", err: "jq: error (at f2.json:0): Invalid literal at EOF at line 1, column 5\n" }],
    ["after a parse error, input reads on from the next line, jq's counts lagging the line it dropped", ["jq", "-nc", "[range(7) as $i | try [input, input_filename, input_line_number] catch (\"E:\"+.)]", "bz.json"], { "bz.json": "1\n2}\n3x\n4\n5y\n" }, { code: 0, out: "[[1,\"bz.json\",1],\"E:Unmatched '}' at line 2, column 2\",\"E:Invalid numeric literal at line 3, column 0\",[4,\"bz.json\",4],\"E:Invalid numeric literal at line 5, column 0\",\"E:break\",\"E:break\"]\n", err: "" }],
    ["a literal ended by a line break fails at column 0 of the next line, which is read on", ["jq", "-nc", "[range(6) as $i | try [input, input_filename, input_line_number] catch (\"E:\"+.)]", "bx.json"], { "bx.json": "1\n2x\n3\n4\n" }, { code: 0, out: "[[1,\"bx.json\",1],\"E:Invalid numeric literal at line 3, column 0\",[3,\"bx.json\",3],[4,\"bx.json\",4],\"E:break\",\"E:break\"]\n", err: "" }],
    ["after an error in a line that goes on in the next file, only this file's part is dropped", ["jq", "-nc", "[range(12) as $i | try input catch (\"E:\"+.)]", "c0.json", "c1.json"], { "c0.json": "0\n}{\"k0\":\n{}", "c1.json": ",\"k1\":\n[0, null],\"k2\":\n{\"k0\": 0}}\n" }, { code: 0, out: "[0,\"E:Unmatched '}' at line 2, column 1\",{},\"E:Expected value before ',' at line 2, column 4\",[0,null],\"E:Expected value before ',' at line 2, column 14\",{\"k0\":0},\"E:Unmatched '}' at line 2, column 24\",\"E:break\",\"E:break\",\"E:break\",\"E:break\"]\n", err: "" }],
  ];
  acrossFiles.push(["a file after a parse error is not opened, as jq's parser never gets to it", ["jq", "-c", ".", "e1.json", "/nonexistent/a.json"], { "e1.json": "1\n2x\n" }, { code: 5, out: "1\n", err: "jq: parse error: Invalid numeric literal at line 3, column 0\n" }]);
  for (const [title, args, inputs, expected] of acrossFiles) {
    test(`files read as one text: ${title}`, async () => {
      assert.deepEqual(await withFiles(args, inputs), expected);
    });
  }
  test("--stream walks an input nested thousands deep without a stack per level (jq 1.8.2 printed these)", async () => {
    const deep = "[".repeat(5000) + "]".repeat(5000) + "\n";
    assert.deepEqual(await withFiles(["jq", "--stream", "-c", "select(length == 2) | .[0] | length", "d.json"], { "d.json": deep }), { code: 0, out: "4999\n", err: "" });
    assert.equal((await withFiles(["jq", "--stream", "-c", ".", "d.json"], { "d.json": deep })).out.split("\n").length - 1, 5000);
  });
  test("-1 and -.a are filters, not flags: jq takes - and then a letter or - for options", async () => {
    assert.deepEqual(await withFiles(["jq", "-n", "-1"], {}), { code: 0, out: "-1\n", err: "" });
    assert.deepEqual(await withFiles(["jq", "-c", "-.a"], {}, '{"a":5}'), { code: 0, out: "-5\n", err: "" });
    assert.deepEqual(await withFiles(["jq", "-n", "-c", "--args", "$ARGS.positional", "-1", "-.a"], {}), { code: 0, out: '["-1","-.a"]\n', err: "" });
    assert.equal((await withFiles(["jq", "-n1", "."], {})).code, 2, "a digit inside a group of flags is still an unknown flag");
    assert.equal((await withFiles(["jq", "-x", "."], {})).code, 2);
  });

  test("a file that cannot be read is reported in its turn, the value being read then is the last run, and the exit is 2 (over -e), as jq", async () => {
    const r = await withFiles(["jq", "-c", ".", "l.json", "/nonexistent/a.json", "p.json"], files);
    assert.deepEqual(r, { code: 2, out: "1\n2\n3\n4\n{\"a\":1}\n", err: "jq: error: Could not open file /nonexistent/a.json: No such file or directory\n" });
    // jq's main loop reads no input once a file could not be opened: q.json is not run (jq 1.8.2 printed these).
    const more = { ...files, "q.json": '{"b":2}\n' };
    assert.deepEqual(await withFiles(["jq", "-c", ".", "l.json", "/nonexistent/a.json", "p.json", "q.json"], more), { code: 2, out: '1\n2\n3\n4\n{"a":1}\n', err: "jq: error: Could not open file /nonexistent/a.json: No such file or directory\n" });
    assert.equal((await withFiles(["jq", "-c", ".", "/nonexistent/a.json", "q.json", "p.json"], more)).out, '{"b":2}\n');
    assert.equal((await withFiles(["jq", "-R", ".", "r.txt", "/nonexistent/a.json", "q.json", "p.json"], more)).out, '"line one"\n"line two{\\"b\\":2}"\n');
    // A program's own input reads on.
    assert.equal((await withFiles(["jq", "-c", "-n", "[inputs]", "l.json", "/nonexistent/a.json", "p.json", "q.json"], more)).out, '[1,2,3,4,{"a":1},{"b":2}]\n');
    assert.equal((await withFiles(["jq", "-c", "-s", "length", "l.json", "/nonexistent/a.json", "p.json"], files)).out, "5\n");
    assert.equal((await withFiles(["jq", "-e", ".", "p.json", "/nonexistent/a.json"], files)).code, 2);
    assert.equal((await withFiles(["jq", "-R", "-s", "length", "/nonexistent/a.json", "r.txt"], files)).out, "17\n");
  });

  test("agreements a differential run against jq 1.8.2 found missing: halt_error's status, stderr, debug with -S -a, (path)?, .[] over null in paths", async () => {
    // halt_error: the code as a C int (truncated), 0 when not above 0, else its low byte; with -e its
    // absolute value's low byte.
    for (const [code, status, withE] of [["1.5", 1, 1], ["-1", 0, 1], ["-300", 0, 44], ["257", 1, 1], ["infinite", 0, 0], ["nan", 0, 0]] as const) {
      assert.deepEqual(await withFiles(["jq", "-n", `"m\\n" | halt_error(${code})`], {}), { code: status, out: "", err: "m\n" }, code);
      assert.equal((await withFiles(["jq", "-n", "-e", `"m\\n" | halt_error(${code})`], {})).code, withE, `-e ${code}`);
    }
    // stderr prints a string as it is (jq 1.8); debug's message is dumped as the output is (-S, -a).
    assert.deepEqual(await withFiles(["jq", "-n", '"hé\\n" | stderr'], {}), { code: 0, out: '"hé\\n"\n', err: "hé\n" });
    assert.equal((await withFiles(["jq", "-nSa", '{"b":1,"a":"é"} | debug'], {})).err, '["DEBUG:",{"a":"\\u00e9","b":1}]\n');
    // A ? after a parenthesized path covers the whole of it.
    assert.deepEqual(await withFiles(["jq", "-c", '(.c.d)?, "after"'], {}, '{"c":0.25}'), { code: 0, out: '"after"\n', err: "" });
    // .[] over null in a path fails, as .[] does; .[]? does not.
    assert.deepEqual(await withFiles(["jq", "-c", ".a[] |= 1"], {}, '{"c":0.25}\n'), { code: 5, out: "", err: "jq: error (at <stdin>:1): Cannot iterate over null (null)\n" });
    assert.deepEqual(await withFiles(["jq", "-c", "[path(.a[]?)], del(.a[]?)"], {}, '{"c":0.25}'), { code: 0, out: '[]\n{"c":0.25}\n', err: "" });
    // input_line_number and error positions: the lines jq has read when its parser gives each value
    // (the line of the character that ends it; a last line without its newline is not counted yet).
    const lines = async (stdin: string, flags: string[] = []) => (await withFiles(["jq", "-c", ...flags, "[., input_line_number]"], {}, stdin)).out;
    assert.equal(await lines('{\n"a":\n1\n}\n2\n'), '[{"a":1},4]\n[2,5]\n');
    assert.equal(await lines("1 2\n3\n"), "[1,1]\n[2,1]\n[3,2]\n");
    assert.equal(await lines("1 2\n3"), "[1,1]\n[2,1]\n[3,1]\n");
    assert.equal(await lines('{"a":1}\n\n\n', ["-s"]), '[[{"a":1}],3]\n');
    assert.equal((await withFiles(["jq", ".a.b"], {}, '{"a":\n1} 5\n')).err, 'jq: error (at <stdin>:2): Cannot index number with string ("b")\njq: error (at <stdin>:2): Cannot index number with string ("a")\n');
    // -R reads the files as one stream: a last line without its newline goes on in the next file.
    assert.equal((await withFiles(["jq", "-R", "-c", "[., input_filename]", "a.txt", "b.txt"], { "a.txt": "ab\ncd", "b.txt": "ef\ngh\n" })).out, '["ab","a.txt"]\n["cdef","b.txt"]\n["gh","b.txt"]\n');
    // An error message is printed as jq prints a C string: up to a NUL.
    assert.deepEqual(await withFiles(["jq", "-n", 'error("a\\u0000b")'], {}), { code: 5, out: "", err: "jq: error (at <unknown>): a\n" });
    // A parse error met by the program's input is an error of the program, which try catches.
    // ... and the reading goes on after the line it was on, as jq's parser goes on: nothing is dropped.
    assert.deepEqual(await withFiles(["jq", "-c", '[., (try input catch "e")]'], {}, '1 {"a" 2 3\n4\n'), { code: 0, out: '[1,"e"]\n[4,"e"]\n', err: "" });
    assert.deepEqual(await withFiles(["jq", "-c", 'try input catch "caught: \\(.)"'], {}, '1 {"a" 2'), { code: 0, out: '"caught: Expected separator between values at EOF at line 1, column 8"\n', err: "" });
    assert.deepEqual(await withFiles(["jq", "-n", "-c", "[inputs]"], {}, '1 {"a" 2'), { code: 5, out: "", err: "jq: error (at <stdin>:0): Expected separator between values at EOF at line 1, column 8\n" });
  });

  test("input_filename names the file being read, input_line_number counts its lines read", async () => {
    const r = await withFiles(["jq", "-c", "[input_line_number, input_filename]", "l.json", "p.json"], files);
    // As jq: a value is seen once its whole line is read; "3 4" share line 4.
    assert.equal(r.out, '[1,"l.json"]\n[2,"l.json"]\n[4,"l.json"]\n[4,"l.json"]\n[2,"p.json"]\n');
    assert.equal((await karta(["jq", "-c", "input_filename"], "{}")).out, '"<stdin>"\n');
    assert.equal((await karta(["jq", "-nc", "input_filename"])).out, "null\n");
  });
  test("--indent 0 keeps line breaks (jq 1.8); the last of -c, --tab and --indent wins; -1 is tabs", async () => {
    assert.equal((await karta(["jq", "--indent", "0", "."], '{"a":[1,2]}')).out, '{\n"a": [\n1,\n2\n]\n}\n');
    assert.equal((await karta(["jq", "-c", "--indent", "3", "."], '{"a":[1]}')).out, '{\n   "a": [\n      1\n   ]\n}\n');
    assert.equal((await karta(["jq", "--indent", "3", "-c", "."], '{"a":[1]}')).out, '{"a":[1]}\n');
    assert.equal((await karta(["jq", "--tab", "-c", "."], '{"a":[1]}')).out, '{"a":[1]}\n');
    assert.equal((await karta(["jq", "-c", "--tab", "."], '{"a":[1]}')).out, '{\n\t"a": [\n\t\t1\n\t]\n}\n');
    assert.equal((await karta(["jq", "--indent", "-1", "."], "[1]")).out, "[\n\t1\n]\n");
    assert.equal((await karta(["jq", "--indent", "8", "."], "[1]")).code, 2);
  });
  test("--raw-output0 ends each output with NUL and refuses a string holding one; -r -a prints JSON text", async () => {
    assert.equal((await karta(["jq", "--raw-output0", ".[]"], '["a","b",1]')).out, "a\0b\x001\0");
    assert.deepEqual(await karta(["jq", "--raw-output0", ".[]"], '["a\\u0000b"]'), {
      code: 5,
      out: "",
      err: "jq: error (at <stdin>:0): Cannot dump a string containing NUL with --raw-output0 option\n",
    });
    assert.equal((await karta(["jq", "-n", "-r", "-a", '"\u00e9"'])).out, '"\\u00e9"\n');
  });
  test("runtime errors name the input and its lines read so far; halt_error prints nothing for null", async () => {
    assert.deepEqual(await karta(["jq", ".a"], "1\n2"), {
      code: 5,
      out: "",
      err: 'jq: error (at <stdin>:1): Cannot index number with string ("a")\njq: error (at <stdin>:1): Cannot index number with string ("a")\n',
    });
    assert.deepEqual(await karta(["jq", "-n", "halt_error(3)"]), { code: 3, out: "", err: "" });
    assert.deepEqual(await karta(["jq", "-n", '"x" | halt_error(0)']), { code: 0, out: "", err: "x" });
    assert.deepEqual(await karta(["jq", "-n", "input"]), { code: 5, out: "", err: "jq: error (at <stdin>:0): break\n" });
  });
  test("a program file holding a NUL byte is refused, not cut short (jq 1.8.2)", async () => {
    assert.deepEqual(await withFiles(["jq", "-n", "-f", "p.jq"], { "p.jq": ". | length\0garbage" }), { code: 2, out: "", err: "jq: program file contains NUL bytes\n" });
  });
  test("-f is a switch, as in jq 1.8.2: the first argument that is not an option is the program file, wherever -f is", async () => {
    const files = { "p.jq": ".foo.bar\n", "in.json": '{"foo":{"bar":"x"}}\n' };
    for (const args of [["-fr", "p.jq", "in.json"], ["-cfr", "p.jq", "in.json"], ["-f", "-r", "p.jq", "in.json"], ["-f", "p.jq", "-r", "in.json"], ["p.jq", "-rf", "in.json"]]) {
      assert.deepEqual(await withFiles(["jq", ...args], files), { code: 0, out: "x\n", err: "" }, args.join(" "));
    }
    // After --args the first positional is still the program; the rest are strings.
    assert.deepEqual(await withFiles(["jq", "-nc", "--args", "-f", "q.jq", "a", "b"], { "q.jq": "$ARGS.positional" }), { code: 0, out: '["a","b"]\n', err: "" });
    const none = await withFiles(["jq", "-n", "-f"], {});
    assert.equal(none.code, 2);
    assert.match(none.err, /^karta jq: -f\/--from-file: no program file given/);
  });
  test("without a filter the program is .", async () => {
    assert.deepEqual(await karta(["jq"], "1"), { code: 0, out: "1\n", err: "" });
  });
  test("$__loc__", async () => {
    assert.equal((await karta(["jq", "-nc", "$__loc__"])).out, '{"file":"<top-level>","line":1}\n');
  });
  test("-R: lines as strings; with -s the whole text; with -n read by input/inputs", async () => {
    assert.equal((await withFiles(["jq", "-R", ".", "r.txt"], files)).out, '"line one"\n"line two"\n');
    assert.equal((await withFiles(["jq", "-Rs", ".", "r.txt"], files)).out, '"line one\\nline two"\n');
    assert.equal((await withFiles(["jq", "-Rnc", "[inputs]", "r.txt"], files)).out, '["line one","line two"]\n');
    assert.equal((await withFiles(["jq", "--raw-input", "-c", "[., input_line_number]", "r.txt"], files)).out, '["line one",1]\n["line two",1]\n');
  });
  test("--args and --jsonargs fill $ARGS.positional", async () => {
    assert.equal((await karta(["jq", "-nc", "$ARGS", "--args", "a", "b"])).out, '{"positional":["a","b"],"named":{}}\n');
    assert.equal((await karta(["jq", "-nc", "--jsonargs", "$ARGS.positional", "1", '{"x":2}'])).out, '[1,{"x":2}]\n');
    assert.equal((await karta(["jq", "-nc", "--args", "[$ARGS.positional[]]", "x", "-c"])).out, '["x"]\n');
    assert.equal((await karta(["jq", "-n", "--jsonargs", ".", "{"])).code, 2);
  });
  describe("--seq: RS before each output; the input read as jq 1.8.2 reads a JSON text sequence (expected outputs from jq 1.8.2)", () => {
    const seq = async (input: string, ...args: string[]) => karta(["jq", "--seq", "-c", ...args], input);
    const ignoring = (...messages: string[]) => messages.map((m) => `jq: ignoring parse error: ${m}\n`).join("");
    test("each text starts with an RS; the output is prefixed with one", async () => {
      assert.deepEqual(await seq("\x1e1\n\x1e[2]\n", "."), { code: 0, out: "\x1e1\n\x1e[2]\n", err: "" });
    });
    test("an RS inside a value truncates it: reported, and the next text is read; the exit is still 0", async () => {
      assert.deepEqual(await seq('\x1e{"a":1}\n\x1e{"b":\x1e{"c":3}\n', "."), {
        code: 0,
        out: '\x1e{"a":1}\n\x1e{"c":3}\n',
        err: ignoring("Truncated value at line 2, column 7"),
      });
      assert.deepEqual(await seq("\x1e12\x1e3\n", "."), { code: 0, out: "\x1e3\n", err: ignoring("Potentially truncated top-level numeric value at line 1, column 4") });
      // true before an RS is truncated too; a string's digits cut by an RS read as a number.
      assert.deepEqual(await seq('\x1etrue\x1efalse\n\x1enull \x1e"x"\x1e"12\x1e', "."), {
        code: 0,
        out: '\x1efalse\n\x1enull\n\x1e"x"\n',
        err: ignoring("Truncated value at line 1, column 6", "Potentially truncated top-level numeric value at line 2, column 15"),
      });
    });
    test("a partial value that whitespace ended before the RS is dropped silently", async () => {
      assert.deepEqual(await seq('\x1e{"b":\n\x1e{"c":3}\n', "."), { code: 0, out: '\x1e{"c":3}\n', err: "" });
    });
    test("text before the first RS is abandoned; without any RS, nothing is read", async () => {
      assert.deepEqual(await seq('{"a":1}', "."), { code: 0, out: "", err: ignoring("Unfinished abandoned text at EOF at line 1, column 7") });
      assert.deepEqual(await seq("", "."), { code: 0, out: "", err: ignoring("Unfinished abandoned text at EOF at line 1, column 0") });
      assert.deepEqual(await seq("1 2 \x1e 3", "."), { code: 0, out: "", err: ignoring("Potentially truncated top-level numeric value at EOF at line 1, column 7") });
    });
    test("another error says 'need RS to resync', yet jq reads on right after it", async () => {
      assert.deepEqual(await seq('\x1e{"a":}\n\x1e2\n', "."), { code: 0, out: "\x1e2\n", err: ignoring("Unmatched '}' at line 1, column 7 (need RS to resync)") });
      assert.deepEqual(await seq('\x1e{"a":}\n{"x":1}\n\x1e{"b":1}\n', "."), {
        code: 0,
        out: '\x1e{"x":1}\n\x1e{"b":1}\n',
        err: ignoring("Unmatched '}' at line 1, column 7 (need RS to resync)"),
      });
    });
    test("what is unfinished at the end is reported", async () => {
      assert.deepEqual(await seq('\x1e[1,\x1e"ab', "."), {
        code: 0,
        out: "",
        err: ignoring("Truncated value at line 1, column 5", "Unfinished string at EOF at line 1, column 8"),
      });
      assert.deepEqual(await seq("\x1e[1,", "."), { code: 0, out: "", err: ignoring("Unfinished JSON term at EOF at line 1, column 4") });
    });
    test("-e: a parse error does not change the exit status", async () => {
      assert.deepEqual(await karta(["jq", "--seq", "-e", "."], "\x1efalse\n\x1e{"), {
        code: 1,
        out: "\x1efalse\n",
        err: ignoring("Unfinished JSON term at EOF at line 2, column 2"),
      });
    });
    test("-s: the errors are reported while the values are gathered", async () => {
      assert.deepEqual(await seq("\x1e1\x1e2\n\x1e3\n", "-s", "."), {
        code: 0,
        out: "\x1e[2,3]\n",
        err: ignoring("Potentially truncated top-level numeric value at line 1, column 3"),
      });
    });
    test("input and inputs raise a parse error as an error of the program", async () => {
      assert.deepEqual(await seq("\x1e1\x1e2\n\x1e3\n", "-n", "[inputs]"), {
        code: 5,
        out: "",
        err: "jq: error (at <stdin>:1): Potentially truncated top-level numeric value at line 1, column 3\n",
      });
      assert.deepEqual(await seq("\x1e1\x1e2\n\x1e3\n", "-n", "[try input catch ., input]"), {
        code: 0,
        out: '\x1e["Potentially truncated top-level numeric value at line 1, column 3",2]\n',
        err: "",
      });
    });
    test("--stream: the events before a truncation are given, as jq's streaming parser gives them", async () => {
      assert.deepEqual(await seq('\x1e{"a":[1,{"b":2}]}\n\x1e[1,\x1e[]\x1e', "--stream", "."), {
        code: 0,
        out: '\x1e[["a",0],1]\n\x1e[["a",1,"b"],2]\n\x1e[["a",1,"b"]]\n\x1e[["a",1]]\n\x1e[["a"]]\n\x1e[[0],1]\n\x1e[[],[]]\n',
        err: ignoring("Truncated value at line 2, column 5"),
      });
    });
    test("the files are one sequence: a value may span two; input_line_number counts the current file's lines", async () => {
      const seqFiles = { "a.json": '\x1e{"a":', "b.json": "1}\n\x1e2\n", "c.json": "\x1e3" };
      assert.deepEqual(await withFiles(["jq", "--seq", "-c", "[., input_filename, input_line_number]", "a.json", "b.json", "c.json"], seqFiles), {
        code: 0,
        out: '\x1e[{"a":1},"b.json",1]\n\x1e[2,"b.json",2]\n',
        // The parser's lines run on across the files.
        err: ignoring("Potentially truncated top-level numeric value at EOF at line 3, column 2"),
      });
    });
    test("a long line is read in pieces of 4091 bytes, as jq's: a value ending a piece comes before its line is counted", async () => {
      const line = (items: string) => `\x1e[${items}]\n\x1e2\n`;
      // The ] is the 4091st byte: the newline is in the next piece.
      assert.equal((await seq(line("1,".repeat(2043) + "11"), "[length, input_line_number]")).out, "\x1e[2044,0]\n\x1e[2,2]\n");
      assert.equal((await seq(line("1,".repeat(2043) + "1"), "[length, input_line_number]")).out, "\x1e[2044,1]\n\x1e[2,2]\n");
    });
  });
  test("--stream turns each input into jq's stream events", async () => {
    assert.equal((await withFiles(["jq", "-c", "--stream", ".", "p.json"], files)).out, '[["a"],1]\n[["a"]]\n');
    assert.equal((await karta(["jq", "-c", "--stream", "."], '{"a":[1,{}],"b":[]} 3')).out, '[["a",0],1]\n[["a",1],{}]\n[["a",1]]\n[["b"],[]]\n[["b"]]\n[[],3]\n');
  });
  test("--stream gives the events read before a parse error, with the streaming parser's messages (jq 1.8.2 printed these)", async () => {
    const stream = async (args: string[], stdin: string) => karta(["jq", "-c", ...args], stdin);
    assert.deepEqual(await stream(["--stream", "."], '{"a":[1,2'), { code: 5, out: '[["a",0],1]\n', err: "jq: parse error: Unfinished JSON term at EOF at line 1, column 9\n" });
    assert.deepEqual(await stream(["--stream", "."], "[1,2]]"), { code: 5, out: "[[0],1]\n[[1],2]\n[[1]]\n", err: "jq: parse error: Unmatched ']' at the top-level at line 1, column 6\n" });
    assert.deepEqual(await stream(["--stream", "."], '{"a":[1]]'), { code: 5, out: '[["a",0],1]\n[["a",0]]\n', err: "jq: parse error: Unmatched ']' in the middle of an object at line 1, column 9\n" });
    assert.deepEqual(await stream(["--stream", "-n", "input"], "[1,x] 3"), { code: 0, out: "[[0],1]\n", err: "" });
    assert.deepEqual(await stream(["--stream", "-n", "[inputs]"], "[1,x] 3"), { code: 5, out: "", err: "jq: error (at <stdin>:0): Invalid numeric literal at line 1, column 5\n" });
  });
  test("--stream-errors: a parse error is the input [message, path], and reading goes on with the next line (jq 1.8.2 printed these)", async () => {
    const stream = async (args: string[], stdin: string) => karta(["jq", "-c", ...args], stdin);
    assert.deepEqual(await stream(["--stream-errors", "."], "[1,x]\n[2]"), { code: 0, out: '[[0],1]\n["Invalid numeric literal at line 1, column 5",[1]]\n[[0],2]\n[[0]]\n', err: "" });
    assert.deepEqual(await stream(["--stream-errors", "."], '{"a":[1,2'), { code: 0, out: '[["a",0],1]\n["Unfinished JSON term at EOF at line 1, column 9",["a",1]]\n', err: "" });
    assert.deepEqual(await stream(["--stream-errors", "."], "[1,2,x] [3]"), { code: 0, out: '[[0],1]\n[[1],2]\n["Invalid numeric literal at line 1, column 7",[2]]\n', err: "" });
    assert.deepEqual(await stream(["--stream-errors", "-s", "."], "[1,x] 3"), { code: 0, out: '[[[0],1],["Invalid numeric literal at line 1, column 5",[1]]]\n', err: "" });
    // jq reads -R input without its parser: --stream changes nothing.
    assert.deepEqual(await stream(["-R", "--stream", "."], "a\nb\n"), { code: 0, out: '"a"\n"b"\n', err: "" });
  });
  test("-C colours as jq 1.8.2 (null 0;90, strings 0;32, containers 1;39, keys 1;34); -M does not", async () => {
    const c = (await karta(["jq", "-cC", "."], '{"a":[1,"x",null]}')).out;
    const e = "\x1b[";
    assert.equal(
      c,
      `${e}1;39m{${e}0m${e}1;34m"a"${e}0m${e}1;39m:${e}0m${e}1;39m[${e}0m${e}0;39m1${e}0m${e}1;39m,${e}0m${e}0;32m"x"${e}0m${e}1;39m,${e}0m${e}0;90mnull${e}0m${e}1;39m]${e}0m${e}1;39m}${e}0m\n`,
    );
    assert.equal((await karta(["jq", "-cCM", "."], "[1]")).out, "[1]\n");
  });

  test("JQ_COLORS read as jq_set_colors reads it, at every start; debug messages coloured under -C", async () => {
    const e = "\x1b[";
    const withColors = async (spec: string, args: string[]) => {
      process.env["JQ_COLORS"] = spec;
      try {
        return await karta(args);
      } finally {
        delete process.env["JQ_COLORS"];
      }
    };
    // Past eight fields, the rest is ignored (no warning).
    assert.deepEqual(await withColors("4:4:4:4:4:4:4:4:4:4", ["jq", "-nC", "null"]), { code: 0, out: `${e}4mnull${e}0m\n`, err: "" });
    assert.deepEqual(await withColors("1:2:3:4:5:6:7:8x", ["jq", "-nC", "null"]), { code: 0, out: `${e}1mnull${e}0m\n`, err: "" });
    // A malformed value warns with or without -C, and keeps the defaults.
    assert.deepEqual(await withColors("x", ["jq", "-n", "1"]), { code: 0, out: "1\n", err: "Failed to set $JQ_COLORS\n" });
    assert.deepEqual(await withColors("1:x", ["jq", "-nC", "null"]), { code: 0, out: `${e}0;90mnull${e}0m\n`, err: "Failed to set $JQ_COLORS\n" });
    assert.equal((await karta(["jq", "-nC", '"a"|debug|empty'])).err, `${e}1;39m[${e}0m${e}0;32m"DEBUG:"${e}0m${e}1;39m,${e}0m${e}0;32m"a"${e}0m${e}1;39m]${e}0m\n`);
    // NaN: a null, in null's colour, inside the number's (jq 1.8.2 printed this).
    assert.equal((await withColors("1;31:0;32:0;33:0;34", ["jq", "-ncC", "[nan]"])).out, `${e}1;39m[${e}0m${e}0;34m${e}1;31mnull${e}0m${e}0m${e}1;39m]${e}0m\n`);
  });

  test("object keys: a format not followed by a string fails at the next token (and a ':' after it needs parentheses); `$x: value` is located at the whole entry (jq 1.8.2's messages)", async () => {
    assert.equal(
      (await karta(["jq", "-n", "{@base64: 1}"])).err,
      "jq: error: syntax error, unexpected ':', expecting QQSTRING_START at <top-level>, line 1, column 9:\n    {@base64: 1}\n            ^\njq: error: May need parentheses around object key expression at <top-level>, line 1, column 2:\n    {@base64: 1}\n     ^^^^^^^^\njq: 2 compile errors\n",
    );
    assert.equal((await karta(["jq", "-n", "{@base64 1}"])).err, "jq: error: syntax error, unexpected LITERAL, expecting QQSTRING_START at <top-level>, line 1, column 10:\n    {@base64 1}\n             ^\njq: 1 compile error\n");
    assert.equal((await karta(["jq", "-n", "{@base64}"])).err, "jq: error: syntax error, unexpected '}', expecting QQSTRING_START at <top-level>, line 1, column 9:\n    {@base64}\n            ^\njq: 1 compile error\n");
    assert.equal((await karta(["jq", "-n", "{$x: 1 + 2}"])).err, "jq: error: $x is not defined at <top-level>, line 1, column 2:\n    {$x: 1 + 2}\n     ^^^^^^^^^\njq: 1 compile error\n");
    assert.equal((await karta(["jq", "-n", '{"a": 1, $x: 2}'])).err, 'jq: error: $x is not defined at <top-level>, line 1, column 10:\n    {"a": 1, $x: 2}\n             ^^^^^\njq: 1 compile error\n');
    assert.equal((await karta(["jq", "-n", "{$x}"])).err, "jq: error: $x is not defined at <top-level>, line 1, column 2:\n    {$x}\n     ^^\njq: 1 compile error\n");
  });

  test("a call or variable in parentheses is located at itself, as jq reports what is not defined; %s-formatted strings cut at a NUL", async () => {
    const r = await karta(["jq", "-n", "1 + (foo)"]);
    assert.equal(r.err, "jq: error: foo/0 is not defined at <top-level>, line 1, column 6:\n    1 + (foo)\n         ^^^\njq: 1 compile error\n");
    assert.match((await karta(["jq", "-n", "(  $x)"])).err, /\$x is not defined at <top-level>, line 1, column 4:\n {4}\( {2}\$x\)\n {7}\^\^\n/);
    assert.equal((await karta(["jq", "-n", '"a\\u0000b" | fromdate'])).err, 'jq: error (at <unknown>): date "a" does not match format "%Y-%m-%dT%H:%M:%SZ"\n');
    assert.equal((await karta(["jq", "-n", '"a\\u0000b" | fromjson'])).err, "jq: error (at <unknown>): Invalid numeric literal at EOF at line 1, column 3 (while parsing 'a')\n");
  });
});
