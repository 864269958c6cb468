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
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// evidenceTimeout bounds the collection of evidence after a failure.
const evidenceTimeout = 30 * time.Second

// fail reports err, saves the evidence to .demo/<time>/ and prints where.
func (d *demo) fail(ctx context.Context, err error) {
	d.ui.printf("\nFAIL: %v\n", err)
	dir, saveErr := d.saveEvidence(context.WithoutCancel(ctx))
	if saveErr != nil {
		d.ui.printf("could not save all evidence: %v\n", saveErr)
	}
	if dir == "" {
		d.ui.printf("logs (removed on exit unless --keep):\n%s\n", indent(strings.Join(d.logPaths(), "\n")))
		return
	}
	var paths []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	d.ui.printf("logs and evidence saved to %s:\n%s\n", dir, indent(strings.Join(paths, "\n")))
}

// saveEvidence copies every log to a new directory under .demo, and adds
// what the cluster, the list server and the replicas say now. It returns
// the directory and the first error; it goes on past errors.
func (d *demo) saveEvidence(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, evidenceTimeout)
	defer cancel()
	dir, err := filepath.Abs(filepath.Join(evidenceIn, d.start.Format("20060102-150405")))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var first error
	keep := func(err error) {
		if first == nil {
			first = err
		}
	}
	for _, p := range d.logPaths() {
		keep(copyFile(p, filepath.Join(dir, filepath.Base(p))))
	}
	if d.cluster != nil && d.cluster.client != nil {
		keep(d.saveKubectl(ctx, dir, "resources.yaml", "get", "externallists,listentries", "-A", "-o", "yaml"))
		keep(d.saveKubectl(ctx, dir, "events.txt", "get", "events", "-A", "--sort-by=.metadata.creationTimestamp"))
	}
	if d.lists != nil {
		keep(d.saveList(ctx, dir))
	}
	for _, r := range d.replicas {
		keep(saveURL(ctx, r.metricsURL, nil, filepath.Join(dir, "metrics-"+r.name()+".txt")))
	}
	return dir, first
}

func (d *demo) saveKubectl(ctx context.Context, dir, name string, args ...string) error {
	out, err := d.cluster.kubectl(ctx, nil, args...)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(out), 0o644)
}

// saveList saves the list document, its history and the server's stats.
func (d *demo) saveList(ctx context.Context, dir string) error {
	auth := http.Header{"Authorization": {"Bearer " + d.lists.token}}
	var first error
	for name, path := range map[string]string{
		"list.json":    listPath,
		"history.json": fakeapi.AdminPrefix + "history?path=" + listPath,
		"stats.json":   fakeapi.AdminPrefix + "stats",
	} {
		if err := saveURL(ctx, d.lists.base+path, auth, filepath.Join(dir, name)); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// saveURL saves the body of a GET of url to path.
func saveURL(ctx context.Context, url string, header http.Header, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if header != nil {
		req.Header = header
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
