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
	"path/filepath"
	"regexp"

	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"sigs.k8s.io/yaml"
)

// chartDir is the chart, relative to the repository root.
const chartDir = "charts/listkeeper"

// packageChart packages the chart for the release o.Version into outDir
// as helm package would, with the Helm SDK: version o.Version without its
// "v", appVersion o.Version (so the image tag defaults to the release's),
// image.repository the manager's, every file time o.Created. It returns
// the archive's path.
func packageChart(o Options, managerRepository, outDir string) (string, error) {
	version, err := ChartVersion(o.Version)
	if err != nil {
		return "", err
	}
	ch, err := loader.LoadDir(filepath.Join(o.Root, chartDir))
	if err != nil {
		return "", fmt.Errorf("load %s: %w", chartDir, err)
	}
	ch.Metadata.Version = version
	ch.Metadata.AppVersion = o.Version
	if err := setChartImageRepository(ch, managerRepository); err != nil {
		return "", err
	}
	ch.StampModTimes(o.Created)
	path, err := chartutil.Save(ch, outDir)
	if err != nil {
		return "", fmt.Errorf("package %s: %w", chartDir, err)
	}
	return path, nil
}

// setChartImageRepository sets image.repository in the chart's values.yaml,
// the file helm package writes.
func setChartImageRepository(ch *chartv2.Chart, repository string) error {
	for _, f := range ch.Raw {
		if f.Name != chartutil.ValuesfileName {
			continue
		}
		data, err := setImageRepository(f.Data, repository)
		if err != nil {
			return fmt.Errorf("%s/%s: %w", chartDir, f.Name, err)
		}
		f.Data = data
		return nil
	}
	return fmt.Errorf("%s has no %s", chartDir, chartutil.ValuesfileName)
}

// imageRepositoryLine is the repository line of the top-level image block
// of a values.yaml: "image:" at the start of a line, then indented lines,
// one of them "repository: VALUE".
var imageRepositoryLine = regexp.MustCompile(`(?m)^(image:\n(?:[ \t]+.*\n|[ \t]*\n)*?[ \t]+repository:[ \t]*)(\S+)`)

// setImageRepository rewrites image.repository in values.yaml text,
// keeping its comments, and checks the result by parsing it.
func setImageRepository(values []byte, repository string) ([]byte, error) {
	loc := imageRepositoryLine.FindSubmatchIndex(values)
	if loc == nil {
		return nil, fmt.Errorf("no image.repository line")
	}
	var out bytes.Buffer
	out.Write(values[:loc[4]])
	out.WriteString(repository)
	out.Write(values[loc[5]:])
	var parsed struct {
		Image struct {
			Repository string `json:"repository"`
		} `json:"image"`
	}
	if err := yaml.Unmarshal(out.Bytes(), &parsed); err != nil {
		return nil, err
	}
	if parsed.Image.Repository != repository {
		return nil, fmt.Errorf("image.repository is %q after setting it to %q", parsed.Image.Repository, repository)
	}
	return out.Bytes(), nil
}
