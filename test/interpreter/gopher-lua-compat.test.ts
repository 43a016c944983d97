/**
 * gopher-lua (Lua 5.1, every number a float64), as Karmada runs customization scripts, where Lua 5.4
 * differs: number printing and arithmetic, concatenation, string-to-number conversion, syntax,
 * run-time error wording and positions, stack tracebacks, and the package library. Expected values
 * were taken from running the scripts through Karmada's luavm package on gopher-lua v1.1.1.
 */
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { LuaVM, type LuaCallOutcome } from "../../src/interpreter/lua/vm.js";
import { kubeLibrary } from "../../src/interpreter/lua/kube.js";
import { goNumberString } from "../../src/gofmt/index.js";
import { rewriteForGopherLua } from "../../src/interpreter/lua/lua51.js";
import { createDeclarativeInterpreter } from "../../src/interpreter/declarative/interpreter.js";
import { customizationOf } from "../../src/interpreter/declarative/customization.js";
import type { JsonValue } from "../../src/interpreter/types.js";

let vm: LuaVM;
before(async () => {
  // A generous deadline: these tests are about what gopher-lua answers, not how fast (a loaded machine is slow).
  vm = await LuaVM.create({ kube: kubeLibrary(), limits: { timeoutMs: 20_000 } });
});
after(() => vm.close());

function call(source: string, args: (JsonValue | undefined)[] = [], n = 1): LuaCallOutcome {
  const compiled = vm.compile(source);
  if (!compiled.ok) return { ok: false, error: compiled.error };
  return vm.call(compiled.script, "F", args, n);
}

function value(source: string, args: (JsonValue | undefined)[] = []): unknown {
  const out = call(source, args);
  assert.ok(out.ok, out.ok ? "" : out.error);
  return out.results[0]!.value;
}

function failure(source: string, args: (JsonValue | undefined)[] = []): string {
  const out = call(source, args);
  assert.equal(out.ok, false, `expected a failure, got ${JSON.stringify(out)}`);
  return out.ok ? "" : out.error;
}

/** The message without its stack traceback. */
function message(source: string, args: (JsonValue | undefined)[] = []): string {
  return failure(source, args).split("\nstack traceback:\n")[0]!;
}

describe("numbers are floats and print as Go prints them", () => {
  test("concatenation prints integral results without a fraction, others in Go's shortest form", () => {
    assert.equal(value("function F(o) return 'x' .. (10 / 2) .. ' ' .. o.n / 1 .. ' ' .. 1.5 .. ' ' .. 2^63 .. ' ' .. 1/3 end", [{ n: 4 }]), "x5 4 1.5 9.223372036854776e+18 0.3333333333333333");
    assert.equal(value("function F() local s = '' for i = 1, 2, 0.5 do s = s .. i .. ',' end return s end"), "1,1.5,2,");
  });

  test("from 1e6 up a fraction prints in exponent form (Go's %v), in tostring, concat and format", () => {
    assert.equal(value("function F() return tostring(1234567.5) .. ' ' .. tostring(123456.5) .. ' ' .. -1234567.25 .. ' ' .. string.format('%s', 12345678.9) end"), "1.2345675e+06 123456.5 -1.23456725e+06 1.23456789e+07");
    assert.equal(goNumberString(1234567.5), "1.2345675e+06");
    assert.equal(goNumberString(123456.5), "123456.5");
    assert.equal(goNumberString(5), "5");
    assert.equal(goNumberString(1e-5), "1e-05");
    assert.equal(goNumberString(2 ** 63), "9.223372036854776e+18");
  });

  test("table.concat and the string functions take numbers as they print", () => {
    assert.equal(value("function F() return table.concat({1, 2/3, 3/1, 'a'}, ',') end"), "1,0.6666666666666666,3,a");
    assert.equal(value("function F() return string.len(2/1) .. string.upper(1.5) .. string.sub(10/2, 1) end"), "11.55");
    assert.equal(message("function F() return table.concat({1, 2}, 0) end"), "<string>:1: bad argument #2 to concat (string expected, got number)");
  });

  test("no 64-bit integer wrap-around, and x % 0 is NaN, for literals and object fields alike", () => {
    assert.equal(value("function F() return tostring(9223372036854775807 + 1) end"), "9.223372036854776e+18");
    assert.equal(value("function F(o) return tostring(o.n * o.n) end", [{ n: 5e9 }]), "2.5e+19");
    assert.equal(value("function F(o) return tostring(o.x % 0) .. tostring(5 % 0) .. tostring(-5 % 3) end", [{ x: 5 }]), "NaNNaN1");
  });

  test("a number passed to the kube library as a string reads as it prints", () => {
    const template = { spec: { containers: [{ name: "c", envFrom: [{ configMapRef: { name: "cm" } }] }] } };
    assert.deepEqual(value("local kube = require('kube') function F(t) return kube.getPodDependencies(t, 10 / 2) end", [template]), [{ apiVersion: "v1", kind: "ConfigMap", namespace: "5", name: "cm" }]);
  });
});

