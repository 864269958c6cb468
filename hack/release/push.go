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
)

// Push pushes the image of every layout (*.oci.tar) in dir, as make image
// and make release write them, to the reference its index.json names
// (io.containerd.image.name): the whole index, every platform, with the
// digests the layout has, with the credentials keychain finds
// (authn.DefaultKeychain reads what docker, podman and skopeo login
// write). It returns the images pushed, in the order of their file names.
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
// reference its index.json names.
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
	if err := remote.WriteIndex(ref, idx, opts...); err != nil {
		return img, err
	}
	return Image{Ref: ref.String(), Digest: desc.Digest, Layout: tarFile}, nil
}

// layoutIndex is the one image index an OCI layout directory's index.json
// names, and its descriptor there.
func layoutIndex(dir string) (v1.ImageIndex, v1.Descriptor, error) {
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, v1.Descriptor{}, err
	}
	im, err := top.IndexManifest()
	if err != nil {
		return nil, v1.Descriptor{}, err
	}
	if len(im.Manifests) != 1 || !im.Manifests[0].MediaType.IsIndex() {
		return nil, v1.Descriptor{}, fmt.Errorf("index.json: want one image index, got %d manifests", len(im.Manifests))
	}
	desc := im.Manifests[0]
	idx, err := top.ImageIndex(desc.Digest)
	return idx, desc, err
}
