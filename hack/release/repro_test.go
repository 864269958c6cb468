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
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproducible writes the release again from the same binaries: every
// file is the same, byte for byte (the binaries themselves are Go's
// reproducible builds: -trimpath, no VCS stamping, fixed flags), but for
// what holds a signature or the key: ECDSA signatures differ each time,
// and the release is signed with a throwaway key. Of those, the image
// indexes, which the signatures name, are the same.
func TestReproducible(t *testing.T) {
	requireRelease(t)
	again := opts
	again.Out = filepath.Join(t.TempDir(), "dist")
	res, err := releaseFrom(context.Background(), again, bins)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != len(built.Files) {
		t.Fatalf("wrote %d files, then %d", len(built.Files), len(res.Files))
	}
	for i, f := range built.Files {
		a, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(res.Files[i])
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(f) != filepath.Base(res.Files[i]) {
			t.Errorf("%s differs from %s", res.Files[i], f)
		}
		if signedFile(f) {
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from %s", res.Files[i], f)
		}
	}
	for i := range built.Images {
		if built.Images[i].Digest != res.Images[i].Digest {
			t.Errorf("%s: index digest %s, then %s", built.Images[i].Ref, built.Images[i].Digest, res.Images[i].Digest)
		}
	}
}

// TestImageTags writes the images as make image does: tagged as the
// references say, not with the version, and unsigned.
func TestImageTags(t *testing.T) {
	requireRelease(t)
	o := opts
	o.Out = filepath.Join(t.TempDir(), "dist")
	o.Platforms = o.Platforms[:1]
	specs, err := imageSpecs(o, bins, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := writeImages(o, specs, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, ref := range []string{o.ManagerImage, o.FakeAPIImage} {
		repo, tag, _ := splitRef(ref)
		img := res.Images[i]
		if want := filepath.Join(o.Out, ArtifactBase(repo, tag)+".oci.tar"); img.Ref != ref || img.Layout != want {
			t.Errorf("image %s at %s, want %s at %s", img.Ref, img.Layout, ref, want)
		}
		if _, ann := openLayout(t, img.Layout); ann[RefNameAnnotation] != tag {
			t.Errorf("%s: ref.name %q, want %q", img.Layout, ann[RefNameAnnotation], tag)
		}
		// make image signs nothing: make push then pushes the images
		// alone.
		if sigs, atts, err := layoutSignatures(unpack(t, img.Layout)); err != nil || sigs != nil || atts != nil {
			t.Errorf("%s: signatures %v, attestations %v (%v), want none", img.Layout, sigs, atts, err)
		}
	}
}

// signedFile says whether a file of a release holds a signature or the
// key, or the checksum of one: it differs each time the release is
// written.
func signedFile(path string) bool {
	base := filepath.Base(path)
	return strings.HasSuffix(base, ".oci.tar") || base == SumsFile || base == SumsSignatureFile || base == PublicKeyFile
}
