//go:build tools

// Package tools pins golangci-lint. It is never imported.
package tools

import _ "github.com/golangci/golangci-lint/v2/cmd/golangci-lint"
