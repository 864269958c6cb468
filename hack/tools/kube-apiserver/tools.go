//go:build tools

// Package tools pins kube-apiserver for envtest. It is never imported.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
