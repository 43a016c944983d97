// Module for kubectl's formatting as a reference oracle (test tooling only).
module karta.local/tools/kubeprint

go 1.26.0

require k8s.io/apimachinery v0.37.2
