/**
 * Probe scripts for the gopher-lua differential: what customizations rarely do but may, one behaviour
 * each: the libraries Karmada opens (and the functions it refuses), number and string semantics of
 * Lua 5.1 on Go, run-time and syntax errors, the conversion of results (sparse and mixed tables, empty
 * tables against the reference objects, NaN, wrong types, Go's int32), the typed results (components,
 * dependencies, requirements) and the kube library on odd arguments.
 */
import type { JsonValue } from "../../src/input/index.js";

/** One probe: the operation, its script, and optionally the objects it is given. */
export interface Probe {
  name: string;
  operation: "InterpretReplica" | "InterpretComponent" | "ReviseReplica" | "Retain" | "AggregateStatus" | "InterpretStatus" | "InterpretHealth" | "InterpretDependency";
  script: string;
  object?: JsonValue;
  observed?: JsonValue;
  items?: JsonValue[] | null;
  replicas?: number;
  /**
   * A difference from Karmada that Karta keeps, and why: the differential requires the probe to still
   * differ (so that a fix shows), and lists it.
   */
  known?: string;
}

/** The object probes are given unless they name one. */
export const PROBE_OBJECT: JsonValue = {
  apiVersion: "probe.karta.dev/v1",
  kind: "Probe",
  metadata: { name: "p", namespace: "ns", labels: { app: "web" }, annotations: {} },
  spec: {
    replicas: 3,
    ratio: 0.25,
    big: 1e21,
    tiny: 1e-7,
    name: "ünïcødé-名前",
    list: [1, 2, 3],
    empty: [],
    nested: { a: { b: {} } },
    flags: [true, false],
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        nodeSelector: { disk: "ssd" },
        containers: [{ name: "c", image: "i", resources: { requests: { cpu: "250m", memory: "64Mi" }, limits: { cpu: "1" } }, env: [{ name: "A", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }] }],
        volumes: [{ name: "v", configMap: { name: "cm" } }],
      },
    },
  },
  status: { conditions: [{ type: "Ready", status: "True" }], observedGeneration: 1 },
};

/**
 * Pattern calls whose results (or errors) must be gopher-lua's: its pattern grammar (unknown class
 * letters, ranges of classes, sets, anchors, captures, back references, balances), its malformed
 * pattern messages, where find, match and gmatch start and resume, and how they check arguments.
 */
const PATTERN_CALLS = [
  ...["[a", "[", "[^", "[%a-z]+", "[a-%z]", "a%", "%", "%f[%w]%w+", "%g", "%G", "(a", "((a)", "a)", ")", "%0", "%1", "(a)%1",
    "(a%1)", "(%w)%1", "%bxy", "%b", "%bx", "^a", "a$", "a$b", "$", "^", "^$", "[]]", "[^]]", "[a-]", "[-a]", "[%]]", "[a-c-e]",
    "[%w_]+", "[^%s]+", "%.", "%%", "()", "()a()", "(%d+)-(%d+)", ".-b", "a*", "a-", "a?b", "%w+%s*=%s*%w+", "[%a-]", "%z", "%Z+",
    "%p+", "%c", "%X+", "[]", "[^]", "*a", "+", "a**", "(()a)", "(a*(.)%w(%s*))", "%S+$", "[^%d%.]+", "^(%d+)%.?(%d*)$"]
    .map((p) => `string.find('xay=1 (b)xyy a]-b.c%', ${JSON.stringify(p).replace(/"/g, "'")})`),
  "string.find('abab', 'ab', 2)", "string.match('abab', 'ba')", "string.find('', 'a*')", "string.find('', 'a')", "string.match('abc', 'c', 4)",
  "string.find('abc', 'bc', -2)", "string.find('abc', 'bc', 3)", "string.find('a\\0b', '%z')", "string.find('a b', ' ')", "string.find('x', 'x', 2)", "string.match('x', '', 2)",
  "string.find('hello', 'l', 0)", "string.find('hello', 'l', -1)", "string.find('hello', 'l', -100)", "string.find('hello', 'l', 100)",
  "string.find('hello', '', 100)", "string.find('hello', 'l', 2.7)", "string.find('hello', 'l', '2')", "string.find('hello', 'l', nil)",
  "string.find('a.b', '.', 1, true)", "string.find('a.b', '.', 1, true, 'x')", "string.find('a.b', '.', 1, nil)", "string.find('a.b', '.', 2, false)",
  "string.find('abc', 'b', 10, true)", "string.find('abc', 'b', -10, true)", "string.find('abc', 'c', 3, true)", "string.find('abc', 'x', 4)",
  "string.find(nil, 'a')", "string.find('a', nil)", "string.find({}, 'a')", "string.find(12345, 3)", "string.find('a', 'a', {})",
  "string.match('hello', 'l+', -2)", "string.match('hello', 'l+', 0)", "string.match('hello', '()ll()')", "string.match('hello', 'x')",
  "string.match('hello', '', 10)", "string.match('hello', 'o', 5)", "string.match('hello', '(h)(e)(l)(l)(o)')", "string.match('a', 'a', 'x')",
  "string.match('a,b,,c', '^([^,]*),([^,]*)')", "string.match(" + `'${"abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"}', '${"(.)".repeat(36)}')`,
  "string.match('ünïcødé-名前', '[^%w]+')", "string.match('名前', '前')", "string.find('名前', '前')", "string.match('ü', '.')",
  ...["%w*", "()", "a*", "(%w)(%w)", "^a", "", "%s*", "[^,]*", "(a)()", "a", ",,", "e$", "^aa"].map((p) => `(function() local t = {} for a, b in string.gmatch('aab, c,,de', '${p}') do t[#t + 1] = tostring(a) .. '/' .. tostring(b) end return table.concat(t, ';') end)()`),
  "string.gmatch('a', '[a')", "type(select(2, string.gmatch(1, 1)))", "string.gmatch('ab', '.')()", "(function() local f, s = string.gmatch('ab', '(.)') return f(s) .. f(s) .. tostring(f(s)) end)()", "string.gmatch(nil, 'a')", "('x=1'):match('(%w)=(%d)')", "('abc'):find('b', 1, true)",
];

