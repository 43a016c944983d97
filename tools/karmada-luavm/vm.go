package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// The Lua state as Karmada's luavm builds it: no library opened by gopher-lua itself; then, in
// this order, package (preload loader only), base, table, the safe string library, math and the
// safe os library; the base functions Karmada forbids replaced by Lua functions that raise its
// message; and `require("kube")` served from package.preload.

// notSupported are the base functions Karmada replaces, in its order.
var notSupported = []string{
	"collectgarbage", "dofile", "getfenv", "getmetatable", "load", "loadfile", "loadstring",
	"rawequal", "rawget", "rawset", "setfenv", "setmetatable", "module", "newproxy",
}

// newState returns a state set up as Karmada's NewLuaState does.
func newState(clock func() time.Time) (*lua.LState, error) {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.LoadLibName, openPreloadOnlyPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, openSafeString},
		{lua.MathLibName, lua.OpenMath},
		{lua.OsLibName, safeOsOpener(clock)},
	} {
		if err := l.CallByParam(lua.P{Fn: l.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			l.Close()
			return nil, err
		}
	}
	// Each replacement is a Lua function of its own one-line chunk, as Karmada defines them, so
	// that the error carries the position "<string>:1:".
	for _, name := range notSupported {
		src := fmt.Sprintf("%s = function() error('call function %s is not supported in karmada customized resourceinterpreter.') end", name, name)
		if err := runChunk(l, src); err != nil {
			l.Close()
			return nil, err
		}
	}
	l.PreloadModule("kube", kubeLoader)
	return l, nil
}

// openPreloadOnlyPackage opens the package library as Karmada's sandbox has it: `loadlib` (which
// refuses), `preload`, `loaded`, and `loaders` holding only the preload searcher (no file
// search, no path or cpath).
func openPreloadOnlyPackage(L *lua.LState) int {
	mod := L.RegisterModule(lua.LoadLibName, map[string]lua.LGFunction{
		"loadlib": func(L *lua.LState) int {
			L.RaiseError("loadlib is not supported")
			return 0
		},
	})
	L.SetField(mod, "preload", L.NewTable())
	loaders := L.CreateTable(1, 0)
	L.RawSetInt(loaders, 1, L.NewFunction(preloadSearcher))
	L.SetField(mod, "loaders", loaders)
	L.SetField(L.Get(lua.RegistryIndex), "_LOADERS", loaders)
	loaded := L.NewTable()
	L.SetField(mod, "loaded", loaded)
	L.SetField(L.Get(lua.RegistryIndex), "_LOADED", loaded)
	L.Push(mod)
	return 1
}

// preloadSearcher finds a module in package.preload (of the current globals).
func preloadSearcher(L *lua.LState) int {
	name := L.CheckString(1)
	preload := L.GetField(L.GetField(L.Get(lua.EnvironIndex), "package"), "preload")
	if _, ok := preload.(*lua.LTable); !ok {
		L.RaiseError("package.preload must be a table")
	}
	found := L.GetField(preload, name)
	if found == lua.LNil {
		L.Push(lua.LString(fmt.Sprintf("no field package.preload['%s']", name)))
		return 1
	}
	L.Push(found)
	return 1
}

