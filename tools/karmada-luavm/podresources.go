package main

import (
	configv1alpha1 "karta.dev/tools/karmada-luavm/apis/config/v1alpha1"
	workv1alpha2 "karta.dev/tools/karmada-luavm/apis/work/v1alpha2"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"
)

// What Karmada derives from a pod template (its helper package, as documented): the requirements
// of one replica and the objects the pod depends on.

// replicaRequirementsOf: the node claim (node selector, tolerations, required node affinity; nil
// when all are unset) and the resource request (nil when empty); nil when both are nil. The
// priority class is left out: Karmada sets it only under the ResourceQuotaEstimate gate (off).
func replicaRequirementsOf(t *corev1.PodTemplateSpec) *workv1alpha2.ReplicaRequirements {
	claim := &workv1alpha2.NodeClaim{NodeSelector: t.Spec.NodeSelector, Tolerations: t.Spec.Tolerations}
	if a := t.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		claim.HardNodeAffinity = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if claim.NodeSelector == nil && claim.HardNodeAffinity == nil && len(claim.Tolerations) == 0 {
		claim = nil
	}
	request := podRequest(&t.Spec).list()
	if claim == nil && request == nil {
		return nil
	}
	return &workv1alpha2.ReplicaRequirements{NodeClaim: claim, ResourceRequest: request}
}

// resources is Karmada's util.Resource: CPU in millicores, the others as whole values (rounded
// up), other names only when they are scalar resources.
type resources struct {
	milliCPU, memory, ephemeralStorage, pods int64
	scalars                                  map[corev1.ResourceName]int64
}

func (r *resources) add(list corev1.ResourceList) {
	for name, q := range list {
		switch name {
		case corev1.ResourceCPU:
			r.milliCPU += q.MilliValue()
		case corev1.ResourceMemory:
			r.memory += q.Value()
		case corev1.ResourcePods:
			r.pods += q.Value()
		case corev1.ResourceEphemeralStorage:
			r.ephemeralStorage += q.Value()
		default:
			if isScalarResourceName(name) {
				r.setScalar(name, r.scalars[name]+q.Value())
			}
		}
	}
}

func (r *resources) max(list corev1.ResourceList) {
	raise := func(field *int64, v int64) {
		if v > *field {
			*field = v
		}
	}
	for name, q := range list {
		switch name {
		case corev1.ResourceCPU:
			raise(&r.milliCPU, q.MilliValue())
		case corev1.ResourceMemory:
			raise(&r.memory, q.Value())
		case corev1.ResourceEphemeralStorage:
			raise(&r.ephemeralStorage, q.Value())
		case corev1.ResourcePods:
			raise(&r.pods, q.Value())
		default:
			if isScalarResourceName(name) && q.Value() > r.scalars[name] {
				r.setScalar(name, q.Value())
			}
		}
	}
}

func (r *resources) setScalar(name corev1.ResourceName, v int64) {
	if r.scalars == nil {
		r.scalars = map[corev1.ResourceName]int64{}
	}
	r.scalars[name] = v
}

