// Command karta-upstream-oracle answers cases given as JSON lines on stdin with what upstream Karta
// (github.com/run-ai/karta at the version KAI Scheduler pins) returns, one JSON line per case on stdout.
// Only the library's exported API is called; nothing is re-implemented here. Test tooling only.
//
// A request is {"id", "op", "karta", "object"?, "pods"?}; "karta" is the Karta object as JSON, decoded
// into v1alpha1.Karta as KAI's typed client receives it from the API server: unknown fields dropped and
// the CRD's defaults applied (conditionsDefinition's typeFieldName, statusFieldName, messageFieldName,
// reasonFieldName: the only `+kubebuilder:default` markers of the CRD, charts/karta/crds/run.ai_kartas.yaml).
// Pods are decoded into core/v1 Pod, as KAI's informers hand them over.
//
//	validate   v1alpha1.NewKartaValidator(karta).Validate(): each joined error's text
//	components resource.NewComponentFactoryFromObject: per component (root first, then childComponents in
//	           order) GetInstanceIds, GetPodTemplateSpec, GetPodSpec, GetPodMetadata, GetFragmentedPodSpec,
//	           GetScale, GetExtractedInstances, each a value or an error
//	status     the root component's GetStatus (phase, conditions, matchedStatuses) or its error
//	pods       per pod: instructions.InferPodComponent, then instructions.InferPodComponentInstance
//	gang       instructions.CalculateSubtreeScale per component (whole, and per instance id); per pod its
//	           component and instance, instructions.GetPodGroupingEffectiveComponent, PodQuerier.ExtractGroupKeys
//	           with the member's groupByKeyPaths, and CalculateSubtreeScale of the effective component (whole,
//	           and of the pod's instance). The older podGroups form only: the library has no function for the
//	           newer podGroup (subGroups) form, whose types alone exist at this version.
//	canonical  {"kind": "PodTemplateSpec"|"PodSpec"|"ObjectMeta", "value"}: the value decoded into that
//	           core/v1 type and encoded again (what upstream's extraction does to a value), so that the test
//	           can put Karta's answer in the same shape.
//
// The answer is {"id", "result"}, or {"id", "panic"} when the library panics.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/run-ai/karta/pkg/api/runai/v1alpha1"
	"github.com/run-ai/karta/pkg/instructions"
	"github.com/run-ai/karta/pkg/resource"
)

type request struct {
	ID     string            `json:"id"`
	Op     string            `json:"op"`
	Karta  json.RawMessage   `json:"karta"`
	Object json.RawMessage   `json:"object"`
	Pods   []json.RawMessage `json:"pods"`
	Kind   string            `json:"kind"`
	Value  json.RawMessage   `json:"value"`
}

type response struct {
	ID     string `json:"id"`
	Result any    `json:"result,omitempty"`
	Panic  string `json:"panic,omitempty"`
}

// outcome is a value or the error that took its place.
type outcome struct {
	Value any    `json:"value,omitempty"`
	Error string `json:"error,omitempty"`
}

func result(v any, err error) outcome {
	if err != nil {
		return outcome{Error: err.Error()}
	}
	return outcome{Value: v}
}

func main() {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if err := enc.Encode(answer(line)); err != nil {
				fmt.Fprintf(os.Stderr, "karta-upstream-oracle: encoding an answer: %v\n", err)
				os.Exit(1)
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "karta-upstream-oracle: reading stdin: %v\n", err)
			os.Exit(1)
		}
	}
}

func answer(line []byte) (resp response) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return response{Panic: fmt.Sprintf("bad request: %v", err)}
	}
	resp.ID = req.ID
	defer func() {
		if r := recover(); r != nil {
			resp.Result = nil
			resp.Panic = fmt.Sprintf("%v\n%s", r, debug.Stack())
		}
	}()
	if req.Op == "canonical" {
		resp.Result = runCanonical(&req)
		return resp
	}
	karta, err := decodeKarta(req.Karta)
	if err != nil {
		resp.Result = map[string]any{"decodeError": err.Error()}
		return resp
	}
	ctx := context.Background()
	switch req.Op {
	case "validate":
		resp.Result = runValidate(karta)
	case "components":
		resp.Result = runComponents(ctx, karta, req.Object)
	case "status":
		resp.Result = runStatus(ctx, karta, req.Object)
	case "pods":
		resp.Result = runPods(ctx, karta, req.Object, req.Pods)
	case "gang":
		resp.Result = runGang(ctx, karta, req.Object, req.Pods)
	default:
		resp.Panic = fmt.Sprintf("unknown op %q", req.Op)
	}
	return resp
}