// runScript runs the script's chunk, then calls its global function fnName with the arguments
// converted as Karmada's decodeValue converts them, under Karmada's one-second deadline, and
// returns nRets results. Errors are gopher-lua's (with their stack traceback) or Karmada's own.
func runScript(l *lua.LState, script, fnName string, nRets int, args ...any) ([]lua.LValue, error) {
	l.Pop(l.GetTop())
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	l.SetContext(ctx)
	defer l.RemoveContext()

	if err := runChunk(l, script); err != nil {
		return nil, err
	}
	values := make([]lua.LValue, len(args))
	for i, arg := range args {
		v, err := toLua(l, arg)
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	f := l.GetGlobal(fnName)
	if f.Type() == lua.LTNil {
		return nil, fmt.Errorf("not found function %v", fnName)
	}
	if f.Type() != lua.LTFunction {
		return nil, fmt.Errorf("%s is not a function: %s", fnName, f.Type())
	}
	if err := l.CallByParam(lua.P{Fn: f, NRet: nRets, Protect: true}, values...); err != nil {
		return nil, err
	}
	rets := make([]lua.LValue, nRets)
	for i := range rets {
		rets[i] = l.Get(i + 1)
	}
	l.Pop(l.GetTop())
	return rets, nil
}

// compiled caches each script's compiled chunk: compiling is most of the cost of a call, and
// a chunk compiled once runs as DoString's would (same chunk name "<string>").
var compiled = map[string]*lua.FunctionProto{}

// runChunk runs the script as DoString does. A script that does not compile goes through
// DoString itself, for gopher-lua's own error.
func runChunk(l *lua.LState, script string) error {
	proto, ok := compiled[script]
	if !ok {
		chunk, err := parse.Parse(strings.NewReader(script), "<string>")
		if err == nil {
			proto, err = lua.Compile(chunk, "<string>")
		}
		if err != nil {
			return l.DoString(script)
		}
		compiled[script] = proto
	}
	l.Push(l.NewFunctionFromProto(proto))
	return l.PCall(0, lua.MultRet, nil)
}

// toLua converts a Go value to Lua as Karmada's decodeValue does: generic JSON lists and maps
// directly (nil elements appended, so skipped), numbers as floats, strings and booleans as
// themselves, nil pointers as nil, and anything else through encoding/json and gopher-json's
// decoder (see decodeJSON).
func toLua(L *lua.LState, value any) (lua.LValue, error) {
	switch v := value.(type) {
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, item := range v {
			lv, err := toLua(L, item)
			if err != nil {
				return nil, err
			}
			t.Append(lv)
		}
		return t, nil
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for _, k := range sortedKeys(v) {
			lv, err := toLua(L, v[k])
			if err != nil {
				return nil, err
			}
			t.RawSetString(k, lv)
		}
		return t, nil
	case nil:
		return lua.LNil, nil
	}
	rv := reflect.ValueOf(value)
	switch {
	case rv.CanInt():
		return lua.LNumber(rv.Int()), nil
	case rv.CanUint():
		return lua.LNumber(rv.Uint()), nil
	case rv.CanFloat():
		return lua.LNumber(rv.Float()), nil
	}
	switch rv.Kind() {
	case reflect.String:
		return lua.LString(rv.String()), nil
	case reflect.Bool:
		return lua.LBool(rv.Bool()), nil
	case reflect.Pointer:
		if rv.IsNil() {
			return lua.LNil, nil
		}
	}
	data, err := json.Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("json Marshal obj %#v error: %v", value, err)
	}
	lv, err := decodeJSON(L, data)
	if err != nil {
		return nil, fmt.Errorf("lua Decode obj %#v error: %v", value, err)
	}
	return lv, nil
}

// decodeJSON is gopher-json's Decode (encoding/json into generic values; numbers as floats;
// null dropped: unset keys, skipped list elements), except that an object's keys are inserted
// in sorted order. gopher-json inserts them in Go's random map order, which is the order pairs()
// then sees; sorted is one of those orders, and the same on every run.
func decodeJSON(L *lua.LState, data []byte) (lua.LValue, error) {
	var value any
	if err := json.Unmarshal(data, &value); err != nil {
		return nil, err
	}
	return jsonToLua(L, value), nil
}

func jsonToLua(L *lua.LState, value any) lua.LValue {
	switch v := value.(type) {
	case bool:
		return lua.LBool(v)
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, item := range v {
			t.Append(jsonToLua(L, item))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		for _, k := range sortedKeys(v) {
			t.RawSetH(lua.LString(k), jsonToLua(L, v[k]))
		}
		return t
	}
	return lua.LNil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
