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

package fakeapi_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

func TestParseProfile(t *testing.T) {
	tests := []struct {
		in      string
		want    fakeapi.Profile
		wantErr bool
	}{
		{in: "strict", want: fakeapi.ProfileStrict},
		{in: "s3", want: fakeapi.ProfileS3},
		{in: "azure-blob", want: fakeapi.ProfileAzureBlob},
		{in: "webdav", want: fakeapi.ProfileWebDAV},
		{in: "quirky", want: fakeapi.ProfileQuirky},
		{in: "gcs", want: fakeapi.ProfileGCS},
		{in: "", wantErr: true},
		{in: "S3", wantErr: true},
		{in: "GCS", wantErr: true},
		{in: "minio", wantErr: true},
		{in: " strict", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := fakeapi.ParseProfile(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseProfile(%q) = %q, want an error", tt.in, got)
				}
				for _, p := range fakeapi.Profiles() {
					if !strings.Contains(err.Error(), string(p)) {
						t.Errorf("error %q does not list %q", err, p)
					}
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseProfile(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestProfiles checks that every listed profile parses, builds a server,
// and survives a JSON round trip.
func TestProfiles(t *testing.T) {
	ps := fakeapi.Profiles()
	if len(ps) == 0 || ps[0] != fakeapi.ProfileStrict {
		t.Fatalf("Profiles() = %v, want strict first", ps)
	}
	ps[0] = "changed"
	if fakeapi.Profiles()[0] != fakeapi.ProfileStrict {
		t.Fatal("Profiles() shares its slice")
	}
	for _, p := range fakeapi.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			if got, err := fakeapi.ParseProfile(string(p)); err != nil || got != p {
				t.Fatalf("ParseProfile(%q) = %q, %v", p, got, err)
			}
			s, err := fakeapi.New(fakeapi.WithProfile(p))
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			if s.Profile() != p {
				t.Errorf("Profile() = %q", s.Profile())
			}
			b, err := json.Marshal(struct{ P fakeapi.Profile }{p})
			if err != nil {
				t.Fatal(err)
			}
			var back struct{ P fakeapi.Profile }
			if err := json.Unmarshal(b, &back); err != nil || back.P != p {
				t.Fatalf("JSON round trip of %s: %q, %v", b, back.P, err)
			}
		})
	}
	var p fakeapi.Profile
	if err := p.UnmarshalText([]byte("nope")); err == nil {
		t.Error("UnmarshalText accepted an unknown name")
	}
	if s, err := fakeapi.New(); err != nil || s.Profile() != fakeapi.ProfileStrict {
		t.Errorf("default profile = %v, %v; want strict", s.Profile(), err)
	}
}

// errorContentType is the Content-Type of each profile's error answers.
var errorContentType = map[fakeapi.Profile]string{
	fakeapi.ProfileStrict:    "text/plain; charset=utf-8",
	fakeapi.ProfileS3:        "application/xml",
	fakeapi.ProfileAzureBlob: "application/xml",
	fakeapi.ProfileWebDAV:    "text/html; charset=iso-8859-1",
	fakeapi.ProfileQuirky:    "text/plain; charset=utf-8",
	fakeapi.ProfileGCS:       "application/xml",
}

// TestEveryProfileKeepsFaultsAndAdmin checks that authentication, every
// fault kind, latency, stats, history and health work the same under
// every profile, with errors in the profile's format. Its writes carry
// both preconditions, If-Match and gcs's generation, each profile reading
// its own.
func TestEveryProfileKeepsFaultsAndAdmin(t *testing.T) {
	const token = "t0ken"
	for _, p := range fakeapi.Profiles() {
		t.Run(string(p), func(t *testing.T) {
			s, ts := start(t, fakeapi.WithProfile(p), fakeapi.WithWeakWindow(0), fakeapi.WithHistory(true), fakeapi.WithToken(token))
			etag := mustSet(t, s, listA, docA)
			gen, _ := s.Generation(listA)
			c := freshClient(t)
			auth := map[string]string{"Authorization": "Bearer " + token, "Accept-Encoding": "identity"}
			put := map[string]string{
				"Authorization": auth["Authorization"], "If-Match": etag, "x-ms-blob-type": "BlockBlob",
				fakeapi.HeaderIfGenerationMatch: strconv.FormatInt(gen, 10),
			}

			if res := mustCall(t, c, "GET", ts.URL+listA, "", nil); res.code != 401 || res.header.Get("Content-Type") != errorContentType[p] {
				t.Errorf("GET without token = %d %q", res.code, res.header.Get("Content-Type"))
			}
			s.SetFaultHook(onceHook("GET", fakeapi.Fault{Kind: fakeapi.FaultServiceUnavailable, RetryAfter: 2 * time.Second}))
			if res := mustCall(t, c, "GET", ts.URL+listA, "", auth); res.code != 503 || res.header.Get("Retry-After") != "2" || res.header.Get("Content-Type") != errorContentType[p] {
				t.Errorf("injected 503 = %d, Retry-After %q, %q", res.code, res.header.Get("Retry-After"), res.header.Get("Content-Type"))
			}
			s.SetFaultHook(onceHook("PUT", fakeapi.Fault{Kind: fakeapi.FaultTooManyRequests}))
			if res := mustCall(t, c, "PUT", ts.URL+listA, docB, put); res.code != 429 || res.header.Get("Retry-After") != "1" {
				t.Errorf("injected 429 = %d, Retry-After %q", res.code, res.header.Get("Retry-After"))
			}
			s.SetFaultHook(onceHook("PUT", fakeapi.Fault{Kind: fakeapi.FaultResetBeforeCommit}))
			if _, err := call(c, "PUT", ts.URL+listA, docB, put); err == nil || !docEquals(s, listA, docA) {
				t.Errorf("reset before commit: error %v, document changed %v", err, !docEquals(s, listA, docA))
			}
			s.SetFaultHook(onceHook("PUT", fakeapi.Fault{Kind: fakeapi.FaultCommitThenDrop}))
			if _, err := call(c, "PUT", ts.URL+listA, docB, put); err == nil || !docEquals(s, listA, docB) {
				t.Errorf("commit then drop: error %v, committed %v", err, docEquals(s, listA, docB))
			}
			s.SetFaultHook(nil)

			const delay = 30 * time.Millisecond
			if err := s.SetLatency(delay, 0); err != nil {
				t.Fatal(err)
			}
			begin := time.Now()
			if res := mustCall(t, c, "GET", ts.URL+listA, "", auth); res.code != 200 || string(res.body) != docB || time.Since(begin) < delay {
				t.Errorf("GET with latency = %d %q after %s", res.code, res.body, time.Since(begin))
			}
			if err := s.SetLatency(0, 0); err != nil {
				t.Fatal(err)
			}

			res := mustCall(t, c, "GET", ts.URL+"/_fakeapi/stats", "", auth)
			var st fakeapi.Stats
			if err := json.Unmarshal(res.body, &st); err != nil || res.code != 200 {
				t.Fatalf("stats = %d %s (%v)", res.code, res.body, err)
			}
			for _, k := range []fakeapi.FaultKind{fakeapi.FaultServiceUnavailable, fakeapi.FaultTooManyRequests, fakeapi.FaultResetBeforeCommit, fakeapi.FaultCommitThenDrop} {
				if st.Faults[k] != 1 {
					t.Errorf("stats faults %v, want one %s", st.Faults, k)
				}
			}
			if st.Commits != 1 || st.Count("GET", 401) != 1 || st.Count("PUT", 0) != 2 || st.Total != 6 {
				t.Errorf("stats %+v", st)
			}
			res = mustCall(t, c, "GET", ts.URL+"/_fakeapi/history?path="+listA, "", auth)
			var hist []fakeapi.Version
			if err := json.Unmarshal(res.body, &hist); err != nil || len(hist) != 2 || string(hist[1].Body) != docB {
				t.Errorf("history = %d %s (%v)", res.code, res.body, err)
			}
			if res := mustCall(t, c, "GET", ts.URL+"/_fakeapi/healthz", "", nil); res.code != 200 {
				t.Errorf("healthz = %d", res.code)
			}
		})
	}
}
