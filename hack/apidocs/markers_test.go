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
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseMarker(t *testing.T) {
	tests := []struct {
		text string
		want marker
	}{
		{"+optional", marker{name: "optional"}},
		{"+listType=map", marker{name: "listType", value: "map"}},
		{`+kubebuilder:default=""`, marker{name: "kubebuilder:default", value: `""`}},
		{"+kubebuilder:validation:Enum=Additive;Exclusive", marker{name: "kubebuilder:validation:Enum", value: "Additive;Exclusive"}},
		{"+kubebuilder:subresource:status", marker{name: "kubebuilder:subresource:status"}},
		{
			`+kubebuilder:validation:XValidation:rule="self.a == \"x,y\" || self.b",message="a must be \"x,y\", or b set"`,
			marker{name: "kubebuilder:validation:XValidation", args: map[string]string{
				"rule": `self.a == "x,y" || self.b`, "message": `a must be "x,y", or b set`,
			}},
		},
		{
			`+kubebuilder:validation:XValidation:rule="!self.matches(r'[\\x00-\\x1f]')",message="printable"`,
			marker{name: "kubebuilder:validation:XValidation", args: map[string]string{
				"rule": `!self.matches(r'[\x00-\x1f]')`, "message": "printable",
			}},
		},
		{
			"+kubebuilder:printcolumn:name=\"Ready\",type=string,JSONPath=`.status.conditions[?(@.type==\"Ready\")].status`,priority=1",
			marker{name: "kubebuilder:printcolumn", args: map[string]string{
				"name": "Ready", "type": "string", "JSONPath": `.status.conditions[?(@.type=="Ready")].status`, "priority": "1",
			}},
		},
		{
			"+kubebuilder:resource:scope=Cluster,shortName={a,b},categories=c",
			marker{name: "kubebuilder:resource", args: map[string]string{"scope": "Cluster", "shortName": "{a,b}", "categories": "c"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			got, err := parseMarker(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(marker{})); diff != "" {
				t.Errorf("parseMarker (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMarkerErrors(t *testing.T) {
	for _, text := range []string{
		`+kubebuilder:validation:XValidation:rule="unterminated`,
		"+kubebuilder:printcolumn:JSONPath=`unterminated",
		"+kubebuilder:resource:scope",
		`+kubebuilder:validation:XValidation:rule="a"message="b"`,
	} {
		if m, err := parseMarker(text); err == nil {
			t.Errorf("parseMarker(%q) = %+v, want an error", text, m)
		}
	}
}

func TestLiteral(t *testing.T) {
	for raw, want := range map[string]any{
		`""`: "", `"10m"`: "10m", "Additive": "Additive", "false": false, "true": true, "3": int64(3), "{}": "{}",
	} {
		if got := literal(raw); !reflect.DeepEqual(got, want) {
			t.Errorf("literal(%s) = %#v, want %#v", raw, got, want)
		}
	}
}

func TestList(t *testing.T) {
	for s, want := range map[string][]string{"": nil, "xl": {"xl"}, "a;b": {"a", "b"}, "{a,b}": {"a", "b"}} {
		if got := list(s); !reflect.DeepEqual(got, want) {
			t.Errorf("list(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestText(t *testing.T) {
	for in, want := range map[string]string{
		"plain words":             "plain words",
		"Bearer <token>":          "Bearer &lt;token&gt;",
		"If-None-Match: *":        `If-None-Match: \*`,
		"AWS_ACCESS_KEY_ID":       "AWS_ACCESS_KEY_ID",
		"_lead and trail_":        `\_lead and trail\_`,
		"a [link](x) and `code`":  "a \\[link\\](x) and \\`code\\`",
		`back\slash`:              `back\\slash`,
		"a | pipe stays for rows": "a | pipe stays for rows",
	} {
		if got := text(in); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"x":          "`x`",
		"a`b":        "``a`b``",
		"`edge":      "`` `edge ``",
		`'a' || "b"`: "`'a' || \"b\"`",
	} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"ExternalListSpec":         "externallistspec",
		"Condition (Kubernetes)":   "condition-kubernetes",
		"`listkeeper.dev/cleanup`": "listkeeperdevcleanup",
	} {
		if got := anchor(in); got != want {
			t.Errorf("anchor(%q) = %q, want %q", in, got, want)
		}
	}
}
