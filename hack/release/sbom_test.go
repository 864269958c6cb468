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
	"debug/buildinfo"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	cdx "github.com/CycloneDX/cyclonedx-go"
)

var hexSHA256 = regexp.MustCompile(`^[0-9a-f]{64}$`)

// TestSBOM decodes each image's CycloneDX SBOM and checks that it
// describes the image by its index digest, the main module at the release's
// version, the standard library and the modules linked in (at go.mod's
// versions, with hashes), and each platform's binary by its SHA-256.
func TestSBOM(t *testing.T) {
	requireRelease(t)
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	// Modules each image must list: what every binary links, and what
	// only the manager does.
	linked := map[string][]string{
		manager.Name: {"sigs.k8s.io/controller-runtime", "k8s.io/client-go", "golang.org/x/crypto/x509roots/fallback"},
		fakeapi.Name: {"golang.org/x/crypto/x509roots/fallback"},
	}
	for i, p := range programs {
		t.Run(p.Name, func(t *testing.T) {
			img := built.Images[i]
			repo, tag, _ := splitRef(img.Ref)
			if want := strings.TrimSuffix(img.Layout, ".oci.tar") + ".cdx.json"; img.SBOM != want {
				t.Errorf("SBOM at %s, want beside the layout, %s", img.SBOM, want)
			}
			f, err := os.Open(img.SBOM)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = f.Close() }()
			var bom cdx.BOM
			if err := cdx.NewBOMDecoder(f, cdx.BOMFileFormatJSON).Decode(&bom); err != nil {
				t.Fatalf("decode %s: %v", img.SBOM, err)
			}
			if bom.SpecVersion != SBOMSpecVersion || !strings.HasPrefix(bom.SerialNumber, "urn:uuid:") {
				t.Errorf("spec version %s serial %q, want %s and a urn:uuid", bom.SpecVersion, bom.SerialNumber, SBOMSpecVersion)
			}
			c := bom.Metadata.Component
			if c == nil || c.Type != cdx.ComponentTypeContainer || c.Name != repo || c.Version != tag ||
				!strings.Contains(c.PackageURL, "@sha256%3A"+img.Digest.Hex+"?") {
				t.Errorf("metadata.component %+v, want container %s version %s with the index digest %s", c, repo, tag, img.Digest)
			}

			byName := map[string]cdx.Component{}
			for _, comp := range *bom.Components {
				byName[comp.Name] = comp
			}
			main, ok := byName["github.com/listkeeper/listkeeper"]
			if !ok || main.Version != testVersion || main.PackageURL != "pkg:golang/github.com/listkeeper/listkeeper@"+testVersion {
				t.Errorf("main module %+v, want github.com/listkeeper/listkeeper %s", main, testVersion)
			}
			if std := byName["stdlib"]; !strings.HasPrefix(std.Version, "go1.") {
				t.Errorf("stdlib %+v, want the Go release", std)
			}
			for _, mod := range linked[p.Name] {
				comp, ok := byName[mod]
				if !ok {
					t.Errorf("no component %s", mod)
					continue
				}
				if comp.Hashes == nil || len(*comp.Hashes) != 1 || !hexSHA256.MatchString((*comp.Hashes)[0].Value) {
					t.Errorf("%s: hashes %+v, want its go.sum SHA-256", mod, comp.Hashes)
				}
				if m := regexp.MustCompile(`(?m)^\t` + regexp.QuoteMeta(mod) + ` (\S+)`).FindSubmatch(goMod); m == nil || comp.Version != string(m[1]) {
					t.Errorf("%s: version %s, want go.mod's %s", mod, comp.Version, m)
				}
			}

			// Every module any platform's binary links, with its version
			// and go.sum hash; oci:platform properties when only some
			// platforms link it.
			for _, plat := range opts.Platforms {
				info, err := buildinfo.ReadFile(bins[p.Name][platformKey(plat)])
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range info.Deps {
					if m.Replace != nil {
						m = m.Replace
					}
					comp, ok := byName[m.Path]
					if !ok || comp.Version != m.Version {
						t.Errorf("%s/%s links %s@%s, the SBOM has %+v", plat.OS, plat.Architecture, m.Path, m.Version, comp)
						continue
					}
					if want, _ := h1Hex(m.Sum); comp.Hashes == nil || (*comp.Hashes)[0].Value != want {
						t.Errorf("%s: hashes %+v, want %s (%s)", m.Path, comp.Hashes, want, m.Sum)
					}
					if !moduleOnPlatform(comp, plat.OS+"/"+plat.Architecture) {
						t.Errorf("%s: linked on %s/%s, its oci:platform properties say otherwise", m.Path, plat.OS, plat.Architecture)
					}
				}
			}

			// One file per platform, with the SHA-256 of the binary built.
			var files []string
			for _, file := range *main.Components {
				files = append(files, file.BOMRef)
				var platform string
				for _, prop := range *file.Properties {
					if prop.Name == "oci:platform" {
						platform = prop.Value
					}
				}
				osName, arch, _ := strings.Cut(platform, "/")
				want, err := fileSHA256(bins[p.Name][osName+"_"+arch])
				if err != nil {
					t.Fatal(err)
				}
				if file.Hashes == nil || (*file.Hashes)[0].Value != want {
					t.Errorf("%s: hashes %+v, want the binary's SHA-256 %s", file.BOMRef, file.Hashes, want)
				}
			}
			if want := []string{"file:" + p.Name + ":linux/amd64", "file:" + p.Name + ":linux/arm64"}; !slices.Equal(files, want) {
				t.Errorf("file components %q, want %q", files, want)
			}
		})
	}
}

// moduleOnPlatform says whether a module component is linked on plat: it
// has no oci:platform property (all platforms) or one naming plat.
func moduleOnPlatform(c cdx.Component, plat string) bool {
	if c.Properties == nil {
		return true
	}
	some := false
	for _, p := range *c.Properties {
		if p.Name == "oci:platform" {
			if p.Value == plat {
				return true
			}
			some = true
		}
	}
	return !some
}

func TestPURL(t *testing.T) {
	for _, tc := range []struct{ path, version, want string }{
		{"github.com/listkeeper/listkeeper", "v0.3.0", "pkg:golang/github.com/listkeeper/listkeeper@v0.3.0"},
		{"github.com/docker/cli", "v29.7.2+incompatible", "pkg:golang/github.com/docker/cli@v29.7.2%2Bincompatible"},
		{"stdlib", "1.26.8", "pkg:golang/stdlib@1.26.8"},
		{"example.com/local", "", "pkg:golang/example.com/local"},
	} {
		if got := goPURL(tc.path, tc.version); got != tc.want {
			t.Errorf("goPURL(%q, %q) = %q, want %q", tc.path, tc.version, got, tc.want)
		}
	}
}

func TestH1Hex(t *testing.T) {
	for _, tc := range []struct {
		sum, want string
		ok        bool
	}{
		{"h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", true},
		{"", "", false},
		{"h2:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "", false},
		{"h1:not base64", "", false},
		{"h1:AAAA", "", false},
	} {
		got, ok := h1Hex(tc.sum)
		if got != tc.want || ok != tc.ok {
			t.Errorf("h1Hex(%q) = %q, %v, want %q, %v", tc.sum, got, ok, tc.want, tc.ok)
		}
	}
}
