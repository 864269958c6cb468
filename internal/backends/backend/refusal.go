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

package backend

import "github.com/listkeeper/listkeeper/api/v1alpha1"

// Refusal is a list that cannot be kept as its spec says: Reason is the
// reason of the list's Ready condition (a v1alpha1.Reason... constant),
// Msg the condition's message, which names no secret and no URL beyond
// its scheme and host.
type Refusal struct {
	Reason string
	Msg    string
}

// Error implements error.
func (r *Refusal) Error() string { return r.Msg }

// Invalid is the Refusal of a spec that can never work (InvalidSpec).
func Invalid(msg string) error { return &Refusal{Reason: v1alpha1.ReasonInvalidSpec, Msg: msg} }
