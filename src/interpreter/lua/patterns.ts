/**
 * Lua patterns as gopher-lua reads and matches them (its `pm` package), for the prelude's
 * string.find, string.match and string.gmatch. Lua 5.4's matcher differs from it in ways a script can
 * see: gopher-lua parses a pattern its own way (`%f`, `%g` or any other unknown class letter stands
 * for that letter, a range such as `[%a-z]` matches nothing, a trailing `%` matches nothing, `%b`
 * takes whatever follows), reports malformed patterns with its own messages and byte positions
 * ("unexpected EOS at 1", "unfinished capture at 3", "invalid ')' at 0", "invalid capture index"),
 * has no limit of 32 captures, and after a match resumes at the match's end even where that allows
 * an empty match right after it (gmatch("abc", "%w*") gives "abc" then "").
 *
 * The matcher is a backtracking machine over instructions compiled from the parsed pattern, as
 * gopher-lua's is; it keeps its backtracking on an explicit stack instead of recursion, so that it
 * counts no frames against the script's call-stack limit, and fails with gopher-lua's "pattern/input
 * too complex" at the same depth.
 *
 * The chunk below defines one local, `patternFind(pattern, src, offset, limit)`: the list of matches
 * from byte offset `offset` (0-based), at most `limit` of them (-1: all), each a list of capture
 * values (position * 2, plus 1 for a position capture) with its length in `n`. A malformed pattern
 * raises gopher-lua's message through the prelude's `raiseAtScript`, at the script's line. It uses the
 * prelude's locals for Lua's own string functions (`ssub`, `sbyte0`, `schar0`, `slower0`).
 */
