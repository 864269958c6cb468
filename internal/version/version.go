/*
Copyright 2026 The listkeeper Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package version holds the build's version and source revision. The
// Makefile's build target and the Dockerfile set them from git with
//
//	-ldflags "-X github.com/listkeeper/listkeeper/internal/version.Version=v1.2.3
//	          -X github.com/listkeeper/listkeeper/internal/version.Revision=<commit>"
//
// A plain go build leaves the defaults, "dev" and "unknown".
package version

import (
	"fmt"
	"runtime"
)

// Version is the release, set at link time. Default: "dev".
var Version = "dev"

// Revision is the source revision (git commit), set at link time. Default:
// "unknown".
var Revision = "unknown"

// GoVersion is the Go release the binary was built with.
func GoVersion() string { return runtime.Version() }

// String is the one-line form that --version prints, e.g.
// "manager v1.2.3 (revision 0a1b2c3, go1.26.8)".
func String(program string) string {
	return fmt.Sprintf("%s %s (revision %s, %s)", program, Version, Revision, GoVersion())
}
