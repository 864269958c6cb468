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
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/chart/v2/loader"
)

// TestDefaultImagesAgree checks that the images an unreleased tree deploys
// are the ones make image builds: the Makefile's IMG and IMG_FAKEAPI are
// what config/default and config/fakeapi render, the chart's default
// (image.repository and appVersion) is IMG, and make deploy and make
// deploy-fakeapi replace exactly those images.
func TestDefaultImagesAgree(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	mgr, fake, err := makefileImages(root)
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{"default": mgr, "fakeapi": fake} {
		out, err := exec.Command(kubectlPath(), "kustomize", filepath.Join(root, "config", dir)).Output()
		if err != nil {
			t.Fatalf("kubectl kustomize config/%s: %v", dir, err)
		}
		images := regexp.MustCompile(`(?m)^\s+image: (\S+)$`).FindAllStringSubmatch(string(out), -1)
		if len(images) != 1 || images[0][1] != want {
			t.Errorf("config/%s runs %v, want the Makefile's %s", dir, images, want)
		}
	}

	ch, err := loader.LoadDir(filepath.Join(root, chartDir))
	if err != nil {
		t.Fatal(err)
	}
	image, _ := ch.Values["image"].(map[string]any)
	tag, _ := image["tag"].(string)
	if tag == "" {
		tag = ch.Metadata.AppVersion
	}
	if got := image["repository"].(string) + ":" + tag; got != mgr {
		t.Errorf("the chart's default image is %s (image.repository, appVersion), the Makefile's IMG %s", got, mgr)
	}

	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	for target, img := range map[string]string{"deploy": mgr, "deploy-fakeapi": fake} {
		recipe := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:.*\n\t(.*)$`).FindStringSubmatch(string(raw))
		if recipe == nil || !strings.Contains(recipe[1], "s#image: "+img+"#") {
			t.Errorf("make %s does not replace the default image %s: %q", target, img, recipe)
		}
	}
}
