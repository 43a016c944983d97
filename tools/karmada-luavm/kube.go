package main

import (
	"fmt"
	"math"
	"regexp"

	lua "github.com/yuin/gopher-lua"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// The `kube` library (`local kube = require("kube")`) with the behaviour Karmada documents for
// its luavm kube.go: resourceAdd, accuratePodRequirements, getPodDependencies and
// getResourceQuantity.

func kubeLoader(L *lua.LState) int {
	mod := L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"resourceAdd":             kubeResourceAdd,
		"accuratePodRequirements": kubeAccuratePodRequirements,
		"getPodDependencies":      kubeGetPodDependencies,
		"getResourceQuantity":     kubeGetResourceQuantity,
	})
	L.Push(mod)
	return 1
}

// quantityArgument reads argument n as Karmada does: nil is zero, a string is parsed with
// resource.MustParse (an invalid one panics, which gopher-lua's protected call reports as the
// panic's text), anything else is a type error.
func quantityArgument(L *lua.LState, n int) resource.Quantity {
	v := L.Get(n)
	switch v.Type() {
	case lua.LTNil:
		return resource.Quantity{}
	case lua.LTString:
		return resource.MustParse(string(v.(lua.LString)))
	default:
		L.TypeError(n, lua.LTString)
		return resource.Quantity{}
	}
}

// kubeResourceAdd sums its quantity arguments and returns the sum as Quantity.String prints it.
func kubeResourceAdd(L *lua.LState) int {
	sum := resource.Quantity{}
	for i := 1; i <= L.GetTop(); i++ {
		sum.Add(quantityArgument(L, i))
	}
	L.Push(lua.LString(sum.String()))
	return 1
}

// podTemplateArgument decodes argument 1 into a PodTemplateSpec as ConvertLuaResultInto does.
// Karmada's message names the table with Go's %#v (memory addresses that differ on every run);
// the oracle leaves that out: "fail to convert lua value to <what>: <why>".
func podTemplateArgument(L *lua.LState, what string) *corev1.PodTemplateSpec {
	table := L.CheckTable(1)
	template := &corev1.PodTemplateSpec{}
	if err := convertResult(table, template); err != nil {
		L.RaiseError("fail to convert lua value to %s: %v", what, err)
	}
	return template
}

// kubeAccuratePodRequirements returns the requirements of one replica of the template (nil when
// it has neither a node claim nor resource requests).
func kubeAccuratePodRequirements(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.RaiseError("getPodRequirements only accepts one argument")
		return 0
	}
	template := podTemplateArgument(L, "PodTemplateSpec")
	return pushConverted(L, replicaRequirementsOf(template))
}

// kubeGetPodDependencies returns the ConfigMaps, Secrets, ServiceAccount and PVCs the template
// refers to, in the namespace given (nil: "default"; a number reads as it prints).
func kubeGetPodDependencies(L *lua.LState) int {
	if L.GetTop() != 2 {
		L.RaiseError("getPodDependencies only accepts two argument")
		return 0
	}
	L.CheckTable(1)
	namespace := ""
	switch L.Get(2).Type() {
	case lua.LTNil:
		namespace = "default"
	case lua.LTString, lua.LTNumber:
		namespace = L.CheckString(2)
	default:
		L.TypeError(2, lua.LTString)
	}
	template := podTemplateArgument(L, "corev1.PodTemplateSpec")
	return pushConverted(L, podDependencies(&template.Spec, namespace))
}

func pushConverted(L *lua.LState, value any) int {
	lv, err := toLua(L, value)
	if err != nil {
		L.RaiseError("fail to convert %#v to Lua value: %v", value, err)
		return 0
	}
	L.Push(lv)
	return 1
}

// decAddress is the address Go's %#v prints for a quantity's arbitrary-precision form.
var decAddress = regexp.MustCompile(`\(\*inf\.Dec\)\(0x[0-9a-f]+\)`)

// goSyntaxOf is the quantity as Go's %#v prints it, with the address of its arbitrary-precision
// form (different on every run) written as 0x?.
func goSyntaxOf(q resource.Quantity) string {
	return decAddress.ReplaceAllString(fmt.Sprintf("%#v", q), "(*inf.Dec)(0x?)")
}

// kubeGetResourceQuantity returns the quantity as an approximate float; a negative or infinite
// approximation is an error naming the quantity with Go's %#v.
func kubeGetResourceQuantity(L *lua.LState) int {
	if L.GetTop() != 1 {
		L.RaiseError("getResourceQuantity only accepts one argument")
		return 0
	}
	q := quantityArgument(L, 1)
	n := q.AsApproximateFloat64()
	if n < 0 {
		L.RaiseError("int approximation unexpectedly returned a negative value: %s,", goSyntaxOf(q))
		return 0
	}
	if math.IsInf(n, 1) {
		L.RaiseError("int approximation unexpectedly returned an infinite value: %s,", goSyntaxOf(q))
		return 0
	}
	L.Push(lua.LNumber(n))
	return 1
}
