package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
	lua "github.com/yuin/gopher-lua"
	luajson "layeh.com/gopher-json"
)

// convertResult decodes a Lua table into target (a pointer) the way Karmada's
// ConvertLuaResultInto does: gopher-json encodes the table (an empty table is `[]`); the
// encoding is repaired against the reference objects with gjson/sjson paths; encoding/json then
// decodes it into the target.
func convertResult(table *lua.LTable, target any, references ...any) error {
	rv := reflect.ValueOf(target)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("obj is not pointer")
	}
	data, err := luajson.Encode(table)
	if err != nil {
		return fmt.Errorf("encode lua result to json failed: %+v", err)
	}
	data, err = repairEmptyTables(data, rv.Elem().Kind() == reflect.Struct, references)
	if err != nil {
		return fmt.Errorf("convert empty object back to empty slice failed: %+v", err)
	}
	if err := json.Unmarshal(data, target); err != nil {
		return fmt.Errorf("json unmarshal obj failed: %+v", err)
	}
	return nil
}

// repairEmptyTables: a whole `[]` is `{}` when the target is a struct. Otherwise every empty list
// in the encoding is looked up by its path without list indices: where a reference had an empty
// object there it becomes `{}`, where a reference had an empty list it stays, anywhere else it is
// deleted. Paths are sjson paths whose keys have "." and ":" escaped (and nothing else).
//
// (Karmada receives the references as one variadic slice, so each reference is the whole list
// of them; marshalled, that is a JSON array, whose elements are walked without index.)
func repairEmptyTables(data []byte, isStruct bool, references []any) ([]byte, error) {
	if bytes.Equal(data, []byte("[]")) {
		if isStruct {
			return []byte("{}"), nil
		}
		return []byte("[]"), nil
	}
	emptyLists, emptyObjects := map[string]bool{}, map[string]bool{}
	refJSON, err := json.Marshal(references)
	if err != nil {
		return data, fmt.Errorf("json marshal reference failed: %+v", err)
	}
	collectEmptyFields(gjson.Parse(string(refJSON)), nil, emptyLists, emptyObjects)
	text := string(data)
	toObject, toDelete := map[string]bool{}, map[string]bool{}
	findEmptyListsToRepair(gjson.Parse(text), nil, nil, emptyLists, emptyObjects, toObject, toDelete)
	for _, p := range orderedPaths(toObject) {
		if text, err = sjson.Set(text, p, struct{}{}); err != nil {
			return data, fmt.Errorf("sjson set empty slice to empty struct failed: %+v", err)
		}
	}
	for _, p := range orderedPaths(toDelete) {
		if text, err = sjson.Delete(text, p); err != nil {
			return data, fmt.Errorf("sjson delete empty slice field failed: %+v", err)
		}
	}
	return []byte(text), nil
}

// orderedPaths orders the paths of one kind of edit. Karmada applies them in a set's random
// order; deleting list elements in that order can shift later indices, so the oracle deletes
// from the last path backwards (numeric segments compared as numbers): the result is then the
// one where every path found is deleted.
func orderedPaths(set map[string]bool) []string {
	paths := make([]string, 0, len(set))
	for p := range set {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool { return pathLess(paths[j], paths[i]) })
	return paths
}

func pathLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		if as[i] == bs[i] {
			continue
		}
		ai, aerr := strconv.Atoi(as[i])
		bi, berr := strconv.Atoi(bs[i])
		if aerr == nil && berr == nil {
			return ai < bi
		}
		return as[i] < bs[i]
	}
	return len(as) < len(bs)
}

func escapePathKey(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, ".", `\.`), ":", `\:`)
}

// collectEmptyFields records the index-free paths of empty lists and empty objects.
func collectEmptyFields(node gjson.Result, path []string, emptyLists, emptyObjects map[string]bool) {
	inList := node.IsArray()
	node.ForEach(func(key, value gjson.Result) bool {
		p := path
		if !inList {
			p = append(append([]string{}, path...), escapePathKey(key.String()))
		}
		joined := strings.Join(p, ".")
		switch {
		case value.IsArray() && len(value.Array()) == 0:
			emptyLists[joined] = true
		case value.IsObject() && len(value.Map()) == 0:
			emptyObjects[joined] = true
		case value.IsArray() || value.IsObject():
			collectEmptyFields(value, p, emptyLists, emptyObjects)
		}
		return true
	})
}

// findEmptyListsToRepair finds the empty lists of the result: by index-free path to decide, by
// indexed path to edit.
func findEmptyListsToRepair(node gjson.Result, path, indexed []string, emptyLists, emptyObjects, toObject, toDelete map[string]bool) {
	inList := node.IsArray()
	node.ForEach(func(key, value gjson.Result) bool {
		p := path
		if !inList {
			p = append(append([]string{}, path...), escapePathKey(key.String()))
		}
		ip := append(append([]string{}, indexed...), escapePathKey(key.String()))
		switch {
		case value.IsArray() && len(value.Array()) == 0:
			joined := strings.Join(p, ".")
			if emptyObjects[joined] {
				toObject[strings.Join(ip, ".")] = true
			} else if !emptyLists[joined] {
				toDelete[strings.Join(ip, ".")] = true
			}
		case value.IsArray() || value.IsObject():
			findEmptyListsToRepair(value, p, ip, emptyLists, emptyObjects, toObject, toDelete)
		}
		return true
	})
}
