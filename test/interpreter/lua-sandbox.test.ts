/**
 * The Lua sandbox: runaway and hostile scripts fail cleanly with a clear error, and the same VM keeps
 * serving later calls.
 */
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { BUDGET_MESSAGE, DEADLINE_MESSAGE, LuaVM, MEMORY_MESSAGE, type LuaCallOutcome } from "../../src/interpreter/lua/vm.js";
import { kubeLibrary } from "../../src/interpreter/lua/kube.js";

const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "web", namespace: "prod", generation: 4 },
  spec: { replicas: 3 },
  status: { observedGeneration: 4, replicas: 3, updatedReplicas: 3, availableReplicas: 3 },
};

const healthScript = `
function InterpretHealth(observedObj)
  if observedObj.status == nil then return false end
  if observedObj.status.observedGeneration ~= observedObj.metadata.generation then return false end
  return observedObj.status.availableReplicas >= observedObj.spec.replicas
end`;

function run(vm: LuaVM, body: string, fn = "F", args: unknown[] = []): LuaCallOutcome {
  const compiled = vm.compile(body);
  if (!compiled.ok) return { ok: false, error: compiled.error };
  return vm.call(compiled.script, fn, args as never[], 1);
}

function assertStillServes(vm: LuaVM): void {
  const out = run(vm, healthScript, "InterpretHealth", [deployment]);
  assert.deepEqual(out, { ok: true, results: [{ type: "boolean", value: true }] });
}

/** Checks a failure's message; its stack traceback (tested on its own below) is left out unless named. */
function assertFails(out: LuaCallOutcome, pattern: RegExp | string): void {
  assert.equal(out.ok, false, `expected a failure, got ${JSON.stringify(out)}`);
  if (!out.ok) {
    const message = typeof pattern === "string" && pattern.includes("stack traceback") ? out.error : out.error.split("\nstack traceback:\n")[0]!;
    if (typeof pattern === "string") assert.equal(message, pattern);
    else assert.match(message, pattern);
  }
}

describe("Lua sandbox limits", () => {
  let vm: LuaVM;
  let budgetVM: LuaVM;
  let memoryVM: LuaVM;
  before(async () => {
    vm = await LuaVM.create({ limits: { timeoutMs: 150 }, kube: kubeLibrary() });
    budgetVM = await LuaVM.create({ limits: { timeoutMs: 60_000, instructionBudget: 2_000_000 } });
    // A generous deadline so that the memory cap, not the clock, is what stops these scripts.
    memoryVM = await LuaVM.create({ limits: { timeoutMs: 20_000, memoryBytes: 4 * 1024 * 1024 } });
  });
  after(() => {
    vm.close();
    budgetVM.close();
    memoryVM.close();
  });

  test("an endless loop stops at the deadline", () => {
    const started = Date.now();
    assertFails(run(vm, "function F() while true do end end"), DEADLINE_MESSAGE);
    assert.ok(Date.now() - started < 2000);
    assertStillServes(vm);
  });

  test("pcall inside the loop cannot swallow the deadline", () => {
    assertFails(run(vm, "function F() while true do pcall(function() end) end end"), DEADLINE_MESSAGE);
    assertFails(run(vm, "function F() while true do pcall(error, 'x') end end"), DEADLINE_MESSAGE);
    assertStillServes(vm);
  });

  test("an error handler cannot swallow the deadline either", () => {
    assertFails(run(vm, "function F() while true do xpcall(function() while true do end end, function(e) return e end) end end"), DEADLINE_MESSAGE);
    assertStillServes(vm);
  });

  test("the instruction budget stops a loop deterministically", () => {
    assertFails(run(budgetVM, "function F() local i = 0 while true do i = i + 1 end end"), BUDGET_MESSAGE);
    assertFails(run(budgetVM, "function F() while true do pcall(function() end) end end"), BUDGET_MESSAGE);
    assertStillServes(budgetVM);
  });

  test("a top-level endless loop (outside any function) stops too", () => {
    assertFails(run(vm, "while true do end function F() return 1 end"), DEADLINE_MESSAGE);
    assertStillServes(vm);
  });

  test("a table that grows without end hits the memory cap", () => {
    const vm = memoryVM;
    const before = vm.memoryInUse;
    assertFails(run(vm, "function F() local t = {} local i = 0 while true do i = i + 1 t[i] = 'replica-' .. i end end"), MEMORY_MESSAGE);
    assertFails(run(vm, "function F() local s = 'x' while true do s = s .. s end end"), MEMORY_MESSAGE);
    // pcall catching the memory error does not help either.
    assertFails(run(vm, "function F() while true do pcall(function() local t = {} for i = 1, 1e9 do t[i] = i end end) end end"), MEMORY_MESSAGE);
    assertStillServes(vm);
    assert.ok(vm.memoryInUse < before + 4 * 1024 * 1024, "garbage of the failed calls is collected");
  });
});

