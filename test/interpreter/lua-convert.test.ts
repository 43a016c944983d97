/**
 * JSON ↔ Lua conversion (gopher-lua / gopher-json semantics), gopher-lua's iteration order, the Lua 5.1
 * prelude, the constructor rewrite and Karmada's empty-table repair.
 */
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { LuaVM, type LuaCallOutcome } from "../../src/interpreter/lua/vm.js";
import { rewriteTableConstructors, ORDERED_CONSTRUCTOR } from "../../src/interpreter/lua/rewrite.js";
import { repairEmptyTables } from "../../src/interpreter/lua/repair.js";
import type { JsonValue } from "../../src/interpreter/types.js";

let vm: LuaVM;
before(async () => {
  vm = await LuaVM.create();
});
after(() => vm.close());

function call(body: string, args: (JsonValue | undefined)[] = [], n = 1): LuaCallOutcome {
  const compiled = vm.compile(body);
  assert.ok(compiled.ok, compiled.ok ? "" : compiled.error);
  return vm.call(compiled.script, "F", args, n);
}

function values(out: LuaCallOutcome): unknown[] {
  assert.ok(out.ok, out.ok ? "" : out.error);
  return out.results.map((r) => r.encodeError ?? r.value);
}

const pod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web-0", namespace: "prod", labels: { app: "web" }, annotations: {}, deletionTimestamp: null },
  spec: {
    nodeName: null,
    containers: [{ name: "web", image: "nginx:1.27", args: [], ports: [{ containerPort: 80 }] }],
    tolerations: [null, { key: "dedicated", operator: "Exists" }],
  },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] },
};

describe("JSON into Lua", () => {
  test("null object fields disappear and null array elements are skipped", () => {
    const out = call(
      "function F(p) return p.metadata.deletionTimestamp == nil, p.spec.nodeName == nil, #p.spec.tolerations, p.spec.tolerations[1].key end",
      [pod],
      4,
    );
    assert.deepEqual(values(out), [true, true, 1, "dedicated"]);
  });

  test("integral numbers are integers (they print without a fraction), others floats", () => {
    const out = call("function F(o) return tostring(o.spec.replicas), tostring(o.ratio), o.spec.replicas / 2 end", [{ spec: { replicas: 3 }, ratio: 0.25 }], 3);
    assert.deepEqual(values(out), ["3", "0.25", 1.5]);
  });

  test("a missing argument is nil", () => {
    assert.deepEqual(values(call("function F(a, b) return b == nil end", [pod, undefined])), [true]);
  });

  test("unicode strings survive both ways", () => {
    assert.deepEqual(values(call("function F(o) return o.m .. '✓' end", [{ m: "ünïcødé " }])), ["ünïcødé ✓"]);
  });
});

describe("Lua into JSON (gopher-json)", () => {
  test("an empty table is [], 1..n keys an array, string keys an object (keys sorted)", () => {
    assert.deepEqual(values(call("function F() return {} end")), [[]]);
    assert.deepEqual(values(call("function F() return {'a', 'b', 'c'} end")), [["a", "b", "c"]]);
    assert.deepEqual(values(call("function F() local t = {} t.zeta = 1 t.alpha = true return t end")), [{ alpha: true, zeta: 1 }]);
  });

  test("sparse arrays and mixed keys are errors with gopher-json's messages", () => {
    const prefix = "json: error calling MarshalJSON for type json.jsonValue: ";
    assert.deepEqual(values(call("function F() return {[1] = 'a', [3] = 'c'} end")), [prefix + "cannot encode sparse array"]);
    assert.deepEqual(values(call("function F() return {[2] = 'b'} end")), [prefix + "cannot encode sparse array"]);
    assert.deepEqual(values(call("function F() return {'a', name = 'web'} end")), [prefix + "cannot encode mixed or invalid key types"]);
    assert.deepEqual(values(call("function F() return {[true] = 1} end")), [prefix + "cannot encode mixed or invalid key types"]);
    // A value below the root: each table level's MarshalJSON wraps the error once more.
    assert.deepEqual(values(call("function F() return {f = print} end")), [prefix + prefix + "cannot encode function to JSON"]);
    assert.deepEqual(values(call("function F() return {n = 0/0} end")), [prefix + prefix + "json: unsupported value: NaN"]);
    assert.deepEqual(values(call("function F() return {a = {b = {[2] = 1}}} end")), [prefix + prefix + prefix + "cannot encode sparse array"]);
    // The first failure in Go's key order is the one reported.
    assert.deepEqual(values(call("function F() return {b = print, a = {[2] = 1}} end")), [prefix + prefix + "cannot encode sparse array"]);
  });

  test("a table reached twice is an error, as in gopher-json (not only cycles)", () => {
    const prefix = "json: error calling MarshalJSON for type json.jsonValue: ";
    assert.deepEqual(values(call("function F() local t = {} t.self = t return t end")), [prefix + prefix + "cannot encode recursively nested tables to JSON"]);
    assert.deepEqual(values(call("function F() local c = {x = 1} return {a = c, b = c} end")), [prefix + prefix + "cannot encode recursively nested tables to JSON"]);
    // Met first under "a" (sorted first), at depth 2; then again under "z", at depth 1.
    assert.deepEqual(values(call("function F() local c = {} return {z = c, a = {x = c}} end")), [prefix + prefix + "cannot encode recursively nested tables to JSON"]);
  });

  test("integral floats encode as integers: 10/2 is 5", () => {
    assert.deepEqual(values(call("function F() return {replicas = 10 / 2, half = 3 / 2} end")), [{ half: 1.5, replicas: 5 }]);
  });
});

