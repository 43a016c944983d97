// Module for kubectl's formatting and client-go's proxy choice as a reference oracle (test tooling only).
module karta.local/tools/kubeprint

go 1.26.0

require (
	golang.org/x/net v0.57.0
	k8s.io/apimachinery v0.37.2
)

require (
	github.com/go-logr/logr v1.4.3 // indirect
	golang.org/x/text v0.40.0 // indirect
	k8s.io/klog/v2 v2.140.0 // indirect
	k8s.io/utils v0.0.0-20260626114624-be93311217bd // indirect
)
