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
import { CONCAT_FUNCTION, FOR_FUNCTION, PASS_FUNCTION } from "./lua51.js";
import { ORDERED_CONSTRUCTOR } from "./rewrite.js";
import { PATTERN_MATCHER } from "./patterns.js";

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
  "tostring", "type", "unpack", "require", "package", "_VERSION", "string", "table", "math", "os", ORDERED_CONSTRUCTOR,
  CONCAT_FUNCTION, PASS_FUNCTION, FOR_FUNCTION,
];

const NOT_SUPPORTED = [
  "collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile", "loadstring", "rawequal",
  "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy",
];

const ENV_KEYS = [...BASE_GLOBALS, ...NOT_SUPPORTED];

/** The Lua source of the prelude. */
export const PRELUDE = `
local kube, hostNow, hostZone, hostCase, hostUserdata = ...
local rawnext, rawget, rawset, rawequal = next, rawget, rawset, rawequal
local setmt, type, error, select, tostring0 = setmetatable, type, error, select, tostring
local mtype, floor, huge, maxint, tointeger = math.type, math.floor, math.huge, math.maxinteger, math.tointeger
local sformat, ssub, sfind, smatch, sgsub0, srep = string.format, string.sub, string.find, string.match, string.gsub, string.rep
local sbyte0, schar0, slower0 = string.byte, string.char, string.lower
local tonumber0 = tonumber
local tsort, tconcat = table.sort, table.concat
local pcall0 = pcall
local unpack = table.unpack
local getinfo = debug.getinfo

-- An error a library function raises, placed at the line of the script that called the library (a
-- pcall in the script sees it there too), as gopher-lua places a Go function's errors.
local function scriptLevel()
  local level = 2
  while true do
    local info = getinfo(level, "S")
    if info == nil or info.source == "=<string>" then return level end
    level = level + 1
  end
end
local function raiseAtScript(msg)
  error(msg, scriptLevel() - 1)
end
-- The library functions that call a function as Go code does (pcall, xpcall): what they call
-- directly has no name in gopher-lua ("(anonymous)"), its caller being no Lua function.
local FROM_HOST = setmt({}, { __mode = "k" })
-- The name gopher-lua gives the library function at level (of the caller) that the script called:
-- the name of the call site, "?" where it has none (t[1](...)), "(anonymous)" when pcall or xpcall
-- called it.
local function libraryName(level)
  local info = getinfo(level + 1, "nf")
  if info == nil then return "?" end
  if FROM_HOST[info.func] then
    local inner = getinfo(level, "S")
    if inner ~= nil and inner.what == "C" then return "(anonymous)" end
  end
  return info.name or "?"
end
-- The name the script called the library function by (gopher-lua's argument errors name it so).
local function calledName()
  return (libraryName(scriptLevel() - 2))
end
-- gopher-lua's ArgError: the argument's number, the name the script called, the complaint.
local function argError(i, detail)
  raiseAtScript("bad argument #" .. i .. " to " .. calledName() .. " (" .. detail .. ")")
end

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

-- gopher-lua's array part is a slice that holds every positive integer key below ARRAY_LIMIT ever
-- set (nils included, as a key set past its end pads it). Its length, found from the keys the first
-- time it is asked and then kept by __newindex and table.remove (weak: does not keep tables alive),
-- decides # (the last non-nil slot), table.insert and table.remove, as in gopher-lua.
local ALEN = setmt({}, { __mode = "k" })
local function arrayLength(t)
  local n = ALEN[t]
  if n == nil then
    n = 0
    local k = rawnext(t)
    while k ~= nil do
      if isArrayKey(k) and k > n then n = k end
      k = rawnext(t, k)
    end
    n = tointeger(n)
    ALEN[t] = n
  end
  return n
end
-- gopher-lua's LTable.Len: the last non-nil slot of the array part (Lua 5.4's # is any border).
local function tableLen(t)
  local n = arrayLength(t)
  while n > 0 and rawget(t, n) == nil do n = n - 1 end
  return n
end
ORDERED.__len = tableLen

-- Raises an error of the VM's own operations (indexing, arithmetic, calls...) at the line of the
-- innermost script function running, as gopher-lua positions them (also when a library function,
-- such as table.sort's comparison, performed the operation).
local function vmError(msg)
  local level = 3
  while true do
    local info = getinfo(level, "Sl")
    if info == nil then error(msg, 0) end
    if info.source == "=<string>" then
      if info.currentline > 0 then error("<string>:" .. info.currentline .. ": " .. msg, 0) end
      error(msg, 0)
    end
    level = level + 1
  end
end
ORDERED.__newindex = function(t, k, v)
  if k == nil then vmError("table index is nil") end
  if k ~= k then vmError("table index is NaN") end
  rawset(t, k, v)
  if isArrayKey(k) then
    local n = ALEN[t]
    if n ~= nil and k > n then ALEN[t] = tointeger(k) end
    return
  end
  if v == nil then return end
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
  -- The array part as the constructor left it, before the script sets a slot to nil.
  if rawnext(t) ~= nil then arrayLength(t) end
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
    argError(1, "table expected, got " .. typeName(t))
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
    argError(1, "table expected, got " .. typeName(t))
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
    -- gopher-lua's Next: a key the table does not hold ends the iteration.
    if start == nil then return nil end
  end
  for i = start, #keys do
    local key = keys[i]
    local v = rawget(t, key)
    if v ~= nil then return key, v end
  end
  return nil
end

-- Reads a string as gopher-lua's arithmetic does (defined with the number syntax below).
local arithNumber

-- Numbers print as gopher-lua prints them: integral values (within int64) without a fraction,
-- others as Go's %v does: the shortest digits that read back to the same value, in exponent form
-- below 1e-4 and from 1e6 up (1234567.5 is "1.2345675e+06").
-- The smallest normal float: below it, fewer than 15 digits can tell numbers apart.
local SUBNORMAL = 2.2250738585072014e-308
local function numberToString(n)
  if mtype(n) == "integer" then return tostring0(n) end
  if n ~= n then return "NaN" end
  if n == huge then return "+Inf" end
  if n == -huge then return "-Inf" end
  if n == floor(n) and n >= -9.2233720368547758e18 and n < 9.2233720368547758e18 then
    return sformat("%d", n)
  end
  local s
  -- A subnormal number has fewer digits of its own: its shortest form may be much shorter.
  for p = (n > -SUBNORMAL and n < SUBNORMAL) and 1 or 15, 17 do
    s = sformat("%." .. p .. "g", n)
    if tonumber0(s) == n then break end
  end
  if sfind(s, "e", 1, true) then return s end
  -- C chose the plain form (its threshold is the precision); Go switches to the exponent at 1e6.
  local sign, int, frac = smatch(s, "^(-?)(%d+)%.?(%d*)$")
  if int == nil or #int < 7 then return s end
  local digits = sgsub0(int .. frac, "0+$", "")
  local mantissa = ssub(digits, 1, 1)
  if #digits > 1 then mantissa = mantissa .. "." .. ssub(digits, 2) end
  return sformat("%s%se+%02d", sign, mantissa, #int - 1)
end

-- An integer argument as gopher-lua's CheckInt reads a number: truncated toward zero (Lua 5.4
-- rejects a number with a fraction there).
local function trunc(x)
  if type(x) == "number" and x ~= floor(x) and x == x and x ~= huge and x ~= -huge then
    return x >= 0 and floor(x) or -floor(-x)
  end
  return x
end

-- Passes a call's results on: "return passAll(f(...))" keeps the caller's frame during f, so that
-- errors name the function the script called, where "return f(...)" would replace it.
local function passAll(...)
  return ...
end

local function compatToString(...)
  if select("#", ...) == 0 then argError(1, "value expected") end
  local v = ...
  if type(v) == "number" then return numberToString(v) end
  return tostring0(v)
end

-- Go's strconv.Quote, which gopher-lua's %q is: escapes for the control characters, quote and
-- backslash (a backslash, x and two hex digits for the other control bytes); other bytes as they are.
local BACKSLASH = string.char(92)
local QUOTE_ESCAPES = { [7] = "a", [8] = "b", [9] = "t", [10] = "n", [11] = "v", [12] = "f", [13] = "r", [34] = '"', [92] = BACKSLASH }
local function goQuote(str)
  local out = { '"' }
  for i = 1, #str do
    local b = string.byte(str, i)
    local e = QUOTE_ESCAPES[b]
    if e ~= nil then
      out[#out + 1] = BACKSLASH .. e
    elseif b < 32 or b == 127 then
      out[#out + 1] = BACKSLASH .. sformat("x%02x", b)
    else
      out[#out + 1] = string.char(b)
    end
  end
  out[#out + 1] = '"'
  return tconcat(out)
end

-- Width and precision as Go's fmt applies them where C's differ: a string's are counted in
-- characters (UTF-8 sequences), not bytes, and a width may pass 99. Returns the padded text, or nil
-- when C's formatting of the verb is the same.
local function runeCount(str)
  local _, n = sgsub0(str, "[^\\128-\\191]", "")
  return n
end
local function runePrefix(str, n)
  local count, i = 0, 1
  while i <= #str do
    local b = string.byte(str, i)
    if b < 128 or b >= 192 then
      if count == n then return ssub(str, 1, i - 1) end
      count = count + 1
    end
    i = i + 1
  end
  return str
end
local function goPad(flags, verb, arg)
  local fl, width, prec = smatch(flags, "^([-+ #0]*)(%d*)%.?(%d*)$")
  if fl == nil then return nil end
  width = tonumber0(width)
  local hasPrec = sfind(flags, ".", 1, true) ~= nil
  local body
  if verb == "s" and type(arg) == "string" then
    if width == nil and not hasPrec then return nil end
    body = arg
    if hasPrec then body = runePrefix(body, tonumber0(prec) or 0) end
  elseif width ~= nil and width > 99 then
    body = sformat("%" .. sgsub0(fl, "[-0]", "") .. (hasPrec and ("." .. prec) or "") .. verb, arg)
  else
    return nil
  end
  local pad = (width or 0) - runeCount(body)
  if pad <= 0 then return body end
  if sfind(fl, "-", 1, true) then return body .. srep(" ", pad) end
  if sfind(fl, "0", 1, true) and verb ~= "s" then
    local sign, digits = smatch(body, "^([+ -]?)(.*)$")
    return sign .. srep("0", pad) .. digits
  end
  return srep(" ", pad) .. body
end

-- Go's int(float64) on amd64, which gopher-lua's CheckInt and OptInt are: truncation toward zero;
-- NaN and values beyond int64 become its smallest value.
local MININT = math.mininteger
local function goInt(v)
  if v ~= v or v >= 9.2233720368547758e18 or v < -9.2233720368547758e18 then return MININT end
  return tointeger(v >= 0 and floor(v) or -floor(-v))
end
-- gopher-lua's OptInt (CheckInt without a default): a number, never a string that reads as one.
local function intArgument(v, i, default)
  if v == nil and default ~= nil then return default end
  if type(v) ~= "number" then argError(i, "number expected, got " .. typeName(v)) end
  return goInt(v)
end
-- A number's text with its sign, padded as Go's fmt pads it: the flags '+' and ' ' (a sign for a
-- number that has none), '-' (left-justified), '0' (zeros after the sign) and a width.
local function goPadNumber(sign, body, flags)
  local fl, width = smatch(flags, "^([-+ #0]*)(%d*)$")
  if sign == "" then
    if sfind(fl, "+", 1, true) then sign = "+" elseif sfind(fl, " ", 1, true) then sign = " " end
  end
  local pad = (tonumber0(width) or 0) - #sign - #body
  if pad <= 0 then return sign .. body end
  if sfind(fl, "-", 1, true) then return sign .. body .. srep(" ", pad) end
  if sfind(fl, "0", 1, true) then return sign .. srep("0", pad) .. body end
  return srep(" ", pad) .. sign .. body
end

-- Go's %g without a precision (fmt with strconv's shortest digits): the fewest digits that read back
-- to the number, in exponent form below 1e-4 and from 1e6 up (at least two exponent digits); flags
-- '+', ' ', '-', '0' and a width as Go applies them. Finite numbers only.
local function goShortestG(n, flags, upper)
  local s
  for p = (n > -SUBNORMAL and n < SUBNORMAL) and 0 or 14, 16 do
    s = sformat("%." .. p .. "e", n)
    if tonumber0(s) == n then break end
  end
  local sign, d1, rest, ex = smatch(s, "^(-?)(%d)%.?(%d*)e([-+]%d+)$")
  local digits = sgsub0(d1 .. rest, "0+$", "")
  local exp = tonumber0(ex)
  local body
  if digits == "" then
    body = "0"
  elseif exp < -4 or exp >= 6 then
    body = ssub(digits, 1, 1) .. (#digits > 1 and ("." .. ssub(digits, 2)) or "") .. sformat("e%s%02d", exp < 0 and "-" or "+", exp < 0 and -exp or exp)
  elseif exp < 0 then
    body = "0." .. srep("0", -exp - 1) .. digits
  elseif #digits <= exp + 1 then
    body = digits .. srep("0", exp + 1 - #digits)
  else
    body = ssub(digits, 1, exp + 1) .. "." .. ssub(digits, exp + 2)
  end
  if upper then body = string.upper(body) end
  return goPadNumber(sign, body, flags)
end

-- string.format with gopher-lua's argument handling (it formats with Go's fmt): integer conversions
-- truncate fractional numbers, a string that is not a number prints as 0 for %d, %s prints numbers
-- as tostring does, %q quotes as Go does, %x of a string is its bytes in hex, and Go's %v and %t work.
local function compatFormat(fmt, ...)
  local n = select("#", ...)
  if type(fmt) ~= "string" or (n == 0 and not sfind(fmt, "%", 1, true)) then return sformat(fmt, ...) end
  local args = { ... }
  local argi = 0
  local pos = 1
  local pieces, changed = {}, false
  while true do
    local s, e = sfind(fmt, "%", pos, true)
    if s == nil then break end
    local ns, ne, flags, spec = sfind(fmt, "^([-+ #0]*%d*%.?%d*)([%a%%])", e + 1)
    if ns == nil then break end
    pieces[#pieces + 1] = ssub(fmt, pos, s - 1) .. "%"
    local verb = spec
    pos = ne + 1
    if spec ~= "%" and argi >= n then
      -- Go's fmt marks a verb without an argument; Lua 5.4 would raise "no value".
      verb = "%!" .. spec .. "(MISSING)"
    elseif spec ~= "%" then
      argi = argi + 1
      local a = args[argi]
      local ta = type(a)
      if ta == "number" then
        if spec == "d" or spec == "i" or spec == "x" or spec == "X" or spec == "o" or spec == "c" then
          -- Go's int64(n): truncated; NaN, the infinities and numbers beyond int64 are its smallest value.
          local v = goInt(a)
          args[argi] = v
          if spec == "i" then verb = "d" end
          if v < 0 and spec ~= "d" and spec ~= "i" and spec ~= "c" and not sfind(flags, "[.#]") then
            -- Go prints a negative number in hex or octal with a minus sign, not in two's complement.
            local magnitude = v == MININT and (spec == "o" and "1000000000000000000000" or "8000000000000000") or sformat("%" .. spec, -v)
            args[argi] = goPadNumber("-", magnitude, flags)
            flags, verb = "", "s"
          end
        elseif spec == "s" or spec == "v" then
          args[argi] = numberToString(a)
          verb = "s"
        elseif (spec == "e" or spec == "E" or spec == "f" or spec == "F" or spec == "g" or spec == "G") and (a ~= a or a == huge or a == -huge) then
          -- Go's +Inf, -Inf and NaN: '+' (or ' ') signs them, padded with spaces only, no precision.
          local fl, width = smatch(flags, "^([-+ #0]*)(%d*)")
          local sign = ""
          if a == -huge then sign = "-"
          elseif sfind(fl, "+", 1, true) or (a == huge and not sfind(fl, " ", 1, true)) then sign = "+"
          elseif sfind(fl, " ", 1, true) then sign = " " end
          args[argi] = goPadNumber(sign, a == a and "Inf" or "NaN", sgsub0(fl, "[0+ ]", "") .. width)
          flags, verb = "", "s"
        elseif (spec == "g" or spec == "G") and not sfind(flags, "[.#]") and a == a and a ~= huge and a ~= -huge then
          args[argi] = goShortestG(a, flags, spec == "G")
          flags, verb = "", "s"
        elseif spec == "q" then
          args[argi] = goQuote(numberToString(a))
          verb = "s"
        end
      elseif ta == "string" then
        if spec == "d" or spec == "i" then
          -- gopher-lua prints a string that does not read as a number as 0.
          local v = arithNumber(a)
          if v == nil then args[argi] = 0 elseif v == floor(v) then args[argi] = v end
          verb = "d"
        elseif spec == "q" then
          args[argi] = goQuote(a)
          verb = "s"
        elseif spec == "x" or spec == "X" then
          local hex = sgsub0(a, ".", function(c) return sformat("%02x", string.byte(c)) end)
          args[argi] = spec == "X" and string.upper(hex) or hex
          verb = "s"
        elseif spec == "v" then
          verb = "s"
        end
      elseif ta == "boolean" and (spec == "v" or spec == "t") then
        args[argi] = tostring0(a)
        verb = "s"
      end
    end
    if ssub(verb, 1, 1) ~= "%" and spec ~= "%" then
      local padded = goPad(flags, verb, args[argi])
      if padded ~= nil then
        args[argi] = padded
        flags, verb, changed = "", "s", true
      end
    end
    if verb ~= spec then changed = true end
    if ssub(verb, 1, 1) == "%" then
      -- A literal: the "%" before it is already in pieces, so it reads "%%!d(MISSING)".
      pieces[#pieces + 1] = verb
    else
      pieces[#pieces + 1] = flags .. verb
    end
  end
  if changed then
    pieces[#pieces + 1] = ssub(fmt, pos)
    fmt = tconcat(pieces)
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
-- gopher-lua's CheckString takes a number as the string it prints as ("5", not "5.0").
local function guard1(f)
  return function(s, i, j, ...)
    if type(s) == "number" then s = numberToString(s) end
    checkLen(s)
    return f(s, trunc(i), trunc(j), ...)
  end
end
local function guard2(f)
  return function(s, p, init, ...)
    if type(s) == "number" then s = numberToString(s) end
    if type(p) == "number" then p = numberToString(p) end
    checkLen(s)
    checkLen(p)
    -- Not a tail call: the frame keeps the name the script called, for errors and tracebacks.
    return passAll(f(s, p, trunc(init), ...))
  end
end
-- gopher-lua's string.char: each argument a number (CheckInt truncates it), kept to its low byte.
local schar = S.char
S.char = function(...)
  local n = select("#", ...)
  local bytes = {}
  for i = 1, n do
    local v = select(i, ...)
    if type(v) ~= "number" then argError(i, "number expected, got " .. type(v)) end
    if v ~= v or v == huge or v == -huge then v = 0 end
    bytes[i] = trunc(v) % 256
  end
  return schar(unpack(bytes, 1, n))
end
-- gopher-lua's CheckString: a string, or a number as the string it prints as.
local function stringArgument(v)
  if type(v) == "number" then return numberToString(v) end
  if type(v) ~= "string" then argError(1, "string expected, got " .. typeName(v)) end
  checkLen(v)
  return v
end
-- gopher-lua's string.byte: from the start (default 1) to the end (default -1, the last byte), on
-- Go ints; with exactly two arguments, the one byte at the start.
S.byte = function(...)
  local nargs, str, i, j = select("#", ...), ...
  str = stringArgument(str)
  local l = #str
  local start = intArgument(i, 2, 1) - 1
  local e = intArgument(j, 3, -1)
  if start < 0 then start = l + start + 1 end
  if e < 0 then e = l + e + 1 end
  if nargs == 2 then
    if start < 0 or start >= l then return end
    return sbyte0(str, start + 1)
  end
  if start < 0 then start = 0 end
  if e > l then e = l end
  if e < 0 or e <= start or start >= l then return end
  return sbyte0(str, start + 1, e)
end
-- gopher-lua's luaIndex2StringIndex: a Lua index as an offset into the string (Go ints: the start
-- 1 below the smallest int64 wraps to the largest, as Lua 5.4's integers wrap).
local function stringIndex(l, i, isStart)
  if isStart and i ~= 0 then i = i - 1 end
  if i < 0 then i = l + i + 1 end
  if i < 0 then i = 0 end
  if not isStart and i > l then i = l end
  return i
end
S.sub = function(str, i, j)
  str = stringArgument(str)
  local l = #str
  local start = stringIndex(l, intArgument(i, 2), true)
  local e = stringIndex(l, intArgument(j, 3, -1), false)
  if start >= l or e < start then return "" end
  return (ssub(str, start + 1, e))
end
S.len = guard1(S.len)
-- gopher-lua's upper and lower are Go's strings.ToUpper and ToLower: Unicode's simple case mapping
-- (C's change ASCII letters only). Not tail calls: the frame keeps the name the script called.
local function caseChanger(c, upper)
  return function(s)
    if type(s) == "number" then s = numberToString(s) end
    checkLen(s)
    if type(s) == "string" and sfind(s, "[\\128-\\255]") then return (hostCase(s, upper)) end
    local r = c(s)
    return r
  end
end
S.lower = caseChanger(S.lower, false)
S.upper = caseChanger(S.upper, true)
S.reverse = guard1(S.reverse)
-- find, match and gmatch as gopher-lua's: patterns read and matched by its matcher (patternFind),
-- arguments checked as its CheckString and OptInt check them (a string is no number there).
${PATTERN_MATCHER}
local function checkString(v, i)
  if type(v) ~= "string" then argError(i, "string expected, got " .. type(v)) end
end
local function optInt(v, i, default)
  if v == nil then return default end
  if type(v) ~= "number" then argError(i, "number expected, got " .. type(v)) end
  return goInt(v)
end
-- A match's captures from the first one on: a position capture as a number, others as text.
local function captured(s, caps)
  local out, k = {}, 0
  for i = 2, caps.n - 1, 2 do
    k = k + 1
    local v = caps[i]
    if v % 2 == 1 then out[k] = (v // 2) + 0.0 else out[k] = ssub(s, v // 2 + 1, caps[i + 1] // 2) end
  end
  return unpack(out, 1, k)
end
local plainFind = S.find
-- Its find answers 1, 0 for an empty pattern wherever the search starts; only a fourth argument
-- (and no fifth) asks for a plain search.
S.find = guard2(function(s, p, init, ...)
  checkString(s, 1)
  checkString(p, 2)
  if p == "" then return 1.0, 0.0 end
  local start = optInt(init, 3, 1)
  if start ~= 0 then start = start - 1 end
  if start < 0 then start = #s + start + 1 end
  if start < 0 then start = 0 end
  if select("#", ...) == 1 and (...) then
    -- Go slices the text from the start: past its end, that is Go's run-time error.
    if start > #s then error("runtime error: slice bounds out of range [" .. start .. ":" .. #s .. "]", 0) end
    local a, b = plainFind(s, p, start + 1, true)
    if a == nil then return nil end
    return a + 0.0, b + 0.0
  end
  local found = patternFind(p, s, start, 1)
  if #found == 0 then return nil end
  local caps = found[1]
  return (caps[0] // 2) + 1.0, (caps[1] // 2) + 0.0, captured(s, caps)
end)
-- Its match returns no value at all (not nil) when nothing matches.
S.match = guard2(function(s, p, init)
  checkString(s, 1)
  checkString(p, 2)
  local offset = optInt(init, 3, 1)
  if offset < 0 then offset = #s + offset + 1 end
  offset = offset - 1
  if offset < 0 then offset = 0 end
  local found = patternFind(p, s, offset, 1)
  if #found == 0 then return end
  local caps = found[1]
  if caps.n == 2 then return ssub(s, caps[0] // 2 + 1, caps[1] // 2) end
  return captured(s, caps)
end)
-- Its gmatch finds every match when called, and returns an iterator and the state (a userdata) the
-- loop passes the iterator, which refuses to run on anything else.
S.gmatch = guard2(function(s, p)
  checkString(s, 1)
  checkString(p, 2)
  local found = patternFind(p, s, 0, -1)
  local state = hostUserdata()
  local i = 0
  return function(st)
    if st ~= state then
      argError(1, "userdata expected, got " .. type(st))
    end
    i = i + 1
    local caps = found[i]
    if caps == nil then return end
    if caps.n == 2 then return ssub(s, caps[0] // 2 + 1, caps[1] // 2) end
    return captured(s, caps)
  end, state
end)
S.gfind = S.gmatch
S.format = function(fmt, ...)
  if type(fmt) == "number" then fmt = numberToString(fmt) end
  checkLen(fmt)
  -- Not a tail call: the frame keeps the name the script called ("format") for error messages.
  return (compatFormat(fmt, ...))
end
for _, name in ipairs({ "dump", "gsub", "rep" }) do
  local message = "The Lua function string." .. name .. " is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it."
  S[name] = function() raiseAtScript(message) end
end
S.pack, S.packsize, S.unpack = nil, nil, nil

-- Lua 5.1 table and math functions gopher-lua provides.
local T = table
T.pack, T.move, T.unpack = nil, nil, nil
-- (insert, remove, sort, getn and maxn check their table below, with tableArgument.)
T.getn = tableLen
-- gopher-lua's maxn is its Len: the last non-nil slot of the array part.
T.maxn = tableLen
-- gopher-lua's table.concat: numbers print as gopher-lua prints them; its bounds handling and message;
-- one element is returned as it is (a number stays a number), as its stringConcat returns one value.
T.concat = function(t, sep, ...)
  if type(t) ~= "table" then argError(1, "table expected, got " .. type(t)) end
  -- The separator must be a string (gopher-lua's OptString does not take numbers).
  if sep ~= nil and type(sep) ~= "string" then argError(2, "string expected, got " .. type(sep)) end
  sep = sep or ""
  local n = tableLen(t)
  local i, j = ...
  i = intArgument(i, 3, 1)
  j = intArgument(j, 4, n)
  if select("#", ...) == 1 and (i > n or i < 1) then return "" end
  if i > n then i = n end
  if i < 1 then i = 1 end
  if j > n then j = n end
  if i > j then return "" end
  local parts, m = {}, 0
  for k = i, j do
    local v = rawget(t, k)
    local tv = type(v)
    if tv == "number" then
      if i == j then return v end
      v = numberToString(v)
    elseif tv ~= "string" then
      error(sformat("invalid value (%s) at index %d in table for concat", tv, k), 2)
    end
    m = m + 1
    parts[m] = v
  end
  return tconcat(parts, sep)
end
-- A slot of the array part set by the table library: the array part grows as __newindex grows it
-- (a table the prelude made has no such metatable).
local function setSlot(t, k, v)
  t[k] = v
  if isArrayKey(k) then
    local n = ALEN[t]
    if n ~= nil and k > n then ALEN[t] = tointeger(k) end
  end
end
-- gopher-lua's table.insert: with a value only, LTable.Append (after the last non-nil slot; a nil is
-- not appended); with a position, LTable.Insert (past the array part or below 1, a plain store; else
-- the slots from the position on move up by one, nils too). Arguments after the third are ignored.
T.insert = function(t, ...)
  local nargs = select("#", ...)
  if nargs == 0 then error("wrong number of arguments", 2) end
  if nargs == 1 then
    local v = ...
    if v ~= nil then setSlot(t, tableLen(t) + 1, v) end
    return
  end
  local pos, v = ...
  pos = intArgument(pos, 2)
  local len = arrayLength(t)
  if pos > len or pos <= 0 then
    setSlot(t, pos, v)
    return
  end
  for k = len, pos, -1 do setSlot(t, k + 1, rawget(t, k)) end
  t[pos] = v
end
-- gopher-lua's table.sort is Go's sort.Sort (pdqsort, not stable) over the array part, nil slots
-- included, with the comparator (or <) as Less: equal elements end up where Go puts them, and an
-- inconsistent comparator never raises. A port of Go's sort/zsortinterface.go on 0-based slots.
local function goSort(t, lessFn)
  local function less(i, j)
    if lessFn then return not not lessFn(rawget(t, i + 1), rawget(t, j + 1)) end
    return rawget(t, i + 1) < rawget(t, j + 1)
  end
  local function swap(i, j)
    local vi, vj = rawget(t, i + 1), rawget(t, j + 1)
    rawset(t, i + 1, vj)
    rawset(t, j + 1, vi)
  end
  local function bitsLen(x)
    local n = 0
    while x > 0 do n, x = n + 1, x >> 1 end
    return n
  end
  local function insertionSort(a, b)
    for i = a + 1, b - 1 do
      local j = i
      while j > a and less(j, j - 1) do swap(j, j - 1) j = j - 1 end
    end
  end
  local function siftDown(lo, hi, first)
    local root = lo
    while true do
      local child = 2 * root + 1
      if child >= hi then return end
      if child + 1 < hi and less(first + child, first + child + 1) then child = child + 1 end
      if not less(first + root, first + child) then return end
      swap(first + root, first + child)
      root = child
    end
  end
  local function heapSort(a, b)
    local first, hi = a, b - a
    for i = (hi - 1) // 2, 0, -1 do siftDown(i, hi, first) end
    for i = hi - 1, 0, -1 do
      swap(first, first + i)
      siftDown(0, i, first)
    end
  end
  local function median(a, b, c, swaps)
    if less(b, a) then swaps = swaps + 1 a, b = b, a end
    if less(c, b) then swaps = swaps + 1 b, c = c, b end
    if less(b, a) then swaps = swaps + 1 a, b = b, a end
    return b, swaps
  end
  local function choosePivot(a, b)
    local l = b - a
    local swaps = 0
    local i, j, k = a + l // 4 * 1, a + l // 4 * 2, a + l // 4 * 3
    if l >= 8 then
      if l >= 50 then
        i, swaps = median(i - 1, i, i + 1, swaps)
        j, swaps = median(j - 1, j, j + 1, swaps)
        k, swaps = median(k - 1, k, k + 1, swaps)
      end
      j, swaps = median(i, j, k, swaps)
    end
    if swaps == 0 then return j, "increasing" elseif swaps == 12 then return j, "decreasing" end
    return j, "unknown"
  end
  local function reverseRange(a, b)
    local i, j = a, b - 1
    while i < j do swap(i, j) i, j = i + 1, j - 1 end
  end
  local function partialInsertionSort(a, b)
    local i = a + 1
    for _ = 1, 5 do
      while i < b and not less(i, i - 1) do i = i + 1 end
      if i == b then return true end
      if b - a < 50 then return false end
      swap(i, i - 1)
      if i - a >= 2 then
        for j = i - 1, 1, -1 do
          if not less(j, j - 1) then break end
          swap(j, j - 1)
        end
      end
      if b - i >= 2 then
        for j = i + 1, b - 1 do
          if not less(j, j - 1) then break end
          swap(j, j - 1)
        end
      end
    end
    return false
  end
  local function breakPatterns(a, b)
    local length = b - a
    if length >= 8 then
      local random = length
      local modulus = 1 << bitsLen(length)
      for idx = a + (length // 4) * 2 - 1, a + (length // 4) * 2 + 1 do
        random = random ~ (random << 13)
        random = random ~ (random >> 7)
        random = random ~ (random << 17)
        local other = random & (modulus - 1)
        if other >= length then other = other - length end
        swap(idx, a + other)
      end
    end
  end
  local function partitionEqual(a, b, pivot)
    swap(a, pivot)
    local i, j = a + 1, b - 1
    while true do
      while i <= j and not less(a, i) do i = i + 1 end
      while i <= j and less(a, j) do j = j - 1 end
      if i > j then break end
      swap(i, j)
      i, j = i + 1, j - 1
    end
    return i
  end
  local function partition(a, b, pivot)
    swap(a, pivot)
    local i, j = a + 1, b - 1
    while i <= j and less(i, a) do i = i + 1 end
    while i <= j and not less(j, a) do j = j - 1 end
    if i > j then
      swap(j, a)
      return j, true
    end
    swap(i, j)
    i, j = i + 1, j - 1
    while true do
      while i <= j and less(i, a) do i = i + 1 end
      while i <= j and not less(j, a) do j = j - 1 end
      if i > j then break end
      swap(i, j)
      i, j = i + 1, j - 1
    end
    swap(j, a)
    return j, false
  end
  local function pdqsort(a, b, limit)
    local wasBalanced, wasPartitioned = true, true
    while true do
      local length = b - a
      if length <= 12 then
        insertionSort(a, b)
        return
      end
      if limit == 0 then
        heapSort(a, b)
        return
      end
      if not wasBalanced then
        breakPatterns(a, b)
        limit = limit - 1
      end
      local pivot, hint = choosePivot(a, b)
      if hint == "decreasing" then
        reverseRange(a, b)
        pivot = (b - 1) - (pivot - a)
        hint = "increasing"
      end
      if wasBalanced and wasPartitioned and hint == "increasing" and partialInsertionSort(a, b) then return end
      if a > 0 and not less(a - 1, pivot) then
        a = partitionEqual(a, b, pivot)
      else
        local mid, alreadyPartitioned = partition(a, b, pivot)
        wasPartitioned = alreadyPartitioned
        local leftLen, rightLen = mid - a, b - mid
        local balanceThreshold = length // 8
        if leftLen < rightLen then
          wasBalanced = leftLen >= balanceThreshold
          pdqsort(a, mid, limit)
          a = mid + 1
        else
          wasBalanced = rightLen >= balanceThreshold
          pdqsort(mid + 1, b, limit)
          b = mid
        end
      end
    end
  end
  local n = arrayLength(t)
  if n > 1 then pdqsort(0, n, bitsLen(n)) end
end
T.sort = function(t, ...)
  local lessFn = ...
  if select("#", ...) > 0 and type(lessFn) ~= "function" then
    argError(2, "function expected, got " .. typeName(lessFn))
  end
  goSort(t, lessFn)
end
-- gopher-lua's table.remove (LTable.Remove): the last slot of the array part (nil if it holds nil)
-- without a position or below 1, nothing past it, else the slot, the ones after it moving down.
T.remove = function(t, ...)
  local pos = -1
  if select("#", ...) >= 1 then pos = intArgument((...), 2) end
  local len = arrayLength(t)
  -- On Go ints: the smallest position, less one, wraps to the largest (past the end).
  local i = pos - 1
  if len == 0 or i >= len then return nil end
  local old
  if i == len - 1 or i < 0 then
    old = rawget(t, len)
  else
    old = rawget(t, pos)
    for k = pos, len - 1 do t[k] = rawget(t, k + 1) end
  end
  t[len] = nil
  ALEN[t] = len - 1
  return old
end

local M = math
M.pow = function(x, y) return x ^ y end
M.mod = math.fmod
local log0 = math.log
M.log10 = function(x) return log0(x, 10) end
-- gopher-lua's log takes no base; its huge is the largest float, not infinity.
M.log = function(x) return log0(x) end
M.huge = 1.7976931348623157e308
-- gopher-lua's CheckNumber: a number, or a string its Go parser reads as one ('010' is 8, '0x1f' 31).
local function numberArgument(v, i)
  if type(v) == "number" then return v end
  if type(v) == "string" then
    local n = arithNumber(v)
    if n ~= nil then return n end
  end
  argError(i, "number expected, got " .. typeName(v))
end
-- gopher-lua's max and min: the first argument, replaced by each later one that is greater (less).
local function extremum(greater)
  return function(...)
    local n = select("#", ...)
    if n == 0 then error("wrong number of arguments", 2) end
    local best = numberArgument((...), 1)
    for i = 2, n do
      local v = numberArgument((select(i, ...)), i)
      if (greater and v > best) or (not greater and v < best) then best = v end
    end
    return best
  end
end
M.max = extremum(true)
M.min = extremum(false)
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
-- Every number is a float in gopher-lua: floor and ceil do not make integers (and keep Go's -0).
M.floor = function(x)
  if x == 0 then return x * 1.0 end
  return floor(x) + 0.0
end
local ceil0 = math.ceil
M.ceil = function(x)
  if x == 0 then return x * 1.0 end
  if x < 0 and x > -1 then return -0.0 end
  return ceil0(x) + 0.0
end
-- Every function of one or two numbers reads them as CheckNumber does (extra arguments ignored).
for name, arity in pairs({ abs = 1, ceil = 1, cos = 1, cosh = 1, deg = 1, exp = 1, floor = 1, frexp = 1, log = 1, log10 = 1,
    modf = 1, rad = 1, sin = 1, sinh = 1, sqrt = 1, tan = 1, tanh = 1, acos = 1, asin = 1, atan = 1,
    fmod = 2, ldexp = 2, pow = 2, atan2 = 2, mod = 2 }) do
  local f = M[name]
  if arity == 1 then
    M[name] = function(x) return f(numberArgument(x, 1)) end
  else
    M[name] = function(x, y) return f(numberArgument(x, 1), numberArgument(y, 2)) end
  end
end
M.tointeger, M.ult, M.type, M.maxinteger, M.mininteger = nil, nil, nil, nil, nil

-- os.date and os.time as Karmada's safe os library implements them (a strftime subset on Go's
-- time layouts; unknown conversions are kept as written, never an error).
local osdate, ostime = os.date, os.time
-- The current time in seconds: the host's clock when it gives one, else the C library's.
local now = hostNow or ostime
-- The local time zone's abbreviation at a time, as Go prints it ("MST" in a layout).
local function zoneName(when)
  if hostZone then return hostZone(when) end
  return osdate("%Z", when)
end
local DAYS = { "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday" }
local MONTHS = { "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December" }
local function two(n) return sformat("%02d", n) end
local function hour12(h) h = h % 12 if h == 0 then h = 12 end return h end
local DATE_FLAGS = {
  a = function() return "mon" end, -- Karmada maps %a to the Go layout "mon", which Go prints as is
  A = function(t) return DAYS[t.wday] end,
  b = function(t) return ssub(MONTHS[t.month], 1, 3) end,
  B = function(t) return MONTHS[t.month] end,
  c = function(t) return two(t.day) .. " " .. ssub(MONTHS[t.month], 1, 3) .. " " .. two(t.year % 100) .. " " .. two(t.hour) .. ":" .. two(t.min) .. " " .. t.zone end,
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
  -- The offset from the local and UTC fields of the same time (the C library's %z gets half hours wrong).
  z = function(t, utc)
    if utc then return "+0000" end
    local u = osdate("!*t", t.when)
    local days = t.year ~= u.year and (t.year > u.year and 1 or -1) or (t.yday - u.yday)
    local minutes = (days * 24 + t.hour - u.hour) * 60 + t.min - u.min
    local sign = minutes < 0 and "-" or "+"
    if minutes < 0 then minutes = -minutes end
    return sformat("%s%02d%02d", sign, floor(minutes / 60), minutes % 60)
  end,
  Z = function(t) return t.zone end,
  w = function(t) return sformat("%d", t.wday - 1) end,
}
-- Karmada's os.date: "!" prefixes (all of them) select UTC, but a time given as well (a number,
-- truncated) is read as local time; an argument given as nil is a type error, as its Check
-- functions make it.
local function compatDate(...)
  local nargs, fmt, when = select("#", ...), ...
  local utc = false
  if nargs == 0 then fmt = "%c" end
  -- gopher-lua's CheckString takes a number as the string it prints as.
  if type(fmt) == "number" then fmt = numberToString(fmt) end
  if type(fmt) ~= "string" then argError(1, "string expected, got " .. type(fmt)) end
  if ssub(fmt, 1, 1) == "!" then
    utc = true
    fmt = smatch(fmt, "^!*(.*)$")
  end
  if nargs >= 2 then
    if type(when) ~= "number" then argError(2, "number expected, got " .. type(when)) end
    when = trunc(when)
    utc = false
  else
    when = now()
  end
  local t = osdate(utc and "!*t" or "*t", when)
  if ssub(fmt, 1, 2) == "*t" then
    return { year = t.year, month = t.month, day = t.day, hour = t.hour, min = t.min, sec = t.sec, wday = t.wday, yday = 0, isdst = false }
  end
  t.zone = utc and "UTC" or zoneName(when)
  t.when = when
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
-- Karmada's os.time: the current time without an argument; any argument must be a table, whose
-- number fields are truncated (a missing or other field takes its default).
local function compatTime(...)
  if select("#", ...) == 0 then return now() end
  local t = ...
  if type(t) ~= "table" then argError(1, "table expected, got " .. type(t)) end
  local function field(k, default)
    local v = rawget(t, k)
    if type(v) == "number" then return trunc(v) end
    return default
  end
  return ostime({ year = field("year", -1), month = field("month", -1), day = field("day", -1), hour = field("hour", 12), min = field("min", 0), sec = field("sec", 0) })
end
local OS = { time = compatTime, date = compatDate }


-- Strings read as numbers the way gopher-lua reads them, with Go's strconv syntax.

-- Go's rule for '_' in a number: only between digits, or after a base prefix.
local function underscoresOK(s)
  local i, saw, hex = 1, "^", false
  local c1 = ssub(s, 1, 1)
  if c1 == "+" or c1 == "-" then i = 2 end
  local pfx = string.lower(ssub(s, i + 1, i + 1))
  if ssub(s, i, i) == "0" and (pfx == "b" or pfx == "o" or pfx == "x") then
    i = i + 2
    saw = "0"
    hex = pfx == "x"
  end
  for k = i, #s do
    local c = ssub(s, k, k)
    if sfind(c, "%d") or (hex and sfind(c, "[a-fA-F]")) then
      saw = "0"
    elseif c == "_" then
      if saw ~= "0" then return false end
      saw = "_"
    else
      if saw == "_" then return false end
      saw = "!"
    end
  end
  return saw ~= "_"
end

-- strconv.ParseInt(s, base, 64); base 0 reads a 0x, 0o, 0b or 0 prefix and allows '_'. A float, or nil.
local function goParseInt(s, base)
  if base == 0 and sfind(s, "_", 1, true) then
    if not underscoresOK(s) then return nil end
    s = sgsub0(s, "_", "")
  end
  local neg = false
  local c1 = ssub(s, 1, 1)
  if c1 == "+" or c1 == "-" then
    neg = c1 == "-"
    s = ssub(s, 2)
  end
  if base == 0 then
    base = 10
    local p = string.lower(ssub(s, 1, 2))
    if p == "0x" then base, s = 16, ssub(s, 3)
    elseif p == "0b" then base, s = 2, ssub(s, 3)
    elseif p == "0o" then base, s = 8, ssub(s, 3)
    elseif ssub(s, 1, 1) == "0" and #s > 1 then base, s = 8, ssub(s, 2)
    end
  end
  if base < 2 or base > 36 or s == "" then return nil end
  local acc = 0
  for k = 1, #s do
    local d = tonumber0(ssub(s, k, k), 36)
    if d == nil or d >= base then return nil end
    if acc > (maxint - d) // base then return nil end
    acc = acc * base + d
  end
  if neg then acc = -acc end
  return acc + 0.0
end

-- strconv.ParseFloat(s, 64): decimal or hexadecimal (with a p exponent) notation, inf, infinity
-- and nan; nil for anything else, and for a finite number out of range.
local function goParseFloat(s)
  local lower = string.lower(s)
  local sign, word = smatch(lower, "^([+-]?)(%a+)$")
  if word == "inf" or word == "infinity" then return sign == "-" and -huge or huge end
  if lower == "nan" then return 0 / 0 end
  if sfind(s, "_", 1, true) then
    if not underscoresOK(s) then return nil end
    s = sgsub0(s, "_", "")
    lower = string.lower(s)
  end
  local body = smatch(lower, "^[+-]?(.*)$")
  if ssub(body, 1, 2) == "0x" then
    if not sfind(body, "^0x%x*%.?%x*p[+-]?%d+$") or not sfind(body, "^0x%.?%x") then return nil end
  elseif not sfind(body, "^%d*%.?%d*e[+-]?%d+$") and not sfind(body, "^%d*%.?%d*$") or not sfind(body, "^%.?%d") then
    return nil
  end
  local v = tonumber0(s)
  if v == nil or v == huge or v == -huge then return nil end
  return v + 0.0
end

local function goTrim(s)
  return smatch(s, "^[ \\t\\n]*(.-)[ \\t\\n]*$")
end

-- gopher-lua's string-to-number conversion for arithmetic: ParseInt base 0, else ParseFloat.
arithNumber = function(s)
  s = goTrim(s)
  local v = goParseInt(s, 0)
  if v == nil then v = goParseFloat(s) end
  return v
end

-- gopher-lua's tonumber: a string with a '.' is read by ParseFloat (whatever the base), any other
-- by ParseInt in the base (10, or 16 after a "0x" prefix when no base is given).
local function compatToNumber(...)
  local v, base = ...
  -- The base first (OptInt: a number), then the value.
  local b = intArgument(base, 2, 10)
  if select("#", ...) == 0 then argError(1, "value expected") end
  if type(v) == "number" then return v end
  if type(v) ~= "string" then return nil end
  local s = goTrim(v)
  if sfind(s, ".", 1, true) then return goParseFloat(s) end
  if base == nil and string.lower(ssub(s, 1, 2)) == "0x" then b, s = 16, ssub(s, 3) end
  return goParseInt(s, b)
end

-- gopher-lua's run-time errors for values that do not support an operation. Lua 5.4 looks for a
-- metamethod before it raises its own error: nil, booleans, numbers and functions share one
-- metatable, strings get the same operators (arithmetic on strings also converts them the way
-- gopher-lua does), and tables the ordering metatable's. Scripts cannot reach these metatables
-- (getmetatable is not supported).
local function arithOperand(v)
  if type(v) == "number" then return v end
  if type(v) == "string" then return arithNumber(v) end
  return nil
end
local STRING_MT = getmetatable("")
local VALUE_MT = {}
local function arith(name, f)
  local fn = function(a, b)
    local x, y = arithOperand(a), arithOperand(b)
    if x == nil or y == nil then
      -- gopher-lua names an operand after converting it: a numeric string is a number there.
      vmError("cannot perform " .. name .. " operation between " .. (x and "number" or type(a)) .. " and " .. (y and "number" or type(b)))
    end
    return f(x, y)
  end
  local event = "__" .. name
  STRING_MT[event], VALUE_MT[event], ORDERED[event] = fn, fn, fn
end
arith("add", function(x, y) return x + y end)
arith("sub", function(x, y) return x - y end)
arith("mul", function(x, y) return x * y end)
arith("div", function(x, y) return x / y end)
arith("mod", function(x, y) return (x + 0.0) % y end)
arith("pow", function(x, y) return x ^ y end)
local function unm(a)
  local x = arithOperand(a)
  if x == nil then vmError("__unm undefined") end
  return -x
end
local function compare(a, b)
  vmError("attempt to compare " .. type(a) .. " with " .. type(b))
end
local function notCallable()
  vmError("attempt to call a non-function object")
end
local function notIndexable(v, k)
  vmError("attempt to index a non-table object(" .. type(v) .. ") with key '" .. compatToString(k) .. "'")
end
STRING_MT.__unm, VALUE_MT.__unm, ORDERED.__unm = unm, unm, unm
STRING_MT.__idiv = nil
STRING_MT.__newindex = notIndexable
VALUE_MT.__index, VALUE_MT.__newindex = notIndexable, notIndexable
VALUE_MT.__call, ORDERED.__call, STRING_MT.__call = notCallable, notCallable, notCallable
VALUE_MT.__lt, VALUE_MT.__le, ORDERED.__lt, ORDERED.__le = compare, compare, compare, compare
STRING_MT.__lt, STRING_MT.__le = compare, compare
VALUE_MT.__len = function() vmError("__len undefined") end
debug.setmetatable(nil, VALUE_MT)
debug.setmetatable(false, VALUE_MT)
debug.setmetatable(0, VALUE_MT)
debug.setmetatable(print, VALUE_MT)

-- The concatenation of rewritten scripts (lua51.ts): numbers print as gopher-lua prints them, and
-- anything but strings and numbers fails with gopher-lua's message.
local function concat(a, b)
  local ta, tb = type(a), type(b)
  if (ta == "string" or ta == "number") and (tb == "string" or tb == "number") then
    if ta == "number" then a = numberToString(a) end
    if tb == "number" then b = numberToString(b) end
    return a .. b
  end
  vmError("cannot perform concat operation between " .. ta .. " and " .. tb)
end

local function pass(...)
  return ...
end

-- The package library of Karmada's sandbox (preload only) and gopher-lua's require: modules
-- already loaded (the libraries, and kube after its first require) come from package.loaded, others
-- from the loaders (package.preload's). Each script gets its own copies (see newScriptBase).
local LOADING = {}
local function newPackage(b)
  local preload = {
    kube = function()
      local m = {}
      for k, v in rawnext, kube do m[k] = v end
      return m
    end,
  }
  local loaded = { string = b.string, table = b.table, math = b.math, os = b.os }
  local loaders = {
    function(name)
      local loader = preload[name]
      if loader == nil then return "no field package.preload['" .. name .. "']" end
      return loader
    end,
  }
  local pkg = {
    preload = preload, loaded = loaded, loaders = loaders,
    loadlib = function() error("loadlib is not supported", 2) end,
  }
  local function require(name)
    if type(name) == "number" then name = numberToString(name) end
    if type(name) ~= "string" then argError(1, "string expected, got " .. type(name)) end
    local lv = loaded[name]
    if lv then
      if lv == LOADING then error("loop or previous error loading module: " .. name, 2) end
      return lv
    end
    local messages, module = {}, nil
    for i = 1, 1e9 do
      local loader = loaders[i]
      if loader == nil then
        error("module " .. name .. " not found:\\n\\t" .. tconcat(messages, "\\n\\t") .. ", ", 2)
      end
      local r = loader(name)
      if type(r) == "function" then
        module = r
        break
      elseif type(r) == "string" then
        messages[#messages + 1] = r
      end
    end
    loaded[name] = LOADING
    local r = module(name)
    if r ~= nil then
      loaded[name] = r
      return r
    end
    if loaded[name] == LOADING then loaded[name] = true end
    return loaded[name]
  end
  return pkg, require
end

-- error(value [, level]) as gopher-lua raises it. No value is an error about error's argument; a
-- level must be a number (truncated; nil is 1). A string message is placed as gopher-lua places it:
-- at the frame level - 1 above error itself, Go functions (here: C and prelude functions) skipped,
-- so that levels 1 and 2 both name error's caller; "" where there is no such frame (the message then
-- starts with a space); no place at level 0 or below. Other values are raised as they are.
local function compatError(...)
  if select("#", ...) == 0 then argError(1, "value expected") end
  local msg, level = ...
  if level == nil then level = 1 end
  if type(level) ~= "number" then argError(2, "number expected, got " .. type(level)) end
  level = trunc(level)
  if type(msg) ~= "string" or level <= 0 then error(msg, 0) end
  local where = ""
  local l = level
  while true do
    local info = getinfo(l, "Sl")
    if info == nil then break end
    if info.source == "=<string>" then
      where = "<string>:" .. info.currentline .. ":"
      break
    end
    l = l + 1
  end
  error(where .. " " .. msg, 0)
end

-- Functions that take a table check for one, with gopher-lua's message: Lua 5.4 would accept any
-- value with a metatable (nil, numbers and the others have one above) and fail later, differently.
local function tableArgument(f)
  return function(t, ...)
    if type(t) ~= "table" then argError(1, "table expected, got " .. type(t)) end
    return passAll(f(t, ...))
  end
end
local ipairs1 = tableArgument(ipairs)
-- gopher-lua's unpack: OptInt bounds (numbers only), to its Len by default.
local unpack1 = tableArgument(function(t, i, j) return unpack(t, intArgument(i, 2, 1), intArgument(j, 3, tableLen(t))) end)
local select0 = select
-- gopher-lua's select: a number (Go's int of it) or "#"; a count past the arguments gives none.
local function select1(...)
  local nargs, n = select0("#", ...), ...
  local tn = type(n)
  if tn ~= "number" and tn ~= "string" then argError(1, "number or string expected, got " .. typeName(n)) end
  if tn == "string" then
    if n ~= "#" then argError(1, "invalid string '" .. n .. "'") end
    return nargs - 1
  end
  local idx = goInt(n)
  if idx < 0 then idx = nargs + idx elseif idx > nargs then idx = nargs end
  if 1 > idx then argError(1, "index out of range") end
  return select0(idx + 1, ...)
end
-- A numeric for's init, limit and step as gopher-lua takes them: numbers (Lua 5.4 would convert strings).
local function forNumber(part, v)
  if type(v) ~= "number" then error("for statement " .. part .. " must be a number", 2) end
  return v
end
for _, name in ipairs({ "insert", "remove", "sort", "getn", "maxn" }) do T[name] = tableArgument(T[name]) end

-- gopher-lua's assert: the message must be a string (OptString), raised at the script's line.
local function compatAssert(...)
  local v, msg = ...
  if v then return ... end
  if msg == nil then msg = "assertion failed!" end
  if type(msg) ~= "string" then argError(2, "string expected, got " .. typeName(msg)) end
  error(msg, 2)
end
-- A script's pcall and xpcall see an error as it reads uncaught (relocated: at the script's line,
-- under the name the script called), without the traceback; calling what is not a function fails
-- as gopher-lua's call does, without a place. xpcall passes no arguments (Lua 5.1), and an error in
-- its handler is what it returns.
local relocate
local function caught(msg)
  if type(msg) == "string" then return relocate(msg) end
  return msg
end
local xpcall0 = xpcall
local function compatPcall(...)
  if select("#", ...) == 0 then argError(1, "value expected") end
  local f = ...
  if type(f) ~= "function" then return false, "attempt to call a " .. typeName(f) .. " value" end
  return xpcall0(f, caught, select(2, ...))
end
local function compatXpcall(f, h)
  if type(f) ~= "function" then argError(1, "function expected, got " .. typeName(f)) end
  if type(h) ~= "function" then argError(2, "function expected, got " .. typeName(h)) end
  return xpcall0(f, function(msg)
    local ok, r = pcall0(h, caught(msg))
    if ok then return r end
    return caught(r)
  end)
end

FROM_HOST[compatPcall], FROM_HOST[compatXpcall] = true, true

local base = {
  assert = compatAssert, error = compatError, ipairs = ipairs1, next = orderedNext, pairs = orderedPairs,
  pcall = compatPcall, xpcall = compatXpcall, print = function() end, select = select1, tonumber = compatToNumber,
  tostring = compatToString, type = type, unpack = unpack1, _VERSION = "Lua 5.1",
  string = S, table = T, math = M, os = OS,
  ${ORDERED_CONSTRUCTOR} = ordered, ${CONCAT_FUNCTION} = concat, ${PASS_FUNCTION} = pass, ${FOR_FUNCTION} = forNumber,
}
local NOT_SUPPORTED_FN = {}
for _, name in ipairs({ ${NOT_SUPPORTED.map((n) => `"${n}"`).join(", ")} }) do
  local message = "call function " .. name .. " is not supported in karmada customized resourceinterpreter."
  -- Karmada defines these in Lua (a chunk of its own, line 1) and raises with error()'s default
  -- level: the message names that line, not the script's.
  local f = function() error("<string>:1: " .. message, 0) end
  base[name] = f
  NOT_SUPPORTED_FN[f] = true
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
  b.package, b.require = newPackage(b)
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
-- gopher-lua names the function of a bad argument without quotes.
-- gopher-lua's words for a numeric for whose init, limit or step is not a number.
local FOR_PARTS = { ["initial value"] = "init", limit = "limit", step = "step" }
local function argumentWording(msg)
  msg = sgsub0(msg, "bad 'for' ([%a ]+) %(number expected, got [%a ]+%)", function(part)
    local word = FOR_PARTS[part]
    return word and ("for statement " .. word .. " must be a number") or nil
  end, 1)
  -- It names a missing argument's type nil, where Lua 5.4 says "no value".
  msg = sgsub0(msg, "bad argument #(%d+) to '([^']*)'", "bad argument #%1 to %2", 1)
  return (sgsub0(msg, "got no value%)", "got nil)", 1))
end

relocate = function(msg)
  if type(msg) ~= "string" then return msg end
  local _, e = sfind(msg, PRELUDE_POSITION)
  if e == nil then
    -- A C function pcall called directly raises its argument errors without a place.
    local raiser = getinfo(3, "Sf")
    if raiser == nil or raiser.what ~= "C" or raiser.func == error or not sfind(msg, "^bad argument #") then
      return argumentWording(msg)
    end
    e = 0
  end
  msg = ssub(msg, e + 1)
  local called
  local level = 3
  while true do
    local info = getinfo(level, "Sl")
    if info == nil then return argumentWording(msg) end
    if info.source == "=<string>" then
      local _, ne, head = sfind(msg, "^(bad argument #%d+ to ')[^']*'")
      if ne ~= nil and called ~= nil then msg = head .. libraryName(called) .. "'" .. ssub(msg, ne + 1) end
      msg = argumentWording(msg)
      if info.currentline > 0 then return "<string>:" .. info.currentline .. ": " .. msg end
      return msg
    end
    called = level
    level = level + 1
  end
end

-- gopher-lua's stack traceback, which Karmada's errors carry: one line per frame, innermost first.
-- A library function (a Go function there; a C or prelude function here) is "[G]: in function
-- 'name'" under the name the script called it by; the prelude's metamethods and concat stand for
-- the VM's own operations and have no line. A script function is named as its caller called it,
-- "<string>:N" when it has no name, and "main chunk" when the host called it; "[G]: ?" ends the list.
-- The frame lines of levels first..last (see traceback).
local function frameLines(first, last, lines, n)
  local libraryName, libraryFn, inLibrary = nil, nil, false
  for level = first, last do
    local info = getinfo(level, "Slnft")
    if info == nil then break end
    if info.source == "=<string>" then
      if inLibrary and libraryFn ~= nil and NOT_SUPPORTED_FN[libraryFn] then
        -- Karmada's Lua stand-in for the function, calling the Go error function.
        n = n + 2
        lines[n - 1] = "\\t[G]: in function 'error'"
        lines[n] = "\\t<string>:1: in function '" .. tostring0(libraryName or "?") .. "'"
      elseif inLibrary and libraryName ~= false then
        n = n + 1
        lines[n] = "\\t[G]: in function '" .. tostring0(libraryName or "?") .. "'"
      end
      inLibrary = false
      local outer = getinfo(level + 1, "S")
      local name
      if outer == nil then
        name = "main chunk"
      elseif outer.source == "=<string>" and info.name ~= nil then
        name = "function '" .. info.name .. "'"
      else
        name = "function <<string>:" .. info.linedefined .. ">"
      end
      n = n + 1
      lines[n] = "\\t<string>:" .. info.currentline .. ": in " .. name
      -- A frame a tail call reused (gopher-lua counts them; Lua 5.4 knows only that there was one).
      if info.istailcall then
        n = n + 1
        lines[n] = "\\t(tailcall): ?"
      end
    else
      if not inLibrary then
        inLibrary = true
        libraryName = nil
      end
      -- The frame the script called last before this run decides the name (or that there is none).
      libraryFn = info.func
      if info.namewhat == "metamethod" or info.func == concat or info.func == pass or info.func == notCallable then
        libraryName = false
      else
        libraryName = info.name
      end
    end
  end
  return n
end

-- gopher-lua's stack traceback, which Karmada's errors carry: one line per frame, innermost first.
-- A library function (a Go function there; a C or prelude function here) is "[G]: in function
-- 'name'" under the name the script called it by; the prelude's metamethods and concat stand for
-- the VM's own operations and have no line. A script function is named as its caller called it,
-- "<string>:N" when it has no name, and "main chunk" when the host called it; "[G]: ?" ends the
-- list, and a long one keeps its first and last 7 lines around "...".
local function traceback()
  -- The depth, found by doubling then halving: a stack overflow leaves some 200,000 frames, too many to visit.
  local hi = 4
  while getinfo(hi, "l") ~= nil do hi = hi * 2 end
  local lo = hi // 2
  while hi - lo > 1 do
    local mid = (lo + hi) // 2
    if getinfo(mid, "l") ~= nil then lo = mid else hi = mid end
  end
  local depth = lo
  -- frameLines runs one level deeper than this function: its levels are these plus one.
  local lines, n = {}, 0
  if depth <= 64 then
    n = frameLines(4, depth + 1, lines, n)
  else
    n = frameLines(4, 33, lines, n)
    n = frameLines(depth - 30, depth + 1, lines, n)
  end
  n = n + 1
  lines[n] = "\\t[G]: ?"
  if n > 20 then
    local cut = {}
    for i = 1, 7 do cut[i] = lines[i] end
    cut[8] = "\\t..."
    for i = 1, 7 do cut[8 + i] = lines[n - 7 + i] end
    lines = cut
  end
  return "stack traceback:\\n" .. tconcat(lines, "\\n")
end

-- The message handler of the host's calls: the message relocated (above), any error value as
-- gopher-lua prints it, and the stack traceback.
local function handler(msg)
  local t = type(msg)
  if t == "string" then
    msg = relocate(msg)
  elseif t == "number" then
    msg = numberToString(msg)
  elseif t == "nil" or t == "boolean" then
    msg = tostring0(msg)
  else
    -- gopher-lua prints the value's address, which differs on every run: written here as 0x?.
    msg = t .. ": 0x?"
  end
  return msg .. "\\n" .. traceback()
end

-- A message raised by the VM itself (the deadline, a stack overflow), placed as gopher-lua places
-- it: at the line of the innermost script frame from \`level\` up (library frames skipped).
local function placed(msg, level)
  while true do
    local info = getinfo(level, "Sl")
    if info == nil then return msg end
    if info.source == "=<string>" then
      if info.currentline > 0 then return "<string>:" .. info.currentline .. ": " .. msg end
      return msg
    end
    level = level + 1
  end
end

-- Tables the host creates from JSON get the ordering metatable too.
return ORDERED, newScriptBase, newEnv, collectgarbage, handler, placed
`;

/** The names of the base functions that raise "not supported". */
export const NOT_SUPPORTED_FUNCTIONS: readonly string[] = NOT_SUPPORTED;
