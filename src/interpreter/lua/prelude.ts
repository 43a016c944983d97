/**
 * The Lua prelude: runs once per Lua state, in the unrestricted global table, and builds the sandbox
 * that every script sees. It reproduces what Karmada's gopher-lua VM offers (Lua 5.1 libraries, the
 * "not supported" functions, the safe string and os libraries, `require("kube")`) on top of Lua 5.4,
 * and gopher-lua's table iteration order.
 *
 * The chunk receives the kube library table (built by the host) as `...` and returns:
 * the ordered-table metatable, the script-base factory, the environment factory, the real
 * collectgarbage (for the host only), and the message handler of the host's calls.
 *
 * The prelude is loaded under its own chunk name ({@link PRELUDE_CHUNK}). An error raised inside
 * one of its wrappers (a C function given a bad argument through `string.sub`, say) would otherwise
 * carry the prelude's line and the wrapper's local name; the message handler puts the line of the
 * script that made the call and the name the script called in their place.
 */
import { ORDERED_CONSTRUCTOR } from "./rewrite.js";

/** The chunk name the prelude is loaded under (scripts are loaded as "=<string>", as in Karmada). */
export const PRELUDE_CHUNK = "=karta-prelude";

/** Karmada's message for the base functions it removes. */
export function notSupportedMessage(name: string): string {
  return `call function ${name} is not supported in karmada customized resourceinterpreter.`;
}

/** Karmada's message for the string functions it removes (dump, gsub, rep). */
export function stringNotSupportedMessage(name: string): string {
  return `The Lua function string.${name} is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it.`;
}

/** Every global a script starts with (besides _G). */
const BASE_GLOBALS = [
  "assert", "error", "ipairs", "next", "pairs", "pcall", "xpcall", "print", "select", "tonumber",
  "tostring", "type", "unpack", "require", "_VERSION", "string", "table", "math", "os", ORDERED_CONSTRUCTOR,
];

const NOT_SUPPORTED = [
  "collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile", "loadstring", "rawequal",
  "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy",
];

const ENV_KEYS = [...BASE_GLOBALS, ...NOT_SUPPORTED];

