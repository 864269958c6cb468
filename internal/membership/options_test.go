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

package membership

import (
	"strings"
	"testing"
	"time"
)

// TestOptionsWithDefaults checks the defaults of Options and the options
// that cannot work.
func TestOptionsWithDefaults(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		wantErr string // "" when the options work
		check   func(t *testing.T, o Options)
	}{
		{name: "defaults", opts: Options{Namespace: "ns"}, check: func(t *testing.T, o Options) {
			if o.Group != DefaultGroup || o.LeaseDuration != DefaultLeaseDuration || o.RenewPeriod != DefaultRenewPeriod ||
				o.Buckets != DefaultBuckets || o.ShutdownTimeout != DefaultShutdownTimeout || o.LateWriteBound != DefaultLateWriteBound {
				t.Errorf("defaults: %+v", o)
			}
			if o.Identity == "" || o.Clock == nil {
				t.Errorf("identity or clock not defaulted: %+v", o)
			}
		}},
		{name: "a group that is a label value", opts: Options{Namespace: "ns", Group: "list-keeper.prod_2"}, check: func(t *testing.T, o Options) {
			if o.Group != "list-keeper.prod_2" {
				t.Errorf("group %q", o.Group)
			}
		}},
		{name: "no namespace", opts: Options{}, wantErr: "namespace"},
		{name: "a group with a slash", opts: Options{Namespace: "ns", Group: "team/listkeeper"}, wantErr: "not a label value"},
		{name: "a group too long", opts: Options{Namespace: "ns", Group: strings.Repeat("g", 64)}, wantErr: "not a label value"},
		{name: "a renew period too long", opts: Options{Namespace: "ns", LeaseDuration: 3 * time.Second, RenewPeriod: 1001 * time.Millisecond}, wantErr: "renew period"},
		{name: "a negative late write bound", opts: Options{Namespace: "ns", LateWriteBound: -time.Second}, wantErr: "late write bound"},
		{name: "too many buckets", opts: Options{Namespace: "ns", Buckets: 1<<16 + 1}, wantErr: "buckets"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := tc.opts.withDefaults()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one about %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, o)
		})
	}
}
