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
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
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
	ev := harness.Evidence{Cluster: d.cluster, Managers: d.replicas, Logs: d.sup.Logs()}
	var storeErr error
	if d.store != nil {
		storeErr = d.store.evidence(ctx, &ev, dir)
	}
	if err := errors.Join(ev.Save(ctx, dir), storeErr); err != nil {
		if _, statErr := os.Stat(dir); statErr != nil {
			return "", err
		}
		return dir, err
	}
	return dir, nil
}
