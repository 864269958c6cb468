//go:build tools

// Package tools pins kube-apiserver 1.31 for make test-compat. It is never imported.
package tools

import _ "k8s.io/kubernetes/cmd/kube-apiserver"