describe("gopher-lua iteration order", () => {
  test("pairs visits array keys ascending, then other keys in first-insertion order", () => {
    const out = call(`function F()
      local t = {}
      t.zeta = 1; t.alpha = 2; t[2] = 'b'; t.mid = 3; t[1] = 'a'
      t.alpha = nil; t.alpha = 4
      local keys = {}
      for k in pairs(t) do keys[#keys + 1] = tostring(k) end
      return keys
    end`);
    assert.deepEqual(values(out), [["1", "2", "zeta", "alpha", "mid"]]);
  });

  test("keys added to a decoded object come after its own keys", () => {
    const out = call(`function F(o)
      o.status.zz = 1; o.status.aa = 2
      local keys = {}
      for k in pairs(o.status) do keys[#keys + 1] = k end
      return keys
    end`, [{ status: { replicas: 3, availableReplicas: 3 } }]);
    assert.deepEqual(values(out), [["availableReplicas", "replicas", "zz", "aa"]]);
  });

  test("conditions collected by type keep the order they were first seen (Karmada's MPIJob aggregation)", () => {
    const items = [
      { clusterName: "member1", status: { conditions: [{ type: "Created", lastTransitionTime: "2026-01-01T00:00:00Z" }, { type: "Running", lastTransitionTime: "2026-01-01T00:01:00Z" }] } },
      { clusterName: "member2", status: { conditions: [{ type: "Succeeded", lastTransitionTime: "2026-01-01T00:05:00Z" }, { type: "Created", lastTransitionTime: "2026-01-01T00:02:00Z" }] } },
    ];
    const out = call(`function F(items)
      local latest = {}
      for i = 1, #items do
        for _, c in ipairs(items[i].status.conditions) do
          local seen = latest[c.type]
          if seen == nil or c.lastTransitionTime > seen.lastTransitionTime then latest[c.type] = c end
        end
      end
      local types = {}
      for _, c in pairs(latest) do table.insert(types, c.type) end
      return types
    end`, [items]);
    assert.deepEqual(values(out), [["Created", "Running", "Succeeded"]]);
  });

  test("next starts where pairs starts and walks the same order", () => {
    const out = call(`function F()
      local t = {}
      t.b = 1; t.a = 2; t[1] = 'x'
      local k1 = next(t)
      local k2 = next(t, k1)
      local k3 = next(t, k2)
      return {tostring(k1), k2, k3, next({}) == nil}
    end`);
    assert.deepEqual(values(out), [["1", "b", "a", true]]);
  });
});

