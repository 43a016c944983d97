package main

import (
	"fmt"
	configv1alpha1 "karta.dev/tools/karmada-luavm/apis/config/v1alpha1"
	workv1alpha2 "karta.dev/tools/karmada-luavm/apis/work/v1alpha2"
	"sort"

	lua "github.com/yuin/gopher-lua"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The eight operations as Karmada's luavm runs them and its configurable interpreter returns
// them: the Lua function each calls, the checks on its results, and their conversion.

// replicaResult is InterpretReplica's answer.
type replicaResult struct {
	Replicas int32                             `json:"replicas"`
	Requires *workv1alpha2.ReplicaRequirements `json:"requires"`
}

func resultTypeIs(v lua.LValue, t lua.LValueType, what string) error {
	if v.Type() != t {
		return fmt.Errorf("result type %#v is not %s", v.Type(), what)
	}
	return nil
}

func getReplicas(r *runner, script string, object *unstructured.Unstructured) (any, error) {
	rets, err := r.run(script, "GetReplicas", 2, object)
	if err != nil {
		return nil, err
	}
	if err := resultTypeIs(rets[0], lua.LTNumber, "number"); err != nil {
		return nil, err
	}
	out := replicaResult{Replicas: int32(rets[0].(lua.LNumber))}
	switch rets[1].Type() {
	case lua.LTTable:
		out.Requires = &workv1alpha2.ReplicaRequirements{}
		if err := convertResult(rets[1].(*lua.LTable), out.Requires); err != nil {
			return nil, err
		}
	case lua.LTNil:
	default:
		return nil, fmt.Errorf("expect the returned requires type is table but got %s", rets[1].Type())
	}
	return out, nil
}

func getComponents(r *runner, script string, object *unstructured.Unstructured) (any, error) {
	rets, err := r.run(script, "GetComponents", 1, object)
	if err != nil {
		return nil, fmt.Errorf("failed to run 'GetComponents' script: %w", err)
	}
	var components []workv1alpha2.Component
	switch rets[0].Type() {
	case lua.LTTable:
		if err := convertResult(rets[0].(*lua.LTable), &components); err != nil {
			return nil, fmt.Errorf("failed to convert lua table for components: %w", err)
		}
	case lua.LTNil:
	default:
		return nil, fmt.Errorf("expected result type 'table' or 'nil' from GetComponents, but got '%s'", rets[0].Type())
	}
	return components, nil
}

// objectResult decodes an object-returning function's table into an Unstructured, repaired
// against the references.
func objectResult(rets []lua.LValue, references ...any) (any, error) {
	table, ok := rets[0].(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("expect the returned requires type is table but got %s", rets[0].Type())
	}
	out := &unstructured.Unstructured{}
	if err := convertResult(table, out, references...); err != nil {
		return nil, err
	}
	return out, nil
}

func reviseReplica(r *runner, script string, object *unstructured.Unstructured, replicas int64) (any, error) {
	rets, err := r.run(script, "ReviseReplica", 1, object, replicas)
	if err != nil {
		return nil, err
	}
	return objectResult(rets, object)
}

func retain(r *runner, script string, desired, observed *unstructured.Unstructured) (any, error) {
	rets, err := r.run(script, "Retain", 1, desired, observed)
	if err != nil {
		return nil, err
	}
	return objectResult(rets, desired, observed)
}

func aggregateStatus(r *runner, script string, object *unstructured.Unstructured, items []workv1alpha2.AggregatedStatusItem) (any, error) {
	rets, err := r.run(script, "AggregateStatus", 1, object, items)
	if err != nil {
		return nil, err
	}
	return objectResult(rets)
}

func interpretHealth(r *runner, script string, object *unstructured.Unstructured) (any, error) {
	rets, err := r.run(script, "InterpretHealth", 1, object)
	if err != nil {
		return nil, err
	}
	if err := resultTypeIs(rets[0], lua.LTBool, "bool"); err != nil {
		return nil, err
	}
	return bool(rets[0].(lua.LBool)), nil
}

func reflectStatus(r *runner, script string, object *unstructured.Unstructured) (any, error) {
	rets, err := r.run(script, "ReflectStatus", 1, object)
	if err != nil {
		return nil, err
	}
	table, ok := rets[0].(*lua.LTable)
	if !ok {
		return nil, fmt.Errorf("expect the returned replica type is table but got %s", rets[0].Type())
	}
	status := &runtime.RawExtension{}
	if err := convertResult(table, status); err != nil {
		return nil, err
	}
	return status, nil
}

// getDependencies runs every dependency script (the first failure ends it), verifies each
// result, and returns the union (equal references once) sorted by apiVersion, kind, namespace,
// name. References equal on those four keep the order they were found in (Karmada's order among
// them is random).
func getDependencies(r *runner, scripts []string, object *unstructured.Unstructured) (any, error) {
	union := []configv1alpha1.DependentObjectReference{}
	seen := map[configv1alpha1.DependentObjectReference]bool{}
	for _, script := range scripts {
		rets, err := r.run(script, "GetDependencies", 1, object)
		if err != nil {
			return nil, err
		}
		table, ok := rets[0].(*lua.LTable)
		if !ok {
			return nil, fmt.Errorf("expect the returned requires type is table but got %s", rets[0].Type())
		}
		var refs []configv1alpha1.DependentObjectReference
		if err := convertResult(table, &refs); err != nil {
			return nil, err
		}
		if err := verifyDependencies(refs); err != nil {
			return nil, err
		}
		for _, ref := range refs {
			// A set of structs: the label selector is a pointer, so references with one are never equal.
			if !seen[ref] {
				seen[ref] = true
				union = append(union, ref)
			}
		}
	}
	sort.SliceStable(union, func(i, j int) bool {
		a, b := union[i], union[j]
		if a.APIVersion != b.APIVersion {
			return a.APIVersion < b.APIVersion
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Namespace != b.Namespace {
			return a.Namespace < b.Namespace
		}
		return a.Name < b.Name
	})
	return union, nil
}

// verifyDependencies: apiVersion and kind required, a name or a label selector required, the
// selector valid (label values checked), all problems aggregated.
func verifyDependencies(deps []configv1alpha1.DependentObjectReference) error {
	errs := field.ErrorList{}
	for i, d := range deps {
		p := field.NewPath("dependencies").Index(i)
		if d.APIVersion == "" {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), d.APIVersion, "missing required apiVersion"))
		}
		if d.Kind == "" {
			errs = append(errs, field.Invalid(p.Child("kind"), d.Kind, "missing required kind"))
		}
		if d.Name == "" && d.LabelSelector == nil {
			errs = append(errs, field.Invalid(p, deps[i], "dependency can not leave name and labelSelector all empty"))
		}
		errs = append(errs, validateLabelSelector(d.LabelSelector, p.Child("labelSelector"))...)
	}
	return errs.ToAggregate()
}

// validateLabelSelector is metav1 validation's ValidateLabelSelector (label values checked), with
// matchLabels checked in key order: apimachinery ranges over the map, in Go's random order.
func validateLabelSelector(s *metav1.LabelSelector, p *field.Path) field.ErrorList {
	errs := field.ErrorList{}
	if s == nil {
		return errs
	}
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		errs = append(errs, metav1validation.ValidateLabels(map[string]string{k: s.MatchLabels[k]}, p.Child("matchLabels"))...)
	}
	for i, expr := range s.MatchExpressions {
		errs = append(errs, metav1validation.ValidateLabelSelectorRequirement(expr, metav1validation.LabelSelectorValidationOptions{}, p.Child("matchExpressions").Index(i))...)
	}
	return errs
}
