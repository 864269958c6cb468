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
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/sigstore/cosign/v2/pkg/oci"
)

// SumsFile is the checksum file of a release.
const SumsFile = "SHA256SUMS"

// Image is one image written: its reference, the digest of its index, and
// the paths of its layout and SBOM.
type Image struct {
	Ref    string
	Digest v1.Hash
	Layout string
	SBOM   string
	// Signatures are the tags its signatures and attestations were pushed
	// to (Push only).
	Signatures []string
}

// Result is what a run wrote.
type Result struct {
	// Images are the manager's, then the fake server's.
	Images []Image
	// Chart and Install are the packaged chart and install.yaml, and
	// PublicKey the cosign.pub that verifies the release's signatures;
	// empty for Images.
	Chart, Install, PublicKey string
	// Files are the paths of every file written, in the order written.
	Files []string
}

// Images builds the binaries and writes the images and their SBOMs to
// o.Out, tagged as o's references say (make image).
func Images(ctx context.Context, o Options) (Result, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Result{}, err
	}
	return withBinaries(ctx, o, func(bins binaries) (Result, error) {
		specs, err := imageSpecs(o, bins, false)
		if err != nil {
			return Result{}, err
		}
		return writeImages(o, specs, nil)
	})
}

// Release builds the binaries and writes a release of o.Version to o.Out,
// which must be empty or absent: the images tagged o.Version, signed and
// attested, and their SBOMs, the packaged chart, install.yaml, cosign.pub,
// SHA256SUMS and its signature (make release).
func Release(ctx context.Context, o Options) (Result, error) {
	o, err := o.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if _, err := ChartVersion(o.Version); err != nil {
		return Result{}, err
	}
	if entries, err := os.ReadDir(o.Out); err == nil && len(entries) > 0 {
		return Result{}, fmt.Errorf("%s is not empty: a release is written to an empty directory", o.Out)
	}
	// A wrong key or password fails now, not after minutes of compiling.
	if o.SigningKey != "" {
		if _, err := LoadSigner(o.SigningKey, o.SigningPassword); err != nil {
			return Result{}, err
		}
	}
	return withBinaries(ctx, o, func(bins binaries) (Result, error) {
		return releaseFrom(ctx, o, bins)
	})
}

// withBinaries builds the binaries of o into a temporary directory, runs
// f with them and removes them.
func withBinaries(ctx context.Context, o Options, f func(binaries) (Result, error)) (res Result, err error) {
	dir, err := os.MkdirTemp("", "listkeeper-bin-")
	if err != nil {
		return Result{}, err
	}
	defer func() {
		if rerr := os.RemoveAll(dir); err == nil {
			err = rerr
		}
	}()
	bins, err := goBuild(ctx, o, dir)
	if err != nil {
		return Result{}, err
	}
	return f(bins)
}

// releaseFrom writes the release of o (defaults filled in) from built
// binaries, signed with o.SigningKey or a throwaway key: the images with
// their signatures and provenance, the chart, install.yaml (the manager's
// image pinned by digest), cosign.pub, SHA256SUMS and SHA256SUMS.sig.
func releaseFrom(ctx context.Context, o Options, bins binaries) (Result, error) {
	signer, err := signerFor(o, o.Warn)
	if err != nil {
		return Result{}, err
	}
	specs, err := imageSpecs(o, bins, true)
	if err != nil {
		return Result{}, err
	}
	res, err := writeImages(o, specs, signer)
	if err != nil {
		return res, err
	}
	if res.Chart, err = packageChart(o, specs[0].repository, o.Out); err != nil {
		return res, err
	}
	res.Files = append(res.Files, res.Chart)
	res.Install = filepath.Join(o.Out, "install.yaml")
	if err := renderInstall(ctx, o, specs[0].repository, specs[0].tag, res.Images[0].Digest, res.Install); err != nil {
		return res, err
	}
	res.Files = append(res.Files, res.Install)
	res.PublicKey = filepath.Join(o.Out, PublicKeyFile)
	if err := os.WriteFile(res.PublicKey, signer.PublicKey, 0o644); err != nil {
		return res, err
	}
	res.Files = append(res.Files, res.PublicKey)
	sums := filepath.Join(o.Out, SumsFile)
	if err := writeSums(sums, res.Files); err != nil {
		return res, err
	}
	res.Files = append(res.Files, sums)
	raw, err := os.ReadFile(sums)
	if err != nil {
		return res, err
	}
	sig, err := signer.SignBlob(raw)
	if err != nil {
		return res, fmt.Errorf("sign %s: %w", SumsFile, err)
	}
	sumsSig := filepath.Join(o.Out, SumsSignatureFile)
	if err := os.WriteFile(sumsSig, sig, 0o644); err != nil {
		return res, err
	}
	res.Files = append(res.Files, sumsSig)
	return res, nil
}

