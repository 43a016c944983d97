//go:build tools

// Package tools pins the etcd server command for Karta's test cluster.
// Build: go build -o "$KARTA_CLUSTER_CACHE/etcd" go.etcd.io/etcd/server/v3
package tools

import _ "go.etcd.io/etcd/server/v3"
