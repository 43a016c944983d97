//go:build tools

// Package tools pins the kube-apiserver command for Karta's test cluster.
// Build: go build -o "$KARTA_CLUSTER_CACHE/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