describe("strings read as numbers with Go's syntax", () => {
  test("tonumber", () => {
    assert.equal(value("function F() return tostring(tonumber('1e2')) .. ' ' .. tostring(tonumber('1.5e2')) .. ' ' .. tostring(tonumber('0x10')) .. ' ' .. tostring(tonumber('-0x10')) .. ' ' .. tostring(tonumber('1.5', 16)) .. ' ' .. tostring(tonumber('99999999999999999999')) .. ' ' .. tostring(tonumber(' 5 ')) end"), "nil 150 16 nil 1.5 nil 5");
    assert.equal(message("function F() local n = tonumber() return n end"), "<string>:1: bad argument #1 to tonumber (value expected)");
  });

  test("arithmetic on strings", () => {
    assert.equal(value("function F() return tostring('010' + 0) .. ' ' .. tostring('0x10' * 1) .. ' ' .. tostring('1_000' - 0) .. ' ' .. tostring(' 5 ' + 0) .. ' ' .. tostring('0b11' + 0) .. ' ' .. tostring(-'5') end"), "8 16 1000 5 3 -5");
    assert.equal(message("function F() return 'abc' + 1 end"), "<string>:1: cannot perform add operation between string and number");
    assert.equal(value("function F() return string.format('%d|%d', 'x', '7') end"), "0|7");
  });
});

describe("string.format formats as Go's fmt does in gopher-lua", () => {
  test("%v, %t, %q, %x of a string, %i, and a verb without an argument", () => {
    assert.equal(value("function F() return string.format('%v|%v|%v|%v|%t', 1, 1.5, 'x', true, false) end"), "1|1.5|x|true|false");
    assert.equal(value("function F() return string.format('%q', 'a\\nb\\t\"c\"') end"), '"a\\nb\\t\\"c\\""');
    assert.equal(value("function F() return string.format('%x|%X|%i', 'hi', 'hi', 5) end"), "6869|6869|5");
    assert.equal(value("function F() return string.format('%d %d|', 1) .. string.format('%s') .. string.format('100%%') end"), "1 %!d(MISSING)|%!s(MISSING)100%");
    assert.equal(value("function F() return string.format('%5s|%-5d|%05d|%+d|%.3s|%.1f%%', 'ab', 3, 42, 7, 'abcdef', 12.345) end"), "   ab|3    |00042|+7|abc|12.3%");
  });
});

describe("library functions as gopher-lua has them", () => {
  test("find with an empty pattern, match without a match (no value), tostring without one", () => {
    assert.equal(value("function F() return tostring(string.find('abc', '', 10)) .. select('#', string.match('abc', 'x')) .. select('#', ('abc'):match('b')) end"), "101");
    assert.equal(message("function F() return tostring(string.match('abc', 'x')) end"), "<string>:1: bad argument #1 to tostring (value expected)");
  });

  test("math.huge is the largest float, log takes no base, max and min need an argument, maxn counts integer keys", () => {
    assert.equal(value("function F() return tostring(math.huge) .. ' ' .. tostring(math.log(8, 2)) .. ' ' .. table.maxn({[3] = 1, [10.5] = 2}) end"), "1.7976931348623157e+308 2.0794415416798357 3");
    assert.equal(message("function F() return math.max() end"), "<string>:1: wrong number of arguments");
  });
});

