package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	schedulingv1alpha3 "k8s.io/api/scheduling/v1alpha3"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	wb "k8s.io/component-helpers/scheduling/schedulingv1/workloadbuilder"
	jobutil "k8s.io/kubernetes/pkg/api/job"
)

// itemJSON is a WorkloadItem as the tests write it: callbacks are named behaviours (callbackJSON), a path is
// its rendering ("spec.groups[1].scheduling"; absent means a nil *field.Path), a null child is a nil child.
type itemJSON struct {
	Name          string          `json:"name"`
	Path          *string         `json:"path,omitempty"`
	DefaultConfig *configJSON     `json:"defaultConfig,omitempty"`
	Input         inputJSON       `json:"input"`
	Callbacks     []*callbackJSON `json:"callbacks,omitempty"`
	Children      []*itemJSON     `json:"children,omitempty"`
}

type inputJSON struct {
	Policy struct {
		PodGroupData          *schedulingv1alpha3.WorkloadPodGroupSchedulingPolicy          `json:"podGroupData,omitempty"`
		CompositePodGroupData *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingPolicy `json:"compositePodGroupData,omitempty"`
		PathElements          []string                                                      `json:"pathElements,omitempty"`
	} `json:"policy"`
	Constraints struct {
		PodGroupData          *schedulingv1alpha3.WorkloadPodGroupSchedulingConstraints          `json:"podGroupData,omitempty"`
		CompositePodGroupData *schedulingv1alpha3.WorkloadCompositePodGroupSchedulingConstraints `json:"compositePodGroupData,omitempty"`
		PathElements          []string                                                           `json:"pathElements,omitempty"`
	} `json:"constraints"`
	DisruptionMode struct {
		PodGroupData          *schedulingv1alpha3.WorkloadPodGroupDisruptionMode          `json:"podGroupData,omitempty"`
		CompositePodGroupData *schedulingv1alpha3.WorkloadCompositePodGroupDisruptionMode `json:"compositePodGroupData,omitempty"`
		PathElements          []string                                                    `json:"pathElements,omitempty"`
	} `json:"disruptionMode"`
	ResourceClaims struct {
		PodGroupData []schedulingv1alpha3.WorkloadPodGroupResourceClaim `json:"podGroupData,omitempty"`
		PathElements []string                                           `json:"pathElements,omitempty"`
	} `json:"resourceClaims"`
}

// configJSON is a SchedulingConfig in Karta's spelling.
type configJSON struct {
	Policy *struct {
		Basic *struct{} `json:"basic,omitempty"`
		Gang  *struct {
			MinCount *int32 `json:"minCount,omitempty"`
		} `json:"gang,omitempty"`
	} `json:"policy,omitempty"`
	Constraints *struct {
		Topology []schedulingv1beta1.TopologyConstraint `json:"topology,omitempty"`
	} `json:"constraints,omitempty"`
	DisruptionMode *struct {
		Single *struct{} `json:"single,omitempty"`
		All    *struct{} `json:"all,omitempty"`
	} `json:"disruptionMode,omitempty"`
	ResourceClaims    []claimJSON `json:"resourceClaims,omitempty"`
	PriorityClassName string      `json:"priorityClassName,omitempty"`
}

type claimJSON struct {
	Name                      string  `json:"name"`
	ResourceClaimName         *string `json:"resourceClaimName,omitempty"`
	ResourceClaimTemplateName *string `json:"resourceClaimTemplateName,omitempty"`
}

// callbackJSON names a SchedulingConfigFunc the tests use; exactly one member is set.
type callbackJSON struct {
	// Upstream's test helper defaultGangMinCount(n): an unset gang minCount becomes n.
	DefaultGangMinCount *int32 `json:"defaultGangMinCount,omitempty"`
	// Multiplies a set gang minCount.
	MultiplyMinCount *int32 `json:"multiplyMinCount,omitempty"`
	// The Job's callback (k8s.io/kubernetes pkg/api/job: max(1, parallelism) for an unset minCount);
	// JobParallelism null is a Job without parallelism.
	Job            bool   `json:"job,omitempty"`
	JobParallelism *int32 `json:"jobParallelism,omitempty"`
	// Records that it ran (the answer lists the marks in order).
	Mark *string `json:"mark,omitempty"`
	// Overwrites resolved fields.
	SetPriorityClassName *string `json:"setPriorityClassName,omitempty"`
	SetDisruptionMode    *string `json:"setDisruptionMode,omitempty"` // "single", "all" or "none"
	SetPolicy            *string `json:"setPolicy,omitempty"`         // "basic", "gang", "both" or "none"
	SetMinCount          *int32  `json:"setMinCount,omitempty"`
}

var marks []string

