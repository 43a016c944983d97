package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	_ "unsafe" // go:linkname

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/operation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/batch"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	jobcontroller "k8s.io/kubernetes/pkg/controller/job"
	jobstrategy "k8s.io/kubernetes/pkg/registry/batch/job"
)

// The Job controller's own naming and sync (k8s.io/kubernetes pkg/controller/job, unexported).
//
//go:linkname computeWorkloadName k8s.io/kubernetes/pkg/controller/job.computeWorkloadName
func computeWorkloadName(job *batchv1.Job) string

//go:linkname computePodGroupName k8s.io/kubernetes/pkg/controller/job.computePodGroupName
func computePodGroupName(workloadName, templateName string) string

//go:linkname podGroupTemplateName k8s.io/kubernetes/pkg/controller/job.podGroupTemplateName
func podGroupTemplateName(job *batchv1.Job) string

//go:linkname syncJob k8s.io/kubernetes/pkg/controller/job.(*Controller).syncJob
func syncJob(jm *jobcontroller.Controller, ctx context.Context, key string) error

func init() {
	// The Job integration and the API server's Job validation of spec.scheduling are behind these gates.
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{"GenericWorkload": true, "WorkloadWithJob": true}); err != nil {
		panic(err)
	}
}

// nameJSON asks for one name: a Workload's (jobName, jobUID), a PodGroup's (workloadName, templateName), or
// a template's (jobName with template true).
type nameJSON struct {
	Kind         string `json:"kind"` // workload, podGroup, template
	JobName      string `json:"jobName,omitempty"`
	JobUID       string `json:"jobUID,omitempty"`
	WorkloadName string `json:"workloadName,omitempty"`
	TemplateName string `json:"templateName,omitempty"`
}

type nameResult struct {
	// The string as Go's encoding/json prints it (each byte of an invalid UTF-8 sequence as U+FFFD).
	Name string `json:"name"`
	// Its bytes, and how many.
	Hex   string `json:"hex"`
	Bytes int    `json:"bytes"`
}

func runNames(req *request) any {
	out := []nameResult{}
	for _, n := range req.Names {
		var s string
		switch n.Kind {
		case "workload":
			s = computeWorkloadName(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: n.JobName, UID: types.UID(n.JobUID)}})
		case "podGroup":
			s = computePodGroupName(n.WorkloadName, n.TemplateName)
		case "template":
			s = podGroupTemplateName(&batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: n.JobName}})
		default:
			panic("unknown name kind " + n.Kind)
		}
		out = append(out, nameResult{Name: s, Hex: hex.EncodeToString([]byte(s)), Bytes: len(s)})
	}
	return out
}

func decodeJob(raw json.RawMessage) *batchv1.Job {
	var job batchv1.Job
	if err := json.Unmarshal(raw, &job); err != nil {
		panic(err)
	}
	return &job
}

