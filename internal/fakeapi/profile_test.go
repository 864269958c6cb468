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
	"strings"
	"testing"

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
		{in: "", wantErr: true},
		{in: "S3", wantErr: true},
		{in: "gcs", wantErr: true},
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