func (c *callbackJSON) fn() wb.SchedulingConfigFunc {
	if c == nil {
		return nil
	}
	switch {
	case c.DefaultGangMinCount != nil:
		n := *c.DefaultGangMinCount
		return func(cfg *wb.SchedulingConfig) {
			if p := cfg.Policy; p != nil && p.Gang != nil && p.Gang.MinCount == nil {
				p.Gang.MinCount = &n
			}
		}
	case c.MultiplyMinCount != nil:
		n := *c.MultiplyMinCount
		return func(cfg *wb.SchedulingConfig) {
			if p := cfg.Policy; p != nil && p.Gang != nil && p.Gang.MinCount != nil {
				*p.Gang.MinCount *= n
			}
		}
	case c.Job:
		// The callback exactly as the Job registry and controller build it.
		return jobutil.WorkloadItemForJob("job", "", c.JobParallelism, wb.WorkloadInput{}, nil).Callbacks[0]
	case c.Mark != nil:
		id := *c.Mark
		return func(*wb.SchedulingConfig) { marks = append(marks, id) }
	case c.SetPriorityClassName != nil:
		v := *c.SetPriorityClassName
		return func(cfg *wb.SchedulingConfig) { cfg.PriorityClassName = v }
	case c.SetDisruptionMode != nil:
		v := *c.SetDisruptionMode
		return func(cfg *wb.SchedulingConfig) {
			switch v {
			case "single":
				cfg.DisruptionMode = &wb.DisruptionMode{Single: &wb.SingleDisruptionMode{}}
			case "all":
				cfg.DisruptionMode = &wb.DisruptionMode{All: &wb.AllDisruptionMode{}}
			default:
				cfg.DisruptionMode = nil
			}
		}
	case c.SetPolicy != nil:
		v := *c.SetPolicy
		return func(cfg *wb.SchedulingConfig) {
			switch v {
			case "basic":
				cfg.Policy = &wb.SchedulingPolicy{Basic: &wb.BasicSchedulingPolicy{}}
			case "gang":
				cfg.Policy = &wb.SchedulingPolicy{Gang: &wb.GangSchedulingPolicy{}}
			case "both":
				cfg.Policy = &wb.SchedulingPolicy{Basic: &wb.BasicSchedulingPolicy{}, Gang: &wb.GangSchedulingPolicy{}}
			default:
				cfg.Policy = nil
			}
		}
	case c.SetMinCount != nil:
		n := *c.SetMinCount
		return func(cfg *wb.SchedulingConfig) {
			if p := cfg.Policy; p != nil && p.Gang != nil {
				p.Gang.MinCount = &n
			}
		}
	}
	panic(fmt.Sprintf("unknown callback %+v", *c))
}

var pathToken = regexp.MustCompile(`^([^.\[]*)((?:\[[^\]]*\])*)`)
var subscript = regexp.MustCompile(`\[([^\]]*)\]`)

// toPath parses a rendered field path back into a *field.Path (nil for an absent or empty path: Karta's
// empty path is Go's nil one).
func toPath(s *string) *field.Path {
	if s == nil || *s == "" {
		return nil
	}
	var p *field.Path
	for _, part := range strings.Split(*s, ".") {
		m := pathToken.FindStringSubmatch(part)
		if p == nil {
			p = field.NewPath(m[1])
		} else {
			p = p.Child(m[1])
		}
		for _, sub := range subscript.FindAllStringSubmatch(m[2], -1) {
			if i, err := strconv.Atoi(sub[1]); err == nil {
				p = p.Index(i)
			} else {
				p = p.Key(sub[1])
			}
		}
	}
	return p
}

func (c *configJSON) toConfig() *wb.SchedulingConfig {
	if c == nil {
		return nil
	}
	cfg := &wb.SchedulingConfig{PriorityClassName: c.PriorityClassName}
	if c.Policy != nil {
		cfg.Policy = &wb.SchedulingPolicy{}
		if c.Policy.Basic != nil {
			cfg.Policy.Basic = &wb.BasicSchedulingPolicy{}
		}
		if c.Policy.Gang != nil {
			cfg.Policy.Gang = &wb.GangSchedulingPolicy{MinCount: c.Policy.Gang.MinCount}
		}
	}
	if c.Constraints != nil {
		cfg.Constraints = &wb.SchedulingConstraints{Topology: c.Constraints.Topology}
	}
	if c.DisruptionMode != nil {
		cfg.DisruptionMode = &wb.DisruptionMode{}
		if c.DisruptionMode.Single != nil {
			cfg.DisruptionMode.Single = &wb.SingleDisruptionMode{}
		}
		if c.DisruptionMode.All != nil {
			cfg.DisruptionMode.All = &wb.AllDisruptionMode{}
		}
	}
	for _, rc := range c.ResourceClaims {
		cfg.ResourceClaims = append(cfg.ResourceClaims, wb.ResourceClaim{Name: rc.Name, ResourceClaimName: rc.ResourceClaimName, ResourceClaimTemplateName: rc.ResourceClaimTemplateName})
	}
	return cfg
}

