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

package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/backends/conformance"
	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// mutantEnv names the mutant that TestMutantSuite runs; TestMutants sets
// it for the child process it starts.
const mutantEnv = "LISTKEEPER_CONFORMANCE_MUTANT"

// mutant is a Backend with one deliberate defect, wrapped around the
// WAFv2 backend (the kinds with an exported factory are the ones a wrapper
// can reach).
type mutant struct {
	etagclient.Backend
	defect string
}

// mutants are the defects, by name, that the suite must catch.
var mutants = map[string]bool{
	"none": true, "ignores-version": true, "drops-foreign": true, "lost-as-committed": true,
	"unknown-as-lost": true, "one-class": true, "trusts-any-answer": true,
}

func (m *mutant) Read(ctx context.Context, have etagclient.Version) (etagclient.ReadAnswer, error) {
	ans, err := m.Backend.Read(ctx, have)
	if err != nil && m.defect == "trusts-any-answer" {
		// Takes an answer it cannot read for an empty list.
		empty, _ := etagclient.NewDocument(nil)
		return etagclient.ReadAnswer{Doc: empty, Version: etagclient.Version{Tag: "guessed"}}, nil
	}
	if err != nil && m.defect == "one-class" {
		return ans, fmt.Errorf("%w: %v", etagclient.ErrUnreachable, err) //nolint:errorlint // the mutant hides the backend's class on purpose
	}
	return ans, err
}

func (m *mutant) Write(ctx context.Context, next *etagclient.Document, create bool, base etagclient.Version) (etagclient.WriteAnswer, error) {
	switch m.defect {
	case "ignores-version":
		// Writes on whatever version is current: a blind overwrite.
		if fresh, err := m.Backend.Read(ctx, etagclient.Version{}); err == nil {
			base = fresh.Version
		}
	case "drops-foreign":
		// Keeps only the items the last change added.
		if items := next.Items(); len(items) > 1 {
			var err error
			if next, err = next.WithItems(items[len(items)-1:]); err != nil {
				return etagclient.WriteAnswer{}, err
			}
		}
	}
	w, err := m.Backend.Write(ctx, next, create, base)
	switch {
	case err != nil && m.defect == "one-class":
		return w, fmt.Errorf("%w: %v", etagclient.ErrUnreachable, err) //nolint:errorlint // as above
	case m.defect == "lost-as-committed" && w.Outcome == etagclient.WriteLost:
		w.Outcome = etagclient.WriteCommitted
	case m.defect == "unknown-as-lost" && w.Outcome == etagclient.WriteUnknown:
		w = etagclient.WriteAnswer{Outcome: etagclient.WriteLost}
	}
	return w, err
}

// mutate wraps every backend that tg (and its missing list) builds.
func mutate(tg *conformance.Target, defect string) *conformance.Target {
	factory := tg.Factory
	tg.Factory = func(env etagclient.BackendEnv) (etagclient.Backend, error) {
		b, err := factory(env)
		if err != nil {
			return nil, err
		}
		return &mutant{Backend: b, defect: defect}, nil
	}
	if missing := tg.Missing; missing != nil {
		tg.Missing = func(t *testing.T, p *conformance.Probe) *conformance.Target { return mutate(missing(t, p), defect) }
	}
	return tg
}

// TestMutantSuite runs the suite against the WAFv2 harness with the
// mutant mutantEnv names.
// It runs only as TestMutants' child.
func TestMutantSuite(t *testing.T) {
	name := os.Getenv(mutantEnv)
	if name == "" {
		t.Skip("run by TestMutants in a child process")
	}
	h := wafv2Harness()
	switch {
	case mutants[name]:
		start := h.Start
		h.Start = func(t *testing.T, p *conformance.Probe) *conformance.Target { return mutate(start(t, p), name) }
	default:
		t.Fatalf("no mutant %q", name)
	}
	conformance.Run(t, h)
}

// TestMutants proves that the suite can fail: each mutant, run through the
// behaviour that names its defect, must fail the subtest given; the
// unchanged backend ("none") must pass the whole suite, so that the
// failures are the mutants'.
func TestMutants(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		t.Skip("the child runs TestMutantSuite only")
	}
	for _, tc := range []struct {
		mutant, behaviour string
		fails             []string // subtests of TestMutantSuite that must fail; none: it must pass
	}{
		{"none", "", nil},
		// Through the engine its read comes before the other writer's
		// write, which the suite makes just before the write is sent: the
		// seam catches it.
		{"ignores-version", "conditional-write", []string{"conditional-write/seam"}},
		{"lost-as-committed", "conditional-write", []string{"conditional-write/seam"}},
		{"drops-foreign", "foreign", []string{"foreign/seam", "foreign/engine"}},
		{"unknown-as-lost", "ambiguous-write", []string{"ambiguous-write/drop-after/seam/unretried", "ambiguous-write/drop-before/seam/unretried"}},
		{"one-class", "error-classes", []string{"error-classes/unauthorized/seam", "error-classes/not-found/seam"}},
		{"trusts-any-answer", "unsafe-answers", []string{"unsafe-answers/html-page/seam", "unsafe-answers/no-lock-token/seam"}},
	} {
		t.Run(tc.mutant, func(t *testing.T) {
			run := "^TestMutantSuite$"
			if tc.behaviour != "" {
				run += "/^" + tc.behaviour + "$"
			}
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run="+run, "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), mutantEnv+"="+tc.mutant)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatalf("run the child: %v", err)
			}
			if !strings.Contains(string(out), "--- PASS: TestMutantSuite") && !strings.Contains(string(out), "--- FAIL: TestMutantSuite") {
				t.Fatalf("the child ran no suite:\n%s", out)
			}
			if len(tc.fails) == 0 {
				if err != nil {
					t.Fatalf("the unchanged backend failed the suite:\n%s", out)
				}
				return
			}
			if err == nil {
				t.Fatalf("mutant %s passed %s: the suite cannot catch its defect\n%s", tc.mutant, tc.behaviour, out)
			}
			for _, sub := range tc.fails {
				if !strings.Contains(string(out), "--- FAIL: TestMutantSuite/"+sub+" ") {
					t.Errorf("mutant %s: subtest %s did not fail", tc.mutant, sub)
				}
			}
			if t.Failed() {
				t.Logf("child output:\n%s", out)
			}
		})
	}
}