describe("Lua 5.1 compatibility", () => {
  test("unpack, table.getn, table.maxn, math.pow, math.mod, math.log10, string.gfind, _VERSION", () => {
    const out = call(`function F()
      local a, b = unpack({1, 2})
      local words = {}
      for w in string.gfind('web api db', '%a+') do words[#words + 1] = w end
      return {a + b, table.getn({1, 2, 3}), table.maxn({[1] = 1, [7] = 1}), math.pow(2, 10), math.mod(7, 3), math.log10(1000), words, _VERSION}
    end`);
    assert.deepEqual(values(out), [[3, 3, 7, 1024, 1, 3, ["web", "api", "db"], "Lua 5.1"]]);
  });

  test("table.insert and table.remove accept positions Lua 5.4 rejects, as gopher-lua does", () => {
    const out = call(`function F()
      local t = {'a'}
      table.insert(t, 3, 'c')
      local removed = table.remove({'x', 'y'}, 0)
      local none = table.remove({'x'}, 5)
      return {t[1], t[3], removed, none == nil}
    end`);
    assert.deepEqual(values(out), [["a", "c", "y", true]]);
  });

  test("os.date and os.time follow Karmada's safe os library", () => {
    const out = call(`function F()
      local t = os.time({year = 2026, month = 11, day = 30, hour = 1, min = 2, sec = 3})
      return {os.date('!%Y-%m-%d %H:%M:%S'), os.date('%F %X %p %a %Q %%', t), os.date('*t', t).yday, os.time({year = 2026, month = 1, day = 1}) - os.time({year = 2026, month = 1, day = 1, hour = 0})}
    end`);
    const [utc, local, yday, noon] = values(out)[0] as [string, string, number, number];
    assert.match(utc, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.equal(local, "2026-11-30 01:02:03 AM mon %Q %");
    assert.equal(yday, 0);
    assert.equal(noon, 12 * 3600, "hour defaults to 12");
    // A time given as nil, or os.time given nil, is a type error there (its Check functions).
    assert.match(String(JSON.stringify(call("function F() return {os.date('%Y', nil)} end"))), /bad argument #2 to date \(number expected, got nil\)/);
    assert.match(String(JSON.stringify(call("function F() return {os.time(nil)} end"))), /bad argument #1 to time \(table expected, got nil\)/);
  });

  test("tostring and string.format print numbers as gopher-lua does", () => {
    const out = call(`function F() return {tostring(10 / 2), tostring(0.1 + 0.2), tostring(1e100), string.format('%d/%s', 2.9, 4.0), string.format('%5.1f', 2)} end`);
    assert.deepEqual(values(out), [["5", "0.30000000000000004", "1e+100", "2/4", "  2.0"]]);
  });
});

describe("constructor rewrite", () => {
  test("constructors become ordered-table calls with their field names; strings and comments are untouched", () => {
    const src = `local t = {b = 1, a = x == y, {2}, [k] = 3} -- {comment}\nlocal s = "{" .. '}' .. [[{x}]]\nf{1}\n`;
    const O = ORDERED_CONSTRUCTOR;
    assert.equal(
      rewriteTableConstructors(src),
      `local t = ${O}({b = 1, a = x == y, ${O}({2}), [k] = 3}, "b", "a") -- {comment}\nlocal s = "{" .. '}' .. [[{x}]]\nf(${O}({1}))\n`,
    );
  });

  test("pairs over a literal constructor follows the source order of its fields", () => {
    const out = call(`function F()
      local t = {zeta = 1, alpha = 2, mid = 3}
      t.added = 4
      local keys = {}
      for k in pairs(t) do keys[#keys + 1] = k end
      return keys
    end`);
    assert.deepEqual(values(out), [["zeta", "alpha", "mid", "added"]]);
  });

  test("an unbalanced source is left as is for the compiler to report", () => {
    assert.equal(rewriteTableConstructors("local t = {"), "local t = {");
  });

  test("line numbers of errors stay those of the script", () => {
    const out = call("local x = {\n1,\n2}\nfunction F(o)\n  local t = {}\n  return o.spec.replicas\nend", [{}]);
    assert.equal(out.ok, false);
    if (!out.ok) assert.match(out.error, /^<string>:6: /);
  });
});

describe("empty-table repair", () => {
  const desired = { metadata: { annotations: {}, labels: { app: "web" } }, spec: { template: { spec: { containers: [{ name: "web", args: [] }], volumes: [] } } } };
  test("[] becomes {} where a reference had {}, stays where it had [], is deleted elsewhere", () => {
    const result = { metadata: { annotations: [], labels: { app: "web" }, finalizers: [] }, spec: { template: { spec: { containers: [{ name: "web", args: [] }], volumes: [] } } } };
    assert.deepEqual(repairEmptyTables(result, [desired], true), {
      metadata: { annotations: {}, labels: { app: "web" } },
      spec: { template: { spec: { containers: [{ name: "web", args: [] }], volumes: [] } } },
    });
  });

  test("without references every empty table goes; a whole empty result is {} or []", () => {
    assert.deepEqual(repairEmptyTables({ status: { conditions: [] }, phase: "Running" }, [], true), { status: {}, phase: "Running" });
    assert.deepEqual(repairEmptyTables([], [], true), {});
    assert.deepEqual(repairEmptyTables([], [], false), []);
  });
});

describe("object keys pushed from the state's key table", () => {
  test("more distinct keys than the table keeps, and keys seen before, reach the script whole", () => {
    // 3,000 distinct keys: the first 1,023 are kept and pushed from the table, the rest copied each time.
    const wide: Record<string, JsonValue> = {};
    for (let i = 0; i < 3000; i++) wide[`k${i}-${"é".repeat(i % 3)}`] = i;
    const count = "function F(o) local n, sum = 0, 0 for k, v in pairs(o) do n = n + 1 sum = sum + v end return n, sum, o['k1500-'] end";
    for (let round = 0; round < 2; round++) assert.deepEqual(values(call(count, [wide], 3)), [3000, (2999 * 3000) / 2, 1500]);
    // Round trip of an object whose keys are now in the table, nested and beside arrays.
    assert.deepEqual(values(call("function F(o) return o end", [{ k0: { k1: [1, 2, { k2: "x" }] }, "k1-é": null }])), [{ k0: { k1: [1, 2, { k2: "x" }] } }]);
    // The table does not stay on the stack: a script's arguments are where it expects them.
    assert.deepEqual(values(call("function F(a, b, c) return a.k0, b, c end", [{ k0: 1 }, 2, { k1: 3 }], 3)), [1, 2, { k1: 3 }]);
  });
});
