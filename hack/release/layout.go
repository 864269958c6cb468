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
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// Annotations of the index.json entry that names an image in a layout.
const (
	// RefNameAnnotation is the OCI one: the tag.
	RefNameAnnotation = "org.opencontainers.image.ref.name"
	// ImageNameAnnotation is containerd's: the full reference, which
	// `ctr images import` and buildx use.
	ImageNameAnnotation = "io.containerd.image.name"
)

// Annotations with which cosign's OCI layouts (`cosign save`, `cosign
// verify --local-image`; cosign's pkg/oci/layout) tell apart the entries
// of index.json: the signed image index, its signatures image and its
// attestations image. cosign finds each by the first entry whose "kind"
// is the one it wants.
const (
	KindAnnotation   = "kind"
	KindImageIndex   = "dev.cosignproject.cosign/imageIndex"
	KindSignatures   = "dev.cosignproject.cosign/sigs"
	KindAttestations = "dev.cosignproject.cosign/atts"
)

// writeLayout writes idx as an OCI image layout in a tar file at out: its
// index.json names idx, annotated with the tag, the full reference and
// cosign's kind of a signed image index. Non-nil sigs and atts are written
// as the entries cosign reads as the index's signatures and attestations,
// so that `cosign verify --local-image` of the unpacked layout finds them.
func writeLayout(s imageSpec, idx v1.ImageIndex, sigs, atts v1.Image, out string, created time.Time) (err error) {
	dir, err := os.MkdirTemp("", "listkeeper-layout-")
	if err != nil {
		return err
	}
	defer func() {
		if rerr := os.RemoveAll(dir); err == nil {
			err = rerr
		}
	}()
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		RefNameAnnotation:   s.tag,
		ImageNameAnnotation: s.ref(),
		KindAnnotation:      KindImageIndex,
	})); err != nil {
		return err
	}
	for _, e := range []struct {
		img  v1.Image
		kind string
	}{{sigs, KindSignatures}, {atts, KindAttestations}} {
		if e.img == nil {
			continue
		}
		if err := p.AppendImage(e.img, layout.WithAnnotations(map[string]string{KindAnnotation: e.kind})); err != nil {
			return err
		}
	}
	return tarDir(dir, out, created)
}
