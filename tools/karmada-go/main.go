// Command karmada-go is a test oracle (test tooling only): what Karmada's Go code makes of a value, so
// that Karta's printed output and webhook answers are compared with Go's semantics exactly (nil is not
// [], absent is not empty, a Quantity prints as resource.Quantity prints it), by the libraries Karmada
// builds on: encoding/json and k8s.io/apimachinery's JSON, sigs.k8s.io/yaml, evanphx/json-patch/v5.
//
// It reads JSON lines on stdin and writes one JSON line per request on stdout: {"value": ...} or
// {"error": "..."}. Requests ({"op": ...}):
//
//	yaml      {text}: the YAML document as sigs.k8s.io/yaml reads it (YAML 1.1 scalars), as JSON.
//	result    {name, value}: a karmadactl rule result (replica, requires, components, revised,
//	          retained, aggregatedStatus, status, healthy, dependencies) decoded into its Go type as
//	          Karmada's thirdparty test decodes an expected output, and marshalled as karmadactl prints it.
//	request   {uid, operation, object, observed?, replicas, statusItems?}: the ResourceInterpreterContext
//	          body Karmada's webhook client posts for the operation (statusItems absent: none).
//	response  {uid, operation, object, body}: a webhook answer decoded and verified as Karmada's client
//	          does, the JSON Patch applied to the object as it applies it; the value is the results by
//	          name, as karmadactl names them.
//
// The types below restate the JSON shapes of config.karmada.io/v1alpha1 and work.karmada.io/v1alpha2
// (field names, omitempty, pointers), which is what decides nil, absent and empty.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8sjson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// NodeClaim is work/v1alpha2 NodeClaim.
type NodeClaim struct {
	HardNodeAffinity *corev1.NodeSelector `json:"hardNodeAffinity,omitempty"`
	NodeSelector     map[string]string    `json:"nodeSelector,omitempty"`
	Tolerations      []corev1.Toleration  `json:"tolerations,omitempty"`
}

// ReplicaRequirements is work/v1alpha2 ReplicaRequirements.
type ReplicaRequirements struct {
	NodeClaim         *NodeClaim          `json:"nodeClaim,omitempty"`
	ResourceRequest   corev1.ResourceList `json:"resourceRequest,omitempty"`
	Namespace         string              `json:"namespace,omitempty"`
	PriorityClassName string              `json:"priorityClassName,omitempty"`
}

// ComponentReplicaRequirements is work/v1alpha2 ComponentReplicaRequirements.
type ComponentReplicaRequirements struct {
	NodeClaim         *NodeClaim          `json:"nodeClaim,omitempty"`
	ResourceRequest   corev1.ResourceList `json:"resourceRequest,omitempty"`
	PriorityClassName string              `json:"priorityClassName,omitempty"`
}

// Component is work/v1alpha2 Component.
type Component struct {
	Name                string                        `json:"name"`
	Replicas            int32                         `json:"replicas"`
	ReplicaRequirements *ComponentReplicaRequirements `json:"replicaRequirements,omitempty"`
}

// AggregatedStatusItem is work/v1alpha2 AggregatedStatusItem.
type AggregatedStatusItem struct {
	ClusterName    string                `json:"clusterName"`
	Status         *runtime.RawExtension `json:"status,omitempty"`
	Applied        bool                  `json:"applied,omitempty"`
	AppliedMessage string                `json:"appliedMessage,omitempty"`
	Health         string                `json:"health,omitempty"`
}