// fromConfig prints a resolved SchedulingConfig in Karta's spelling.
func fromConfig(cfg *wb.SchedulingConfig) *configJSON {
	if cfg == nil {
		return nil
	}
	out := &configJSON{PriorityClassName: cfg.PriorityClassName}
	if p := cfg.Policy; p != nil {
		out.Policy = &struct {
			Basic *struct{} `json:"basic,omitempty"`
			Gang  *struct {
				MinCount *int32 `json:"minCount,omitempty"`
			} `json:"gang,omitempty"`
		}{}
		if p.Basic != nil {
			out.Policy.Basic = &struct{}{}
		}
		if p.Gang != nil {
			out.Policy.Gang = &struct {
				MinCount *int32 `json:"minCount,omitempty"`
			}{MinCount: p.Gang.MinCount}
		}
	}
	if c := cfg.Constraints; c != nil {
		out.Constraints = &struct {
			Topology []schedulingv1beta1.TopologyConstraint `json:"topology,omitempty"`
		}{Topology: c.Topology}
	}
	if d := cfg.DisruptionMode; d != nil {
		out.DisruptionMode = &struct {
			Single *struct{} `json:"single,omitempty"`
			All    *struct{} `json:"all,omitempty"`
		}{}
		if d.Single != nil {
			out.DisruptionMode.Single = &struct{}{}
		}
		if d.All != nil {
			out.DisruptionMode.All = &struct{}{}
		}
	}
	for _, rc := range cfg.ResourceClaims {
		out.ResourceClaims = append(out.ResourceClaims, claimJSON{Name: rc.Name, ResourceClaimName: rc.ResourceClaimName, ResourceClaimTemplateName: rc.ResourceClaimTemplateName})
	}
	return out
}

// toItem builds the WorkloadItem tree (nil for a null item).
func (j *itemJSON) toItem() *wb.WorkloadItem {
	if j == nil {
		return nil
	}
	item := &wb.WorkloadItem{Name: j.Name, Path: toPath(j.Path), DefaultConfig: j.DefaultConfig.toConfig()}
	item.Input.Policy = wb.PolicyInput{PodGroupData: j.Input.Policy.PodGroupData, CompositePodGroupData: j.Input.Policy.CompositePodGroupData, PathElements: j.Input.Policy.PathElements}
	item.Input.Constraints = wb.ConstraintsInput{PodGroupData: j.Input.Constraints.PodGroupData, CompositePodGroupData: j.Input.Constraints.CompositePodGroupData, PathElements: j.Input.Constraints.PathElements}
	item.Input.DisruptionMode = wb.DisruptionModeInput{PodGroupData: j.Input.DisruptionMode.PodGroupData, CompositePodGroupData: j.Input.DisruptionMode.CompositePodGroupData, PathElements: j.Input.DisruptionMode.PathElements}
	item.Input.ResourceClaims = wb.ResourceClaimsInput{PodGroupData: j.Input.ResourceClaims.PodGroupData, PathElements: j.Input.ResourceClaims.PathElements}
	for _, cb := range j.Callbacks {
		item.Callbacks = append(item.Callbacks, cb.fn())
	}
	for _, c := range j.Children {
		item.Children = append(item.Children, c.toItem())
	}
	return item
}

// inputsOf prints the user's building blocks of a tree after the calls, to show none was mutated.
func inputsOf(item *wb.WorkloadItem) any {
	if item == nil {
		return nil
	}
	children := []any{}
	for _, c := range item.Children {
		children = append(children, inputsOf(c))
	}
	return map[string]any{
		"name": item.Name,
		"input": map[string]any{
			"policy":         map[string]any{"podGroupData": item.Input.Policy.PodGroupData, "compositePodGroupData": item.Input.Policy.CompositePodGroupData},
			"constraints":    map[string]any{"podGroupData": item.Input.Constraints.PodGroupData, "compositePodGroupData": item.Input.Constraints.CompositePodGroupData},
			"disruptionMode": map[string]any{"podGroupData": item.Input.DisruptionMode.PodGroupData, "compositePodGroupData": item.Input.DisruptionMode.CompositePodGroupData},
			"resourceClaims": map[string]any{"podGroupData": item.Input.ResourceClaims.PodGroupData},
		},
		"defaultConfig": fromConfig(item.DefaultConfig),
		"children":      children,
	}
}