describe("syntax", () => {
  test("Lua 5.2+ syntax fails as gopher-lua reports it", () => {
    assert.equal(failure("function F(o) return tostring(7 // 2) end"), "<string> line:1(column:34) near '/':   syntax error\n");
    assert.equal(failure("function F(o) return tostring(7 & 3) end"), "<string> line:1(column:33) near '&':   Invalid token\n");
    assert.equal(failure("function F(o) return ~1 end"), "<string> line:1(column:22) near '~':   Invalid '~' token\n");
    assert.equal(failure("function F(o) return 1 << 2 end"), "<string> line:1(column:25) near '<':   syntax error\n");
    assert.equal(failure("function F(o) local a <const> = 1 return a end"), "<string> line:1(column:23) near '<':   syntax error\n");
    assert.equal(failure("function F(o)\n  local x = 1\n  return x // 2\nend"), "<string> line:3(column:13) near '/':   syntax error\n");
    assert.equal(failure("function F(o) return tostring(0x1p4) end"), "<string> line:1(column:35) near 'p4':   syntax error\n");
    assert.equal(value("function F(o) return 1 ~= 2 end"), true);
  });

  test("unknown escapes stand for the character; _ENV is an ordinary global", () => {
    assert.equal(value('function F() return "\\x41" .. "\\u{41}" end'), "x41u{41}");
    assert.equal(value("function F() return type(_ENV) end"), "nil");
  });

  test("the rewrite keeps lines and leaves what it cannot parse to the compiler", () => {
    const out = rewriteForGopherLua("local a = 1\nlocal b = a .. 'x'\nreturn f(a)");
    assert.ok(out.ok);
    if (out.ok) assert.equal(out.source.split("\n").length, 3);
    assert.deepEqual(rewriteForGopherLua("local t = {"), { ok: true, source: "local t = {", syntaxError: "<string> at EOF:   syntax error\n", syntaxLine: 1 });
  });

  test("syntax errors are reported in gopher-lua's words, at its token", () => {
    assert.equal(failure("function F() return 1"), "<string> at EOF:   syntax error\n");
    assert.equal(failure("x = = 1"), "<string> line:1(column:5) near '=':   syntax error\n");
    assert.equal(failure("function F()\n  if x then\n    return 1\n  end\n  return 2 3\nend"), "<string> line:5(column:12) near '3':   syntax error\n");
    assert.equal(failure("function F() x end"), "<string> line:1(column:18) near 'end':   parse error\n");
    assert.equal(failure("function F() local s = 'abc end"), "<string> at EOF:   unterminated string\n");
    assert.equal(failure("function F() for i = 1 do end end"), "<string> line:1(column:25) near 'do':   syntax error\n");
  });

  test("a syntax error names its line for callers that place it in a file", () => {
    assert.deepEqual(vm.compile("function F()\n  return 2 3\nend"), { ok: false, error: "<string> line:2(column:12) near '3':   syntax error\n", line: 2 });
    assert.deepEqual(vm.compile("x = 1\nlocal y = 7 // 2"), { ok: false, error: "<string> line:2(column:14) near '/':   syntax error\n", line: 2 });
  });

  test("several field separators in a row are accepted, as gopher-lua's grammar does", () => {
    assert.deepEqual(value("function F() local t = {a = 1,, b = 2;,} return t end"), { a: 1, b: 2 });
  });
});

