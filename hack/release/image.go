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
	"fmt"
	"io"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

const (
	// NonRootUID is the user and group the images run as: distroless's
	// nonroot, which the Deployments' securityContext (runAsUser 65532)
	// expects.
	NonRootUID = 65532
	// sourceURL is the repository the images are built from.
	sourceURL = "https://github.com/listkeeper/listkeeper"
	// license is the SPDX identifier of the repository's LICENSE.
	license = "Apache-2.0"
)

// imageSpec is one image to assemble: a program, its reference and its
// binaries by platform.
type imageSpec struct {
	program    program
	repository string
	tag        string
	binaries   map[string]string // platformKey -> path
}

// ref is the image's full reference, repository:tag.
func (s imageSpec) ref() string { return s.repository + ":" + s.tag }

// labels are the image's org.opencontainers.image labels, also set as
// annotations of its manifests and index.
func labels(s imageSpec, o Options) map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       s.program.Title,
		"org.opencontainers.image.description": s.program.Description,
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Revision,
		"org.opencontainers.image.source":      sourceURL,
		"org.opencontainers.image.url":         sourceURL,
		"org.opencontainers.image.licenses":    license,
		"org.opencontainers.image.created":     o.Created.Format(time.RFC3339),
	}
}

// imageIndex assembles the multi-platform image index of s: one image per
// platform of o, in the order of o.Platforms.
func imageIndex(s imageSpec, o Options) (v1.ImageIndex, error) {
	ann := labels(s, o)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, plat := range o.Platforms {
		bin, ok := s.binaries[platformKey(plat)]
		if !ok {
			return nil, fmt.Errorf("%s: no binary for %s/%s", s.program.Name, plat.OS, plat.Architecture)
		}
		img, err := platformImage(s.program, plat, bin, ann, o.Created)
		if err != nil {
			return nil, fmt.Errorf("%s for %s/%s: %w", s.program.Name, plat.OS, plat.Architecture, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: plat.OS, Architecture: plat.Architecture}},
		})
	}
	annotated, ok := mutate.Annotations(idx, ann).(v1.ImageIndex)
	if !ok {
		return nil, fmt.Errorf("%s: annotating the index gave no index", s.program.Name)
	}
	return annotated, nil
}

// platformImage is one platform's image: an empty base, one layer with the
// binary and the nonroot user, run as that user.
func platformImage(p program, plat v1.Platform, binary string, ann map[string]string, created time.Time) (v1.Image, error) {
	gz, err := rootLayer(p.Name, binary, created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gz)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	user := strconv.Itoa(NonRootUID) + ":" + strconv.Itoa(NonRootUID)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		Architecture: plat.Architecture,
		OS:           plat.OS,
		Created:      v1.Time{Time: created},
		Config: v1.Config{
			Entrypoint: []string{"/" + p.Name},
			User:       user,
			WorkingDir: "/",
			Labels:     ann,
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: created},
			CreatedBy: "hack/release: /" + p.Name + " (" + p.Package + "), user " + user,
		},
	})
	if err != nil {
		return nil, err
	}
	annotated, ok := mutate.Annotations(img, ann).(v1.Image)
	if !ok {
		return nil, fmt.Errorf("annotating the image gave no image")
	}
	return annotated, nil
}
