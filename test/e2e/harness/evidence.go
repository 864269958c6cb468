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

package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Evidence is what to save after a failure. Every field is optional.
type Evidence struct {
	// Cluster's ExternalLists, ListEntries, Leases and events are saved
	// with kubectl, and its logs copied.
	Cluster *Cluster
	// Lists are the list servers; for each one and each of Paths the
	// document and its history are saved, and its stats once.
	Lists []*ListServer
	Paths []string
	// Managers' metrics are saved.
	Managers []*Manager
	// Logs are copied, e.g. Supervisor.Logs().
	Logs []string
}

// Save writes the evidence into dir, which it creates. It goes on past
// errors and returns the first. With one list server and one path the
// files are list.json, history.json and stats.json; otherwise their names
// start with the server's name and the path.
func (e Evidence) Save(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var errs []error
	for _, p := range append(e.Cluster.LogPaths(), e.Logs...) {
		errs = append(errs, CopyFile(p, filepath.Join(dir, filepath.Base(p))))
	}
	if e.Cluster != nil && e.Cluster.Client != nil {
		errs = append(errs,
			e.saveKubectl(ctx, dir, "resources.yaml", "get", "externallists,listentries,leases", "-A", "-o", "yaml"),
			e.saveKubectl(ctx, dir, "events.txt", "get", "events", "-A", "--sort-by=.metadata.creationTimestamp"))
	}
	single := len(e.Lists) == 1 && len(e.Paths) == 1
	for _, s := range e.Lists {
		prefix := ""
		if !single {
			prefix = s.opts.Name + "-"
		}
		errs = append(errs, SaveURL(ctx, s.URL(adminStats), s.AuthHeader(), filepath.Join(dir, prefix+"stats.json")))
		for _, path := range e.Paths {
			if !single {
				prefix = s.opts.Name + "-" + fileSafe(path) + "-"
			}
			errs = append(errs,
				SaveURL(ctx, s.URL(path), s.AuthHeader(), filepath.Join(dir, prefix+"list.json")),
				SaveURL(ctx, s.URL(adminHistory+path), s.AuthHeader(), filepath.Join(dir, prefix+"history.json")))
		}
	}
	for _, m := range e.Managers {
		errs = append(errs, SaveURL(ctx, m.MetricsURL(), nil, filepath.Join(dir, "metrics-"+m.Name()+".txt")))
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (e Evidence) saveKubectl(ctx context.Context, dir, name string, args ...string) error {
	out, err := e.Cluster.Kubectl(ctx, nil, args...)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(out), 0o644)
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// fileSafe turns a URL path into a file name part.
func fileSafe(path string) string {
	return strings.Trim(unsafeChars.ReplaceAllString(path, "_"), "_")
}

// CopyFile copies the file from to the file to.
func CopyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// panicMarkers are what a Go process or controller-runtime writes when
// something panics, and what the race detector writes.
var panicMarkers = []string{"panic:", "Observed a panic", "fatal error:", "WARNING: DATA RACE"}

// FindPanics scans the log files for panics, fatal runtime errors and data
// races, and returns the matching lines as "file:line: text", at most limit
// of them (limit <= 0: all).
func FindPanics(paths []string, limit int) ([]string, error) {
	var out []string
	var errs []error
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range panicMarkers {
				if strings.Contains(line, m) {
					out = append(out, fmt.Sprintf("%s:%d: %s", filepath.Base(p), i+1, strings.TrimSpace(line)))
					break
				}
			}
			if limit > 0 && len(out) >= limit {
				return out, errors.Join(errs...)
			}
		}
	}
	return out, errors.Join(errs...)
}
