package main

import (
	"context"
	"encoding/json"
	_ "unsafe" // go:linkname

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	wb "k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder"
)

// The library's own config resolution (defaults, the user's blocks, then the callbacks).
//
//go:linkname resolveSchedulingConfig k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder.resolveSchedulingConfig
func resolveSchedulingConfig(item *wb.WorkloadItem) *wb.SchedulingConfig

type optionsJSON struct {
	Name                         string                 `json:"name"`
	Namespace                    string                 `json:"namespace"`
	Owner                        *metav1.OwnerReference `json:"owner"`
	AllowedPolicies              []string               `json:"allowedPolicies"`
	AllowedDisruptionModes       []string               `json:"allowedDisruptionModes"`
	DisableDeclarativeValidation bool                   `json:"disableDeclarativeValidation"`
}

var policyOptions = map[string]wb.SchedulingPolicyOption{"Basic": wb.BasicPolicy, "Gang": wb.GangPolicy}
var modeOptions = map[string]wb.DisruptionModeOption{"Single": wb.SingleMode, "All": wb.AllMode}

func (o optionsJSON) toOptions() wb.BuildOptions {
	opts := wb.BuildOptions{Name: o.Name, Namespace: o.Namespace, Owner: o.Owner, DisableDeclarativeValidation: o.DisableDeclarativeValidation}
	for _, p := range o.AllowedPolicies {
		opts.AllowedPolicies = append(opts.AllowedPolicies, policyOptions[p])
	}
	for _, m := range o.AllowedDisruptionModes {
		opts.AllowedDisruptionModes = append(opts.AllowedDisruptionModes, modeOptions[m])
	}
	return opts
}

// stepJSON is one call on the builder.
type stepJSON struct {
	Do       string    `json:"do"` // validate, build, newPodGroup, newCompositePodGroup
	OldRoot  *itemJSON `json:"oldRoot,omitempty"`
	Name     string    `json:"name,omitempty"`
	Template string    `json:"template,omitempty"`
}

type stepResult struct {
	Errors []errorJSON `json:"errors,omitempty"`
	Object any         `json:"object,omitempty"`
	Error  *string     `json:"error,omitempty"`
	// For build: whether the object is the one an earlier build returned (the cache).
	Same *bool `json:"same,omitempty"`
}

// errorJSON is a field.Error: its members and its Error() text.
type errorJSON struct {
	Type     string          `json:"type"`
	Field    string          `json:"field"`
	BadValue json.RawMessage `json:"badValue,omitempty"`
	Detail   string          `json:"detail"`
	Origin   string          `json:"origin,omitempty"`
	Error    string          `json:"error"`
}

func errorsJSON(errs field.ErrorList) []errorJSON {
	out := []errorJSON{}
	for _, e := range errs {
		v, err := json.Marshal(e.BadValue)
		if err != nil {
			v = nil
		}
		out = append(out, errorJSON{Type: string(e.Type), Field: e.Field, BadValue: v, Detail: e.Detail, Origin: e.Origin, Error: e.Error()})
	}
	return out
}

func errText(err error) *string {
	s := err.Error()
	return &s
}

func runBuilder(req *request) any {
	marks = nil
	var b *wb.Builder
	root := req.Root.toItem()
	if len(req.Existing) > 0 && string(req.Existing) != "null" {
		var existing schedulingv1beta1.Workload
		if err := json.Unmarshal(req.Existing, &existing); err != nil {
			panic(err)
		}
		b = wb.NewBuilderFromExistingWorkload(&existing, req.Options.toOptions())
	} else {
		b = wb.NewBuilder(root, req.Options.toOptions())
	}
	var built []*schedulingv1beta1.Workload
	results := []stepResult{}
	for _, s := range req.Steps {
		var r stepResult
		switch s.Do {
		case "validate":
			r.Errors = errorsJSON(b.Validate(context.Background(), wb.ValidationInput{OldRoot: s.OldRoot.toItem()}))
		case "build":
			wl, err := b.BuildWorkload()
			if err != nil {
				r.Error = errText(err)
			} else {
				r.Object = wl
				same := false
				for _, w := range built {
					same = same || w == wl
				}
				r.Same = &same
				built = append(built, wl)
			}
		case "newPodGroup":
			pg, err := b.NewPodGroup(s.Name, s.Template)
			if err != nil {
				r.Error = errText(err)
			} else {
				r.Object = pg
			}
		case "newCompositePodGroup":
			cpg, err := b.NewCompositePodGroup(s.Name, s.Template)
			if err != nil {
				r.Error = errText(err)
			} else {
				r.Object = cpg
			}
		default:
			panic("unknown step " + s.Do)
		}
		results = append(results, r)
	}
	return map[string]any{"steps": results, "marks": append([]string{}, marks...), "inputsAfter": inputsOf(root)}
}

func runResolve(req *request) any {
	marks = nil
	return map[string]any{"config": fromConfig(resolveSchedulingConfig(req.Item.toItem())), "marks": append([]string{}, marks...)}
}
