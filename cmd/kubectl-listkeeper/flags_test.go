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
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/listkeeper/listkeeper/internal/membership"
)

func TestParseRef(t *testing.T) {
	tests := []struct {
		arg  string
		bare kind
		want ref
		err  string
	}{
		{arg: "allow-list", bare: kindExternalList, want: ref{Kind: kindExternalList, Namespace: "ns", Name: "allow-list"}},
		{arg: "tenant-a", bare: kindListEntry, want: ref{Kind: kindListEntry, Namespace: "ns", Name: "tenant-a"}},
		{arg: "xl/allow-list", bare: kindListEntry, want: ref{Kind: kindExternalList, Namespace: "ns", Name: "allow-list"}},
		{arg: "ExternalList/allow-list", bare: kindListEntry, want: ref{Kind: kindExternalList, Namespace: "ns", Name: "allow-list"}},
		{arg: "externallists.listkeeper.dev/allow-list", bare: kindListEntry, want: ref{Kind: kindExternalList, Namespace: "ns", Name: "allow-list"}},
		{arg: "cxl/shared", bare: kindExternalList, want: ref{Kind: kindClusterExternalList, Name: "shared"}},
		{arg: "clusterexternallist/shared", bare: kindExternalList, want: ref{Kind: kindClusterExternalList, Name: "shared"}},
		{arg: "le/tenant-a", bare: kindExternalList, want: ref{Kind: kindListEntry, Namespace: "ns", Name: "tenant-a"}},
		{arg: "listentries/tenant-a", bare: kindExternalList, want: ref{Kind: kindListEntry, Namespace: "ns", Name: "tenant-a"}},
		{arg: "pod/x", bare: kindExternalList, err: `unknown kind "pod"`},
		{arg: "xl/", bare: kindExternalList, err: "is not a name"},
		{arg: "xl/a/b", bare: kindExternalList, err: "is not a name"},
		{arg: "", bare: kindExternalList, err: "is not a name"},
	}
	for _, tt := range tests {
		got, err := parseRef(tt.arg, tt.bare, "ns")
		switch {
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("parseRef(%q): %v, want an error with %q", tt.arg, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("parseRef(%q) = %+v, %v; want %+v", tt.arg, got, err, tt.want)
		}
	}
}

func TestParse(t *testing.T) {
	// The defaults of the command's own flags.
	status := func(o options) options {
		if o.owner.Namespace == "" {
			o.owner.Namespace = defaultOperatorNamespace
		}
		if o.owner.Buckets == 0 {
			o.owner.Buckets = membership.DefaultBuckets
		}
		return o
	}
	reconcile := func(o options) options {
		if o.reconcile.Timeout == 0 {
			o.reconcile.Timeout = defaultReconcileTimeout
		}
		return o
	}
	tests := []struct {
		args []string
		cmd  string
		pos  []string
		opts options
		err  string
	}{
		{args: []string{"status", "allow-list"}, cmd: "status", pos: []string{"allow-list"}, opts: status(options{})},
		{args: []string{"status", "allow-list", "-n", "team-a", "-o", "json", "--operator-namespace", "default"}, cmd: "status", pos: []string{"allow-list"},
			opts: status(options{namespace: "team-a", output: "json", owner: ownerQuery{Namespace: "default"}})},
		{args: []string{"--kubeconfig", "/tmp/kc", "--context=demo", "-n", "team-a", "status", "cxl/shared", "--member-group", "lk", "--buckets=64"}, cmd: "status", pos: []string{"cxl/shared"},
			opts: status(options{kubeconfig: "/tmp/kc", context: "demo", namespace: "team-a", owner: ownerQuery{Group: "lk", Buckets: 64}})},
		{args: []string{"reconcile", "--namespace=team-a", "le/tenant-a", "--timeout", "5s"}, cmd: "reconcile", pos: []string{"le/tenant-a"},
			opts: reconcile(options{namespace: "team-a", reconcile: reconcileOptions{Timeout: 5 * time.Second}})},
		{args: []string{"why", "tenant-a"}, cmd: "why", pos: []string{"tenant-a"}},
		{args: []string{"version"}, cmd: "version"},
		{args: nil, err: "no command"},
		{args: []string{"-n", "x"}, err: "no command"},
		{args: []string{"frobnicate", "x"}, err: `unknown command "frobnicate"`},
		{args: []string{"status"}, err: "status takes one argument, LIST; got 0"},
		{args: []string{"why", "a", "b"}, err: "why takes one argument, ENTRY|LIST; got 2"},
		{args: []string{"version", "x"}, err: "version takes no arguments"},
		{args: []string{"status", "le/tenant-a"}, err: "status takes LIST, not a ListEntry"},
		{args: []string{"status", "pod/x"}, err: `unknown kind "pod"`},
		{args: []string{"status", "x", "-o", "yaml"}, err: `-o "yaml": the output is human-readable, or json`},
		{args: []string{"status", "x", "--buckets", "0"}, err: "--buckets 0: must be positive"},
		{args: []string{"reconcile", "x", "--timeout", "0s"}, err: "--timeout 0s: must be positive"},
		{args: []string{"why", "x", "--timeout", "1s"}, err: "flag provided but not defined: -timeout"},
		{args: []string{"version", "-n", "x"}, err: "flag provided but not defined: -n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			inv, err := parse(tt.args, io.Discard)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("parse: %v, want an error with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inv.cmd.name != tt.cmd || !slices.Equal(inv.args, tt.pos) || *inv.opts != tt.opts {
				t.Errorf("parse = %s %q %+v, want %s %q %+v", inv.cmd.name, inv.args, *inv.opts, tt.cmd, tt.pos, tt.opts)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"status", "-h"}, {"reconcile", "--help"}, {"why", "-h"}, {"version", "-h"}} {
		var out strings.Builder
		if _, err := parse(args, &out); !errors.Is(err, flag.ErrHelp) {
			t.Errorf("%q: %v, want flag.ErrHelp", args, err)
		}
		if !strings.Contains(out.String(), "kubectl listkeeper") {
			t.Errorf("%q wrote no usage:\n%s", args, &out)
		}
	}
	var out strings.Builder
	_, _ = parse([]string{"status", "-h"}, &out)
	for _, want := range []string{"-n, --namespace namespace", "-o, --output string", "--operator-namespace namespace", "(default listkeeper-system)", "--kubeconfig file", "--context context"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("status -h does not show %q:\n%s", want, &out)
		}
	}
}
