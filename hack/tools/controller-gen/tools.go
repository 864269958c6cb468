//go:build tools

// Package tools pins controller-gen. It is never imported.
package tools

import _ "sigs.k8s.io/controller-tools/cmd/controller-gen"
