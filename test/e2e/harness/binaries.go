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

package harness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/listkeeper/listkeeper/internal/testenv"
)

// ModulePath is the module the harness tests.
const ModulePath = testenv.ModulePath

// RepoRoot walks up from the working directory to the directory whose
// go.mod declares ModulePath. It is testenv.RepoRoot.
func RepoRoot() (string, error) { return testenv.RepoRoot() }

// Binaries are the operator's binaries that the harness runs.
type Binaries struct {
	Manager string // cmd/manager
	FakeAPI string // cmd/fakeapi
	// Built is true when they were built by FindBinaries, false when
	// found in bin/.
	Built bool
}

// FindBinaries returns binDir/manager and binDir/fakeapi when both exist
// ('make build' writes them to <root>/bin), and otherwise builds both from
// the module at root with go build into buildDir. Found binaries are used
// as they are, even when older than the source: 'make test' builds them
// first.
func FindBinaries(ctx context.Context, root, binDir, buildDir string) (Binaries, error) {
	found := Binaries{Manager: filepath.Join(binDir, "manager"), FakeAPI: filepath.Join(binDir, "fakeapi")}
	if isExecutable(found.Manager) && isExecutable(found.FakeAPI) {
		return found, nil
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return Binaries{}, fmt.Errorf("%s lacks manager or fakeapi and go is not on PATH to build them: %w", binDir, err)
	}
	built := Binaries{Manager: filepath.Join(buildDir, "manager"), FakeAPI: filepath.Join(buildDir, "fakeapi"), Built: true}
	for _, b := range []struct{ out, pkg string }{{built.Manager, "./cmd/manager"}, {built.FakeAPI, "./cmd/fakeapi"}} {
		cmd := exec.CommandContext(ctx, goBin, "build", "-o", b.out, b.pkg)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return Binaries{}, fmt.Errorf("go build -o %s %s: %w: %s", b.out, b.pkg, err, strings.TrimSpace(stderr.String()))
		}
	}
	return built, nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// errNoBinary is returned by CheckBinaries.
var errNoBinary = errors.New("missing binary")

// CheckBinaries returns an error naming the first of paths that is not an
// executable file.
func CheckBinaries(paths ...string) error {
	for _, p := range paths {
		if !isExecutable(p) {
			return fmt.Errorf("%w %s", errNoBinary, p)
		}
	}
	return nil
}
