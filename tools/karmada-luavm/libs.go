package main

import (
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
)

// Karmada's safe string library: gopher-lua's string functions, with string.dump, string.gsub and
// string.rep refusing with Karmada's message, and each string argument the functions scan
// limited to 1,000,000 bytes.

const maxStringArgument = 1000000

// stringArgumentsChecked lists, for each function, the arguments whose length Karmada checks (in
// the order it reads them). string.len and string.char check none.
var stringArgumentsChecked = map[string][]int{
	"byte": {1}, "find": {1, 2}, "format": {1}, "gmatch": {1, 2}, "gfind": {1, 2}, "lower": {1},
	"match": {1, 2}, "reverse": {1}, "sub": {1}, "upper": {1},
}

func notSupportedByKarmada(name string) lua.LGFunction {
	return func(L *lua.LState) int {
		L.RaiseError("The Lua function string.%s is not supported by Karmada. If you believe this function is essential for your use case, please submit an issue to let us know why you need it.", name)
		return 0
	}
}

// openSafeString opens gopher-lua's string library, then puts Karmada's restrictions in front of
// its functions (the string metatable's __index is the same module table, so methods see them too).
func openSafeString(L *lua.LState) int {
	lua.OpenString(L)
	mod := L.Get(-1).(*lua.LTable)
	for _, name := range []string{"dump", "gsub", "rep"} {
		mod.RawSetString(name, L.NewFunction(notSupportedByKarmada(name)))
	}
	for name, checked := range stringArgumentsChecked {
		original, ok := mod.RawGetString(name).(*lua.LFunction)
		if !ok || !original.IsG {
			panic("gopher-lua's string." + name + " is not a Go function")
		}
		inner := original.GFunction
		checked := checked
		guarded := func(L *lua.LState) int {
			for _, i := range checked {
				s := L.CheckString(i)
				if len(s) > maxStringArgument {
					L.RaiseError("string length %d exceeds the maximum allowed input string length %d in Karmada lua string lib, please check your lua script.", len(s), maxStringArgument)
				}
			}
			return inner(L)
		}
		// gmatch is a closure over its iterator: keep the upvalues.
		upvalues := make([]lua.LValue, len(original.Upvalues))
		for i, uv := range original.Upvalues {
			upvalues[i] = uv.Value()
		}
		mod.RawSetString(name, L.NewClosure(guarded, upvalues...))
	}
	return 1
}

// Karmada's safe os library: only os.time and os.date, as its lifted copy implements them. The
// clock is the driver's (a fixed instant when a case names one, so that results can be compared).

func safeOsOpener(clock func() time.Time) lua.LGFunction {
	return func(L *lua.LState) int {
		mod := L.RegisterModule(lua.OsLibName, map[string]lua.LGFunction{
			"time": func(L *lua.LState) int { return osTime(L, clock) },
			"date": func(L *lua.LState) int { return osDate(L, clock) },
		})
		L.Push(mod)
		return 1
	}
}

// osTime: the current Unix time, or that of a table's fields (any argument must be a table; a
// missing or non-number field takes its default; fractions are truncated), in local time.
func osTime(L *lua.LState, clock func() time.Time) int {
	if L.GetTop() == 0 {
		L.Push(lua.LNumber(clock().Unix()))
		return 1
	}
	t := L.CheckTable(1)
	field := func(key string, def int) int {
		if n, ok := t.RawGetString(key).(lua.LNumber); ok {
			return int(n)
		}
		return def
	}
	date := time.Date(field("year", -1), time.Month(field("month", -1)), field("day", -1), field("hour", 12), field("min", 0), field("sec", 0), 0, time.Local)
	L.Push(lua.LNumber(date.Unix()))
	return 1
}

// osDate: "!" prefixes (all of them) select UTC, unless a time is given, which is then read as
// local time; "*t" returns the fields (yday 0, isdst false); anything else is formatted with the
// strftime subset below ("%c" by default).
func osDate(L *lua.LState, clock func() time.Time) int {
	t := clock()
	format := "%c"
	if L.GetTop() >= 1 {
		format = L.CheckString(1)
		if strings.HasPrefix(format, "!") {
			t = clock().UTC()
			format = strings.TrimLeft(format, "!")
		}
		if L.GetTop() >= 2 {
			t = time.Unix(L.CheckInt64(2), 0)
		}
		if strings.HasPrefix(format, "*t") {
			ret := L.NewTable()
			ret.RawSetString("year", lua.LNumber(t.Year()))
			ret.RawSetString("month", lua.LNumber(t.Month()))
			ret.RawSetString("day", lua.LNumber(t.Day()))
			ret.RawSetString("hour", lua.LNumber(t.Hour()))
			ret.RawSetString("min", lua.LNumber(t.Minute()))
			ret.RawSetString("sec", lua.LNumber(t.Second()))
			ret.RawSetString("wday", lua.LNumber(t.Weekday()+1))
			ret.RawSetString("yday", lua.LNumber(0))
			ret.RawSetString("isdst", lua.LFalse)
			L.Push(ret)
			return 1
		}
	}
	L.Push(lua.LString(strftime(t, format)))
	return 1
}

// dateLayouts maps strftime conversions to Go time layouts (an unknown letter, and "%a" whose
// layout "mon" Go does not know, print as written).
var dateLayouts = map[byte]string{
	'a': "mon", 'A': "Monday", 'b': "Jan", 'B': "January", 'c': "02 Jan 06 15:04 MST", 'd': "02",
	'F': "2006-01-02", 'H': "15", 'I': "03", 'm': "01", 'M': "04", 'p': "PM", 'P': "pm", 'S': "05",
	'x': "15/04/05", 'X': "15:04:05", 'y': "06", 'Y': "2006", 'z': "-0700", 'Z': "MST",
}

// strftime formats byte by byte: "%%" is "%", a "%" ending the format is kept, "%w" is the weekday
// number, a known conversion its layout, any other "%c" is kept as written.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' || i == len(format)-1 {
			b.WriteByte(c)
			continue
		}
		i++
		f := format[i]
		if layout, ok := dateLayouts[f]; ok {
			b.WriteString(t.Format(layout))
		} else if f == '%' {
			b.WriteByte('%')
		} else if f == 'w' {
			b.WriteString(fmt.Sprint(int(t.Weekday())))
		} else {
			b.WriteByte('%')
			b.WriteByte(f)
		}
	}
	return b.String()
}
