//go:build tools

// Package tools pins helm for Karta's tests of its chart (charts/karta: lint, template, install into
// the test cluster). Built by scripts/go-tool build helm; the product never runs it.
package tools

import _ "helm.sh/helm/v4/cmd/helm"
