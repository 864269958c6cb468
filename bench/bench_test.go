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
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// smokeConfig is a tiny run of every strategy at R=1 and R=2, with the
// sweep, the physical limit and the micro-measurement, small enough for the
// race detector.
func smokeConfig() Config {
	c := QuickConfig()
	c.Concurrency = []int{1, 4}
	c.N = 24
	c.ListSizes = []int{40}
	c.PolicyListSizes = []int{40}
	c.Policies = []string{"default", "default+yield"}
	c.MicroListSize, c.MicroChanges, c.MicroReps = 1_000, 10, 1
	return c
}

func TestStrategiesSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := smokeConfig()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("failures: %q", res.Failures)
	}
	if want := len(cfg.Strategies) * len(cfg.Replicas) * len(cfg.Concurrency); len(res.Runs) != want {
		t.Fatalf("%d runs, want %d", len(res.Runs), want)
	}
	if want := len(cfg.Policies) * len(cfg.Concurrency); len(res.Sweep) != want {
		t.Errorf("%d sweep runs, want %d", len(res.Sweep), want)
	}
	for _, r := range append(res.Runs, res.Sweep...) {
		name := r.Name() + " " + r.Point.String()
		if r.TimedOut {
			t.Errorf("%s: timed out", name)
			continue
		}
		if !r.CountsMatch {
			t.Errorf("%s: server counted %+v, clients %+v, product %+v", name, r.Server, r.Client, r.Product)
		}
		if r.Succeeded+r.GivenUp != r.N {
			t.Errorf("%s: %d succeeded + %d given up, want %d", name, r.Succeeded, r.GivenUp, r.N)
		}
		if r.BystandersMissing != 0 {
			t.Errorf("%s: %d bystanders missing", name, r.BystandersMissing)
		}
		if r.Lost > r.TargetsLeft {
			t.Errorf("%s: lost %d > targets left %d", name, r.Lost, r.TargetsLeft)
		}
		mustBeExact := r.Strategy == StrategyListkeeper || r.Strategy == StrategyOCCJitter ||
			(r.Strategy == StrategyMutex && r.Replicas == 1)
		if mustBeExact && (r.Lost != 0 || r.GivenUp != 0 || r.TargetsLeft != 0) {
			t.Errorf("%s: lost %d, gave up %d, %d targets left; want 0", name, r.Lost, r.GivenUp, r.TargetsLeft)
		}
		if r.Strategy == StrategyOCCDefault && r.Lost != 0 {
			t.Errorf("%s: conditional writes lost %d updates", name, r.Lost)
		}
		if r.Strategy == StrategyListkeeper && (r.Product == nil || r.Product.Requests != r.Server.Requests) {
			t.Errorf("%s: product counters %+v, server %+v", name, r.Product, r.Server)
		}
	}
	if len(res.Physical) != 1 || res.Physical[0].Writes == 0 {
		t.Errorf("physical limit: %+v", res.Physical)
	}
	if res.Micro == nil || !res.Micro.OneWrite || res.Micro.ServerHandleMs <= 0 {
		t.Errorf("micro: %+v", res.Micro)
	}

	dir := t.TempDir()
	stamped, err := WriteFiles(dir, res)
	if err != nil {
		t.Fatalf("WriteFiles: %v", err)
	}
	for _, d := range []string{stamped, filepath.Join(dir, "latest")} {
		checkFiles(t, d)
	}
}

// checkFiles checks that the report files exist and parse.
func checkFiles(t *testing.T, dir string) {
	t.Helper()
	md, err := os.ReadFile(filepath.Join(dir, MarkdownFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range AllStrategies {
		if !bytes.Contains(md, []byte("| "+s+" |")) {
			t.Errorf("%s: no row for %s", MarkdownFile, s)
		}
	}
	js, err := os.ReadFile(filepath.Join(dir, JSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var back Results
	if err := json.Unmarshal(js, &back); err != nil || len(back.Runs) == 0 {
		t.Errorf("%s: %v, %d runs", JSONFile, err, len(back.Runs))
	}
	svg, err := os.ReadFile(filepath.Join(dir, SVGFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(svg, []byte("<svg")) || bytes.Count(svg, []byte("<polyline")) == 0 {
		t.Errorf("%s: not a chart with lines", SVGFile)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("%s: not well-formed XML: %v", SVGFile, err)
			}
			break
		}
	}
}

func TestParseVariant(t *testing.T) {
	tests := []struct {
		spec    string
		want    string
		wantErr bool
	}{
		{"default", "default", false},
		{"", "default", false},
		{"default+yield", "default+yield", false},
		{"10ms/500ms/0.5", "10ms/500ms/0.5", false},
		{"2ms/20ms/1+yield", "2ms/20ms/1+yield", false},
		{"10ms/5ms/0.5", "", true},
		{"10ms/500ms", "", true},
		{"10ms/500ms/2", "", true},
		{"default+pace", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			st, err := parseVariant(tt.spec)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseVariant(%q) error = %v, wantErr %v", tt.spec, err, tt.wantErr)
			}
			if err == nil && st.variant() != tt.want {
				t.Errorf("variant = %q, want %q", st.variant(), tt.want)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	got := summarize(ds)
	if got.Count != 100 || got.P50 != 50 || got.P99 != 99 || got.Max != 100 {
		t.Errorf("summarize = %+v, want count 100, p50 50, p99 99, max 100", got)
	}
	if got := summarize(nil); got != (Summary{}) {
		t.Errorf("summarize(nil) = %+v", got)
	}
}

// headline is the point of the headline comparison.
var headline = Point{Replicas: 3, Concurrency: 16, N: 1000, ListSize: 1_100, Latency: 2 * time.Millisecond}

// BenchmarkHeadline compares per-change optimistic read-modify-write with
// jittered backoff against listkeeper at R=3, C=16, N=1000, 2 ms, 1,100
// IDs. One iteration is one whole run of the workload.
func BenchmarkHeadline(b *testing.B) {
	def, _ := ParsePolicy("default")
	for _, name := range []string{StrategyOCCJitter, StrategyListkeeper} {
		b.Run(name, func(b *testing.B) {
			st, err := newStrategy(name, def)
			if err != nil {
				b.Fatal(err)
			}
			var n, req, p99, s412, lost, wall float64
			for b.Loop() {
				r, err := runPoint(context.Background(), st, headline, DefaultTimeCap)
				if err != nil {
					b.Fatal(err)
				}
				if r.TimedOut {
					b.Fatalf("%s timed out", strings.TrimSpace(r.Name()))
				}
				n++
				req += r.ReqPerChange
				p99 += r.Latency.P99
				s412 += float64(r.Server.Status412)
				lost += float64(r.Lost)
				wall += r.WallSec
			}
			b.ReportMetric(req/n, "req/change")
			b.ReportMetric(p99/n, "p99-ms")
			b.ReportMetric(s412/n, "412s")
			b.ReportMetric(lost/n, "lost")
			b.ReportMetric(wall/n, "wall-s")
		})
	}
}