// DependentObjectReference is config/v1alpha1 DependentObjectReference.
type DependentObjectReference struct {
	APIVersion    string                `json:"apiVersion"`
	Kind          string                `json:"kind"`
	Namespace     string                `json:"namespace,omitempty"`
	Name          string                `json:"name,omitempty"`
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

// InterpreterRequest is config/v1alpha1 ResourceInterpreterRequest.
type InterpreterRequest struct {
	UID              types.UID               `json:"uid"`
	Kind             metav1.GroupVersionKind `json:"kind"`
	Name             string                  `json:"name"`
	Namespace        string                  `json:"namespace,omitempty"`
	Operation        string                  `json:"operation"`
	Object           runtime.RawExtension    `json:"object,omitempty"`
	ObservedObject   *runtime.RawExtension   `json:"observedObject,omitempty"`
	DesiredReplicas  *int32                  `json:"replicas,omitempty"`
	AggregatedStatus []AggregatedStatusItem  `json:"aggregatedStatus,omitempty"`
}

// RequestStatus is config/v1alpha1 RequestStatus.
type RequestStatus struct {
	Message string `json:"message,omitempty"`
	Code    int32  `json:"code,omitempty"`
}

// InterpreterResponse is config/v1alpha1 ResourceInterpreterResponse.
type InterpreterResponse struct {
	UID                 types.UID                  `json:"uid"`
	Successful          bool                       `json:"successful"`
	Status              *RequestStatus             `json:"status,omitempty"`
	Patch               []byte                     `json:"patch,omitempty"`
	PatchType           *string                    `json:"patchType,omitempty"`
	ReplicaRequirements *ReplicaRequirements       `json:"replicaRequirements,omitempty"`
	Replicas            *int32                     `json:"replicas,omitempty"`
	Components          []Component                `json:"components,omitempty"`
	Dependencies        []DependentObjectReference `json:"dependencies,omitempty"`
	RawStatus           *runtime.RawExtension      `json:"rawStatus,omitempty"`
	Healthy             *bool                      `json:"healthy,omitempty"`
}

// InterpreterContext is config/v1alpha1 ResourceInterpreterContext.
type InterpreterContext struct {
	metav1.TypeMeta `json:",inline"`
	Request         *InterpreterRequest  `json:"request,omitempty"`
	Response        *InterpreterResponse `json:"response,omitempty"`
}

const contextAPIVersion = "config.karmada.io/v1alpha1"
const contextKind = "ResourceInterpreterContext"

type request struct {
	Op          string          `json:"op"`
	Text        string          `json:"text"`
	Name        string          `json:"name"`
	Value       json.RawMessage `json:"value"`
	UID         string          `json:"uid"`
	Operation   string          `json:"operation"`
	Object      json.RawMessage `json:"object"`
	Observed    json.RawMessage `json:"observed"`
	Replicas    int32           `json:"replicas"`
	StatusItems json.RawMessage `json:"statusItems"`
	Body        string          `json:"body"`
}

type reply struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error string          `json:"error,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var r request
		var rep reply
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			rep.Error = "bad request line: " + err.Error()
		} else if v, err := handle(r); err != nil {
			rep.Error = err.Error()
		} else {
			rep.Value = v
		}
		line, _ := json.Marshal(rep)
		out.Write(line)
		out.WriteByte('\n')
		out.Flush()
	}
}

func handle(r request) (json.RawMessage, error) {
	switch r.Op {
	case "yaml":
		return yaml.YAMLToJSON([]byte(r.Text))
	case "result":
		return result(r.Name, r.Value)
	case "request":
		return contextRequest(r)
	case "response":
		return contextResponse(r)
	default:
		return nil, fmt.Errorf("unknown op %q", r.Op)
	}
}

// decodeInto reads JSON as Karmada's thirdparty test reads an expected output (k8s.io/apimachinery's
// case-sensitive decoder) into a typed value, and returns what encoding/json writes for it.
func decodeInto[T any](data []byte) (json.RawMessage, error) {
	var v T
	if err := k8sjson.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func unstructuredJSON(data []byte) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return u, nil
}

// result is a rule result as karmadactl holds and prints it.
func result(name string, data []byte) (json.RawMessage, error) {
	switch name {
	case "replica":
		return decodeInto[int32](data)
	case "requires":
		return decodeInto[*ReplicaRequirements](data)
	case "components":
		return decodeInto[[]Component](data)
	case "dependencies":
		return decodeInto[[]DependentObjectReference](data)
	case "healthy":
		return decodeInto[bool](data)
	case "status":
		return decodeInto[*runtime.RawExtension](data)
	case "revised", "retained", "aggregatedStatus":
		if string(data) == "null" {
			return json.RawMessage("null"), nil
		}
		u, err := unstructuredJSON(data)
		if err != nil {
			return nil, err
		}
		return u.MarshalJSON()
	default:
		return nil, fmt.Errorf("unknown result %q", name)
	}
}

// contextRequest is the body Karmada's webhook client posts: the typed context, encoded as its REST client encodes it.
func contextRequest(r request) (json.RawMessage, error) {
	obj, err := unstructuredJSON(r.Object)
	if err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	gvk := obj.GroupVersionKind()
	replicas := r.Replicas
	req := &InterpreterRequest{
		UID:             types.UID(r.UID),
		Kind:            metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: obj.GetKind()},
		Name:            obj.GetName(),
		Namespace:       obj.GetNamespace(),
		Operation:       r.Operation,
		Object:          runtime.RawExtension{Object: obj},
		DesiredReplicas: &replicas,
	}
	if len(r.Observed) > 0 && string(r.Observed) != "null" {
		observed, err := unstructuredJSON(r.Observed)
		if err != nil {
			return nil, fmt.Errorf("observed: %w", err)
		}
		req.ObservedObject = &runtime.RawExtension{Object: observed}
	}
	if len(r.StatusItems) > 0 {
		if err := k8sjson.Unmarshal(r.StatusItems, &req.AggregatedStatus); err != nil {
			return nil, fmt.Errorf("statusItems: %w", err)
		}
	}
	body, err := json.Marshal(&InterpreterContext{TypeMeta: metav1.TypeMeta{APIVersion: contextAPIVersion, Kind: contextKind}, Request: req})
	if err != nil {
		return nil, err
	}
	return json.Marshal(string(body))
}

// contextResponse decodes and verifies an answer as Karmada's webhook client does, and returns its results by name.
func contextResponse(r request) (json.RawMessage, error) {
	var ctx InterpreterContext
	if err := k8sjson.Unmarshal([]byte(r.Body), &ctx); err != nil {
		return nil, fmt.Errorf("decoding the response: %w", err)
	}
	if gv, err := schema.ParseGroupVersion(ctx.APIVersion); err != nil || (ctx.APIVersion != "" && (gv.String() != contextAPIVersion || ctx.Kind != contextKind)) {
		return nil, fmt.Errorf("the response is a %s %s, not a %s %s", ctx.APIVersion, ctx.Kind, contextAPIVersion, contextKind)
	}
	res := ctx.Response
	if res == nil {
		return nil, fmt.Errorf("webhook response was absent")
	}
	if string(res.UID) != r.UID {
		return nil, fmt.Errorf("expected response.uid %q, got %q", r.UID, res.UID)
	}
	if !res.Successful {
		if res.Status == nil {
			return nil, fmt.Errorf("webhook require response.status when response.successful is false")
		}
		return nil, fmt.Errorf("webhook call failed, get status code: %d, msg: %s", res.Status.Code, res.Status.Message)
	}
	results := map[string]any{}
	switch r.Operation {
	case "InterpretReplica":
		if res.Replicas == nil {
			return nil, fmt.Errorf("webhook returned nil response.replicas")
		}
		results["replica"] = *res.Replicas
		results["requires"] = res.ReplicaRequirements
	case "InterpretComponent":
		results["components"] = res.Components
	case "InterpretDependency":
		if err := verifyDependencies(res.Dependencies); err != nil {
			return nil, err
		}
		results["dependencies"] = res.Dependencies
	case "ReviseReplica", "Retain", "AggregateStatus":
		if err := verifyPatch(res); err != nil {
			return nil, err
		}
		obj, err := unstructuredJSON(r.Object)
		if err != nil {
			return nil, fmt.Errorf("object: %w", err)
		}
		patched, err := applyPatch(obj, res.Patch, res.PatchType)
		if err != nil {
			return nil, err
		}
		results[map[string]string{"ReviseReplica": "revised", "Retain": "retained", "AggregateStatus": "aggregatedStatus"}[r.Operation]] = patched
	case "InterpretStatus":
		if res.RawStatus == nil {
			return nil, fmt.Errorf("webhook returned nill response.rawStatus")
		}
		results["status"] = res.RawStatus
	case "InterpretHealth":
		if res.Healthy == nil {
			return nil, fmt.Errorf("webhook returned nil response.healthy")
		}
		results["healthy"] = *res.Healthy
	default:
		return nil, fmt.Errorf("input wrong operation type: %s", r.Operation)
	}
	return json.Marshal(results)
}

func verifyPatch(res *InterpreterResponse) error {
	if len(res.Patch) == 0 && res.PatchType == nil {
		return nil
	}
	if res.PatchType == nil {
		return fmt.Errorf("webhook returned nil response.patchType")
	}
	if len(res.Patch) == 0 {
		return fmt.Errorf("webhook returned empty response.patch")
	}
	if *res.PatchType != "JSONPatch" {
		return fmt.Errorf("webhook returned invalid response.patchType of %q", *res.PatchType)
	}
	return nil
}

func applyPatch(obj *unstructured.Unstructured, patch []byte, patchType *string) (*unstructured.Unstructured, error) {
	if len(patch) == 0 {
		return obj, nil
	}
	ops, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return obj, nil
	}
	doc, err := obj.MarshalJSON()
	if err != nil {
		return nil, err
	}
	patched, err := ops.Apply(doc)
	if err != nil {
		return nil, err
	}
	err = obj.UnmarshalJSON(patched)
	return obj, err
}

func verifyDependencies(deps []DependentObjectReference) error {
	errs := field.ErrorList{}
	path := field.NewPath("dependencies")
	for i, d := range deps {
		p := path.Index(i)
		if d.APIVersion == "" {
			errs = append(errs, field.Invalid(p.Child("apiVersion"), d.APIVersion, "missing required apiVersion"))
		}
		if d.Kind == "" {
			errs = append(errs, field.Invalid(p.Child("kind"), d.Kind, "missing required kind"))
		}
		if d.Name == "" && d.LabelSelector == nil {
			errs = append(errs, field.Invalid(p, deps[i], "dependency can not leave name and labelSelector all empty"))
		}
		errs = append(errs, metav1validation.ValidateLabelSelector(d.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, p.Child("labelSelector"))...)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.TrimSpace(errs.ToAggregate().Error()))
}
