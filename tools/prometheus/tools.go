//go:build tools

// Package tools pins prometheus and promtool for Karta's tests of its metrics exporter and recording
// rules (deploy/prometheus). Built by scripts/go-tool build prometheus; the product never runs them.
package tools

import (
	_ "github.com/prometheus/prometheus/cmd/prometheus"
	_ "github.com/prometheus/prometheus/cmd/promtool"
)
