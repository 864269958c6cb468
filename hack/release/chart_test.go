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
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	release "helm.sh/helm/v4/pkg/release/v1"
	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// TestChart loads the packaged chart with the Helm SDK: its version and
// appVersion are the release's, its image repository the manager's, and
// rendered with its defaults it runs the release's image.
func TestChart(t *testing.T) {
	requireRelease(t)
	if want := filepath.Join(opts.Out, "listkeeper-"+testChartVersion+".tgz"); built.Chart != want {
		t.Errorf("chart at %s, want %s", built.Chart, want)
	}
	ch, err := loader.Load(built.Chart)
	if err != nil {
		t.Fatalf("load %s: %v", built.Chart, err)
	}
	if ch.Metadata.Version != testChartVersion || ch.Metadata.AppVersion != testVersion {
		t.Errorf("version %q appVersion %q, want %q and %q", ch.Metadata.Version, ch.Metadata.AppVersion, testChartVersion, testVersion)
	}
	src, err := loader.LoadDir(filepath.Join(root, chartDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Templates) != len(src.Templates) || len(ch.Files) != len(src.Files) || string(ch.Schema) != string(src.Schema) {
		t.Errorf("the package has %d templates and %d files, the chart %d and %d", len(ch.Templates), len(ch.Files), len(src.Templates), len(src.Files))
	}
	image, _ := ch.Values["image"].(map[string]any)
	repo, _, _ := splitRef(built.Images[0].Ref)
	if image["repository"] != repo || image["tag"] != "" {
		t.Errorf("values image %v, want repository %s and no tag (appVersion)", image, repo)
	}

	cfg := action.NewConfiguration(action.ConfigurationSetLogger(slog.NewTextHandler(io.Discard, nil)))
	in := action.NewInstall(cfg)
	in.DryRunStrategy = action.DryRunClient
	in.ReleaseName, in.Namespace, in.Replace = "listkeeper", "listkeeper-system", true
	if in.KubeVersion, err = common.ParseKubeVersion("v1.37.2"); err != nil {
		t.Fatal(err)
	}
	rel, err := in.Run(ch, map[string]any{})
	if err != nil {
		t.Fatalf("render the packaged chart: %v", err)
	}
	r, ok := rel.(*release.Release)
	if !ok {
		t.Fatalf("helm returned a %T", rel)
	}
	var images []string
	for _, doc := range strings.Split(r.Manifest, "\n---") {
		var d appsv1.Deployment
		if err := yaml.Unmarshal([]byte(doc), &d); err != nil || d.Kind != "Deployment" {
			continue
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			images = append(images, c.Image)
		}
	}
	if want := repo + ":" + testVersion; len(images) != 1 || images[0] != want {
		t.Errorf("the chart's Deployment runs %q, want [%s]", images, want)
	}
}

func TestSetImageRepository(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"first key", "image:\n  repository: a\n  tag: \"\"\n", "image:\n  repository: ghcr.io/x/y\n  tag: \"\"\n"},
		{"after comments", "# c\nimage:\n  # The image.\n  repository: a # trailing\n\n  tag: \"\"\nother:\n  repository: keep\n",
			"# c\nimage:\n  # The image.\n  repository: ghcr.io/x/y # trailing\n\n  tag: \"\"\nother:\n  repository: keep\n"},
		{"not in another block", "other:\n  repository: keep\nimage:\n  tag: x\n  repository: a\n",
			"other:\n  repository: keep\nimage:\n  tag: x\n  repository: ghcr.io/x/y\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setImageRepository([]byte(tc.in), "ghcr.io/x/y")
			if err != nil || string(got) != tc.want {
				t.Errorf("got %q, %v, want %q", got, err, tc.want)
			}
		})
	}
	for _, in := range []string{"other:\n  repository: keep\n", "image:\n  tag: x\nother:\n  repository: keep\n"} {
		if got, err := setImageRepository([]byte(in), "ghcr.io/x/y"); err == nil {
			t.Errorf("setImageRepository(%q) = %q, want an error", in, got)
		}
	}
}