describe("Lua sandbox libraries", () => {
  let vm: LuaVM;
  before(async () => {
    vm = await LuaVM.create({ kube: kubeLibrary() });
  });
  after(() => vm.close());

  test("os has only time and date", () => {
    // gopher-lua's wording: the missing field is not named.
    assertFails(run(vm, "function F() return os.execute('echo hi') end"), "<string>:1: attempt to call a non-function object");
    assertFails(run(vm, "function F() return os.getenv('HOME') end"), "<string>:1: attempt to call a non-function object");
    assertFails(run(vm, "function F() local r = os.exit(1) return r end"), "<string>:1: attempt to call a non-function object");
    assert.deepEqual(run(vm, "function F() return os.execute == nil and os.getenv == nil and os.exit == nil end"), { ok: true, results: [{ type: "boolean", value: true }] });
    const out = run(vm, "function F() return type(os.time()) == 'number' and type(os.date('%Y')) == 'string' end");
    assert.deepEqual(out, { ok: true, results: [{ type: "boolean", value: true }] });
    assertStillServes(vm);
  });

  test("io, debug and coroutine are not there; package has preload only, as in Karmada's sandbox", () => {
    assertFails(run(vm, "function F() return io.open('/etc/passwd') end"), "<string>:1: attempt to index a non-table object(nil) with key 'open'");
    assertFails(run(vm, "function F() return debug.getinfo(1) end"), "<string>:1: attempt to index a non-table object(nil) with key 'getinfo'");
    assertFails(run(vm, "function F() return package.loadlib('x', 'y') end"), "<string>:1: loadlib is not supported");
    assertFails(run(vm, "function F() return coroutine.create(print) end"), "<string>:1: attempt to index a non-table object(nil) with key 'create'");
    assert.deepEqual(run(vm, "function F() return type(package.preload.kube) .. type(package.loaded) .. tostring(package.path) end"), { ok: true, results: [{ type: "string", value: "functiontablenil" }] });
    assertStillServes(vm);
  });

  test("require resolves kube and the loaded libraries", () => {
    assertFails(run(vm, "function F() return require('io') end"), "<string>:1: module io not found:\n\tno field package.preload['io'], ");
    assertFails(run(vm, "function F() return require('package') end"), "<string>:1: module package not found:\n\tno field package.preload['package'], ");
    assert.deepEqual(run(vm, "function F() return require('os') == os and require('string') == string and require('kube') == require('kube') end"), { ok: true, results: [{ type: "boolean", value: true }] });
    const out = run(vm, "local kube = require('kube') function F() return kube.resourceAdd('500m', '1500m') end");
    assert.deepEqual(out, { ok: true, results: [{ type: "string", value: "2" }] });
  });

  for (const name of ["load", "loadstring", "dofile", "loadfile", "setmetatable", "getmetatable", "rawget", "rawset", "rawequal", "collectgarbage", "getfenv", "setfenv", "module", "newproxy"]) {
    test(`${name} is not supported`, () => {
      assertFails(run(vm, `function F() local r = ${name}({}, {}) return r end`), `<string>:1: call function ${name} is not supported in karmada customized resourceinterpreter.`);
      assertStillServes(vm);
    });
  }

  test("string.rep, string.dump and string.gsub are not supported, as in Karmada", () => {
    for (const fn of ["rep", "dump", "gsub"]) {
      assertFails(run(vm, `function F() local s = string.${fn}('x', 'y', 'z') return s end`), new RegExp(`The Lua function string\\.${fn} is not supported by Karmada`));
      assertFails(run(vm, `function F() local s = ('x'):${fn}('y', 'z') return s end`), new RegExp(`string\\.${fn} is not supported`));
    }
  });

  test("string arguments are limited to 1,000,000 characters", () => {
    const big = "x".repeat(1_000_001);
    assertFails(run(vm, "function F(s) local u = string.upper(s) return u end", "F", [big]), /string length 1000001 exceeds the maximum allowed input string length 1000000/);
    const ok = run(vm, "function F(s) return #string.upper(s) end", "F", ["x".repeat(1000)]);
    assert.deepEqual(ok, { ok: true, results: [{ type: "number", value: 1000 }] });
  });

  test("globals are isolated between scripts and between calls", () => {
    const a = vm.compile("counter = (counter or 0) + 1 function F() leaked = 'secret' return counter end");
    const b = vm.compile("function G() return leaked, counter end");
    assert.ok(a.ok && b.ok);
    if (!a.ok || !b.ok) return;
    assert.deepEqual(vm.call(a.script, "F", [], 1), { ok: true, results: [{ type: "number", value: 1 }] });
    assert.deepEqual(vm.call(a.script, "F", [], 1), { ok: true, results: [{ type: "number", value: 1 }] });
    assert.deepEqual(vm.call(b.script, "G", [], 2), { ok: true, results: [{ type: "nil" }, { type: "nil" }] });
  });

  test("a script replacing a library function or a global does not affect another", () => {
    const a = run(vm, "function F() string.upper = nil table.insert = nil error = nil return 1 end");
    assert.equal(a.ok, true);
    const b = run(vm, "function F() local t = {} table.insert(t, string.upper('a')) return t end");
    assert.deepEqual(b, { ok: true, results: [{ type: "table", value: ["A"] }] });
  });

  test("assigning nil to a base global removes it for that call, as in gopher-lua", () => {
    const out = run(vm, "function F() local e = error error = nil return type(error) end");
    assert.deepEqual(out, { ok: true, results: [{ type: "string", value: "nil" }] });
    assertStillServes(vm);
  });

  test("a host-side failure (a cyclic argument) resets the state; compiled scripts keep working", () => {
    const compiled = vm.compile(healthScript);
    assert.ok(compiled.ok);
    if (!compiled.ok) return;
    const cyclic: Record<string, unknown> = { apiVersion: "apps/v1", kind: "Deployment" };
    cyclic.self = cyclic;
    const out = vm.call(compiled.script, "InterpretHealth", [cyclic as never], 1);
    assert.equal(out.ok, false);
    assert.deepEqual(vm.call(compiled.script, "InterpretHealth", [deployment], 1), { ok: true, results: [{ type: "boolean", value: true }] });
    assertStillServes(vm);
  });

  test("a compiled script held while hundreds of others are compiled still runs itself", () => {
    const compiled = vm.compile(healthScript);
    assert.ok(compiled.ok);
    if (!compiled.ok) return;
    // More scripts than the VM keeps compiled: the first one's references are released and reused.
    for (let i = 0; i < 600; i++) assert.ok(vm.compile(`function InterpretHealth(o) return ${i} end`).ok);
    assert.deepEqual(vm.call(compiled.script, "InterpretHealth", [deployment], 1), { ok: true, results: [{ type: "boolean", value: true }] });
  });

  test("a bad argument to a library function names the script's line and the function called", () => {
    const conditions = "local function ready(obj)\n  local c = obj.status.conditions\n";
    assertFails(run(vm, `${conditions}  local kind = string.lower(obj.missingField)\n  return kind\nend\nfunction F(obj)\n  local r = ready(obj)\n  return r\nend`, "F", [{ status: { conditions: [] } }]), "<string>:3: bad argument #1 to lower (string expected, got nil)");
    assertFails(run(vm, "function F(obj)\n  local s = string.format('%d replicas', obj.spec)\n  return s\nend", "F", [deployment]), "<string>:2: bad argument #2 to format (number expected, got table)");
    assertFails(run(vm, "function F(obj)\n  table.insert(obj.status.conditions, 1)\n  return obj\nend", "F", [deployment]), "<string>:2: bad argument #1 to insert (table expected, got nil)");
    assertFails(run(vm, "function F(obj)\n  local d = os.date(obj.spec)\n  return d\nend", "F", [deployment]), "<string>:2: bad argument #1 to date (string expected, got table)");
    // A tail call keeps the script's line too.
    assertFails(run(vm, "function F(obj)\n  return string.lower(obj.missingField)\nend", "F", [deployment]), "<string>:2: bad argument #1 to lower (string expected, got nil)");
    assertStillServes(vm);
  });

  test("misbehaving scripts fail with an error value and the VM keeps serving", async () => {
    assertFails(run(vm, "function F() error({ reason = 'bad' }) end"), "(error object is a table value)");
    assertFails(run(vm, "function F() error() end"), "<string>:1: bad argument #1 to error (value expected)");
    assertFails(run(vm, "function F() error(nil) end"), "nil");
    const withFunction = run(vm, "function F() return { status = { ready = print } } end");
    assert.equal(withFunction.ok && withFunction.results[0]!.encodeError, "json: error calling MarshalJSON for type json.jsonValue: cannot encode function to JSON");
    assertStillServes(vm);
    // A stack overflow, and 5,000 levels of nesting: the deadline is generous so that it does not stop
    // them first on a loaded machine (the deadline itself is tested on its own).
    const patient = await LuaVM.create({ limits: { timeoutMs: 20_000 } });
    try {
      assertFails(run(patient, "local function deeper(n) return deeper(n + 1) + 1 end\nfunction F() return deeper(1) end"), /^<string>:1: stack overflow/);
      assertStillServes(patient);
      // Refused in our words at the nesting limit, not with the engine's "Maximum call stack size exceeded".
      const deep = run(patient, "function F() local t = {} for i = 1, 5000 do t = { t } end return t end");
      assert.equal(deep.ok && deep.results[0]!.encodeError, "json: error calling MarshalJSON for type json.jsonValue: the value is nested deeper than 256 levels (the limit on the objects Karta reads)");
      assertStillServes(patient);
    } finally {
      patient.close();
    }
  });

  test("Karmada's lookup errors", () => {
    assertFails(run(vm, "function GetReplica(obj) return 1 end", "GetReplicas"), "not found function GetReplicas");
    assertFails(run(vm, "GetReplicas = 3", "GetReplicas"), "GetReplicas is not a function: number");
    assertFails(run(vm, "function GetReplicas(obj) return obj.spec.replicas end", "GetReplicas", [{}]), "<string>:1: attempt to index a non-table object(nil) with key 'replicas'");
    const syntax = vm.compile("function GetReplicas(obj) return obj.spec.replicas");
    assert.equal(syntax.ok, false);
  });
});
