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

// Command monitoring writes the alert rules, the ServiceMonitor and the
// Grafana dashboard that internal/monitoring defines (make monitoring):
// config/prometheus, config/grafana and charts/listkeeper/files. Run it from
// the repository root; -root names another.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/listkeeper/listkeeper/internal/monitoring"
)

func main() {
	root := flag.String("root", ".", "repository root to write into")
	var o monitoring.Options
	flag.DurationVar(&o.ListStaleAfter, "list-stale-after", monitoring.DefaultListStaleAfter,
		"age of a list's last resync at which ListkeeperListStale fires (at least three times the longest spec.resyncInterval)")
	flag.Parse()
	if err := write(*root, o); err != nil {
		fmt.Fprintln(os.Stderr, "monitoring:", err)
		os.Exit(1)
	}
}

func write(root string, o monitoring.Options) error {
	files, err := monitoring.Files(o)
	if err != nil {
		return err
	}
	for path, body := range files {
		full := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", filepath.Dir(full), err)
		}
		if err := os.WriteFile(full, body, 0o644); err != nil { //nolint:gosec // generated config files are world-readable like the rest of the repository
			return fmt.Errorf("write %s: %w", full, err)
		}
	}
	return nil
}