// runJobCompile runs the Job controller's sync once for a new Job (defaulted as the API server stores
// it) against a fake API, and answers the Workload and PodGroup it created and its pods' schedulingGroup.
// A parent's Workload, when given, is stored beforehand (a delegated Job's PodGroup is made from it).
func runJobCompile(req *request) any {
	job := storedJob(req.Job)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	objects := []runtime.Object{job}
	var parent *schedulingv1beta1.Workload
	if len(req.ParentWorkload) > 0 && string(req.ParentWorkload) != "null" {
		parent = &schedulingv1beta1.Workload{}
		if err := json.Unmarshal(req.ParentWorkload, parent); err != nil {
			panic(err)
		}
		objects = append(objects, parent)
	}
	client := fake.NewClientset(objects...)
	workloadUID := req.WorkloadUID
	client.PrependReactor("create", "workloads", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if wl, ok := action.(clienttesting.CreateAction).GetObject().(*schedulingv1beta1.Workload); ok {
			wl.UID = types.UID(workloadUID)
		}
		return false, nil, nil
	})
	// The fake API does not generate names; the controller creates its pods with generateName.
	podCount := 0
	client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if pod, ok := action.(clienttesting.CreateAction).GetObject().(*corev1.Pod); ok && pod.Name == "" {
			podCount++
			pod.Name = fmt.Sprintf("%s%d", pod.GenerateName, podCount)
		}
		return false, nil, nil
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	jm, err := jobcontroller.NewController(ctx, client, factory.Core().V1().Pods(), factory.Batch().V1().Jobs(),
		factory.Scheduling().V1beta1().Workloads(), factory.Scheduling().V1beta1().PodGroups())
	if err != nil {
		panic(err)
	}
	if err := factory.Batch().V1().Jobs().Informer().GetIndexer().Add(job); err != nil {
		panic(err)
	}
	if parent != nil {
		if err := factory.Scheduling().V1beta1().Workloads().Informer().GetIndexer().Add(parent); err != nil {
			panic(err)
		}
	}
	result := map[string]any{}
	if err := syncJob(jm, ctx, job.Namespace+"/"+job.Name); err != nil {
		result["syncError"] = err.Error()
	}
	workloads, err := client.SchedulingV1beta1().Workloads(job.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	podGroups, err := client.SchedulingV1beta1().PodGroups(job.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	pods, err := client.CoreV1().Pods(job.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	created := []schedulingv1beta1.Workload{}
	for i := range workloads.Items {
		if parent != nil && workloads.Items[i].Name == parent.Name {
			continue
		}
		serverFields(&workloads.Items[i].ObjectMeta)
		created = append(created, workloads.Items[i])
	}
	for i := range podGroups.Items {
		serverFields(&podGroups.Items[i].ObjectMeta)
	}
	result["workloads"] = created
	result["podGroups"] = podGroups.Items
	groups := map[string]bool{}
	for _, p := range pods.Items {
		g := "<none>"
		if p.Spec.SchedulingGroup != nil && p.Spec.SchedulingGroup.PodGroupName != nil {
			g = *p.Spec.SchedulingGroup.PodGroupName
		}
		groups[g] = true
	}
	names := []string{}
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	result["pods"] = len(pods.Items)
	result["podSchedulingGroups"] = names
	return result
}

// storedJob is the Job as the API server stores it on create: defaulted, and with the selector and pod
// labels the registry generates (the controller creates no pods without them).
func storedJob(raw json.RawMessage) *batchv1.Job {
	job := internalJob(raw)
	jobstrategy.Strategy.PrepareForCreate(context.Background(), job)
	var v1 batchv1.Job
	if err := legacyscheme.Scheme.Convert(job, &v1, nil); err != nil {
		panic(err)
	}
	return &v1
}

// serverFields clears what the API server (here the fake one) sets on an object the controller creates.
func serverFields(m *metav1.ObjectMeta) {
	m.UID = ""
	m.ManagedFields = nil
	m.ResourceVersion = ""
}

func internalJob(raw json.RawMessage) *batch.Job {
	v1 := decodeJob(raw)
	legacyscheme.Scheme.Default(v1)
	var job batch.Job
	if err := legacyscheme.Scheme.Convert(v1, &job, nil); err != nil {
		panic(err)
	}
	return &job
}

func underScheduling(errs field.ErrorList) []errorJSON {
	var kept field.ErrorList
	for _, e := range errs {
		if e.Field == "spec.scheduling" || strings.HasPrefix(e.Field, "spec.scheduling.") || strings.HasPrefix(e.Field, "spec.scheduling[") {
			kept = append(kept, e)
		}
	}
	return errorsJSON(kept)
}

// runJobValidate validates a Job (a create, or an update of oldJob) as the API server's registry does:
// the handwritten validation, then the declarative validation merged into it. It answers each layer and
// the merged result, each cut to the errors under spec.scheduling.
func runJobValidate(req *request) any {
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{
		IsResourceRequest: true, APIGroup: "batch", APIVersion: "v1", Resource: "jobs", Verb: "create",
	})
	job := internalJob(req.Job)
	ctx = genericapirequest.WithNamespace(ctx, job.Namespace)
	s := jobstrategy.Strategy
	var handwritten, merged, declarative field.ErrorList
	if len(req.OldJob) == 0 || string(req.OldJob) == "null" {
		s.PrepareForCreate(ctx, job)
		handwritten = s.Validate(ctx, job)
		cfg := s.DeclarativeValidationConfig(ctx, job, nil)
		merged = s.ValidateDeclaratively(ctx, job, nil, append(field.ErrorList{}, handwritten...), operation.Create, cfg)
		declarative = s.ValidateDeclaratively(ctx, job, nil, nil, operation.Create, cfg)
	} else {
		old := internalJob(req.OldJob)
		ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
			IsResourceRequest: true, APIGroup: "batch", APIVersion: "v1", Resource: "jobs", Verb: "update",
		})
		s.PrepareForUpdate(ctx, job, old)
		handwritten = s.ValidateUpdate(ctx, job, old)
		cfg := s.DeclarativeValidationConfig(ctx, job, old)
		merged = s.ValidateDeclaratively(ctx, job, old, append(field.ErrorList{}, handwritten...), operation.Update, cfg)
		declarative = s.ValidateDeclaratively(ctx, job, old, nil, operation.Update, cfg)
	}
	return map[string]any{
		"handwritten": underScheduling(handwritten),
		"declarative": underScheduling(declarative),
		"errors":      underScheduling(merged),
	}
}
