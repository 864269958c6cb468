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
	"fmt"
	"strconv"
	"strings"
)

// marker is one kubebuilder marker comment, such as
// "+kubebuilder:validation:MaxLength=253" or
// "+kubebuilder:printcolumn:name=Ready,type=string,JSONPath=`...`".
type marker struct {
	// name is the marker without its leading "+" and without its value or
	// arguments: "kubebuilder:validation:MaxLength", "optional".
	name string
	// value is the raw text after "=" of a marker that takes one value,
	// quotes and all ("" when there is none): `"10m"`, `Additive`, `false`.
	value string
	// args are the arguments of a marker that takes named arguments
	// (argMarkers), unquoted.
	args map[string]string
}

// argMarkers are the markers that take named arguments, "k=v,k=v"; every
// other marker takes at most one value.
var argMarkers = []string{
	"kubebuilder:validation:XValidation",
	"kubebuilder:printcolumn",
	"kubebuilder:resource",
	"kubebuilder:selectablefield",
}

// parseMarker parses the text of a comment line that starts with "+".
func parseMarker(text string) (marker, error) {
	text = strings.TrimPrefix(strings.TrimSpace(text), "+")
	for _, name := range argMarkers {
		if rest, ok := strings.CutPrefix(text, name+":"); ok {
			args, err := parseArgs(rest)
			if err != nil {
				return marker{}, fmt.Errorf("marker +%s: %w", name, err)
			}
			return marker{name: name, args: args}, nil
		}
	}
	name, value, _ := strings.Cut(text, "=")
	return marker{name: name, value: value}, nil
}

// parseArgs parses "k=v,k=v", where a value is a Go-quoted string, a raw
// string in backquotes, or bare text up to the next comma.
func parseArgs(s string) (map[string]string, error) {
	args := map[string]string{}
	for s != "" {
		key, rest, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("argument %q has no value", s)
		}
		value, rest, err := cutValue(rest)
		if err != nil {
			return nil, fmt.Errorf("argument %s: %w", key, err)
		}
		args[key] = value
		if rest != "" {
			if rest[0] != ',' {
				return nil, fmt.Errorf("argument %s: want a comma after the value, got %q", key, rest)
			}
			rest = rest[1:]
		}
		s = rest
	}
	return args, nil
}

// cutValue cuts one argument value off the front of s and returns it
// unquoted, with what follows it.
func cutValue(s string) (value, rest string, err error) {
	switch {
	case strings.HasPrefix(s, `"`):
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case '"':
				value, err := strconv.Unquote(s[:i+1])
				return value, s[i+1:], err
			}
		}
		return "", "", fmt.Errorf("unterminated string %s", s)
	case strings.HasPrefix(s, "`"):
		end := strings.IndexByte(s[1:], '`')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated raw string %s", s)
		}
		return s[1 : end+1], s[end+2:], nil
	case strings.HasPrefix(s, "{"):
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", "", fmt.Errorf("unterminated list %s", s)
		}
		return s[:end+1], s[end+1:], nil
	default:
		if i := strings.IndexByte(s, ','); i >= 0 {
			return s[:i], s[i:], nil
		}
		return s, "", nil
	}
}

// literal is the value of a one-value marker as the CRD holds it: a Go
// string unquoted, true and false as booleans, integers as int64, and bare
// text as a string.
func literal(raw string) any {
	if strings.HasPrefix(raw, `"`) || strings.HasPrefix(raw, "`") {
		if s, _, err := cutValue(raw); err == nil {
			return s
		}
	}
	if b, err := strconv.ParseBool(raw); err == nil && (raw == "true" || raw == "false") {
		return b
	}
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		return n
	}
	return raw
}

// markers is the markers of one type or field, in source order.
type markers []marker

// get returns the first marker named name.
func (ms markers) get(name string) (marker, bool) {
	for _, m := range ms {
		if m.name == name {
			return m, true
		}
	}
	return marker{}, false
}

// has reports whether a marker named name is present.
func (ms markers) has(name string) bool {
	_, ok := ms.get(name)
	return ok
}

// all returns every marker named name.
func (ms markers) all(name string) []marker {
	var out []marker
	for _, m := range ms {
		if m.name == name {
			out = append(out, m)
		}
	}
	return out
}

// intValue returns the integer value of the marker named name.
func (ms markers) intValue(name string) (int64, bool) {
	m, ok := ms.get(name)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(m.value, 10, 64)
	return n, err == nil
}

// rule is a CEL validation rule and the message the API server answers when
// it fails.
type rule struct {
	Rule, Message string
}

// rules returns the +kubebuilder:validation:XValidation rules.
func (ms markers) rules() []rule {
	var out []rule
	for _, m := range ms.all("kubebuilder:validation:XValidation") {
		out = append(out, rule{Rule: m.args["rule"], Message: m.args["message"]})
	}
	return out
}

// enum returns the values of +kubebuilder:validation:Enum (A;B;C).
func (ms markers) enum() []string {
	m, ok := ms.get("kubebuilder:validation:Enum")
	if !ok || m.value == "" {
		return nil
	}
	var out []string
	for _, v := range strings.Split(m.value, ";") {
		if s, ok := literal(v).(string); ok {
			out = append(out, s)
		} else {
			out = append(out, v)
		}
	}
	return out
}

// list splits a marker argument that holds a list: "a;b" or "{a,b}".
func list(s string) []string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if s == "" {
		return nil
	}
	return strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == ',' })
}
