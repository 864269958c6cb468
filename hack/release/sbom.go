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
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	cdx "github.com/CycloneDX/cyclonedx-go"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// SBOMSpecVersion is the CycloneDX version of the SBOMs.
const SBOMSpecVersion = cdx.SpecVersion1_6

// writeSBOM writes the CycloneDX SBOM of the image s, whose index has the
// digest index, to out.
func writeSBOM(s imageSpec, o Options, index v1.Hash, out string) (err error) {
	bom, err := sbom(s, o, index)
	if err != nil {
		return fmt.Errorf("SBOM of %s: %w", s.ref(), err)
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	return cdx.NewBOMEncoder(f, cdx.BOMFileFormatJSON).SetPretty(true).SetEscapeHTML(false).EncodeVersion(bom, SBOMSpecVersion)
}

// sbom describes the image s: the image, the main module with one file
// component per platform's binary, the Go standard library and every module
// linked in, all read from the binaries' build information.
func sbom(s imageSpec, o Options, index v1.Hash) (*cdx.BOM, error) {
	var (
		first *debug.BuildInfo
		infos []*debug.BuildInfo
		files []cdx.Component
	)
	for _, plat := range o.Platforms {
		path := s.binaries[platformKey(plat)]
		info, err := buildinfo.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if first == nil {
			first = info
		}
		infos = append(infos, info)
		file, err := binaryComponent(s.program, plat, path, info, o.Version)
		if err != nil {
			return nil, err
		}
		files = append(files, file)
	}
	if first == nil {
		return nil, fmt.Errorf("no platforms")
	}
	deps, err := linkedModules(o.Platforms, infos)
	if err != nil {
		return nil, err
	}

	mainRef := goPURL(first.Main.Path, o.Version)
	main := cdx.Component{
		BOMRef:     mainRef,
		Type:       cdx.ComponentTypeApplication,
		Name:       first.Main.Path,
		Version:    o.Version,
		PackageURL: mainRef,
		Licenses:   &cdx.Licenses{{License: &cdx.License{ID: license}}},
		Properties: &[]cdx.Property{
			{Name: "go:package", Value: first.Path},
			{Name: "vcs:revision", Value: o.Revision},
		},
		Components: &files,
	}
	stdlib := stdlibComponent(first.GoVersion)
	components := []cdx.Component{main, stdlib}
	needs := []string{stdlib.BOMRef}
	for _, m := range deps {
		c := moduleComponent(m.module, m.platforms)
		components = append(components, c)
		needs = append(needs, c.BOMRef)
	}

	image := cdx.Component{
		BOMRef:     "image",
		Type:       cdx.ComponentTypeContainer,
		Name:       s.repository,
		Version:    s.tag,
		PackageURL: ociPURL(s, index),
		Hashes:     &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: index.Hex}},
		Licenses:   &cdx.Licenses{{License: &cdx.License{ID: license}}},
	}
	bom := cdx.NewBOM()
	bom.SerialNumber = serialNumber(s, index, o.Version)
	bom.Metadata = &cdx.Metadata{
		Timestamp: o.Created.Format(time.RFC3339),
		Tools: &cdx.ToolsChoice{Components: &[]cdx.Component{{
			Type:    cdx.ComponentTypeApplication,
			Name:    "hack/release",
			Group:   first.Main.Path,
			Version: o.Version,
		}}},
		Component: &image,
	}
	bom.Components = &components
	bom.Dependencies = &[]cdx.Dependency{
		{Ref: image.BOMRef, Dependencies: &[]string{mainRef}},
		{Ref: mainRef, Dependencies: &needs},
	}
	return bom, nil
}

// linkedModule is a module linked into an image's binaries, and the
// platforms whose binary links it when that is not all of them.
type linkedModule struct {
	module    *debug.Module
	platforms []string
}

// linkedModules are the modules linked into any of the binaries of one
// image, by path: a module can be linked on some platforms only (e.g.
// github.com/klauspost/cpuid/v2 on amd64). infos[i] is the build
// information of the binary for platforms[i]. One module at two versions
// is an error: the binaries of an image come from one build list.
func linkedModules(platforms []v1.Platform, infos []*debug.BuildInfo) ([]linkedModule, error) {
	byPath := map[string]*linkedModule{}
	for i, info := range infos {
		plat := platforms[i].OS + "/" + platforms[i].Architecture
		for _, m := range info.Deps {
			lm, ok := byPath[m.Path]
			if !ok {
				lm = &linkedModule{module: m}
				byPath[m.Path] = lm
			} else if moduleID(lm.module) != moduleID(m) {
				return nil, fmt.Errorf("%s: %s links %s, another platform %s", m.Path, plat, moduleID(m), moduleID(lm.module))
			}
			lm.platforms = append(lm.platforms, plat)
		}
	}
	out := make([]linkedModule, 0, len(byPath))
	for _, lm := range byPath {
		if len(lm.platforms) == len(infos) {
			lm.platforms = nil
		}
		out = append(out, *lm)
	}
	slices.SortFunc(out, func(a, b linkedModule) int { return strings.Compare(a.module.Path, b.module.Path) })
	return out, nil
}