/** A ReflectStatus probe returning `{ v = <expr> }`. */
function value(name: string, expr: string, prelude = ""): Probe {
  return { name, operation: "InterpretStatus", script: `${prelude}\nfunction ReflectStatus(o)\n  return { v = ${expr} }\nend` };
}

/** A ReflectStatus probe whose body is given. */
function status(name: string, body: string): Probe {
  return { name, operation: "InterpretStatus", script: `function ReflectStatus(o)\n${body}\nend` };
}

const KUBE = "local kube = require('kube')";

export const PROBES: Probe[] = [
  // os: Karmada's safe os library.
  value("os.time()", "os.time()"),
  value("os.time(nil) is a table error", "os.time(nil)"),
  value("os.time of a table", "os.time({ year = 2024, month = 2, day = 30, hour = 25 })"),
  value("os.time default fields", "os.time({ year = 2024 })"),
  value("os.time of a string", "os.time('x')"),
  value("os.date default", "os.date()"),
  value("os.date UTC formats", "os.date('!%Y-%m-%dT%H:%M:%SZ %a %A %b %B %c %d %F %I %p %P %x %X %y %z %Z %w %j %% %')"),
  value("os.date with several !", "os.date('!!%Y %H')"),
  value("os.date with a time drops UTC", "os.date('!%Y-%m-%d %H:%M', 86400 * 365)"),
  value("os.date *t", "os.date('!*t')"),
  value("os.date of a number format", "os.date(5)"),
  value("os.date of a table", "os.date({})"),
  value("os.date with a fractional time", "os.date('!%S', 59.9)"),
  // Refused functions.
  ...["collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile", "loadstring", "rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy"].map((f) => value(`${f} is refused`, `${f}({}, 1)`)),
  value("string.rep is refused", "string.rep('a', 3)"),
  value("string.gsub is refused", "('abc'):gsub('a', 'b')"),
  value("string.dump is refused", "string.dump(print)"),
  value("io, debug, coroutine are absent", "tostring(io) .. tostring(debug) .. tostring(coroutine) .. type(package.loaders) .. tostring(package.path)"),
  value("require of another module", "require('json')"),
  value("package.loadlib", "package.loadlib('a', 'b')"),
  // strings.
  value("upper and lower of non-ASCII", "string.upper('ü-ß-ǆ') .. string.lower('Ü-İ-Σ')"),
  value("len and reverse of UTF-8", "string.len('名前') .. '|' .. string.reverse('ab名')"),
  value("byte and char", "table.concat({ string.byte('ABC', 1, -1) }, ',') .. string.char(72, 105, 256 + 65)"),
  value("sub with odd indices", "string.sub('hello', -3) .. '|' .. string.sub('hello', 0) .. '|' .. string.sub('hello', 4, 2) .. '|' .. string.sub('hello', 2.7)"),
  value("find plain and patterns", "table.concat({ string.find('a.b.c', '.', 1, true), string.find('key=value', '(%w+)=(%w+)') }, ',')"),
  value("find without a match", "tostring(string.find('abc', 'z'))"),
  value("match captures and positions", "table.concat({ string.match('v1.2.3', '(%d+)%.(%d+)%.()') }, ',')"),
  value("match without a match", "tostring(string.match('abc', '%d'))"),
  value("bad pattern", "string.find('abc', '[a')"),
  value("bad pattern in a method call", "('abc'):match('(a')"),
  value("find of nil", "string.find(nil, 'a')"),
  value("plain find past the end", "string.find('abc', 'b', 10, true)"),
  value("find through a local name", "(function() local f = string.find return f('a', 'a', {}) end)()"),
  value("match with a string start", "string.match('abc', 'b', '2')"),
  value("gmatch of a bad pattern", "string.gmatch('abc', '%0')"),
  ...PATTERN_CALLS.map((call) => value(`pattern: ${call}`, `(function(...) local t = {} for i = 1, select('#', ...) do t[i] = tostring((select(i, ...))) end return select('#', ...) .. ':' .. table.concat(t, '|') end)(pcall(function() return ${call} end))`)),
  value("gmatch", "(function() local t = {} for k, v in string.gmatch('a=1, b=2', '(%w+)=(%w+)') do t[#t + 1] = k .. v end return table.concat(t, ';') end)()"),
  value("format verbs", "string.format('%d %5.2f %s %q %x %5s|%-5s|%e %g %c %o %%', 42, 3.14159, 'x', 'a\"b', 255, 'r', 'l', 12345.678, 0.0001, 65, 8)"),
  value("format %d of a fraction", "string.format('%d', 3.7)"),
  value("format with too few arguments", "string.format('%s %s', 'a')"),
  value("format of a boolean and nil", "string.format('%s %s %v', true, nil, 1.5)"),
  value("string methods on numbers", "(5):rep and 1 or 0"),
  value("long string argument", "string.upper(table.concat((function() local t = {} for i = 1, 1001 do t[i] = string.format('%1000s', '') end return t end)()))"),
  value("a string with invalid UTF-8", "string.char(255, 97, 200)"),
  value("string keys escaping", "{ ['a.b'] = 1, ['c:d'] = 2, ['<&>'] = 3, ['\\t'] = 4, ['名'] = 5 }"),
  // numbers.
  value("tostring of numbers", "table.concat({ tostring(1e15), tostring(1e16), tostring(0.1), tostring(-0), tostring(1/0), tostring(-1/0), tostring(2^53), tostring(123456789012), tostring(1e100) }, ' ')"),
  value("NaN prints", "tostring(0/0)"),
  value("tonumber", "table.concat({ tonumber('0x10'), tonumber('1e2'), tonumber(' 5 '), tostring(tonumber('5x')), tonumber('10', 2), tonumber('z', 36), tostring(tonumber('')), tonumber('-.5'), tostring(tonumber('1_000')) }, ',')"),
  value("arithmetic coercion", "('10' + 1) .. '|' .. (10 .. 20) .. '|' .. ('3' * '4') .. '|' .. (7 % -3) .. '|' .. (-7 % 3) .. '|' .. (2^0.5)"),
  value("integer-looking results", "{ 10 / 2, 7 / 2, 1e300 * 10, -(0), 2^63, -2^63, 2^31 }"),
  value("math library", "{ math.floor(-1.5), math.ceil(-1.5), math.max(1, 5, 3), math.min(2), math.abs(-3), math.sqrt(16), math.fmod(7, 3), math.huge, math.pi, math.log(100), math.log10(1000), math.exp(0), math.pow(2, 10), math.modf(3.7) }"),
  value("math.max of nothing", "math.max()"),
  value("math.floor of a string", "math.floor('3.7')"),
  value("NaN in a result", "0/0"),
  value("infinity in a result", "1/0"),
  // tables and base.
  value("table functions", "(function() local t = { 5, 2, 8 } table.insert(t, 1) table.insert(t, 1, 0) table.remove(t) table.sort(t, function(a, b) return a > b end) return table.concat(t, ',') .. '|' .. table.maxn({ [1] = 1, [10] = 2 }) .. '|' .. #t end)()"),
  value("table.concat of a table value", "table.concat({ 1, {} }, ',')"),
  value("table.sort of mixed values", "(function() local t = { 3, 'a' } table.sort(t) return t end)()"),
  value("unpack and select", "select('#', unpack({ 1, 2, 3 })) .. select(2, 'a', 'b', 'c')"),
  value("pairs order of a built table", "(function() local t = { z = 1, a = 2, m = 3 } t.b = 4 t[1] = 5 t[3] = 6 local keys = {} for k in pairs(t) do keys[#keys + 1] = tostring(k) end return table.concat(keys, ',') end)()"),
  value("pairs order of an input object", "(function() local keys = {} for k in pairs(o.spec) do keys[#keys + 1] = k end return table.concat(keys, ',') end)()"),
  value("ipairs stops at a hole", "(function() local n = 0 for _ in ipairs({ 1, 2, nil, 4 }) do n = n + 1 end return n end)()"),
  value("length with holes", "#{ 1, 2, nil, 4 } .. '|' .. #{ nil, nil, 3 }"),
  value("pcall of an error table", "(function() local ok, e = pcall(error, { code = 1 }) return tostring(ok) .. type(e) .. e.code end)()"),
  value("pcall of an error string with a level", "(function() local ok, e = pcall(function() error('boom', 2) end) return e end)()"),
  value("xpcall with a handler", "(function() local ok, e = xpcall(function() error('x') end, function(m) return 'handled: ' .. m end) return e end)()"),
  value("assert with a message", "assert(false, 'assertion text')"),
  value("assert without a message", "assert(nil)"),
  value("_VERSION and type", "_VERSION .. type(nil) .. type(print) .. type({})"),
  value("error with a number", "error(1234567.5)"),
  value("error with nil", "error(nil)"),
  value("error with a table", "error({})"),
  value("error at level 0", "error('plain', 0)"),
  // run-time errors.
  value("index nil", "o.missing.field"),
  value("call nil", "o.missing()"),
  value("arithmetic on nil", "o.missing + 1"),
  value("concatenate a table", "'a' .. {}"),
  value("compare mixed", "1 < 'a'"),
  value("length of nil", "#o.missing"),
  value("unary minus of a table", "-{}"),
  value("nil table index", "(function() local t = {} t[nil] = 1 return t end)()"),
  value("string.lower of nil", "string.lower(o.missing)"),
  value("ipairs of nil", "(function() for _ in ipairs(nil) do end end)()"),
  value("stack overflow", "(function() local function f(n) return 1 + f(n + 1) end return f(1) end)()"),
  { name: "a run-time error in the chunk", operation: "InterpretStatus", script: "local x = nil + 1\nfunction ReflectStatus(o) return {} end" },
  { name: "no such function", operation: "InterpretStatus", script: "function Other(o) return {} end" },
  { name: "the function is a number", operation: "InterpretStatus", script: "ReflectStatus = 5" },
  { name: "syntax error", operation: "InterpretStatus", script: "function ReflectStatus(o)\n  return { v = }\nend" },
  { name: "Lua 5.2 goto", operation: "InterpretStatus", script: "function ReflectStatus(o)\n  goto done\n  ::done::\n  return {}\nend" },
  { name: "Lua 5.3 integer division", operation: "InterpretStatus", script: "function ReflectStatus(o)\n  return { v = 7 // 2 }\nend" },
  { name: "unfinished string", operation: "InterpretStatus", script: "function ReflectStatus(o)\n  return { v = 'abc }\nend" },
  // tail calls: gopher-lua's traceback shows the frame a tail call reused.
  { name: "an error in a tail-called local helper", operation: "InterpretHealth", script: "local function check(o)\n  return o.status.missing.x == 1\nend\nfunction InterpretHealth(o)\n  return check(o)\nend" },
  { name: "an error in a tail-called global helper", operation: "InterpretHealth", script: "function check(o)\n  return o.status.missing.x == 1\nend\nfunction InterpretHealth(o)\n  if o.kind == nil then return false end\n  return check(o)\nend" },
  // (One tail call: Lua 5.4 knows that a frame was reused by tail calls, not how many times, where
  // gopher-lua writes one "(tailcall): ?" line each.)
  { name: "an error in a tail-called module function", operation: "InterpretHealth", script: "local M = {}\nfunction M.check(o)\n  return o.status.missing.x == 1\nend\nfunction InterpretHealth(o)\n  return M.check(o)\nend" },
  { name: "an error in a tail-called method", operation: "InterpretHealth", script: "local M = {}\nfunction M:check(o)\n  return o.status.missing.x == 1\nend\nfunction InterpretHealth(o)\n  return M:check(o)\nend" },
  { name: "an error in a helper called normally", operation: "InterpretHealth", script: "local function check(o)\n  return o.status.missing.x == 1\nend\nfunction InterpretHealth(o)\n  local ok = check(o)\n  return ok\nend" },
  { name: "a tail-called library function", operation: "InterpretHealth", script: "local lower = string.lower\nfunction InterpretHealth(o)\n  return lower(o.missing)\nend" },
  { name: "an endless loop", operation: "InterpretHealth", script: "function InterpretHealth(o)\n  while true do end\nend" },
  // results.
  value("a sparse array", "{ 1, 2, nil, 4 }"),
  value("an array starting at 2", "{ [2] = 'b', [3] = 'c' }"),
  value("mixed keys", "{ 1, 2, x = 3 }"),
  value("a float key", "{ [1.5] = 1 }"),
  value("a boolean key", "{ [true] = 1 }"),
  value("a function value", "print"),
  value("a table twice", "(function() local t = { 1 } return { t, t } end)()"),
  value("a cycle", "(function() local t = {} t.self = t return t end)()"),
  value("the first failure in Go's key order", "{ b = print, a = { 1, nil, 3 } }"),
  value("a table reached twice, at two depths", "(function() local t = {} return { z = t, a = { x = t } } end)()"),
  value("width and precision of non-ASCII strings", "string.format('%5s|%-5s|%.2s|%5.1s|', 'ü', 'ñ', '名前だ', 'ab')"),
  value("a negative index", "{ [-1] = 'x', [0] = 'y' }"),
  value("large integer keys", "{ [1] = 'a', [2] = 'b', [100000000] = 'c' }"),
  status("empty tables against no reference", "  return { a = {}, b = { c = {} }, d = { {}, 1 }, e = {} }"),
  status("the status is an empty table", "  return {}"),
  status("the status is a list", "  return { 1, 'two', { three = 3 } }"),
  status("the status is a string", "  return 'x'"),
  status("the status is nil", "  return nil"),
  status("a number status value", "  return { replicas = o.spec.replicas, ratio = o.spec.ratio, big = o.spec.big, tiny = o.spec.tiny, neg = -0.0 }"),
  { name: "InterpretHealth returns nil", operation: "InterpretHealth", script: "function InterpretHealth(o) return nil end" },
  { name: "InterpretHealth returns a number", operation: "InterpretHealth", script: "function InterpretHealth(o) return 1 end" },
  { name: "InterpretHealth returns a string", operation: "InterpretHealth", script: "function InterpretHealth(o) return 'true' end" },
  { name: "InterpretHealth returns a table", operation: "InterpretHealth", script: "function InterpretHealth(o) return {} end" },
  { name: "InterpretHealth returns two values", operation: "InterpretHealth", script: "function InterpretHealth(o) return true, false end" },
  ...[["2.7", "a fraction"], ["-1", "negative"], ["2^31", "past int32"], ["1e10", "far past int32"], ["0/0", "NaN"], ["1/0", "infinite"], ["-2^31 - 1", "below int32"], ["'3'", "a string"], ["nil", "nil"], ["{}", "a table"]].map(
    ([r, what]): Probe => ({ name: `GetReplicas returns ${what}`, operation: "InterpretReplica", script: `function GetReplicas(o) return ${r}, nil end` }),
  ),
  { name: "GetReplicas returns requirements of the wrong type", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, 'x' end" },
  { name: "GetReplicas returns an empty requirements table", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, {} end" },
  { name: "GetReplicas requirements with odd fields", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, { resourceRequest = { cpu = 1.5, memory = '1Gi', ['nvidia.com/gpu'] = 2 }, nodeClaim = { nodeSelector = { a = 'b' }, tolerations = { { key = 'k', operator = 'Exists', tolerationSeconds = 30 } } }, namespace = 'n', priorityClassName = 'p', extra = 1 } end" },
  { name: "GetReplicas requirements with a bad quantity", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, { resourceRequest = { cpu = 'lots' } } end" },
  { name: "GetReplicas requirements with a boolean quantity", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, { resourceRequest = { cpu = true } } end" },
  { name: "GetReplicas requirements of the wrong shapes", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, { nodeClaim = 'x' } end" },
  { name: "GetReplicas tolerationSeconds as a fraction", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, { nodeClaim = { tolerations = { { tolerationSeconds = 1.5 } } } } end" },
  { name: "GetReplicas node selector of numbers", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, { nodeClaim = { nodeSelector = { a = 1 } } } end" },
  { name: "GetReplicas hard node affinity", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, { nodeClaim = { hardNodeAffinity = { nodeSelectorTerms = { { matchExpressions = { { key = 'k', operator = 'In', values = { 'a' } } } } } } } } end" },
  { name: "GetReplicas requirements with mixed-case keys", operation: "InterpretReplica", script: "function GetReplicas(o) return 1, { ResourceRequest = { cpu = '1' }, NAMESPACE = 'n' } end" },
  { name: "GetComponents returns nil", operation: "InterpretComponent", script: "function GetComponents(o) return nil end" },
  { name: "GetComponents returns an empty table", operation: "InterpretComponent", script: "function GetComponents(o) return {} end" },
  { name: "GetComponents returns a string", operation: "InterpretComponent", script: "function GetComponents(o) return 'x' end" },
  { name: "GetComponents with odd fields", operation: "InterpretComponent", script: "function GetComponents(o) return { { name = 'a', replicas = 2, replicaRequirements = { resourceRequest = { cpu = '100m' }, priorityClassName = 'p', namespace = 'n' } }, { name = 'b' }, { replicas = 1 } } end" },
  { name: "GetComponents replicas as a fraction", operation: "InterpretComponent", script: "function GetComponents(o) return { { name = 'a', replicas = 1.5 } } end" },
  { name: "GetComponents replicas past int32", operation: "InterpretComponent", script: "function GetComponents(o) return { { name = 'a', replicas = 2^31 } } end" },
  { name: "GetComponents name as a number", operation: "InterpretComponent", script: "function GetComponents(o) return { { name = 5, replicas = 1 } } end" },
  { name: "GetComponents as an object", operation: "InterpretComponent", script: "function GetComponents(o) return { a = { name = 'a', replicas = 1 } } end" },
  { name: "GetComponents with the kube library", operation: "InterpretComponent", script: `${KUBE}\nfunction GetComponents(o) return { { name = 'main', replicas = o.spec.replicas, replicaRequirements = kube.accuratePodRequirements(o.spec.template) } } end` },
  { name: "GetDependencies returns an empty table", operation: "InterpretDependency", script: "function GetDependencies(o) return {} end" },
  { name: "GetDependencies returns nil", operation: "InterpretDependency", script: "function GetDependencies(o) return nil end" },
  { name: "GetDependencies without name or selector", operation: "InterpretDependency", script: "function GetDependencies(o) return { { apiVersion = 'v1', kind = 'Secret' }, { kind = 'ConfigMap', name = 'x' } } end" },
  { name: "GetDependencies with a bad selector", operation: "InterpretDependency", script: "function GetDependencies(o) return { { apiVersion = 'v1', kind = 'Secret', labelSelector = { matchExpressions = { { key = 'a', operator = 'Bad' }, { key = 'b', operator = 'In' }, { key = 'c', operator = 'Exists', values = { 'x' } } }, matchLabels = { ['bad key!'] = 'v', ok = 'bad value!' } } } } end" },
  { name: "GetDependencies duplicates and order", operation: "InterpretDependency", script: "function GetDependencies(o) return { { apiVersion = 'v1', kind = 'Secret', namespace = 'b', name = 'x' }, { apiVersion = 'v1', kind = 'ConfigMap', namespace = 'a', name = 'y' }, { apiVersion = 'v1', kind = 'Secret', namespace = 'b', name = 'x' }, { apiVersion = 'apps/v1', kind = 'Secret', name = 'z', labelSelector = { matchLabels = { a = 'b' } } } } end" },
  { name: "GetDependencies with the kube library", operation: "InterpretDependency", script: `${KUBE}\nfunction GetDependencies(o) return kube.getPodDependencies(o.spec.template, o.metadata.namespace) end` },
  { name: "GetDependencies with a numeric namespace", operation: "InterpretDependency", script: `${KUBE}\nfunction GetDependencies(o) return kube.getPodDependencies(o.spec.template, 1.5) end` },
  { name: "GetDependencies with a table namespace", operation: "InterpretDependency", script: `${KUBE}\nfunction GetDependencies(o) return kube.getPodDependencies(o.spec.template, {}) end` },
  { name: "GetDependencies with one argument", operation: "InterpretDependency", script: `${KUBE}\nfunction GetDependencies(o) return kube.getPodDependencies(o.spec.template) end` },
  // kube library.
  value("resourceAdd", "kube.resourceAdd('1', '500m', nil, '1Ki', '0.5')", KUBE),
  value("resourceAdd of a number", "kube.resourceAdd('1', 2)", KUBE),
  value("resourceAdd of huge values", "kube.resourceAdd('8Ei', '8Ei', '123456789012345678901234567890')", KUBE),
  value("getResourceQuantity", "{ kube.getResourceQuantity('100m'), kube.getResourceQuantity('1.5Gi'), kube.getResourceQuantity(nil), kube.getResourceQuantity('1e3') }", KUBE),
  value("getResourceQuantity negative", "kube.getResourceQuantity('-1.5')", KUBE),
  value("getResourceQuantity negative, arbitrary precision", "kube.getResourceQuantity('-1.5Gi')", KUBE),
  value("getResourceQuantity infinite", "kube.getResourceQuantity('1e400')", KUBE),
  value("getResourceQuantity with two arguments", "kube.getResourceQuantity('1', '2')", KUBE),
  value("getResourceQuantity invalid", "kube.getResourceQuantity('abc')", KUBE),
  value("accuratePodRequirements of a template", "kube.accuratePodRequirements(o.spec.template)", KUBE),
  value("accuratePodRequirements of an empty table", "kube.accuratePodRequirements({})", KUBE),
  value("accuratePodRequirements of nil", "kube.accuratePodRequirements(nil)", KUBE),
  value("accuratePodRequirements of two arguments", "kube.accuratePodRequirements({}, {})", KUBE),
  value("accuratePodRequirements with containers as an object", "kube.accuratePodRequirements({ spec = { containers = { c = {} } } })", KUBE),
  value("accuratePodRequirements with a numeric port", "kube.accuratePodRequirements({ spec = { containers = { { name = 'c', ports = { { containerPort = 80.5 } } } } } })", KUBE),
  value("accuratePodRequirements with a bad probe port", "kube.accuratePodRequirements({ spec = { containers = { { name = 'c', livenessProbe = { httpGet = { port = 1.5 } } } } } })", KUBE),
  value("accuratePodRequirements with a bad timestamp", "kube.accuratePodRequirements({ metadata = { creationTimestamp = 'yesterday' } })", KUBE),
  value("accuratePodRequirements with a timestamp", "kube.accuratePodRequirements({ metadata = { creationTimestamp = '2024-01-02T03:04:05+01:00' }, spec = { nodeSelector = { a = 'b' } } })", KUBE),
  value("accuratePodRequirements with init containers, overhead and extended resources", "kube.accuratePodRequirements({ spec = { overhead = { cpu = '100m' }, initContainers = { { name = 'i', resources = { requests = { cpu = '2', ['example.com/foo'] = '3', ['hugepages-2Mi'] = '4Mi' } } } }, containers = { { name = 'c', resources = { limits = { cpu = '500m', memory = '1Gi', ['example.com/foo'] = '1', foo = '5' } } }, { name = 'd', resources = { requests = { cpu = '500m', pods = '2', ['ephemeral-storage'] = '1G' } } } } } })", KUBE),
  value("accuratePodRequirements with affinity and tolerations", "kube.accuratePodRequirements({ spec = { affinity = { nodeAffinity = { requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms = { { matchExpressions = { { key = 'zone', operator = 'In', values = { 'a', 'b' } } } } } } } }, tolerations = { { key = 'k', operator = 'Equal', value = 'v', effect = 'NoSchedule' } } } })", KUBE),
  value("getPodDependencies of every volume kind", "kube.getPodDependencies({ spec = { serviceAccountName = 'sa', imagePullSecrets = { { name = 'pull' } }, volumes = { { name = 'a', secret = { secretName = 's1' } }, { name = 'b', projected = { sources = { { secret = { name = 's2' } }, { configMap = { name = 'c2' } } } } }, { name = 'c', azureFile = { secretName = 's3' } }, { name = 'd', cephfs = { secretRef = { name = 's4' } } }, { name = 'e', csi = { driver = 'x', nodePublishSecretRef = { name = 's5' } } }, { name = 'f', persistentVolumeClaim = { claimName = 'pvc' } }, { name = 'g', configMap = { name = 'c1' }, secret = { secretName = 'hidden' } } }, containers = { { name = 'x', envFrom = { { configMapRef = { name = 'c3' } }, { secretRef = { name = 's6' } } } } }, ephemeralContainers = { { name = 'e', env = { { name = 'E', valueFrom = { configMapKeyRef = { name = 'c4', key = 'k' } } } } } } } }, 'ns')", KUBE),
  value("getPodDependencies of the default service account", "kube.getPodDependencies({ spec = { serviceAccountName = 'default' } }, nil)", KUBE),
  // gopher-lua's array part: # is its last non-nil slot, insert and remove work on it.
  status("# after holes and keys set out of order", "local t = { 1, 2, 3 } t[5] = 5\n  local u = {} u[2] = 'b'\n  local w = { 1, 2, 3 } w[3] = nil\n  return { t = #t, u = #u, w = #w, n = table.getn(t), m = table.maxn(u) }"),
  status("table.insert appends after the last non-nil slot", "local t = {} t[5] = 1 table.insert(t, 'x')\n  local u = { 1, nil, 3 } table.insert(u, 'y')\n  table.insert(u, nil)\n  return { t = t, u = u, n = #u }"),
  status("table.insert at a position moves the slots up, holes too", "local t = { 'a', 'b' } t[4] = 'd'\n  table.insert(t, 2, 'x') table.insert(t, 9, 'z') table.insert(t, 0, 'zero') table.insert(t, 1, 'w', 'ignored')\n  local keys = {} for k, v in pairs(t) do keys[#keys + 1] = tostring(k) .. '=' .. tostring(v) end\n  return { v = table.concat(keys, ','), n = #t }"),
  status("table.remove on holes, past the end and below 1", "local t = { 1, 2, 3 } t[3] = nil\n  local a = table.remove(t)\n  local u = { 1, 2, 3, 4 } local b = table.remove(u, 2) local c = table.remove(u, 9) local d = table.remove(u, 0)\n  return { a = a or 'nil', t = #t, b = b, c = c or 'nil', d = d, u = u }"),
  status("an index built with holes, then appended to", "local out = {}\n  for i, c in ipairs(o.spec.template.spec.containers) do out[i + 1] = c.name end\n  out[#out + 1] = 'last'\n  return { n = #out, last = out[#out] }"),
  value("table.concat of one number returns the number", "table.concat(o.spec.list, ',', 2, 2)"),
  value("table.concat of one element", "{ table.concat({ 8080 }), type(table.concat({ 1.5 })), table.concat({ 'a' }) }"),
  value("table.concat bounds must be numbers", "table.concat({ 1, 2, 3 }, ',', 'x')"),
  value("unpack bounds must be numbers", "{ unpack({ 1, 2, 3 }, '2') }"),
  value("tonumber's base must be a number", "tonumber('10', '16')"),
  value("next with a key the table does not hold", "next({ a = 1 }, 'b')"),
  // gopher-lua's string.byte and string.sub on Go ints.
  value("string.byte of a whole string", "{ string.byte('AB') }"),
  value("string.byte from 0", "{ string.byte('hello', 0, 2) }"),
  value("string.byte with one index", "{ string.byte('hello', -1), string.byte('hello', 0), string.byte('hello', 9) }"),
  value("string.sub and byte at indices past 2^32", "{ string.sub('hello', 2^32 + 2), string.sub('hello', 2^53), string.sub('hello', -2^63), string.sub('hello', 1/0), #{ string.byte('hello', 2^32 + 1, -1) } }"),
  value("string.sub's index must be a number", "string.sub('hello', '2')"),
  value("string.sub of a number", "string.sub(12345, 2, -2)"),
  // Go's %g without a precision, math on numeric strings, Go's -0 and shortest subnormals.
  value("string.format %g is Go's shortest form", "string.format('%g|%G|%10g|%-12g|%+g|%010g|% g|%g|%g|%g', 1/3, 2^31, 0.3, 1e6, 123456, -0.5, 1e-5, 0.0001, 5e-324, 0)"),
  value("math functions read numeric strings as gopher-lua's CheckNumber", "{ math.max('10', 9), math.min(3, '0x2'), math.floor('010'), math.abs('-3'), math.sqrt('16'), math.fmod('7', '3') }"),
  value("math.max of a string that is not a number", "math.max(1, 'x')"),
  value("string.format of integers beyond int64, negative hex and octal, infinities", "string.format('%d|%d|%d|%x|%X|%5o|%-6x|%f|%+e|% g|%8.2f|%-6G', 2^63, 1/0, -3.7, -255, -2^63, -8, -1, 1/0, 1/0, 1/0, -1/0, 0/0)"),
  // table.sort is Go's pdqsort over the array part: ties where Go leaves them, no "invalid order function".
  status("table.sort leaves equal elements where Go's sort does", "local l = {}\n  for i = 1, 60 do l[i] = { n = i, p = (i * 7) % 5 } end\n  table.sort(l, function(a, b) return a.p < b.p end)\n  local r = {} for i, v in ipairs(l) do r[i] = v.n end\n  return { order = table.concat(r, ',') }"),
  status("table.sort with an inconsistent comparator and a descending run", "local l = {} for i = 1, 40 do l[i] = (i * 13) % 17 end\n  table.sort(l, function(a, b) return a <= b end)\n  local d = {} for i = 1, 30 do d[i] = 31 - i end table.sort(d)\n  return { l = table.concat(l, ','), d = table.concat(d, ',') }"),
  value("table.sort's comparator must be a function when given", "table.sort({ 2, 1 }, nil)"),
  // gopher-lua's multiple assignment (its issue #440): a local target takes its value at once.
  status("a, b = b, a and other multiple assignments", "local a, b = 1, 2\n  a, b = b, a\n  local x, y = 1, 2\n  x, y = y + 1, x + 1\n  local p, q = 0, 1\n  for i = 1, 10 do p, q = q, p + q end\n  local c, d, e = 1, 2, 3\n  c, d, e = e, c, d\n  return { a = a, b = b, x = x, y = y, p = p, q = q, c = c, d = d, e = e }"),
  status("multiple assignment with calls, constructors, globals and upvalues", "local function id(...) return ... end\n  local a, b = 1, 2\n  a, b = id(b), a\n  local c, d = 1, 2\n  c, d = d, id(c)\n  local e, f = 1, 2\n  e, f = { f }, e\n  G1, a = a, G1\n  local u, v = 1, 2\n  local function swap() u, v = v, u end\n  swap()\n  local m, n = 1, 2\n  m, n = id(n, m)\n  return { a = a or 'nil', b = b, c = c, d = d, e = type(e), f = type(f), g = G1 or 'nil', u = u, v = v, m = m, n = n }"),
  value("select by a number or '#' only", "{ select(2, 'a', 'b', 'c'), select(-1, 'a', 'b'), select('#', 1, nil), select(9, 'a') }"),
  value("select of a numeric string", "select('2', 'a', 'b', 'c')"),
  value("select of nil", "select(nil, 'a')"),
  status("a numeric for takes numbers only", "local ok, msg = pcall(function() local r = {} for i = '1', '3' do r[#r + 1] = i end return r end)\n  local n = 0\n  for i = 1, 3 do n = n + i end\n  for i = 10, 1, -3 do n = n + i end\n  return { msg = msg, n = n }"),
  value("table.remove at NaN", "table.remove({ 1, 2, 3 }, 0/0)"),
  value("arithmetic errors name a numeric string a number", "'10' + true"),
  value("floor and ceil keep Go's negative zero", "string.format('%g|%g|%g', math.floor(-0.0), math.ceil(-0.5), math.ceil(0.5))"),
  value("tostring of a subnormal is its shortest form", "tostring(5e-324) .. '|' .. tostring(-2.5e-320)"),
  // Errors a script catches read as they do uncaught; assert and xpcall as gopher-lua's.
  status("pcall sees library errors at the script's line", "local a, b = pcall(function() return string.sub('x') end)\n  local c, d = pcall(function() return table.concat({}, 1) end)\n  local e, f = pcall(5)\n  return { b = b, d = d, f = f }"),
  // An argument error names the function as the script called it, "(anonymous)" when pcall called it.
  status("argument errors name the called function", "local g, sub, h = string.sub, string.sub, table.concat\n  local a, b = pcall(function() return g(1, 'x') end)\n  local c, d = pcall(function() local r = h(5) return r end)\n  local e, f = pcall(sub, 'x', {})\n  local i, j = pcall(type)\n  local k, l = pcall(string.rep, 'x', 2)\n  local m, n = pcall(function() return ({ pairs })[1](5) end)\n  return { b = b, d = d, f = f, j = j, l = l, n = n }"),
  // find's and match's init are Go ints of the number: NaN and infinities the smallest int64.
  value("find and match from NaN, infinite and huge starts", "table.concat({ tostring(string.find('hello', 'l', 0/0)), tostring(string.find('hello', 'l', -1/0)), tostring(string.match('hello', '.', 1/0)), tostring(string.match('hello', '()l', 2^63)), tostring(string.find('hello', 'l', -2.5)), tostring(string.match('hello', 'l', 3.99)), tostring(select(2, pcall(string.find, 'hello', 'l', 1/0, true))) }, ' ')"),
  status("assert's message must be a string", "local a, b = pcall(function() assert(false, 42) end)\n  local c, d = pcall(function() assert() end)\n  local e, f = pcall(function() assert(false, 'boom') end)\n  return { b = b, d = d, f = f }"),
  status("xpcall passes no arguments; an error in the handler is returned", "local a, b = xpcall(function(x) return x end, print, 5)\n  local c, d = xpcall(function() error('x') end, function(m) error('y') end)\n  local e, f = xpcall(function() error('z') end, function(m) return 'handled: ' .. m end)\n  return { a = a, b = b or 'nil', c = c, d = d, f = f }"),
  status("a numeric for whose limit is not a number", "local ok, msg = pcall(function() for i = 1, nil do end end)\n  local ok2, msg2 = pcall(function() for i = 1, 2, {} do end end)\n  return { msg = msg, msg2 = msg2 }"),
  // object results and the empty-table repair.
  { name: "Retain keeps empty tables by the references", operation: "Retain", script: "function Retain(d, o)\n  d.spec.empty = {}\n  d.spec.nested.a.b = {}\n  d.spec.newEmpty = {}\n  d.status = o.status\n  d.status.conditions = {}\n  return d\nend", observed: { ...(PROBE_OBJECT as object), status: { conditions: [], extra: {} } } },
  { name: "Retain returns a list", operation: "Retain", script: "function Retain(d, o) return { 1, 2 } end" },
  { name: "Retain returns an object without kind", operation: "Retain", script: "function Retain(d, o) return { spec = { a = 1, b = 'x' } } end" },
  { name: "Retain returns kind as a number", operation: "Retain", script: "function Retain(d, o) d.kind = 5 return d end" },
  { name: "Retain returns an empty table", operation: "Retain", script: "function Retain(d, o) return {} end" },
  { name: "Retain returns items (a list shape)", operation: "Retain", script: "function Retain(d, o) d.items = { { kind = 'X' } } return d end" },
  { name: "ReviseReplica sets replicas", operation: "ReviseReplica", script: "function ReviseReplica(o, n) o.spec.replicas = n o.spec.half = n / 2 return o end", replicas: 5 },
  { name: "ReviseReplica of a huge count", operation: "ReviseReplica", script: "function ReviseReplica(o, n) o.spec.replicas = n * 1e12 return o end", replicas: 2147483647 },
  { name: "AggregateStatus without items (nil)", operation: "AggregateStatus", script: "function AggregateStatus(o, items)\n  o.status = { none = items == nil, n = items and #items or -1 }\n  return o\nend", items: null },
  { name: "AggregateStatus with no items", operation: "AggregateStatus", script: "function AggregateStatus(o, items)\n  o.status = { none = items == nil, n = items and #items or -1, e = {} }\n  return o\nend", items: [] },
  { name: "AggregateStatus sees the items as marshalled", operation: "AggregateStatus", script: "function AggregateStatus(o, items)\n  o.status = { items = items }\n  return o\nend", items: [{ clusterName: "a", status: { ready: 1, nothing: null, list: [1, null, 3] }, applied: true, health: "Healthy" }, { clusterName: "", applied: false, appliedMessage: "", health: "" }, { clusterName: "c", status: { empty: {}, emptyList: [] } }] },
  { name: "AggregateStatus keeps the object's empty tables only if in no reference", operation: "AggregateStatus", script: "function AggregateStatus(o, items)\n  return o\nend", items: [] },
];
