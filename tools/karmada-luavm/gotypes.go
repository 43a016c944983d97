package main

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	configv1alpha1 "karta.dev/tools/karmada-luavm/apis/config/v1alpha1"
	workv1alpha2 "karta.dev/tools/karmada-luavm/apis/work/v1alpha2"
)

// The Go types that results and kube-library arguments are decoded into, as a table of how
// encoding/json sees them: for each type (named as reflect prints it, which is how Go's decoding
// errors name it), its kind, and for a struct its JSON fields in order (embedded structs' fields
// promoted, "-" left out) with omitempty. Types with their own JSON methods are kinds of their own.
// `karmada-luavm -go-types` prints the table; Karta's copy of it is checked against this.

// goTypeRoots are the types the table starts from.
var goTypeRoots = []reflect.Type{
	reflect.TypeOf(corev1.PodTemplateSpec{}),
	reflect.TypeOf(workv1alpha2.ReplicaRequirements{}),
	reflect.TypeOf([]workv1alpha2.Component{}),
	reflect.TypeOf([]configv1alpha1.DependentObjectReference{}),
}

type goTypeInfo struct {
	Kind   string       `json:"kind"`
	Elem   string       `json:"elem,omitempty"`
	Fields []goFieldRow `json:"fields,omitempty"`
}

// goFieldRow is [jsonName, type, omitempty] or, for a field promoted from embedded structs,
// [jsonName, type, omitempty, "GoFieldName.GoFieldName"] (the embedded fields' Go names, which
// decoding errors name in the field path).
type goFieldRow []any

var specialTypes = map[reflect.Type]string{
	reflect.TypeOf(resource.Quantity{}):  "quantity",
	reflect.TypeOf(intstr.IntOrString{}): "intOrString",
	reflect.TypeOf(metav1.Time{}):        "time",
	reflect.TypeOf(metav1.MicroTime{}):   "time",
	reflect.TypeOf(metav1.FieldsV1{}):    "raw",
}

// seenTypes catches two types that print alike (the table is keyed by the printed name).
var seenTypes = map[string]reflect.Type{}

func collectGoTypes(t reflect.Type, table map[string]goTypeInfo) string {
	name := t.String()
	if other, ok := seenTypes[name]; ok && other != t {
		panic("two types print as " + name)
	}
	seenTypes[name] = t
	if _, done := table[name]; done {
		return name
	}
	if special := specialTypes[t]; special != "" {
		table[name] = goTypeInfo{Kind: special}
		return name
	}
	switch t.Kind() {
	case reflect.Pointer:
		table[name] = goTypeInfo{Kind: "pointer"}
		table[name] = goTypeInfo{Kind: "pointer", Elem: collectGoTypes(t.Elem(), table)}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			table[name] = goTypeInfo{Kind: "bytes"}
			break
		}
		table[name] = goTypeInfo{Kind: "slice"}
		table[name] = goTypeInfo{Kind: "slice", Elem: collectGoTypes(t.Elem(), table)}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic("map key of " + name + " is not a string")
		}
		table[name] = goTypeInfo{Kind: "map"}
		table[name] = goTypeInfo{Kind: "map", Elem: collectGoTypes(t.Elem(), table)}
	case reflect.Struct:
		table[name] = goTypeInfo{Kind: "struct"}
		var fields []goFieldRow
		for _, f := range structFields(t, "") {
			row := goFieldRow{f.name, collectGoTypes(f.typ, table), f.omitempty}
			if f.via != "" {
				row = append(row, f.via)
			}
			fields = append(fields, row)
		}
		table[name] = goTypeInfo{Kind: "struct", Fields: fields}
	case reflect.String, reflect.Bool, reflect.Int32, reflect.Int64, reflect.Int, reflect.Uint32, reflect.Uint64, reflect.Float64:
		table[name] = goTypeInfo{Kind: t.Kind().String()}
	default:
		panic(fmt.Sprintf("no JSON kind for %s (%s)", name, t.Kind()))
	}
	return name
}

type jsonField struct {
	name      string
	typ       reflect.Type
	omitempty bool
	via       string
}

// structFields lists a struct's JSON fields as encoding/json does for these types: tagged or
// exported fields by name; an embedded struct without a tag name has its fields promoted.
func structFields(t reflect.Type, via string) []jsonField {
	var out []jsonField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			inner := f.Name
			if via != "" {
				inner = via + "." + f.Name
			}
			out = append(out, structFields(f.Type, inner)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type, omitempty: strings.Contains(","+opts+",", ",omitempty,"), via: via})
	}
	return out
}

// printGoTypes writes the table as JSON, types sorted by name.
func printGoTypes(w io.Writer) error {
	table := map[string]goTypeInfo{}
	for _, t := range goTypeRoots {
		collectGoTypes(t, table)
	}
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	ordered := make([]any, 0, len(names))
	for _, n := range names {
		ordered = append(ordered, []any{n, table[n]})
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(ordered)
}
