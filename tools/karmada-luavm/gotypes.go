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

// goFieldRow is [jsonName, type, options] or, for a field promoted from embedded structs,
// [jsonName, type, options, "GoFieldName.GoFieldName"] (the embedded fields' Go names, which
// decoding errors name in the field path); options are the tag's omitempty and omitzero, in that
// order, comma-separated ("" for none).
type goFieldRow []any

var specialTypes = map[reflect.Type]string{
	reflect.TypeOf(resource.Quantity{}):  "quantity",
	reflect.TypeOf(intstr.IntOrString{}): "intOrString",
	reflect.TypeOf(metav1.Time{}):        "time",
	reflect.TypeOf(metav1.MicroTime{}):   "time",
	reflect.TypeOf(metav1.FieldsV1{}):    "raw",
}

// seenTypes catches two types that print alike (the table is keyed by the printed name); it also
// finds a type by its name for GoDecode cases.
var seenTypes = map[string]reflect.Type{}

// goTypeByName: a type of the table by its printed name.
func goTypeByName(name string) (reflect.Type, bool) {
	if len(seenTypes) == 0 {
		table := map[string]goTypeInfo{}
		for _, t := range goTypeRoots {
			collectGoTypes(t, table)
		}
	}
	t, ok := seenTypes[name]
	return t, ok
}

// goDecode is json.Unmarshal of the value into a new value of the type, marshalled back. The value
// is first written as gopher-json writes a table (object keys sorted), since the first error Go
// reports depends on the order it reads the keys in.
func goDecode(typeName string, raw json.RawMessage) (any, error, error) {
	t, ok := goTypeByName(typeName)
	if !ok {
		return nil, nil, fmt.Errorf("no Go type %q in the table", typeName)
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, nil, err
	}
	sorted, err := json.Marshal(generic)
	if err != nil {
		return nil, nil, err
	}
	target := reflect.New(t)
	if err := json.Unmarshal(sorted, target.Interface()); err != nil {
		return nil, err, nil
	}
	return target.Interface(), nil, nil
}

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
			row := goFieldRow{f.name, collectGoTypes(f.typ, table), f.options}
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
	name    string
	typ     reflect.Type
	options string
	via     string
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
		var options []string
		for _, o := range []string{"omitempty", "omitzero"} {
			if strings.Contains(","+opts+",", ","+o+",") {
				options = append(options, o)
			}
		}
		out = append(out, jsonField{name: name, typ: f.Type, options: strings.Join(options, ","), via: via})
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