// decodeKarta decodes the Karta as the API server hands it to a typed client: the CRD's defaults applied
// to absent fields, then encoding/json into v1alpha1.Karta (unknown fields dropped).
func decodeKarta(raw json.RawMessage) (*v1alpha1.Karta, error) {
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, err
	}
	applyCrdDefaults(generic)
	data, err := json.Marshal(generic)
	if err != nil {
		return nil, err
	}
	karta := &v1alpha1.Karta{}
	if err := json.Unmarshal(data, karta); err != nil {
		return nil, err
	}
	return karta, nil
}

func applyCrdDefaults(karta map[string]any) {
	spec, _ := karta["spec"].(map[string]any)
	structure, _ := spec["structureDefinition"].(map[string]any)
	components := []any{structure["rootComponent"]}
	if children, ok := structure["childComponents"].([]any); ok {
		components = append(components, children...)
	}
	defaults := map[string]string{"typeFieldName": "type", "statusFieldName": "status", "messageFieldName": "message", "reasonFieldName": "reason"}
	for _, c := range components {
		component, _ := c.(map[string]any)
		status, _ := component["statusDefinition"].(map[string]any)
		conditions, ok := status["conditionsDefinition"].(map[string]any)
		if !ok {
			continue
		}
		for field, value := range defaults {
			if _, present := conditions[field]; !present {
				conditions[field] = value
			}
		}
	}
}

func runValidate(karta *v1alpha1.Karta) any {
	err := v1alpha1.NewKartaValidator(karta).Validate()
	errs := []string{}
	if err != nil {
		if joined, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range joined.Unwrap() {
				errs = append(errs, e.Error())
			}
		} else {
			errs = append(errs, err.Error())
		}
	}
	return map[string]any{"ok": err == nil, "errors": errs}
}

func decodeObject(raw json.RawMessage) (*unstructured.Unstructured, error) {
	var object map[string]any
	if err := json.Unmarshal(raw, &object); err != nil {
		return nil, err
	}
	if object == nil {
		return nil, fmt.Errorf("the object is not a JSON object")
	}
	return &unstructured.Unstructured{Object: object}, nil
}

func componentNames(karta *v1alpha1.Karta) []string {
	names := []string{karta.Spec.StructureDefinition.RootComponent.Name}
	for _, c := range karta.Spec.StructureDefinition.ChildComponents {
		names = append(names, c.Name)
	}
	return names
}

func runComponents(ctx context.Context, karta *v1alpha1.Karta, rawObject json.RawMessage) any {
	object, err := decodeObject(rawObject)
	if err != nil {
		return map[string]any{"objectError": err.Error()}
	}
	factory := resource.NewComponentFactoryFromObject(karta, object)
	out := []map[string]any{}
	for _, name := range componentNames(karta) {
		component, err := factory.GetComponent(name)
		if err != nil {
			out = append(out, map[string]any{"name": name, "error": err.Error()})
			continue
		}
		entry := map[string]any{"name": name, "hasPodDefinition": component.HasPodDefinition()}
		entry["instanceIds"] = result(component.GetInstanceIds(ctx))
		entry["podTemplateSpec"] = result(component.GetPodTemplateSpec(ctx))
		entry["podSpec"] = result(component.GetPodSpec(ctx))
		entry["metadata"] = result(component.GetPodMetadata(ctx))
		entry["fragmentedPodSpec"] = result(component.GetFragmentedPodSpec(ctx))
		entry["scale"] = result(component.GetScale(ctx))
		entry["extracted"] = result(component.GetExtractedInstances(ctx))
		out = append(out, entry)
	}
	return map[string]any{"components": out}
}

func runStatus(ctx context.Context, karta *v1alpha1.Karta, rawObject json.RawMessage) any {
	object, err := decodeObject(rawObject)
	if err != nil {
		return map[string]any{"objectError": err.Error()}
	}
	factory := resource.NewComponentFactoryFromObject(karta, object)
	root, err := factory.GetRootComponent()
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	status, err := root.GetStatus(ctx)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"status": status}
}

type podAnswer struct {
	Name           string  `json:"name"`
	DecodeError    string  `json:"decodeError,omitempty"`
	Component      string  `json:"component,omitempty"`
	ComponentError string  `json:"componentError,omitempty"`
	Instance       *string `json:"instance,omitempty"`
	InstanceError  string  `json:"instanceError,omitempty"`

	// gang only
	Effective      *effectiveAnswer `json:"effective,omitempty"`
	EffectiveError string           `json:"effectiveError,omitempty"`
	GroupKeys      *outcome         `json:"groupKeys,omitempty"`
	SubtreeScale   *outcome         `json:"subtreeScale,omitempty"`
	InstanceScale  *outcome         `json:"instanceSubtreeScale,omitempty"`
}

type effectiveAnswer struct {
	Component       string   `json:"component"`
	PodGroup        string   `json:"podGroup"`
	GroupByKeyPaths []string `json:"groupByKeyPaths"`
	Filters         []string `json:"filters"`
}