// imageSpecs are the images of o: the manager's and the fake server's, at
// their references' tags, or at o.Version for a release.
func imageSpecs(o Options, bins binaries, release bool) ([]imageSpec, error) {
	var specs []imageSpec
	for _, p := range []struct {
		program program
		ref     string
	}{{manager, o.ManagerImage}, {fakeapi, o.FakeAPIImage}} {
		repo, tag, err := splitRef(p.ref)
		if err != nil {
			return nil, err
		}
		if release {
			tag = o.Version
		}
		specs = append(specs, imageSpec{program: p.program, repository: repo, tag: tag, binaries: bins[p.program.Name]})
	}
	return specs, nil
}

// ArtifactBase is the start of the file names of an image's layout and
// SBOM: the last element of its repository, "-", its tag.
func ArtifactBase(repository, tag string) string {
	return repository[strings.LastIndex(repository, "/")+1:] + "-" + tag
}

// writeImages writes each image's layout (<base>.oci.tar) and SBOM
// (<base>.cdx.json) to o.Out. With a signer, each layout also holds the
// image's cosign signature and SLSA provenance attestation.
func writeImages(o Options, specs []imageSpec, signer *Signer) (Result, error) {
	var res Result
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return res, err
	}
	for _, s := range specs {
		idx, err := imageIndex(s, o)
		if err != nil {
			return res, err
		}
		digest, err := idx.Digest()
		if err != nil {
			return res, err
		}
		base := filepath.Join(o.Out, ArtifactBase(s.repository, s.tag))
		img := Image{Ref: s.ref(), Digest: digest, Layout: base + ".oci.tar", SBOM: base + ".cdx.json"}
		var sigs, atts oci.Signatures
		if signer != nil {
			pred, err := provenance(s, o)
			if err != nil {
				return res, fmt.Errorf("provenance of %s: %w", s.ref(), err)
			}
			if sigs, atts, err = signer.SignIndex(s.repository, idx, pred); err != nil {
				return res, err
			}
		}
		if err := writeLayout(s, idx, sigs, atts, img.Layout, o.Created); err != nil {
			return res, fmt.Errorf("layout of %s: %w", s.ref(), err)
		}
		if err := writeSBOM(s, o, digest, img.SBOM); err != nil {
			return res, err
		}
		res.Images = append(res.Images, img)
		res.Files = append(res.Files, img.Layout, img.SBOM)
	}
	return res, nil
}

// writeSums writes the SHA-256 of each file to out, one "<hex>  <name>"
// line per file sorted by name, as sha256sum prints them; names are
// relative to out's directory.
func writeSums(out string, files []string) error {
	dir := filepath.Dir(out)
	var lines []string
	for _, f := range files {
		sum, err := fileSHA256(f)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			return errors.Join(fmt.Errorf("%s is not under %s", f, dir), err)
		}
		lines = append(lines, sum+"  "+filepath.ToSlash(rel)+"\n")
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][sha256.Size*2+2:] < lines[j][sha256.Size*2+2:] })
	return os.WriteFile(out, []byte(strings.Join(lines, "")), 0o644)
}

// printResult says what was written.
func printResult(w io.Writer, res Result) {
	for _, img := range res.Images {
		fmt.Fprintf(w, "image %s@%s\n  %s\n  %s\n", img.Ref, img.Digest, img.Layout, img.SBOM)
	}
	if res.Chart != "" {
		fmt.Fprintf(w, "chart %s\n", res.Chart)
	}
	if res.Install != "" {
		fmt.Fprintf(w, "install %s\n", res.Install)
	}
	if res.PublicKey != "" {
		fmt.Fprintf(w, "public key %s\n", res.PublicKey)
	}
}
