//go:build tools

// Package tools pins the Kubernetes commands of Karta's test cluster: kube-apiserver, kube-scheduler,
// kube-controller-manager and kubectl, all from one k8s.io/kubernetes release.
// Build (scripts/test-cluster build): go build -o "$KARTA_CLUSTER_CACHE/NAME" k8s.io/kubernetes/cmd/NAME
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