describe("run-time errors", () => {
  test("gopher-lua's wording, at the script's line", () => {
    const cases: [string, string][] = [
      ["function F(o) return o.spec.replicas end", "<string>:1: attempt to index a non-table object(nil) with key 'replicas'"],
      ["function F(o)\n  o.x.y = 1\n  return 1\nend", "<string>:2: attempt to index a non-table object(nil) with key 'y'"],
      ["function F(o) local b = 5 return b.x end", "<string>:1: attempt to index a non-table object(number) with key 'x'"],
      ["function F(o) return o.x + 1 end", "<string>:1: cannot perform add operation between nil and number"],
      ["function F(o) return 2 ^ o.x end", "<string>:1: cannot perform pow operation between number and nil"],
      ["function F(o) return -o.x end", "<string>:1: __unm undefined"],
      ["function F(o) return #o.a end", "<string>:1: __len undefined"],
      ["function F(o) return undefinedfn() end", "<string>:1: attempt to call a non-function object"],
      ["function F(o) return o:m(1) end", "<string>:1: attempt to call a non-function object"],
      ["function F(o) return 'a' .. nil .. 'c' end", "<string>:1: cannot perform concat operation between nil and string"],
      ["function F(o) return {} .. 'a' .. 'b' end", "<string>:1: cannot perform concat operation between table and string"],
      ["function F(o) return {} < {} end", "<string>:1: attempt to compare table with table"],
      ["function F(o) o[nil] = 1 return 1 end", "<string>:1: table index is nil"],
      ["function F(o)\n  local t = {3, 1, 'a'}\n  table.sort(t)\n  return t\nend", "<string>:3: attempt to compare string with number"],
      ["function F(o)\n  return string.lower(nil)\nend", "<string>:2: bad argument #1 to lower (string expected, got nil)"],
      ["function F(o) for _, v in ipairs(o.items) do end return 1 end", "<string>:1: bad argument #1 to ipairs (table expected, got nil)"],
      ["function F(o) table.insert(o.list, 1) return 1 end", "<string>:1: bad argument #1 to insert (table expected, got nil)"],
      ["function F(o) error() end", "<string>:1: bad argument #1 to error (value expected)"],
      ["function F(o) error(nil) end", "nil"],
      ["function F(o) error(1234567.5) end", "1.2345675e+06"],
      ["function F(o)\n\n  return setmetatable({}, {})\nend", "<string>:1: call function setmetatable is not supported in karmada customized resourceinterpreter."],
    ];
    for (const [source, expected] of cases) assert.equal(message(source, [{}]), expected, source);
  });

  test("errors carry gopher-lua's stack traceback", () => {
    assert.equal(failure("function F(o) return o.spec.replicas end", [{}]), "<string>:1: attempt to index a non-table object(nil) with key 'replicas'\nstack traceback:\n\t<string>:1: in main chunk\n\t[G]: ?");
    assert.equal(
      failure("function h(x)\n  error('deep')\nend\nlocal function g(x)\n  h(x)\nend\nfunction F(o)\n  g(o)\n  return 1\nend", [{}]),
      "<string>:2: deep\nstack traceback:\n\t[G]: in function 'error'\n\t<string>:2: in function 'h'\n\t<string>:5: in function 'g'\n\t<string>:8: in main chunk\n\t[G]: ?",
    );
    assert.equal(
      failure("function F(o)\n  local t = {3, 1, 2}\n  table.sort(t, function(a, b) return a.x < b end)\n  return t\nend", [{}]),
      "<string>:3: attempt to index a non-table object(number) with key 'x'\nstack traceback:\n\t<string>:3: in function <<string>:3>\n\t[G]: in function 'sort'\n\t<string>:3: in main chunk\n\t[G]: ?",
    );
    assert.equal(
      failure("function F()\n\n  local t = setmetatable({}, {})\n  return t\nend"),
      "<string>:1: call function setmetatable is not supported in karmada customized resourceinterpreter.\nstack traceback:\n\t[G]: in function 'error'\n\t<string>:1: in function 'setmetatable'\n\t<string>:3: in main chunk\n\t[G]: ?",
    );
    assert.equal(failure("x = nil .. 1\nfunction F(o)\n  return 1\nend"), "<string>:1: cannot perform concat operation between nil and number\nstack traceback:\n\t<string>:1: in main chunk\n\t[G]: ?");
  });

  test("a stack overflow's traceback keeps the first and last 7 lines", () => {
    const error = failure("local function deeper(n) return deeper(n + 1) + 1 end\nfunction F() local r = deeper(1) return r end");
    const lines = error.split("\n");
    assert.equal(lines[0], "<string>:1: stack overflow");
    assert.equal(lines.length, 2 + 7 + 1 + 7);
    assert.equal(lines[9], "\t...");
    assert.deepEqual(lines.slice(-2), ["\t<string>:2: in main chunk", "\t[G]: ?"]);
  });

  test("integer arguments are truncated as gopher-lua's CheckInt does; a missing one is nil", () => {
    assert.equal(value("function F() local t = {'a', 'b', 'c'} table.insert(t, 1.5, 'x') return string.sub('hello', 1.5, 3.7) .. ('hello'):byte(2.9) .. tostring(string.find('hello', 'l', 3.5)) .. table.concat(t, ',') .. select(2.5, 'p', 'q') .. tostring(unpack({1, 2, 3}, 2.5)) end"), "hel1013x,a,b,cq2");
    assert.equal(failure("function F() return string.sub('hello') end"), "<string>:1: bad argument #2 to sub (number expected, got nil)\nstack traceback:\n\t[G]: in function 'sub'\n\t<string>:1: in main chunk\n\t[G]: ?");
    assert.equal(failure("function F(o) table.insert(o.list, 1) return 1 end", [{}]), "<string>:1: bad argument #1 to insert (table expected, got nil)\nstack traceback:\n\t[G]: in function 'insert'\n\t<string>:1: in main chunk\n\t[G]: ?");
  });

  test("a script's pcall still sees the bare message", () => {
    assert.equal(value("function F(o) local ok, e = pcall(function() return o.a.b end) return e end", [{}]), "<string>:1: attempt to index a non-table object(nil) with key 'b'");
  });
});