/** The Lua source of the prelude. */
export const PRELUDE = `
local kube = ...
local rawnext, rawget, rawset, rawequal = next, rawget, rawset, rawequal
local setmt, type, error, select, tostring0 = setmetatable, type, error, select, tostring
local mtype, floor, huge = math.type, math.floor, math.huge
local sformat, ssub, sfind = string.format, string.sub, string.find
local tsort, tconcat = table.sort, table.concat
local pcall0 = pcall
local unpack = table.unpack
local getinfo = debug.getinfo

-- gopher-lua keeps positive integer keys below this bound in its array part, iterated in order.
local ARRAY_LIMIT = 67108864

-- Insertion order of the non-array keys of tables the script builds (weak: does not keep tables alive).
local KEYS = setmt({}, { __mode = "k" })
local INDEX = setmt({}, { __mode = "k" })

local function isArrayKey(k)
  if mtype(k) == "integer" then return k >= 1 and k < ARRAY_LIMIT end
  if mtype(k) == "float" and k == floor(k) then return k >= 1 and k < ARRAY_LIMIT end
  return false
end

local ORDERED = {}
ORDERED.__newindex = function(t, k, v)
  rawset(t, k, v)
  if v == nil or isArrayKey(k) then return end
  local idx = INDEX[t]
  if idx == nil then
    idx = {}
    INDEX[t] = idx
    KEYS[t] = {}
  end
  if idx[k] == nil then
    local keys = KEYS[t]
    local n = #keys + 1
    keys[n] = k
    idx[k] = n
  end
end

-- Rewritten constructors call this with the table and its named fields in source order.
local function ordered(t, ...)
  setmt(t, ORDERED)
  if select("#", ...) > 0 then
    local names = { ... }
    local keys, idx, m = {}, {}, 0
    for i = 1, #names do
      local k = names[i]
      if rawget(t, k) ~= nil then
        m = m + 1
        keys[m] = k
        idx[k] = m
      end
    end
    if m > 0 then
      KEYS[t] = keys
      INDEX[t] = idx
    end
  end
  return t
end

local function typeRank(v)
  local ty = type(v)
  if ty == "number" then return 1 elseif ty == "string" then return 2 elseif ty == "boolean" then return 3 end
  return 4
end

local function untrackedLess(a, b)
  local ra, rb = typeRank(a), typeRank(b)
  if ra ~= rb then return ra < rb end
  if ra <= 2 then return a < b end
  if ra == 3 then return (not a) and b end
  return tostring0(a) < tostring0(b)
end

-- The keys of t in gopher-lua's order: array keys ascending, then keys whose insertion was not seen
-- (those of decoded JSON objects, whose order is arbitrary in Karmada too) sorted, then the others
-- in first-insertion order.
local function orderedKeys(t)
  local ints, others = {}, nil
  local ni, sorted, prev = 0, true, 0
  local k = rawnext(t)
  while k ~= nil do
    if isArrayKey(k) then
      ni = ni + 1
      ints[ni] = k
      if k < prev then sorted = false end
      prev = k
    else
      if others == nil then others = {} end
      others[#others + 1] = k
    end
    k = rawnext(t, k)
  end
  if not sorted then tsort(ints) end
  if others == nil then return ints end
  local idx, keys = INDEX[t], KEYS[t]
  local untracked, nu = {}, 0
  for i = 1, #others do
    local key = others[i]
    if idx == nil or idx[key] == nil then
      nu = nu + 1
      untracked[nu] = key
    end
  end
  if nu > 1 then tsort(untracked, untrackedLess) end
  for i = 1, nu do
    ni = ni + 1
    ints[ni] = untracked[i]
  end
  if keys ~= nil then
    for i = 1, #keys do
      local key = keys[i]
      if rawget(t, key) ~= nil then
        ni = ni + 1
        ints[ni] = key
      end
    end
  end
  return ints
end

local function typeName(v)
  return type(v)
end

local function orderedPairs(t)
  if type(t) ~= "table" then
    error("bad argument #1 to pairs (table expected, got " .. typeName(t) .. ")", 2)
  end
  local keys = orderedKeys(t)
  local i = 0
  return function()
    while true do
      i = i + 1
      local key = keys[i]
      if key == nil then return nil end
      local v = rawget(t, key)
      if v ~= nil then return key, v end
    end
  end, t, nil
end

local function orderedNext(t, k)
  if type(t) ~= "table" then
    error("bad argument #1 to next (table expected, got " .. typeName(t) .. ")", 2)
  end
  if k == nil then
    if rawnext(t) == nil then return nil end
    local v1 = rawget(t, 1)
    if v1 ~= nil then return 1, v1 end
  end
  local keys = orderedKeys(t)
  local start = 1
  if k ~= nil then
    start = nil
    for i = 1, #keys do
      if rawequal(keys[i], k) then start = i + 1 break end
    end
    if start == nil then error("invalid key to 'next'", 2) end
  end
  for i = start, #keys do
    local key = keys[i]
    local v = rawget(t, key)
    if v ~= nil then return key, v end
  end
  return nil
end

-- Numbers print as gopher-lua prints them: integral values without a fraction, others in the
-- shortest form that reads back to the same value.
local function numberToString(n)
  if mtype(n) == "integer" then return tostring0(n) end
  if n ~= n then return "NaN" end
  if n == huge then return "+Inf" end
  if n == -huge then return "-Inf" end
  if n == floor(n) and n >= -9.2233720368547758e18 and n < 9.2233720368547758e18 then
    return sformat("%d", n)
  end
  for p = 15, 17 do
    local s = sformat("%." .. p .. "g", n)
    if tonumber(s) == n or p == 17 then return s end
  end
end

local function compatToString(v)
  if type(v) == "number" then return numberToString(v) end
  return tostring0(v)
end

-- string.format with gopher-lua's argument handling: integer conversions truncate fractional
-- numbers, %s prints numbers as tostring does.
local function compatFormat(fmt, ...)
  local n = select("#", ...)
  if n == 0 or type(fmt) ~= "string" then return sformat(fmt, ...) end
  local args = { ... }
  local argi = 0
  local pos = 1
  while true do
    local s, e = sfind(fmt, "%", pos, true)
    if s == nil then break end
    local ns, ne, spec = sfind(fmt, "^[-+ #0]*%d*%.?%d*([%a%%])", e + 1)
    if ns == nil then break end
    pos = ne + 1
    if spec ~= "%" then
      argi = argi + 1
      local a = args[argi]
      if type(a) == "number" then
        if spec == "d" or spec == "i" or spec == "x" or spec == "X" or spec == "o" or spec == "c" then
          if mtype(a) == "float" and a == a and a ~= huge and a ~= -huge then
            args[argi] = a >= 0 and floor(a) or -floor(-a)
          end
        elseif spec == "s" or spec == "q" then
          args[argi] = numberToString(a)
        end
      end
    end
  end
  return sformat(fmt, unpack(args, 1, n))
end

local MAX_STRING_PARAM = 1000000
local function checkLen(s)
  if type(s) == "string" and #s > MAX_STRING_PARAM then
    error(sformat("string length %d exceeds the maximum allowed input string length %d in Karmada lua string lib, please check your lua script.", #s, MAX_STRING_PARAM), 3)
  end
end

-- The safe string library, patched in place so that method calls ("x"):upper() use it too.
local S = string
local function guard1(f)
  return function(s, ...)
    checkLen(s)
    return f(s, ...)
  end
end
local function guard2(f)
  return function(s, p, ...)
    checkLen(s)
    checkLen(p)
    return f(s, p, ...)
  end
end
S.byte = guard1(S.byte)
S.len = guard1(S.len)
S.lower = guard1(S.lower)
S.upper = guard1(S.upper)
S.reverse = guard1(S.reverse)
S.sub = guard1(S.sub)
S.find = guard2(S.find)
S.match = guard2(S.match)
S.gmatch = guard2(S.gmatch)
S.gfind = S.gmatch
S.format = function(fmt, ...)
  checkLen(fmt)
  -- Not a tail call: the frame keeps the name the script called ("format") for error messages.
  return (compatFormat(fmt, ...))
end
for _, name in ipairs({ "dump", "gsub", "rep" }) do
  local message = "The Lua function string." .. name .. " is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it."
  S[name] = function() error(message, 2) end
end
S.pack, S.packsize, S.unpack = nil, nil, nil

-- Lua 5.1 table and math functions gopher-lua provides.
local T = table
T.getn = function(t) return #t end
T.maxn = function(t)
  local m = 0
  local k = rawnext(t)
  while k ~= nil do
    if type(k) == "number" and k > m then m = k end
    k = rawnext(t, k)
  end
  return m
end
T.pack, T.move, T.unpack = nil, nil, nil
-- gopher-lua's insert and remove accept any position (Lua 5.4 raises "position out of bounds").
local tinsert, tremove = table.insert, table.remove
T.insert = function(t, ...)
  if select("#", ...) == 2 then
    local pos, v = ...
    if type(t) == "table" and mtype(pos) ~= nil then
      local len = #t
      if pos < 1 or pos > len + 1 then
        t[pos] = v
        return
      end
    end
  end
  return tinsert(t, ...)
end
T.remove = function(t, ...)
  if select("#", ...) >= 1 and type(t) == "table" then
    local pos = ...
    if mtype(pos) ~= nil then
      local len = #t
      if len == 0 then return nil end
      if pos < 1 then return tremove(t) end
      if pos > len then return nil end
    end
  end
  return tremove(t, ...)
end

local M = math
M.pow = function(x, y) return x ^ y end
M.mod = math.fmod
M.log10 = function(x) return math.log(x, 10) end
M.ldexp = function(m, e) return m * 2.0 ^ e end
M.frexp = function(x)
  if x == 0 or x ~= x or x == huge or x == -huge then return x, 0 end
  local e = floor(math.log(math.abs(x), 2)) + 1
  local m = x / 2.0 ^ e
  if math.abs(m) >= 1 then m = m / 2; e = e + 1 end
  if math.abs(m) < 0.5 then m = m * 2; e = e - 1 end
  return m, e
end
M.cosh = function(x) return (math.exp(x) + math.exp(-x)) / 2 end
M.sinh = function(x) return (math.exp(x) - math.exp(-x)) / 2 end
M.tanh = function(x) local a, b = math.exp(x), math.exp(-x) return (a - b) / (a + b) end
M.atan2 = function(y, x) return math.atan(y, x) end
M.tointeger, M.ult, M.type, M.maxinteger, M.mininteger = nil, nil, nil, nil, nil

-- os.date and os.time as Karmada's safe os library implements them (a strftime subset on Go's
-- time layouts; unknown conversions are kept as written, never an error).
local osdate, ostime = os.date, os.time
local DAYS = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday" }
local MONTHS = { "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December" }
local function two(n) return sformat("%02d", n) end
local function hour12(h) h = h % 12 if h == 0 then h = 12 end return h end
local DATE_FLAGS = {
  a = function() return "mon" end, -- Karmada maps %a to the Go layout "mon", which Go prints as is
  A = function(t) return DAYS[t.wday] end,
  b = function(t) return ssub(MONTHS[t.month], 1, 3) end,
  B = function(t) return MONTHS[t.month] end,
  c = function(t, utc) return two(t.day) .. " " .. ssub(MONTHS[t.month], 1, 3) .. " " .. two(t.year % 100) .. " " .. two(t.hour) .. ":" .. two(t.min) .. " " .. (utc and "UTC" or osdate("%Z")) end,
  d = function(t) return two(t.day) end,
  F = function(t) return sformat("%04d-%02d-%02d", t.year, t.month, t.day) end,
  H = function(t) return two(t.hour) end,
  I = function(t) return two(hour12(t.hour)) end,
  m = function(t) return two(t.month) end,
  M = function(t) return two(t.min) end,
  p = function(t) return t.hour < 12 and "AM" or "PM" end,
  P = function(t) return t.hour < 12 and "am" or "pm" end,
  S = function(t) return two(t.sec) end,
  x = function(t) return two(t.hour) .. "/" .. two(t.min) .. "/" .. two(t.sec) end,
  X = function(t) return two(t.hour) .. ":" .. two(t.min) .. ":" .. two(t.sec) end,
  y = function(t) return two(t.year % 100) end,
  Y = function(t) return sformat("%d", t.year) end,
  z = function(t, utc) return utc and "+0000" or osdate("%z") end,
  Z = function(t, utc) return utc and "UTC" or osdate("%Z") end,
  w = function(t) return sformat("%d", t.wday - 1) end,
}
local function compatDate(fmt, when)
  local utc = false
  if fmt == nil then fmt = "%c" end
  if type(fmt) ~= "string" then error("bad argument #1 to date (string expected, got " .. type(fmt) .. ")", 2) end
  if ssub(fmt, 1, 1) == "!" then
    utc = true
    fmt = ssub(fmt, 2)
  end
  if when ~= nil then utc = false end
  local t = osdate(utc and "!*t" or "*t", when)
  if ssub(fmt, 1, 2) == "*t" then
    return { year = t.year, month = t.month, day = t.day, hour = t.hour, min = t.min, sec = t.sec, wday = t.wday, yday = 0, isdst = false }
  end
  local out, i, n = {}, 1, #fmt
  while i <= n do
    local c = ssub(fmt, i, i)
    if c == "%" and i < n then
      local f = ssub(fmt, i + 1, i + 1)
      if f == "%" then
        out[#out + 1] = "%"
      else
        local conv = DATE_FLAGS[f]
        out[#out + 1] = conv and conv(t, utc) or ("%" .. f)
      end
      i = i + 2
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  return tconcat(out)
end
local function compatTime(t)
  if t == nil then return ostime() end
  if type(t) ~= "table" then error("bad argument #1 to time (table expected, got " .. type(t) .. ")", 2) end
  local function field(k, default)
    local v = rawget(t, k)
    if type(v) == "number" then return floor(v) end
    return default
  end
  return ostime({ year = field("year", -1), month = field("month", -1), day = field("day", -1), hour = field("hour", 12), min = field("min", 0), sec = field("sec", 0) })
end
local OS = { time = compatTime, date = compatDate }

local function require(name)
  if name == "kube" then return kube end
  error("module " .. tostring0(name) .. " not found:\\n\\tno field package.preload['" .. tostring0(name) .. "']", 2)
end

local base = {
  assert = assert, error = error, ipairs = ipairs, next = orderedNext, pairs = orderedPairs,
  pcall = pcall0, xpcall = xpcall, print = function() end, select = select, tonumber = tonumber,
  tostring = compatToString, type = type, unpack = unpack, require = require, _VERSION = "Lua 5.1",
  string = S, table = T, math = M, os = OS,
  ${ORDERED_CONSTRUCTOR} = ordered,
}
for _, name in ipairs({ ${NOT_SUPPORTED.map((n) => `"${n}"`).join(", ")} }) do
  local message = "call function " .. name .. " is not supported in karmada customized resourceinterpreter."
  base[name] = function() error(message, 2) end
end
local LIBS = { string = true, table = true, math = true, os = true }

-- A script's base: its own copies of the library tables, so that one script changing string.x
-- does not reach another.
local function newScriptBase()
  local b = {}
  for k, v in rawnext, base do
    if LIBS[k] then
      local copy = {}
      for fk, fv in rawnext, v do copy[fk] = fv end
      b[k] = copy
    else
      b[k] = v
    end
  end
  return b
end

-- A fresh global table for one call of a script: the base's entries copied in (not inherited), so
-- that assigning nil to a global such as 'error' removes it, as in gopher-lua's single global table.
-- One presized constructor: this runs on every call.
local function newEnv(b)
  local env = { ${ENV_KEYS.map((k) => `${k} = b.${k}`).join(", ")} }
  env._G = env
  return env
end

-- The message handler of the host's calls: an error raised inside the prelude gets the position
-- of the script line that called into the prelude, and the name that line called, instead of the
-- prelude's own line and local names. Other errors pass unchanged.
local PRELUDE_POSITION = "^${PRELUDE_CHUNK.slice(1).replace(/-/g, "%-")}:%d+: "
local function relocate(msg)
  if type(msg) ~= "string" then return msg end
  local _, e = sfind(msg, PRELUDE_POSITION)
  if e == nil then return msg end
  msg = ssub(msg, e + 1)
  local called
  local level = 2
  while true do
    local info = getinfo(level, "Sln")
    if info == nil then return msg end
    if info.source == "=<string>" then
      local _, ne, head = sfind(msg, "^(bad argument #%d+ to ')[^']*'")
      if ne ~= nil and called ~= nil then msg = head .. called .. "'" .. ssub(msg, ne + 1) end
      if info.currentline > 0 then return "<string>:" .. info.currentline .. ": " .. msg end
      return msg
    end
    called = info.name
    level = level + 1
  end
end

-- Tables the host creates from JSON get the ordering metatable too.
return ORDERED, newScriptBase, newEnv, collectgarbage, relocate
`;

/** The names of the base functions that raise "not supported". */
export const NOT_SUPPORTED_FUNCTIONS: readonly string[] = NOT_SUPPORTED;