// moduleID is what identifies the module m links: path, version and sum,
// of the replacement when there is one.
func moduleID(m *debug.Module) string {
	if m.Replace != nil {
		return m.Path + " => " + moduleID(m.Replace)
	}
	return m.Path + "@" + m.Version + " " + m.Sum
}

// binaryComponent is one platform's binary: its SHA-256 and its build
// settings as `go version -m` prints them (go:build:GOARCH, ...).
func binaryComponent(p program, plat v1.Platform, path string, info *debug.BuildInfo, version string) (cdx.Component, error) {
	sum, err := fileSHA256(path)
	if err != nil {
		return cdx.Component{}, err
	}
	props := []cdx.Property{
		{Name: "oci:platform", Value: plat.OS + "/" + plat.Architecture},
		{Name: "go:version", Value: info.GoVersion},
	}
	for _, s := range info.Settings {
		props = append(props, cdx.Property{Name: "go:build:" + s.Key, Value: s.Value})
	}
	return cdx.Component{
		BOMRef:     "file:" + p.Name + ":" + plat.OS + "/" + plat.Architecture,
		Type:       cdx.ComponentTypeFile,
		Name:       "/" + p.Name,
		Version:    version,
		Hashes:     &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: sum}},
		Properties: &props,
	}, nil
}

// stdlibComponent is the Go standard library of the toolchain goVersion
// (e.g. go1.26.8), named as vulnerability databases name it.
func stdlibComponent(goVersion string) cdx.Component {
	v, _, _ := strings.Cut(goVersion, " ") // "go1.26.8 X:..." for experiments
	purl := goPURL("stdlib", strings.TrimPrefix(v, "go"))
	return cdx.Component{BOMRef: purl, Type: cdx.ComponentTypeLibrary, Name: "stdlib", Version: v, PackageURL: purl}
}

// moduleComponent is one module linked in: the replacement when there is
// one, with the replaced module as a property, and the platforms that link
// it (oci:platform, one property each) when not all of them do.
func moduleComponent(m *debug.Module, platforms []string) cdx.Component {
	used := m
	var props []cdx.Property
	for _, p := range platforms {
		props = append(props, cdx.Property{Name: "oci:platform", Value: p})
	}
	if m.Replace != nil {
		used = m.Replace
		props = append(props, cdx.Property{Name: "go:replaces", Value: m.Path + "@" + m.Version})
	}
	purl := goPURL(used.Path, used.Version)
	c := cdx.Component{
		BOMRef:     purl,
		Type:       cdx.ComponentTypeLibrary,
		Name:       used.Path,
		Version:    used.Version,
		PackageURL: purl,
	}
	if h, ok := h1Hex(used.Sum); ok {
		c.Hashes = &[]cdx.Hash{{Algorithm: cdx.HashAlgoSHA256, Value: h}}
		props = append(props, cdx.Property{Name: "go:sum", Value: used.Sum})
	}
	if len(props) > 0 {
		c.Properties = &props
	}
	return c
}

// h1Hex is the SHA-256 of a go.sum hash "h1:<base64>" in hex.
func h1Hex(sum string) (string, bool) {
	b64, ok := strings.CutPrefix(sum, "h1:")
	if !ok {
		return "", false
	}
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(raw) != sha256.Size {
		return "", false
	}
	return hex.EncodeToString(raw), true
}

// goPURL is the package URL of a Go module (or of "stdlib").
func goPURL(path, version string) string {
	p := "pkg:golang/" + purlEscape(path, true)
	if version != "" {
		p += "@" + purlEscape(version, false)
	}
	return p
}

// ociPURL is the package URL of the image: its name, the index digest, and
// where it is pushed.
func ociPURL(s imageSpec, index v1.Hash) string {
	name := s.repository[strings.LastIndex(s.repository, "/")+1:]
	return "pkg:oci/" + purlEscape(name, false) + "@" + purlEscape(index.String(), false) +
		"?repository_url=" + purlEscape(s.repository, true) + "&tag=" + purlEscape(s.tag, false)
}

// purlEscape percent-encodes what a package URL segment may not hold;
// slashes stay when keepSlash (a namespace/name path).
func purlEscape(s string, keepSlash bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '.', c == '-', c == '_', c == '~', keepSlash && c == '/':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// serialNumber is the SBOM's urn:uuid, derived from what it describes so
// that the same image gives the same SBOM: a version 8 (custom) UUID of the
// SHA-256 of the reference, index digest and version.
func serialNumber(s imageSpec, index v1.Hash, version string) string {
	h := sha256.Sum256([]byte(s.ref() + "\x00" + index.String() + "\x00" + version))
	h[6] = h[6]&0x0f | 0x80
	h[8] = h[8]&0x3f | 0x80
	x := hex.EncodeToString(h[:16])
	return "urn:uuid:" + x[0:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// fileSHA256 is the hex SHA-256 of a file.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
