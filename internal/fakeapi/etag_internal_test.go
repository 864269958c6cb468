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

package fakeapi

import (
	"slices"
	"testing"
	"time"
)

func TestParseETagList(t *testing.T) {
	tests := []struct {
		name    string
		values  []string
		want    etagList
		wantErr bool
	}{
		{name: "absent", values: nil, want: etagList{}},
		{name: "star", values: []string{" * "}, want: etagList{present: true, any: true}},
		{name: "one strong", values: []string{`"v1-a"`}, want: etagList{present: true, tags: []entityTag{{opaque: "v1-a"}}}},
		{name: "one weak", values: []string{`W/"v1-a"`}, want: etagList{present: true, tags: []entityTag{{weak: true, opaque: "v1-a"}}}},
		{name: "list", values: []string{`"a", W/"b" ,"c"`}, want: etagList{present: true, tags: []entityTag{{opaque: "a"}, {weak: true, opaque: "b"}, {opaque: "c"}}}},
		{name: "several lines", values: []string{`"a"`, `"b"`}, want: etagList{present: true, tags: []entityTag{{opaque: "a"}, {opaque: "b"}}}},
		{name: "empty opaque", values: []string{`""`}, want: etagList{present: true, tags: []entityTag{{opaque: ""}}}},
		{name: "empty", values: []string{""}, want: etagList{present: true}},
		{name: "only empty elements", values: []string{" , ,", ""}, want: etagList{present: true}},
		{name: "unquoted", values: []string{"v1-a"}, wantErr: true},
		{name: "unterminated", values: []string{`"v1-a`}, wantErr: true},
		{name: "lowercase weak", values: []string{`w/"a"`}, wantErr: true},
		{name: "space inside", values: []string{`"a b"`}, wantErr: true},
		{name: "junk after tag", values: []string{`"a"x`}, wantErr: true},
		{name: "star in list", values: []string{`"a", *`}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseETagList(tt.values)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got.present != tt.want.present || got.any != tt.want.any || !slices.Equal(got.tags, tt.want.tags) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestETagComparison(t *testing.T) {
	l := etagList{present: true, tags: []entityTag{{opaque: "s"}, {weak: true, opaque: "w"}}}
	tests := []struct {
		name                 string
		list                 etagList
		exists               bool
		current              string
		currentWeak          bool
		wantStrong, wantWeak bool
	}{
		{"strong tag matches", l, true, "s", false, true, true},
		{"weak tag only weakly", l, true, "w", false, false, true},
		{"weak current never strongly", l, true, "s", true, false, true},
		{"other tag", l, true, "x", false, false, false},
		{"no document", l, false, "s", false, false, false},
		{"star on document", etagList{present: true, any: true}, true, "x", true, true, true},
		{"star on nothing", etagList{present: true, any: true}, false, "", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.list.matchStrong(tt.exists, tt.current, tt.currentWeak); got != tt.wantStrong {
				t.Errorf("matchStrong = %v, want %v", got, tt.wantStrong)
			}
			if got := tt.list.matchWeak(tt.exists, tt.current); got != tt.wantWeak {
				t.Errorf("matchWeak = %v, want %v", got, tt.wantWeak)
			}
		})
	}
}

func TestFaultsPick(t *testing.T) {
	f := Faults{Rate503: 0.1, Rate429: 0.1, RateResetBeforeCommit: 0.1, RateCommitThenDrop: 0.1, RateHoldWrites: 0.1}
	tests := []struct {
		u     float64
		write bool
		want  FaultKind
	}{
		{0.05, false, FaultServiceUnavailable},
		{0.15, true, FaultTooManyRequests},
		{0.25, false, FaultResetBeforeCommit},
		{0.35, true, FaultCommitThenDrop},
		{0.35, false, FaultNone},
		{0.45, true, FaultHoldWrite},
		{0.45, false, FaultNone},
		{0.55, true, FaultNone},
	}
	for _, tt := range tests {
		if got := f.pick(tt.u, tt.write); got != tt.want {
			t.Errorf("pick(%v, write %v) = %q, want %q", tt.u, tt.write, got, tt.want)
		}
	}
	if got := (Faults{}).pick(0, true); got != FaultNone {
		t.Errorf("zero Faults picked %q", got)
	}
}

func TestRetryAfterValue(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0", time.Second: "1", 1500 * time.Millisecond: "2", time.Millisecond: "1", time.Minute: "60",
	} {
		if got := retryAfterValue(d); got != want {
			t.Errorf("retryAfterValue(%s) = %q, want %q", d, got, want)
		}
	}
}
