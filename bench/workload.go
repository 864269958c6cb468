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
	"encoding/json"
	"fmt"
)

// listPath is where every run keeps its list on the fake server.
const listPath = "/lists/bench"

// workload is the list of one run: targets to remove, then bystanders that
// nobody touches.
type workload struct {
	targets    []string
	bystanders []string
}

func newWorkload(n, listSize int) workload {
	w := workload{targets: make([]string, n), bystanders: make([]string, listSize-n)}
	for i := range w.targets {
		w.targets[i] = fmt.Sprintf("target-%06d", i)
	}
	for i := range w.bystanders {
		w.bystanders[i] = fmt.Sprintf("bystander-%06d", i)
	}
	return w
}

// document is the initial JSON array: targets first, then bystanders.
func (w workload) document() []byte {
	items := make([]string, 0, len(w.targets)+len(w.bystanders))
	items = append(items, w.targets...)
	items = append(items, w.bystanders...)
	b, err := json.Marshal(items)
	if err != nil {
		panic(err) // a []string always encodes
	}
	return b
}

// forReplica returns the targets of replica r of replicas: every
// replicas-th one, starting at r.
func (w workload) forReplica(r, replicas int) []string {
	var out []string
	for i := r; i < len(w.targets); i += replicas {
		out = append(out, w.targets[i])
	}
	return out
}

// outcome is what the final document says about a run.
type outcome struct {
	targetsLeft      map[string]bool
	bystandersLeft   int
	bystandersMissed int
}

// judge reads the final document.
func (w workload) judge(final []byte) (outcome, error) {
	var items []string
	if err := json.Unmarshal(final, &items); err != nil {
		return outcome{}, fmt.Errorf("final document: %w", err)
	}
	isTarget := make(map[string]bool, len(w.targets))
	for _, t := range w.targets {
		isTarget[t] = true
	}
	isBystander := make(map[string]bool, len(w.bystanders))
	for _, b := range w.bystanders {
		isBystander[b] = true
	}
	o := outcome{targetsLeft: map[string]bool{}}
	seen := make(map[string]bool, len(items))
	for _, it := range items {
		if isTarget[it] {
			o.targetsLeft[it] = true
		} else if isBystander[it] && !seen[it] {
			o.bystandersLeft++
		}
		seen[it] = true
	}
	o.bystandersMissed = len(w.bystanders) - o.bystandersLeft
	return o, nil
}
