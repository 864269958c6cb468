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
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// versionPackage is where -ldflags -X stamps the version and revision.
const versionPackage = "github.com/listkeeper/listkeeper/internal/version"

// DefaultPlatforms are the platforms every image is built for.
var DefaultPlatforms = []v1.Platform{
	{OS: "linux", Architecture: "amd64"},
	{OS: "linux", Architecture: "arm64"},
}

// Options say what to build and where. The zero value is not usable: Version,
// ManagerImage, FakeAPIImage and Out are required.
type Options struct {
	// Root is the repository root. Default: ".".
	Root string
	// Out is the directory the artifacts are written to; it is created.
	Out string
	// Version is stamped into the binaries (internal/version.Version); a
	// release also tags the images and versions the chart with it.
	Version string
	// Revision is the source revision stamped into the binaries and the
	// images' labels. Default: "unknown".
	Revision string
	// LDFlags are the linker flags of every binary. Default: LDFlags(Version,
	// Revision), what the Makefile's LDFLAGS say plus -s.
	LDFlags string
	// Created is the time of every timestamp written. Default: the Unix
	// epoch.
	Created time.Time
	// ManagerImage and FakeAPIImage are the images' references,
	// repository:tag. A release replaces the tags with Version.
	ManagerImage, FakeAPIImage string
	// Platforms to build. Default: DefaultPlatforms.
	Platforms []v1.Platform
	// Go is the go command. Default: "go".
	Go string
	// Kubectl renders install.yaml (kubectl kustomize). Default: "kubectl".
	Kubectl string
	// SigningKey is the path of the cosign private key (what `cosign
	// generate-key-pair` writes, encrypted) that signs a release. Empty:
	// a throwaway key made for the run signs it, and Warn says so.
	SigningKey string
	// SigningPassword decrypts SigningKey ($COSIGN_PASSWORD).
	SigningPassword []byte
	// Warn is where a release says that it is signed with a throwaway
	// key. Default: os.Stderr.
	Warn io.Writer
}

// LDFlags are the linker flags that stamp version and revision into
// internal/version, as the Makefile's LDFLAGS do, and strip the symbol table
// (-s) as the Dockerfile does.
func LDFlags(version, revision string) string {
	return fmt.Sprintf("-s -X %s.Version=%s -X %s.Revision=%s", versionPackage, version, versionPackage, revision)
}

// withDefaults returns o with its defaults filled in, or an error naming a
// missing or malformed option.
func (o Options) withDefaults() (Options, error) {
	if o.Root == "" {
		o.Root = "."
	}
	if o.Revision == "" {
		o.Revision = "unknown"
	}
	if o.LDFlags == "" {
		o.LDFlags = LDFlags(o.Version, o.Revision)
	}
	if o.Created.IsZero() {
		o.Created = time.Unix(0, 0)
	}
	o.Created = o.Created.UTC()
	if len(o.Platforms) == 0 {
		o.Platforms = DefaultPlatforms
	}
	if o.Go == "" {
		o.Go = "go"
	}
	if o.Kubectl == "" {
		o.Kubectl = "kubectl"
	}
	if o.Warn == nil {
		o.Warn = os.Stderr
	}
	var errs []error
	if o.Out == "" {
		errs = append(errs, errors.New("no output directory"))
	}
	if o.Version == "" || strings.ContainsAny(o.Version, " \t\n'\"") {
		errs = append(errs, fmt.Errorf("version %q: want one word", o.Version))
	}
	for _, ref := range []string{o.ManagerImage, o.FakeAPIImage} {
		if _, _, err := splitRef(ref); err != nil {
			errs = append(errs, err)
		}
	}
	return o, errors.Join(errs...)
}

// splitRef splits an image reference repository:tag, as the user spelled
// it, into its repository and tag. The tag must be there.
func splitRef(ref string) (repository, tag string, err error) {
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.ContainsAny(ref[i:], "/@") {
		return "", "", fmt.Errorf("image %q: want repository:tag", ref)
	}
	if _, err := name.NewTag(ref); err != nil {
		return "", "", fmt.Errorf("image %q: want repository:tag: %w", ref, err)
	}
	return ref[:i], ref[i+1:], nil
}

// ChartVersion is the chart version of a release version: vX.Y.Z[-pre]
// without its "v", since Helm wants SemVer 2.
func ChartVersion(version string) (string, error) {
	rest, ok := strings.CutPrefix(version, "v")
	if !ok {
		return "", fmt.Errorf("release version %q: want vMAJOR.MINOR.PATCH[-PRERELEASE]", version)
	}
	if _, err := semver.StrictNewVersion(rest); err != nil {
		return "", fmt.Errorf("release version %q: want vMAJOR.MINOR.PATCH[-PRERELEASE]: %w", version, err)
	}
	return rest, nil
}