// list: the positive amounts (CPU as millicores in DecimalSI, memory and storage in BinarySI,
// pods in DecimalSI, hugepages in BinarySI, other scalars in DecimalSI); nil when none.
func (r *resources) list() corev1.ResourceList {
	out := corev1.ResourceList{}
	if r.milliCPU > 0 {
		out[corev1.ResourceCPU] = *resource.NewMilliQuantity(r.milliCPU, resource.DecimalSI)
	}
	if r.memory > 0 {
		out[corev1.ResourceMemory] = *resource.NewQuantity(r.memory, resource.BinarySI)
	}
	if r.ephemeralStorage > 0 {
		out[corev1.ResourceEphemeralStorage] = *resource.NewQuantity(r.ephemeralStorage, resource.BinarySI)
	}
	if r.pods > 0 {
		out[corev1.ResourcePods] = *resource.NewQuantity(r.pods, resource.DecimalSI)
	}
	for name, v := range r.scalars {
		if v <= 0 {
			continue
		}
		format := resource.DecimalSI
		if strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix) {
			format = resource.BinarySI
		}
		out[name] = *resource.NewQuantity(v, format)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// podRequest: the sum of the containers' requests, raised to each init container's, plus the
// overhead; a container's limit stands in for a request it does not make.
func podRequest(spec *corev1.PodSpec) *resources {
	r := &resources{}
	for i := range spec.Containers {
		r.add(requestsOrLimits(spec.Containers[i].Resources))
	}
	for i := range spec.InitContainers {
		r.max(requestsOrLimits(spec.InitContainers[i].Resources))
	}
	if spec.Overhead != nil {
		r.add(spec.Overhead)
	}
	return r
}

func requestsOrLimits(rr corev1.ResourceRequirements) corev1.ResourceList {
	if rr.Limits == nil {
		return rr.Requests
	}
	out := corev1.ResourceList{}
	for name, q := range rr.Requests {
		out[name] = q
	}
	for name, q := range rr.Limits {
		if _, ok := out[name]; !ok {
			out[name] = q
		}
	}
	return out
}

// isScalarResourceName: an extended resource, hugepages, a prefixed native resource
// (".../kubernetes.io/..." anywhere) or an attachable-volumes count.
func isScalarResourceName(name corev1.ResourceName) bool {
	s := string(name)
	return isExtendedResourceName(s) || strings.HasPrefix(s, corev1.ResourceHugePagesPrefix) ||
		strings.Contains(s, corev1.ResourceDefaultNamespacePrefix) || strings.HasPrefix(s, corev1.ResourceAttachableVolumesPrefix)
}

// isExtendedResourceName: not native (a name without "/" or within kubernetes.io/), not a
// "requests." name, and a qualified name once prefixed with "requests.".
func isExtendedResourceName(s string) bool {
	native := !strings.Contains(s, "/") || strings.Contains(s, corev1.ResourceDefaultNamespacePrefix)
	if native || strings.HasPrefix(s, corev1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(corev1.DefaultResourceRequestsPrefix+s)) == 0
}

// podDependencies: the ConfigMaps, then the Secrets, then the ServiceAccount, then the PVCs the
// pod spec refers to, in the namespace (nil when there are none). Karmada collects each kind in
// a set and lists it in Go's random map order; the oracle lists each kind by name.
func podDependencies(spec *corev1.PodSpec, namespace string) []configv1alpha1.DependentObjectReference {
	var out []configv1alpha1.DependentObjectReference
	add := func(kind string, names map[string]bool) {
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			out = append(out, configv1alpha1.DependentObjectReference{APIVersion: "v1", Kind: kind, Namespace: namespace, Name: n})
		}
	}
	add("ConfigMap", configMapNames(spec))
	add("Secret", secretNames(spec))
	accounts := map[string]bool{}
	if spec.ServiceAccountName != "" && spec.ServiceAccountName != "default" {
		accounts[spec.ServiceAccountName] = true
	}
	add("ServiceAccount", accounts)
	claims := map[string]bool{}
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName != "" {
			claims[v.PersistentVolumeClaim.ClaimName] = true
		}
	}
	add("PersistentVolumeClaim", claims)
	return out
}

// allContainers: init containers, containers, then ephemeral containers.
func allContainers(spec *corev1.PodSpec) []corev1.Container {
	out := append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
	for _, e := range spec.EphemeralContainers {
		out = append(out, corev1.Container(e.EphemeralContainerCommon))
	}
	return out
}

// configMapNames: envFrom and env references of every container, then each volume's first
// source (in this order of precedence: projected, configMap). Empty names are skipped.
func configMapNames(spec *corev1.PodSpec) map[string]bool {
	names := map[string]bool{}
	visit := func(n string) {
		if n != "" {
			names[n] = true
		}
	}
	for _, c := range allContainers(spec) {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil {
				visit(e.ConfigMapRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				visit(e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	}
	for _, v := range spec.Volumes {
		switch s := v.VolumeSource; {
		case s.Projected != nil:
			for _, p := range s.Projected.Sources {
				if p.ConfigMap != nil {
					visit(p.ConfigMap.Name)
				}
			}
		case s.ConfigMap != nil:
			visit(s.ConfigMap.Name)
		}
	}
	return names
}

// secretNames: image pull secrets, envFrom and env references of every container, then each
// volume's first source in this order of precedence: azureFile, cephfs, cinder, flexVolume,
// projected, rbd, secret, scaleIO, iscsi, storageos, csi. Empty names are skipped.
func secretNames(spec *corev1.PodSpec) map[string]bool {
	names := map[string]bool{}
	visit := func(n string) {
		if n != "" {
			names[n] = true
		}
	}
	ref := func(r *corev1.LocalObjectReference) {
		if r != nil {
			visit(r.Name)
		}
	}
	for _, r := range spec.ImagePullSecrets {
		visit(r.Name)
	}
	for _, c := range allContainers(spec) {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				visit(e.SecretRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				visit(e.ValueFrom.SecretKeyRef.Name)
			}
		}
	}
	for _, v := range spec.Volumes {
		switch s := v.VolumeSource; {
		case s.AzureFile != nil:
			visit(s.AzureFile.SecretName)
		case s.CephFS != nil:
			ref(s.CephFS.SecretRef)
		case s.Cinder != nil:
			ref(s.Cinder.SecretRef)
		case s.FlexVolume != nil:
			ref(s.FlexVolume.SecretRef)
		case s.Projected != nil:
			for _, p := range s.Projected.Sources {
				if p.Secret != nil {
					visit(p.Secret.Name)
				}
			}
		case s.RBD != nil:
			ref(s.RBD.SecretRef)
		case s.Secret != nil:
			visit(s.Secret.SecretName)
		case s.ScaleIO != nil:
			ref(s.ScaleIO.SecretRef)
		case s.ISCSI != nil:
			ref(s.ISCSI.SecretRef)
		case s.StorageOS != nil:
			ref(s.StorageOS.SecretRef)
		case s.CSI != nil:
			ref(s.CSI.NodePublishSecretRef)
		}
	}
	return names
}
