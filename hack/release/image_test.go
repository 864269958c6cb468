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
	"archive/tar"
	"context"
	"debug/elf"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// openLayout unpacks an OCI layout tar file and returns the image index its
// index.json names, with that entry's annotations.
func openLayout(t *testing.T, tarFile string) (v1.ImageIndex, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	if err := untarDir(tarFile, dir); err != nil {
		t.Fatal(err)
	}
	idx, desc, err := layoutIndex(dir)
	if err != nil {
		t.Fatalf("open the layout of %s: %v", tarFile, err)
	}
	if desc.MediaType != types.OCIImageIndex {
		t.Fatalf("index.json of %s names a %s, want an OCI image index", tarFile, desc.MediaType)
	}
	return idx, desc.Annotations
}

// rootFS reads an image's flattened file system: headers and the bodies of
// regular files, by path.
func rootFS(t *testing.T, img v1.Image) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	rc := mutate.Extract(img)
	defer func() { _ = rc.Close() }()
	headers, bodies := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return headers, bodies
		}
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(h.Name, "/"), "/")
		headers[name] = h
		if h.Typeflag == tar.TypeReg {
			if bodies[name], err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// wantFiles are the only paths of an image's file system but its binary:
// no shell, no other program.
var wantFiles = []string{"etc", "etc/group", "etc/passwd", "home", "home/nonroot", "tmp"}

// elfMachine is the ELF machine of each architecture built.
var elfMachine = map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}

// TestImages opens each image's layout and checks every platform's image:
// platform, entrypoint, non-root user, labels, a file system with the
// binary and nothing else that runs (no shell), a static binary for the
// right machine; the binary of this machine's platform runs and prints
// the release's version.
func TestImages(t *testing.T) {
	requireRelease(t)
	for i, p := range programs {
		t.Run(p.Name, func(t *testing.T) {
			img := built.Images[i]
			repo, _, err := splitRef(img.Ref)
			if err != nil {
				t.Fatal(err)
			}
			if want := repo + ":" + testVersion; img.Ref != want {
				t.Errorf("reference %s, want %s", img.Ref, want)
			}
			if want := filepath.Join(opts.Out, ArtifactBase(repo, testVersion)+".oci.tar"); img.Layout != want {
				t.Errorf("layout %s, want %s", img.Layout, want)
			}
			idx, ann := openLayout(t, img.Layout)
			if ann[RefNameAnnotation] != testVersion || ann[ImageNameAnnotation] != img.Ref {
				t.Errorf("index.json annotations %v, want %s=%s and %s=%s", ann, RefNameAnnotation, testVersion, ImageNameAnnotation, img.Ref)
			}
			if d, err := idx.Digest(); err != nil || d != img.Digest {
				t.Errorf("index digest %s (%v), want %s", d, err, img.Digest)
			}
			im, err := idx.IndexManifest()
			if err != nil {
				t.Fatal(err)
			}
			checkLabels(t, "index annotations", im.Annotations, p)
			var platforms []string
			for _, desc := range im.Manifests {
				if desc.Platform == nil {
					t.Fatalf("manifest %s has no platform", desc.Digest)
				}
				platforms = append(platforms, desc.Platform.OS+"/"+desc.Platform.Architecture)
				t.Run(desc.Platform.OS+"_"+desc.Platform.Architecture, func(t *testing.T) {
					pi, err := idx.Image(desc.Digest)
					if err != nil {
						t.Fatal(err)
					}
					checkPlatformImage(t, p, *desc.Platform, pi)
				})
			}
			if want := []string{"linux/amd64", "linux/arm64"}; !slices.Equal(platforms, want) {
				t.Errorf("platforms %v, want %v", platforms, want)
			}
		})
	}
}