// classify answers InferPodComponent and, when a component was inferred, InferPodComponentInstance.
func classify(ctx context.Context, raw json.RawMessage, summary *instructions.StructureSummary, factory *resource.ComponentFactory) (podAnswer, *resource.PodQuerier) {
	pod := &corev1.Pod{}
	if err := json.Unmarshal(raw, pod); err != nil {
		return podAnswer{DecodeError: err.Error()}, nil
	}
	answer := podAnswer{Name: pod.Name}
	querier := resource.NewPodQuerier(pod)
	component, err := instructions.InferPodComponent(ctx, querier, summary)
	if err != nil {
		answer.ComponentError = err.Error()
		return answer, querier
	}
	answer.Component = component
	instance, err := instructions.InferPodComponentInstance(ctx, querier, component, factory)
	if err != nil {
		answer.InstanceError = err.Error()
	} else {
		answer.Instance = instance
	}
	return answer, querier
}

// summaryAndFactory decodes the object and builds what pods and gang read, or the answer saying what failed.
func summaryAndFactory(karta *v1alpha1.Karta, rawObject json.RawMessage) (*instructions.StructureSummary, *resource.ComponentFactory, map[string]any) {
	object, err := decodeObject(rawObject)
	if err != nil {
		return nil, nil, map[string]any{"objectError": err.Error()}
	}
	summary, err := instructions.NewStructureSummary(karta)
	if err != nil {
		return nil, nil, map[string]any{"summaryError": err.Error()}
	}
	return summary, resource.NewComponentFactoryFromObject(karta, object), nil
}

func runPods(ctx context.Context, karta *v1alpha1.Karta, rawObject json.RawMessage, pods []json.RawMessage) any {
	summary, factory, failed := summaryAndFactory(karta, rawObject)
	if failed != nil {
		return failed
	}
	out := []podAnswer{}
	for _, raw := range pods {
		answer, _ := classify(ctx, raw, summary, factory)
		out = append(out, answer)
	}
	return map[string]any{"pods": out}
}

func subtreeScale(ctx context.Context, component string, instance *string, factory *resource.ComponentFactory, summary *instructions.StructureSummary) *outcome {
	v, err := instructions.CalculateSubtreeScale(ctx, component, instance, factory, summary)
	o := result(v, err)
	return &o
}

func runGang(ctx context.Context, karta *v1alpha1.Karta, rawObject json.RawMessage, pods []json.RawMessage) any {
	summary, factory, failed := summaryAndFactory(karta, rawObject)
	if failed != nil {
		return failed
	}

	components := []map[string]any{}
	for _, name := range componentNames(karta) {
		entry := map[string]any{"name": name, "subtreeScale": subtreeScale(ctx, name, nil, factory, summary)}
		if component, err := factory.GetComponent(name); err == nil && component.HasInstanceIdDefinition() {
			if ids, err := component.GetInstanceIds(ctx); err == nil {
				perInstance := map[string]*outcome{}
				for _, id := range ids {
					perInstance[id] = subtreeScale(ctx, name, &id, factory, summary)
				}
				entry["instances"] = perInstance
			}
		}
		components = append(components, entry)
	}

	out := []podAnswer{}
	for _, raw := range pods {
		answer, querier := classify(ctx, raw, summary, factory)
		if answer.Component == "" || querier == nil {
			out = append(out, answer)
			continue
		}
		effective, err := instructions.GetPodGroupingEffectiveComponent(ctx, querier, answer.Component, summary)
		switch {
		case err != nil:
			answer.EffectiveError = err.Error()
		case effective != nil:
			member := effective.MemberDefinition
			answer.Effective = &effectiveAnswer{Component: effective.EffectiveComponent, PodGroup: effective.PodGroupName, GroupByKeyPaths: member.GroupByKeyPaths, Filters: member.Filters}
			keys, err := querier.ExtractGroupKeys(ctx, member.GroupByKeyPaths)
			o := result(keys, err)
			answer.GroupKeys = &o
			answer.SubtreeScale = subtreeScale(ctx, effective.EffectiveComponent, nil, factory, summary)
			if answer.Instance != nil {
				answer.InstanceScale = subtreeScale(ctx, effective.EffectiveComponent, answer.Instance, factory, summary)
			}
		}
		out = append(out, answer)
	}
	return map[string]any{"components": components, "pods": out}
}

func runCanonical(req *request) any {
	var target any
	switch req.Kind {
	case "PodTemplateSpec":
		target = &corev1.PodTemplateSpec{}
	case "PodSpec":
		target = &corev1.PodSpec{}
	case "ObjectMeta":
		target = &metav1.ObjectMeta{}
	default:
		return map[string]any{"error": fmt.Sprintf("unknown kind %q", req.Kind)}
	}
	if err := json.Unmarshal(req.Value, target); err != nil {
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"value": target}
}
