// Command karmada-luavm is Karta's reference for Karmada's Lua resource interpreter: it runs
// ResourceInterpreterCustomization scripts on gopher-lua v1.1.2 (the VM Karmada embeds) with the
// sandbox, the `kube` library and the conversions of objects in and results out that Karmada's
// luavm and configurable interpreter document. Test tooling only: tests compare Karta's Lua layer
// with it.
//
// Input (stdin): one JSON case per line:
//
//	{"id": "...", "operation": "InterpretReplica" | "InterpretComponent" | "ReviseReplica" |
//	 "Retain" | "AggregateStatus" | "InterpretStatus" | "InterpretHealth" | "InterpretDependency",
//	 "script": "...", "scripts": ["..."] (InterpretDependency), "object": {...},
//	 "observed": {...} (Retain), "replicas": 3 (ReviseReplica), "items": [...] or null
//	 (AggregateStatus), "now": 1700000000 (Unix seconds for os.time/os.date; default: the clock)}
//
// or {"id": "...", "operation": "GoDecode", "type": "v1.PodTemplateSpec", "object": ...}: Go's
// json.Unmarshal of the object (keys sorted, as gopher-json writes them) into that type of the
// -go-types table, marshalled back.
//
// Output (stdout): one JSON line per case, in order: {"id": "...", "result": ...} or
// {"id": "...", "error": "..."}; a case the driver cannot read gets {"id": "...", "invalid": "..."}.
// Results are what Karmada's types marshal to: InterpretReplica {"replicas", "requires"},
// InterpretComponent the component list (null when nil), objects as Unstructured marshals them,
// InterpretStatus the raw status (null when none), InterpretHealth a boolean,
// InterpretDependency the sorted reference list. What a script prints goes to stderr.
//
// Every script call gets a fresh Lua state (Karmada reuses pooled states, so a global left by one
// script may be seen by another there; the oracle keeps calls apart).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	workv1alpha2 "karta.dev/tools/karmada-luavm/apis/work/v1alpha2"
	"os"
	"time"

	lua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

type inputCase struct {
	ID        string          `json:"id"`
	Operation string          `json:"operation"`
	Script    string          `json:"script"`
	Scripts   []string        `json:"scripts"`
	Object    json.RawMessage `json:"object"`
	Observed  json.RawMessage `json:"observed"`
	Replicas  int64           `json:"replicas"`
	Items     json.RawMessage `json:"items"`
	Now       *int64          `json:"now"`
	// GoDecode: the Go type (as the -go-types table names it) the object is decoded into.
	Type string `json:"type"`
}

// outputLine marshals as exactly one of result (kept when null), error or invalid.
type outputLine struct {
	ID      string
	Result  any
	Error   string
	Invalid string
	failed  bool
}

func (o outputLine) MarshalJSON() ([]byte, error) {
	m := map[string]any{"id": o.ID}
	switch {
	case o.Invalid != "":
		m["invalid"] = o.Invalid
	case o.failed:
		m["error"] = o.Error
	default:
		m["result"] = o.Result
	}
	return json.Marshal(m)
}

// runner runs each script call on a fresh state with the case's clock.
type runner struct {
	clock func() time.Time
}

func (r *runner) run(script, fnName string, nRets int, args ...any) ([]lua.LValue, error) {
	l, err := newState(r.clock)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	rets, err := runScript(l, script, fnName, nRets, args...)
	return rets, withoutAddress(err)
}

// withoutAddress: an error whose value is a table (or function...) prints as gopher-lua prints the
// value, "table: 0x" and its address, which differs on every run; the oracle writes it as 0x?.
func withoutAddress(err error) error {
	if apiErr, ok := err.(*lua.ApiError); ok {
		switch apiErr.Object.(type) {
		case *lua.LTable, *lua.LFunction, *lua.LUserData, *lua.LState:
			apiErr.Object = lua.LString(apiErr.Object.Type().String() + ": 0x?")
		}
	}
	return err
}

func decodeObject(raw json.RawMessage, what string) (*unstructured.Unstructured, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("%s is missing", what)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("%s: %v", what, err)
	}
	return u, nil
}

func runCase(c inputCase) outputLine {
	out := outputLine{ID: c.ID}
	r := &runner{clock: time.Now}
	if c.Now != nil {
		fixed := time.Unix(*c.Now, 0)
		r.clock = func() time.Time { return fixed }
	}
	if c.Operation == "GoDecode" {
		result, decodeErr, err := goDecode(c.Type, c.Object)
		switch {
		case err != nil:
			out.Invalid = err.Error()
		case decodeErr != nil:
			out.Error, out.failed = decodeErr.Error(), true
		default:
			out.Result = result
		}
		return out
	}
	object, err := decodeObject(c.Object, "object")
	if err != nil {
		out.Invalid = err.Error()
		return out
	}
	var result any
	switch c.Operation {
	case "InterpretReplica":
		result, err = getReplicas(r, c.Script, object)
	case "InterpretComponent":
		result, err = getComponents(r, c.Script, object)
	case "ReviseReplica":
		result, err = reviseReplica(r, c.Script, object, c.Replicas)
	case "Retain":
		observed, oerr := decodeObject(c.Observed, "observed")
		if oerr != nil {
			out.Invalid = oerr.Error()
			return out
		}
		result, err = retain(r, c.Script, object, observed)
	case "AggregateStatus":
		var items []workv1alpha2.AggregatedStatusItem
		if len(c.Items) > 0 {
			if ierr := json.Unmarshal(c.Items, &items); ierr != nil {
				out.Invalid = "items: " + ierr.Error()
				return out
			}
		}
		result, err = aggregateStatus(r, c.Script, object, items)
	case "InterpretStatus":
		var status any
		status, err = reflectStatus(r, c.Script, object)
		if err == nil {
			raw := status.(*runtime.RawExtension).Raw
			if raw == nil {
				result = nil
			} else {
				result = json.RawMessage(raw)
			}
		}
	case "InterpretHealth":
		result, err = interpretHealth(r, c.Script, object)
	case "InterpretDependency":
		result, err = getDependencies(r, c.Scripts, object)
	default:
		out.Invalid = fmt.Sprintf("unknown operation %q", c.Operation)
		return out
	}
	if err != nil {
		out.Error, out.failed = err.Error(), true
		return out
	}
	out.Result = result
	return out
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "-go-types" {
		if err := printGoTypes(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "karmada-luavm:", err)
			os.Exit(1)
		}
		return
	}
	// Scripts may print (the base library's print writes to os.Stdout): keep stdout for results.
	results := bufio.NewWriterSize(os.Stdout, 1<<16)
	os.Stdout = os.Stderr
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	enc := json.NewEncoder(results)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var c inputCase
			var out outputLine
			if jerr := json.Unmarshal(line, &c); jerr != nil {
				out = outputLine{ID: c.ID, Invalid: "case: " + jerr.Error()}
			} else {
				out = runCase(c)
			}
			if eerr := enc.Encode(out); eerr != nil {
				out = outputLine{ID: c.ID, Invalid: "result: " + eerr.Error()}
				_ = enc.Encode(out)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "karmada-luavm:", err)
			os.Exit(1)
		}
	}
	if err := results.Flush(); err != nil {
		os.Exit(1)
	}
}
