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

package harness

import (
	"encoding/json"
	"errors"
	"fmt"
)

// errDecode wraps the error of a body that was read but not understood.
var errDecode = errors.New("decode")

// Document is a list document whose IDs are at /items, with its other
// top-level members kept raw.
type Document struct {
	Items  []string
	Fields map[string]json.RawMessage
}

// UnmarshalJSON decodes an object with an "items" array of strings.
func (d *Document) UnmarshalJSON(b []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(b, &fields); err != nil {
		return err
	}
	var items []string
	if raw, ok := fields["items"]; ok {
		if err := json.Unmarshal(raw, &items); err != nil {
			return fmt.Errorf("items: %w", err)
		}
	}
	delete(fields, "items")
	d.Items, d.Fields = items, fields
	return nil
}

// Field returns the top-level member name as a string, and "" when it is
// missing or not a string.
func (d Document) Field(name string) string {
	var s string
	_ = json.Unmarshal(d.Fields[name], &s)
	return s
}
