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
	"io"
	"log"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// TestPush writes both images, named for a registry in this process, and
// pushes them: the registry then serves each index under its tag, with
// the digest the layout has, and every platform's image.
func TestPush(t *testing.T) {
	requireRelease(t)
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	o := opts
	o.Out = filepath.Join(t.TempDir(), "dist")
	o.ManagerImage = u.Host + "/listkeeper/listkeeper:v0.3.0"
	o.FakeAPIImage = u.Host + "/listkeeper/listkeeper-fakeapi:v0.3.0"
	specs, err := imageSpecs(o, bins, false)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ThrowawaySigner()
	if err != nil {
		t.Fatal(err)
	}
	written, err := writeImages(o, specs, signer)
	if err != nil {
		t.Fatal(err)
	}

	// No credentials: the registry in the test takes anonymous pushes.
	pushed, err := Push(context.Background(), o.Out, authn.NewMultiKeychain())
	if err != nil {
		t.Fatal(err)
	}
	if len(pushed) != len(written.Images) {
		t.Fatalf("pushed %d images, want %d", len(pushed), len(written.Images))
	}
	// Push goes by file name: listkeeper-fakeapi-… before listkeeper-….
	want := map[string]Image{}
	for _, img := range written.Images {
		want[img.Layout] = img
	}
	for _, p := range pushed {
		w := want[p.Layout]
		if p.Ref != w.Ref || p.Digest != w.Digest {
			t.Errorf("%s: pushed %s@%s, want %s@%s", filepath.Base(p.Layout), p.Ref, p.Digest, w.Ref, w.Digest)
		}
		ref, err := name.NewTag(w.Ref)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := remote.Index(ref)
		if err != nil {
			t.Fatalf("pull %s: %v", ref, err)
		}
		// The signatures and attestations are where cosign looks: the
		// tags sha256-<hex>.sig and .att of the repository.
		for _, suffix := range []string{".sig", ".att"} {
			tag := ref.Context().Tag("sha256-" + w.Digest.Hex + suffix)
			if !slices.Contains(p.Signatures, tag.String()) {
				t.Errorf("Push says it pushed %q, want %s among them", p.Signatures, tag)
			}
			if _, err := remote.Image(tag); err != nil {
				t.Errorf("pull %s: %v", tag, err)
			}
		}
		if d, err := idx.Digest(); err != nil || d != w.Digest {
			t.Errorf("the registry serves %s as %s (%v), want %s", ref, d, err, w.Digest)
		}
		im, err := idx.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		for _, desc := range im.Manifests {
			img, err := idx.Image(desc.Digest)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := img.ConfigFile(); err != nil {
				t.Errorf("%s %s/%s: %v", ref, desc.Platform.OS, desc.Platform.Architecture, err)
			}
			layers, err := img.Layers()
			if err != nil || len(layers) != 1 {
				t.Fatalf("%s: layers %v, %v", ref, layers, err)
			}
			// remote checks the digest of what it reads.
			rc, err := layers[0].Compressed()
			if err == nil {
				_, err = io.Copy(io.Discard, rc)
				_ = rc.Close()
			}
			if err != nil {
				t.Errorf("%s: the layer: %v", ref, err)
			}
		}
	}

	if _, err := Push(context.Background(), t.TempDir(), authn.NewMultiKeychain()); err == nil {
		t.Error("Push of a directory without layouts succeeded")
	}
}
