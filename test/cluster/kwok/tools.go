//go:build tools

// Package tools records the kwok command built by ../build so that
// `go mod tidy` keeps its dependencies in go.sum.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
