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
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	ociremote "github.com/sigstore/cosign/v2/pkg/oci/remote"
)

// Push pushes the image of every layout (*.oci.tar) in dir, as make image
// and make release write them, to the reference its index.json names
// (io.containerd.image.name): the whole index, every platform, with the
// digests the layout has, with the credentials keychain finds
// (authn.DefaultKeychain reads what docker, podman and skopeo login
// write), and the signatures and attestations that make release put in the
// layouts, where cosign looks for them. It returns the images pushed, in
// the order of their file names.
func Push(ctx context.Context, dir string, keychain authn.Keychain) ([]Image, error) {
	layouts, err := filepath.Glob(filepath.Join(dir, "*.oci.tar"))
	if err != nil {
		return nil, err
	}
	if len(layouts) == 0 {
		return nil, fmt.Errorf("%s holds no image layout (*.oci.tar): run make image or make release first", dir)
	}
	slices.Sort(layouts)
	opts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(keychain)}
	var pushed []Image
	for _, l := range layouts {
		img, err := pushLayout(l, opts)
		if err != nil {
			return pushed, fmt.Errorf("push %s: %w", l, err)
		}
		pushed = append(pushed, img)
	}
	return pushed, nil
}

// pushLayout pushes the one image index of a layout tar file to the
// reference its index.json names and, when the layout holds them (make
// release), its signatures and attestations to the tags cosign looks them
// up by: <repository>:sha256-<hex>.sig and .att.
func pushLayout(tarFile string, opts []remote.Option) (img Image, err error) {
	dir, err := os.MkdirTemp("", "listkeeper-push-")
	if err != nil {
		return img, err
	}
	defer func() {
		if rerr := os.RemoveAll(dir); err == nil {
			err = rerr
		}
	}()
	if err := untarDir(tarFile, dir); err != nil {
		return img, err
	}
	idx, desc, err := layoutIndex(dir)
	if err != nil {
		return img, err
	}
	ref, err := name.NewTag(desc.Annotations[ImageNameAnnotation])
	if err != nil {
		return img, fmt.Errorf("index.json names no image (%s): %w", ImageNameAnnotation, err)
	}
	sigs, atts, err := layoutSignatures(dir)
	if err != nil {
		return img, err
	}
	if err := remote.WriteIndex(ref, idx, opts...); err != nil {
		return img, err
	}
	img = Image{Ref: ref.String(), Digest: desc.Digest, Layout: tarFile}
	digest := ref.Context().Digest(desc.Digest.String())
	for _, e := range []struct {
		img v1.Image
		tag func(name.Reference, ...ociremote.Option) (name.Tag, error)
	}{{sigs, ociremote.SignatureTag}, {atts, ociremote.AttestationTag}} {
		if e.img == nil {
			continue
		}
		// Of a digest, cosign makes the tag without asking the registry.
		tag, err := e.tag(digest)
		if err != nil {
			return img, err
		}
		if err := remote.Write(tag, e.img, opts...); err != nil {
			return img, fmt.Errorf("push %s: %w", tag, err)
		}
		img.Signatures = append(img.Signatures, tag.String())
	}
	return img, nil
}

// layoutEntries are the entries of an OCI layout directory's index.json.
func layoutEntries(dir string) (v1.ImageIndex, []v1.Descriptor, error) {
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, nil, err
	}
	im, err := top.IndexManifest()
	if err != nil {
		return nil, nil, err
	}
	return top, im.Manifests, nil
}

// layoutIndex is the one image index an OCI layout directory's index.json
// names with a reference (io.containerd.image.name), and its descriptor
// there. Other entries may be the index's signatures and attestations.
func layoutIndex(dir string) (v1.ImageIndex, v1.Descriptor, error) {
	top, entries, err := layoutEntries(dir)
	if err != nil {
		return nil, v1.Descriptor{}, err
	}
	var found []v1.Descriptor
	for _, d := range entries {
		if _, ok := d.Annotations[ImageNameAnnotation]; ok {
			found = append(found, d)
		}
	}
	if len(found) != 1 || !found[0].MediaType.IsIndex() {
		return nil, v1.Descriptor{}, fmt.Errorf("index.json: want one image index named by %s, got %d such entries of %d", ImageNameAnnotation, len(found), len(entries))
	}
	desc := found[0]
	idx, err := top.ImageIndex(desc.Digest)
	return idx, desc, err
}

// layoutSignatures are the signatures and attestations images of an OCI
// layout directory, found as cosign finds them (the first entry of each
// kind), or nil where there are none.
func layoutSignatures(dir string) (sigs, atts v1.Image, err error) {
	top, entries, err := layoutEntries(dir)
	if err != nil {
		return nil, nil, err
	}
	for _, d := range entries {
		var img *v1.Image
		switch d.Annotations[KindAnnotation] {
		case KindSignatures:
			img = &sigs
		case KindAttestations:
			img = &atts
		default:
			continue
		}
		if *img != nil {
			continue
		}
		if *img, err = top.Image(d.Digest); err != nil {
			return nil, nil, err
		}
	}
	return sigs, atts, nil
}
