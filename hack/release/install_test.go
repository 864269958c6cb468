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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestInstallYAML parses install.yaml: it is config/default as kustomize
// renders it, but for the manager's image, which is the release's, by the
// digest of its image index.
func TestInstallYAML(t *testing.T) {
	requireRelease(t)
	if want := filepath.Join(opts.Out, "install.yaml"); built.Install != want {
		t.Errorf("install.yaml at %s, want %s", built.Install, want)
	}
	raw, err := os.ReadFile(built.Install)
	if err != nil {
		t.Fatal(err)
	}
	var images []string
	kinds := map[string]int{}
	for _, doc := range bytes.Split(raw, []byte("\n---\n")) {
		var obj struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(doc, &obj); err != nil || obj.APIVersion == "" || obj.Kind == "" {
			t.Fatalf("install.yaml holds something that is not a Kubernetes object (%v):\n%s", err, doc)
		}
		kinds[obj.Kind]++
		if obj.Kind != "Deployment" {
			continue
		}
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict(doc, &d); err != nil {
			t.Fatalf("the Deployment of install.yaml: %v", err)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
	}
	// The manager's image is pinned to the digest of the index in its
	// layout, the one make push pushes and the signature names.
	idx, _ := openLayout(t, built.Images[0].Layout)
	digest, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	if digest != built.Images[0].Digest {
		t.Fatalf("the layout holds the index %s, the release says %s", digest, built.Images[0].Digest)
	}
	want := built.Images[0].Ref + "@" + digest.String()
	if len(images) != 1 || images[0] != want {
		t.Errorf("install.yaml runs %q, want [%s]", images, want)
	}
	for _, kind := range []string{"Namespace", "CustomResourceDefinition", "ClusterRole", "Deployment", "Service"} {
		if kinds[kind] == 0 {
			t.Errorf("install.yaml has no %s (kinds %v)", kind, kinds)
		}
	}

	// Everything else is what config/default renders.
	out, err := exec.Command(opts.Kubectl, "kustomize", filepath.Join(root, "config", "default")).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize config/default: %v", err)
	}
	defaultImage, _, err := makefileImages(root)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("image: "+defaultImage+"\n")) {
		t.Fatalf("config/default does not run the Makefile's default image %s", defaultImage)
	}
	if got := strings.Replace(string(out), "image: "+defaultImage+"\n", "image: "+want+"\n", 1); got != string(raw) {
		t.Errorf("install.yaml differs from config/default by more than the image")
	}
}