func checkPlatformImage(t *testing.T, p program, plat v1.Platform, img v1.Image) {
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIManifestSchema1 || m.Config.MediaType != types.OCIConfigJSON || len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
		t.Errorf("manifest: want an OCI manifest with an OCI config and one gzip layer, got %+v", m)
	}
	checkLabels(t, "manifest annotations", m.Annotations, p)
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OS != plat.OS || cfg.Architecture != plat.Architecture {
		t.Errorf("config platform %s/%s, want %s/%s", cfg.OS, cfg.Architecture, plat.OS, plat.Architecture)
	}
	if want := []string{"/" + p.Name}; !slices.Equal(cfg.Config.Entrypoint, want) || len(cfg.Config.Cmd) != 0 {
		t.Errorf("entrypoint %q cmd %q, want %q and no cmd", cfg.Config.Entrypoint, cfg.Config.Cmd, want)
	}
	uid, gid, _ := strings.Cut(cfg.Config.User, ":")
	if u, err := strconv.Atoi(uid); err != nil || u == 0 || u != NonRootUID || gid != strconv.Itoa(NonRootUID) {
		t.Errorf("user %q, want the numeric non-root %d:%d", cfg.Config.User, NonRootUID, NonRootUID)
	}
	if !cfg.Created.Equal(time.Unix(testEpoch, 0)) {
		t.Errorf("created %s, want %s", cfg.Created, time.Unix(testEpoch, 0).UTC())
	}
	checkLabels(t, "config labels", cfg.Config.Labels, p)

	headers, bodies := rootFS(t, img)
	var names []string
	for name := range headers {
		names = append(names, name)
	}
	slices.Sort(names)
	want := append(slices.Clone(wantFiles), p.Name)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("file system %q, want only %q (no shell)", names, want)
	}
	if h := headers[p.Name]; h.Typeflag != tar.TypeReg || h.Mode != 0o755 || h.Uid != 0 {
		t.Errorf("/%s: type %c mode %o uid %d, want a file 0755 owned by root", p.Name, h.Typeflag, h.Mode, h.Uid)
	}
	if !strings.Contains(string(bodies["etc/passwd"]), "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd has no user nonroot 65532:\n%s", bodies["etc/passwd"])
	}
	binary := filepath.Join(t.TempDir(), p.Name)
	if err := os.WriteFile(binary, bodies[p.Name], 0o755); err != nil {
		t.Fatal(err)
	}
	checkStaticELF(t, binary, plat)
	if plat.OS == runtime.GOOS && plat.Architecture == runtime.GOARCH {
		checkVersion(t, binary, p)
	}
}

// checkLabels checks the org.opencontainers.image labels (or annotations)
// of an image of p.
func checkLabels(t *testing.T, what string, got map[string]string, p program) {
	t.Helper()
	want := map[string]string{
		"org.opencontainers.image.title":    p.Title,
		"org.opencontainers.image.version":  testVersion,
		"org.opencontainers.image.revision": testRevision,
		"org.opencontainers.image.source":   "https://github.com/listkeeper/listkeeper",
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.created":  time.Unix(testEpoch, 0).UTC().Format(time.RFC3339),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s=%q, want %q", what, k, got[k], v)
		}
	}
}

// checkStaticELF checks that binary is a static executable for plat: no
// program interpreter, the platform's machine.
func checkStaticELF(t *testing.T, binary string, plat v1.Platform) {
	t.Helper()
	f, err := elf.Open(binary)
	if err != nil {
		t.Fatalf("%s is not an ELF file: %v", binary, err)
	}
	defer func() { _ = f.Close() }()
	if f.Machine != elfMachine[plat.Architecture] {
		t.Errorf("ELF machine %s, want %s", f.Machine, elfMachine[plat.Architecture])
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			t.Errorf("the binary has a program interpreter: it is not static (CGO_ENABLED=0)")
		}
	}
}

// checkVersion runs binary --version: it prints the release's version and
// revision.
func checkVersion(t *testing.T, binary string, p program) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, binary, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --version: %v\n%s", p.Name, err, out)
	}
	want := p.Name + " " + testVersion + " (revision " + testRevision + ", "
	if !strings.HasPrefix(string(out), want) {
		t.Errorf("%s --version printed %q, want %q...", p.Name, out, want)
	}
}
