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

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// program is one command of the repository that ships as an image.
type program struct {
	// Name is the binary's name, its path in the image (/Name) and its
	// entrypoint.
	Name string
	// Package is the main package, relative to the repository root.
	Package string
	// Title and Description become the image's labels.
	Title, Description string
}

var (
	manager = program{
		Name:        "manager",
		Package:     "./cmd/manager",
		Title:       "listkeeper",
		Description: "Kubernetes operator that keeps the IDs of ListEntry objects in a JSON list behind an HTTP API or in an object store.",
	}
	fakeapi = program{
		Name:        "fakeapi",
		Package:     "./cmd/fakeapi",
		Title:       "listkeeper-fakeapi",
		Description: "The fake list server bundled with listkeeper, for demos and tests. Not for production.",
	}
)

// programs are the commands that ship as images, in the order they are
// built.
var programs = []program{manager, fakeapi}

// binaries are built executables: binaries[program name][platform] is a
// path.
type binaries map[string]map[string]string

// platformKey names a platform in paths and maps: os_arch.
func platformKey(p v1.Platform) string { return p.OS + "_" + p.Architecture }

// goBuild cross-compiles every program for every platform of o into
// dir/<os>_<arch>/<name>: static (CGO_ENABLED=0), -trimpath, no VCS
// stamping, o.LDFlags. The platforms build concurrently, each with one go
// build for all programs, so that they share the compiled packages.
func goBuild(ctx context.Context, o Options, dir string) (binaries, error) {
	bins := binaries{}
	for _, p := range programs {
		bins[p.Name] = map[string]string{}
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, plat := range o.Platforms {
		out := filepath.Join(dir, platformKey(plat))
		for _, p := range programs {
			bins[p.Name][platformKey(plat)] = filepath.Join(out, p.Name)
		}
		wg.Go(func() {
			if err := goBuildPlatform(ctx, o, plat, out); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return bins, nil
}

// goBuildPlatform builds every program for one platform into out.
func goBuildPlatform(ctx context.Context, o Options, plat v1.Platform, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", o.LDFlags, "-o", out + string(filepath.Separator)}
	for _, p := range programs {
		args = append(args, p.Package)
	}
	cmd := exec.CommandContext(ctx, o.Go, args...)
	cmd.Dir = o.Root
	cmd.Env = append(os.Environ(),
		"CGO_ENABLED=0",
		"GOOS="+plat.OS,
		"GOARCH="+plat.Architecture,
		// The baseline of each architecture, whatever the environment
		// says, so that every build of a release is the same.
		"GOAMD64=v1",
		"GOARM64=v8.0",
	)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s/%s: %w\n%s", plat.OS, plat.Architecture, err, stderr.String())
	}
	return nil
}
