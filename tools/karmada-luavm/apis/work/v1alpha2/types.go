// Package v1alpha2 holds the types of Karmada's work/v1alpha2 API that scripts' results are
// decoded into and arguments encoded from, with the same fields, JSON tags and package name, so
// that encoding/json treats and names them as Karmada's own.
package v1alpha2

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ReplicaRequirements is work/v1alpha2.ReplicaRequirements.
type ReplicaRequirements struct {
	NodeClaim         *NodeClaim          `json:"nodeClaim,omitempty"`
	ResourceRequest   corev1.ResourceList `json:"resourceRequest,omitempty"`
	Namespace         string              `json:"namespace,omitempty"`
	PriorityClassName string              `json:"priorityClassName,omitempty"`
}

// NodeClaim is work/v1alpha2.NodeClaim.
type NodeClaim struct {
	HardNodeAffinity *corev1.NodeSelector `json:"hardNodeAffinity,omitempty"`
	NodeSelector     map[string]string    `json:"nodeSelector,omitempty"`
	Tolerations      []corev1.Toleration  `json:"tolerations,omitempty"`
}

// Component is work/v1alpha2.Component.
type Component struct {
	Name                string                        `json:"name"`
	Replicas            int32                         `json:"replicas"`
	ReplicaRequirements *ComponentReplicaRequirements `json:"replicaRequirements,omitempty"`
}

// ComponentReplicaRequirements is work/v1alpha2.ComponentReplicaRequirements.
type ComponentReplicaRequirements struct {
	NodeClaim         *NodeClaim          `json:"nodeClaim,omitempty"`
	ResourceRequest   corev1.ResourceList `json:"resourceRequest,omitempty"`
	PriorityClassName string              `json:"priorityClassName,omitempty"`
}

// AggregatedStatusItem is work/v1alpha2.AggregatedStatusItem.
type AggregatedStatusItem struct {
	ClusterName    string                `json:"clusterName"`
	Status         *runtime.RawExtension `json:"status,omitempty"`
	Applied        bool                  `json:"applied,omitempty"`
	AppliedMessage string                `json:"appliedMessage,omitempty"`
	Health         string                `json:"health,omitempty"`
}
