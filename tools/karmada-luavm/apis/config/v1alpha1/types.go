// Package v1alpha1 holds Karmada's config/v1alpha1 DependentObjectReference, with the same fields,
// JSON tags and package name as Karmada's own.
package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DependentObjectReference is config/v1alpha1.DependentObjectReference.
type DependentObjectReference struct {
	APIVersion    string                `json:"apiVersion"`
	Kind          string                `json:"kind"`
	Namespace     string                `json:"namespace,omitempty"`
	Name          string                `json:"name,omitempty"`
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}