describe("package and require, as Karmada's sandbox has them", () => {
  test("the loaded libraries, kube from preload, and gopher-lua's not-found message", () => {
    assert.equal(value("function F() return require('os') == os and require('string') == string and require('kube') == require('kube') and package.loaded.kube ~= nil end"), true);
    assert.equal(message("function F() local m = require('foo') return m end"), "<string>:1: module foo not found:\n\tno field package.preload['foo'], ");
    assert.equal(message("function F() return package.loadlib('x', 'y') end"), "<string>:1: loadlib is not supported");
  });

  test("one script's changes to kube do not reach another", () => {
    assert.equal(value("function F() local k = require('kube') k.resourceAdd = nil return 1 end"), 1);
    assert.equal(value("function F() return require('kube').resourceAdd('1', '2') end"), "3");
  });
});

describe("through the declarative interpreter", () => {
  test("a failing script's outcome carries gopher-lua's message and traceback", async () => {
    const target = { apiVersion: "apps/v1", kind: "Deployment" };
    const interp = await createDeclarativeInterpreter([customizationOf("c", target, { replicaResource: "function GetReplicas(obj)\n  return obj.spec.replicas * 2\nend" })]);
    try {
      const out = interp.interpretReplica({ ...target, metadata: { name: "x" }, spec: {} });
      assert.equal(out.ok, false);
      if (!out.ok) assert.equal(out.error.message, "<string>:2: cannot perform mul operation between nil and number\nstack traceback:\n\t<string>:2: in main chunk\n\t[G]: ?");
      const half = interp.interpretReplica({ ...target, metadata: { name: "x" }, spec: { replicas: 5 } });
      assert.deepEqual(half, { ok: true, value: { replicas: 10 } });
    } finally {
      interp.close();
    }
  });
});