export const PATTERN_MATCHER = String.raw`
local patternFind = (function()
  -- Lua's own string functions (the script's are wrapped by then), kept by the prelude.
  local sbyte, schar, slower = sbyte0, schar0, slower0
  local EOS = -1
  local MAX_DEPTH = 1000000

  -- A malformed pattern: gopher-lua's message with the byte position (0-based) where it was found.
  local function fail(pos, message)
    if pos == EOS then raiseAtScript(message .. " at EOS") end
    raiseAtScript(message .. " at " .. pos)
  end

  -- The scanner: its position is that of the last character read (EOS past the end), and Peek
  -- reads the next one and steps back, as gopher-lua's scanner does.
  local function scanner(src)
    return { src = src, len = #src, pos = 0, started = false }
  end
  local function nextPos(sc)
    if sc.pos == EOS or sc.pos >= sc.len - 1 then return EOS end
    if not sc.started then return 0 end
    return sc.pos + 1
  end
  local function nextChar(sc)
    if not sc.started then
      sc.started = true
      if sc.len == 0 then sc.pos = EOS end
    else
      sc.pos = nextPos(sc)
    end
    if sc.pos == EOS then return EOS end
    return sbyte(sc.src, sc.pos + 1)
  end
  local function peek(sc)
    local wasEOS = sc.pos == EOS
    local ch = nextChar(sc)
    if not wasEOS then
      if sc.pos == EOS then
        sc.pos = sc.len - 1
      else
        sc.pos = sc.pos - 1
        if sc.pos < 0 then
          sc.pos = 0
          sc.started = false
        end
      end
    end
    return ch
  end

  local PERCENT, DOT, LBRACKET, RBRACKET, CARET, DOLLAR = 37, 46, 91, 93, 94, 36
  local LPAREN, RPAREN, STAR, PLUS, MINUS, QUESTION = 40, 41, 42, 43, 45, 63

  -- Classes: { "dot" }, { "char", c }, { "single", letter }, { "set", negated, members },
  -- { "range", from, to }.
  local parseClassSet
  local function parseClass(sc, allowSet)
    local ch = nextChar(sc)
    if ch == PERCENT then return { "single", nextChar(sc) } end
    if ch == DOT and allowSet then return { "dot" } end
    if ch == LBRACKET and allowSet then return parseClassSet(sc) end
    if ch == EOS then fail(sc.pos, "unexpected EOS") end
    return { "char", ch }
  end
  parseClassSet = function(sc)
    local set = { "set", false, {} }
    local members = set[3]
    if peek(sc) == CARET then
      set[2] = true
      nextChar(sc)
    end
    local isRange = false
    while true do
      local ch = peek(sc)
      if ch == EOS then fail(sc.pos, "unexpected EOS") end
      if ch == RBRACKET and #members > 0 then
        nextChar(sc)
        break
      end
      if (ch == RBRACKET or ch == MINUS) and #members > 0 then
        nextChar(sc)
        isRange = true
      else
        members[#members + 1] = parseClass(sc, false)
        if isRange then
          local n = #members
          members[n - 1] = { "range", members[n - 1], members[n] }
          members[n] = nil
          isRange = false
        end
      end
    end
    if isRange then members[#members + 1] = { "char", MINUS } end
    return set
  end

  local function inRange(ch, lo, hi) return lo <= ch and ch <= hi end
  local LETTER_CLASSES = {
    a = function(ch) return inRange(ch, 65, 90) or inRange(ch, 97, 122) end,
    c = function(ch) return inRange(ch, 0, 31) or ch == 127 end,
    d = function(ch) return inRange(ch, 48, 57) end,
    l = function(ch) return inRange(ch, 97, 122) end,
    p = function(ch) return inRange(ch, 33, 47) or inRange(ch, 58, 64) or inRange(ch, 91, 96) or inRange(ch, 123, 126) end,
    s = function(ch) return ch == 32 or inRange(ch, 9, 13) end,
    u = function(ch) return inRange(ch, 65, 90) end,
    w = function(ch) return inRange(ch, 48, 57) or inRange(ch, 65, 90) or inRange(ch, 97, 122) end,
    x = function(ch) return inRange(ch, 48, 57) or inRange(ch, 97, 102) or inRange(ch, 65, 70) end,
    z = function(ch) return ch == 0 end,
  }

  local function matches(cls, ch)
    local kind = cls[1]
    if kind == "char" then return cls[2] == ch end
    if kind == "dot" then return true end
    if kind == "single" then
      local letter = cls[2]
      local test = letter >= 0 and LETTER_CLASSES[slower(schar(letter))]
      if not test then return ch == letter end
      local r = test(ch)
      if inRange(letter, 65, 90) then return not r end
      return r
    end
    if kind == "set" then
      for _, member in ipairs(cls[3]) do
        if matches(member, ch) then return not cls[2] end
      end
      return cls[2]
    end
    -- A range: only between two plain characters.
    local from, to = cls[2], cls[3]
    if from[1] ~= "char" or to[1] ~= "char" then return false end
    return from[2] <= ch and ch <= to[2]
  end

  -- Patterns: { "one", class }, { "seq", list, mustHead, mustTail }, { "repeat", op, class },
  -- { "poscap" }, { "cap", seq }, { "backref", n }, { "balance", open, close }.
  local function parsePattern(sc, toplevel)
    local list = {}
    local pat = { "seq", list, false, false }
    if toplevel and peek(sc) == CARET then
      nextChar(sc)
      pat[3] = true
    end
    while true do
      local ch = peek(sc)
      if ch == PERCENT then
        local saved = { sc.pos, sc.started }
        nextChar(sc)
        local c = peek(sc)
        if c == 48 then
          fail(sc.pos, "invalid capture index")
        elseif c >= 49 and c <= 57 then
          list[#list + 1] = { "backref", nextChar(sc) - 48 }
        elseif c == 98 then
          nextChar(sc)
          local open = nextChar(sc)
          list[#list + 1] = { "balance", open, nextChar(sc) }
        else
          sc.pos, sc.started = saved[1], saved[2]
          list[#list + 1] = { "one", parseClass(sc, true) }
        end
      elseif ch == DOT or ch == LBRACKET or ch == RBRACKET then
        list[#list + 1] = { "one", parseClass(sc, true) }
      elseif ch == RPAREN then
        if toplevel then fail(sc.pos, "invalid ')'") end
        return pat
      elseif ch == LPAREN then
        nextChar(sc)
        if peek(sc) == RPAREN then
          nextChar(sc)
          list[#list + 1] = { "poscap" }
        else
          local inner = parsePattern(sc, false)
          if peek(sc) ~= RPAREN then fail(sc.pos, "unfinished capture") end
          nextChar(sc)
          list[#list + 1] = { "cap", inner }
        end
      elseif ch == STAR or ch == PLUS or ch == MINUS or ch == QUESTION then
        nextChar(sc)
        local last = list[#list]
        if last ~= nil and last[1] == "one" then
          list[#list] = { "repeat", ch, last[2] }
        else
          list[#list + 1] = { "one", { "char", ch } }
        end
      elseif ch == DOLLAR then
        local np = nextPos(sc)
        if toplevel and (np == sc.len - 1 or np == EOS) then
          pat[4] = true
        else
          list[#list + 1] = { "one", { "char", ch } }
        end
        nextChar(sc)
      elseif ch == EOS then
        nextChar(sc)
        return pat
      else
        nextChar(sc)
        list[#list + 1] = { "one", { "char", ch } }
      end
    end
  end

  -- A class as the set of bytes it matches: a table indexed by byte.
  local function lookup(cls)
    local t = {}
    for ch = 0, 255 do
      if matches(cls, ch) then t[ch] = true end
    end
    return t
  end

  -- Instructions: { op, a, b } (a CHAR's a is the lookup table of its class).
  local CHAR, MATCH, TAILMATCH, JMP, SPLIT, SAVE, PSAVE, BALANCE, BACKREF = 1, 2, 3, 4, 5, 6, 7, 8, 9
  local function compile(p, code)
    local kind = p[1]
    if kind == "one" then
      code[#code + 1] = { CHAR, lookup(p[2]) }
    elseif kind == "seq" then
      for _, q in ipairs(p[2]) do compile(q, code) end
    elseif kind == "repeat" then
      local at = #code -- 0-based index of the next instruction
      local op, cls = p[2], lookup(p[3])
      if op == STAR then
        code[at + 1] = { SPLIT, at + 1, at + 3 }
        code[at + 2] = { CHAR, cls }
        code[at + 3] = { JMP, at }
      elseif op == PLUS then
        code[at + 1] = { CHAR, cls }
        code[at + 2] = { SPLIT, at, at + 2 }
      elseif op == MINUS then
        code[at + 1] = { SPLIT, at + 3, at + 1 }
        code[at + 2] = { CHAR, cls }
        code[at + 3] = { JMP, at }
      else
        code[at + 1] = { SPLIT, at + 1, at + 2 }
        code[at + 2] = { CHAR, cls }
      end
    elseif kind == "poscap" then
      code[#code + 1] = { PSAVE, code.captures }
      code.captures = code.captures + 2
    elseif kind == "cap" then
      local c0 = code.captures
      code.captures = c0 + 2
      code[#code + 1] = { SAVE, c0 }
      compile(p[2], code)
      code[#code + 1] = { SAVE, c0 + 1 }
    elseif kind == "balance" then
      code[#code + 1] = { BALANCE, p[2], p[3] }
    else
      code[#code + 1] = { BACKREF, p[2] }
    end
  end

  -- One attempt at byte offset sp: the number of capture values it left in caps (from index 0), or nil.
  -- Backtracking entries (stack): an alternative (pc, sp) or a capture to restore (-1 - index, value).
  local function run(code, src, len, sp, caps, stackA, stackB)
    local n = 0
    local depth = 0
    local pc = 0
    while true do
      local ins = code[pc + 1]
      local op = ins[1]
      local ok = true
      if op == CHAR then
        if sp < len and ins[2][sbyte(src, sp + 1)] then
          pc, sp = pc + 1, sp + 1
        else
          ok = false
        end
      elseif op == SPLIT then
        depth = depth + 1
        if depth + 1 > MAX_DEPTH then raiseAtScript("pattern/input too complex") end
        stackA[depth], stackB[depth] = ins[3], sp
        pc = ins[2]
      elseif op == JMP then
        pc = ins[2]
      elseif op == SAVE then
        local i = ins[2]
        while i >= n do
          caps[n] = 0
          n = n + 1
        end
        depth = depth + 1
        if depth + 1 > MAX_DEPTH then raiseAtScript("pattern/input too complex") end
        stackA[depth], stackB[depth] = -1 - i, caps[i]
        caps[i] = sp * 2
        pc = pc + 1
      elseif op == MATCH then
        return n
      elseif op == TAILMATCH then
        if sp >= len then return n end
        ok = false
      elseif op == PSAVE then
        local i = ins[2]
        while i + 1 >= n do
          caps[n] = 0
          n = n + 1
        end
        caps[i], caps[i + 1] = (sp + 1) * 2 + 1, (sp + 1) * 2 + 1
        pc = pc + 1
      elseif op == BALANCE then
        if sp >= len or sbyte(src, sp + 1) ~= ins[2] then
          ok = false
        else
          local count = 1
          local closed = false
          sp = sp + 1
          while sp < len do
            local c = sbyte(src, sp + 1)
            if c == ins[3] then count = count - 1 end
            if count == 0 then
              closed = true
              break
            end
            if c == ins[2] then count = count + 1 end
            sp = sp + 1
          end
          if closed then
            pc, sp = pc + 1, sp + 1
          else
            ok = false
          end
        end
      else -- BACKREF
        local i = ins[2] * 2
        if i >= n - 1 then raiseAtScript("invalid capture index") end
        local from, to = caps[i] // 2, caps[i + 1] // 2
        local piece = to > from and ssub(src, from + 1, to) or ""
        if ssub(src, sp + 1, sp + #piece) ~= piece then
          ok = false
        else
          pc, sp = pc + 1, sp + #piece
        end
      end
      if not ok then
        -- Undo captures back to the latest alternative; none left: no match here.
        while true do
          if depth == 0 then return nil end
          local a, b = stackA[depth], stackB[depth]
          depth = depth - 1
          if a >= 0 then
            pc, sp = a, b
            break
          end
          caps[-1 - a] = b
        end
      end
    end
  end

  -- Compiled patterns, by their text (a script matches the same few again and again).
  local compiled, cached = {}, 0
  local function compiledPattern(pattern)
    local entry = compiled[pattern]
    if entry ~= nil then return entry end
    local pat = parsePattern(scanner(pattern), true)
    local code = { captures = 2, { SAVE, 0 } }
    compile(pat, code)
    if pat[4] then
      code[#code + 1] = { SAVE, 1 }
      code[#code + 1] = { TAILMATCH }
    end
    code[#code + 1] = { SAVE, 1 }
    code[#code + 1] = { MATCH }
    -- An attempt that must first match a class fails at once where the byte is not in it.
    local first = code[2][1] == CHAR and code[2][2] or nil
    entry = { code = code, mustHead = pat[3], first = first }
    if cached >= 256 then
      compiled, cached = {}, 0
    end
    compiled[pattern], cached = entry, cached + 1
    return entry
  end

  -- A pattern without special characters is its text: gopher-lua's matcher finds where the text
  -- occurs, as a plain search does (each time from the end of the last occurrence).
  local SPECIAL = "[%^%$%%%.%[%]%(%)%*%+%-%?]"
  local function findText(pattern, src, offset, limit)
    local found = {}
    if offset > #src then return found end
    local from = offset + 1
    while #found ~= limit do
      local a, b = sfind(src, pattern, from, true)
      if a == nil then break end
      found[#found + 1] = { n = 2, [0] = (a - 1) * 2, [1] = b * 2 }
      from = b + 1
    end
    return found
  end

  return function(pattern, src, offset, limit)
    if pattern ~= "" and not sfind(pattern, SPECIAL) then return findText(pattern, src, offset, limit) end
    local entry = compiledPattern(pattern)
    local code, first, len = entry.code, entry.first, #src
    local caps, stackA, stackB = {}, {}, {}
    local found = {}
    local sp = offset
    while sp <= len do
      local n
      if first == nil or (sp < len and first[sbyte(src, sp + 1)]) then n = run(code, src, len, sp, caps, stackA, stackB) end
      sp = sp + 1
      if n ~= nil then
        local e = caps[1] // 2
        if sp < e then sp = e end
        local copy = { n = n }
        for i = 0, n - 1 do copy[i] = caps[i] end
        found[#found + 1] = copy
      end
      if #found == limit or entry.mustHead then break end
    end
    return found
  end
end)()
`;
