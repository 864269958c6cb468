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

package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Output file names, written next to each other.
const (
	MarkdownFile = "results.md"
	JSONFile     = "results.json"
	SVGFile      = "requests_per_change.svg"
)

// WriteFiles writes the markdown report, the raw JSON and the SVG chart into
// dir/<timestamp>/ and copies them into dir/latest/. It returns the
// timestamped directory.
func WriteFiles(dir string, res *Results) (string, error) {
	files, err := render(res)
	if err != nil {
		return "", err
	}
	stamped := filepath.Join(dir, res.Started.Format("20060102-150405"))
	for _, d := range []string{stamped, filepath.Join(dir, "latest")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(d, name), data, 0o644); err != nil {
				return "", fmt.Errorf("write %s: %w", name, err)
			}
		}
	}
	return stamped, nil
}

func render(res *Results) (map[string][]byte, error) {
	var md, svg bytes.Buffer
	if err := WriteMarkdown(&md, res); err != nil {
		return nil, err
	}
	if err := WriteSVG(&svg, res); err != nil {
		return nil, err
	}
	js, err := json.MarshalIndent(struct {
		*Results
		PolicySummary []PolicySummary `json:"policySummary,omitempty"`
	}{res, SummarizeSweep(res)}, "", "  ")
	if err != nil {
		return nil, err
	}
	return map[string][]byte{MarkdownFile: md.Bytes(), JSONFile: append(js, '\n'), SVGFile: svg.Bytes()}, nil
}
