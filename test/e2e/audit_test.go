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

package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/internal/controller"
)

// auditRecord is one record of a manager's audit log
// (internal/controller/audit.go): a write it saw commit.
type auditRecord struct {
	Msg       string    `json:"msg"`
	TS        time.Time `json:"ts"`
	URL       string    `json:"url"`
	Added     []string  `json:"added"`
	Removed   []string  `json:"removed"`
	ETagAfter string    `json:"etagAfter"`
	Replica   string    `json:"replica"`
}

// path is the document's path on the list server.
func (r auditRecord) path() string {
	u, err := url.Parse(r.URL)
	if err != nil {
		return ""
	}
	return u.Path
}

// auditLog reads the audit records of a manager's log file, split by
// process: the harness starts a line with "--- harness: <name> started
// again" before the output of each restart.
func auditLog(path string) ([][]auditRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	procs := [][]auditRecord{nil}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte("--- harness: ")) && bytes.Contains(line, []byte(" started again")) {
			procs = append(procs, nil)
			continue
		}
		if !bytes.Contains(line, []byte(controller.AuditMessage)) {
			continue
		}
		var r auditRecord
		if json.Unmarshal(line, &r) != nil || r.Msg != controller.AuditMessage {
			continue
		}
		procs[len(procs)-1] = append(procs[len(procs)-1], r)
	}
	return procs, sc.Err()
}

// commitTimes maps the env's documents' versions, by path and ETag, to
// when the list server committed them.
func (e *env) commitTimes(ctx context.Context) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	for _, p := range e.paths() {
		h, err := e.fullHistory(ctx, p)
		if err != nil {
			return nil, err
		}
		for _, v := range h {
			out[p+" "+v.ETag] = v.Time
		}
	}
	return out, nil
}

// writesAfter returns the records, of recs, of writes that the list
// server committed after t, described; and how many of recs it found.
func writesAfter(recs []auditRecord, commits map[string]time.Time, t time.Time) (late []string, found int) {
	for _, r := range recs {
		at, ok := commits[r.path()+" "+r.ETagAfter]
		if !ok {
			continue
		}
		found++
		if at.After(t) {
			late = append(late, fmt.Sprintf("%s %s committed %s (added %s, removed %s)", r.path(), r.ETagAfter,
				at.Format(timeFmt), strings.Join(r.Added, ","), strings.Join(r.Removed, ",")))
		}
	}
	return late, found
}
