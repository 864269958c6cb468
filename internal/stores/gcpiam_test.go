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

package stores_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/storetest/iamfake"
)

// TestGCPIAMRoundTrip reads and writes a role's list in the policy of a
// project (Resource Manager) and of a bucket (Cloud Storage), through
// Google's client libraries against the fake, with tokens from the fake
// token endpoint. The list is the members of the role's unconditional
// bindings, merged; a write replaces them, conditional on the etag read,
// and leaves every other part of the policy as it was, byte for byte.
func TestGCPIAMRoundTrip(t *testing.T) {
	e := startIAM(t)
	for _, tc := range []struct {
		name, rn, resource string
		policy             iamfake.Policy
		read               []string
	}{
		{"project", iamProjectRN, iamProject, iamProjectPolicy(),
			[]string{"user:alice@example.com", "group:team@example.com", "user:bob@example.com"}},
		{"bucket", iamBucketRN, iamBucket, iamBucketPolicy(), []string{"user:alice@example.com"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seedIAM(t, e.fake, tc.resource, tc.policy)
			b := e.backend(t, tc.rn, nil)
			before := rawOf(t, e.fake, tc.resource)
			ans := readIAM(t, b)
			if !slices.Equal(ans.Doc.Items(), tc.read) {
				t.Fatalf("read %v, want %v", ans.Doc.Items(), tc.read)
			}
			if ans.Version.Tag != before.Etag {
				t.Fatalf("version %q, want the policy's etag %q", ans.Version.Tag, before.Etag)
			}

			want := append(slices.Clone(tc.read), "serviceAccount:new@p-123.iam.gserviceaccount.com")
			w, err := b.Write(t.Context(), docOf(t, want...), false, ans.Version)
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
			after := rawOf(t, e.fake, tc.resource)
			if w.Outcome != etagclient.WriteCommitted || w.Version.Tag != after.Etag || after.Etag == before.Etag {
				t.Fatalf("Write answered %+v; the policy's etag went from %q to %q", w, before.Etag, after.Etag)
			}
			samePreserved(t, before, after, iamRole)
			if got := readIAM(t, b); !slices.Equal(got.Doc.Items(), want) || got.Version.Tag != after.Etag {
				t.Errorf("read back %v at %q, want %v at %q", got.Doc.Items(), got.Version.Tag, want, after.Etag)
			}

			// The next write goes from the version the last one returned,
			// without a read.
			w2, err := b.Write(t.Context(), docOf(t, want[1:]...), false, w.Version)
			if err != nil || w2.Outcome != etagclient.WriteCommitted {
				t.Fatalf("second Write: %+v, %v", w2, err)
			}
			samePreserved(t, before, rawOf(t, e.fake, tc.resource), iamRole)
			if got := readIAM(t, b).Doc.Items(); !slices.Equal(got, want[1:]) {
				t.Errorf("after the second write: %v, want %v", got, want[1:])
			}
		})
	}
}

// TestGCPIAMFold: the role's unconditional bindings become one, at the
// first one's place, and the conditional binding of the role stays
// where it was.
func TestGCPIAMFold(t *testing.T) {
	e := startIAM(t)
	seedIAM(t, e.fake, iamProject, iamProjectPolicy())
	b := e.backend(t, iamProjectRN, nil)
	ans := readIAM(t, b)
	if _, err := b.Write(t.Context(), docOf(t, "user:bob@example.com", "user:carol@example.com"), false, ans.Version); err != nil {
		t.Fatal(err)
	}
	p, _ := e.fake.Policy(iamProject)
	var roles []string
	for _, bd := range p.Bindings {
		roles = append(roles, bd.Role)
	}
	wantRoles := []string{"roles/owner", iamRole, iamRole, "projects/p-123/roles/custom.reader", "roles/editor"}
	if !slices.Equal(roles, wantRoles) {
		t.Fatalf("roles in order %v, want %v", roles, wantRoles)
	}
	if !slices.Equal(p.Bindings[1].Members, []string{"user:bob@example.com", "user:carol@example.com"}) || p.Bindings[1].Condition != nil {
		t.Errorf("the role's binding is %+v", p.Bindings[1])
	}
	if p.Bindings[2].Condition == nil || !slices.Equal(p.Bindings[2].Members, []string{"user:temp@example.com"}) {
		t.Errorf("the conditional binding of the role is %+v", p.Bindings[2])
	}
}

// TestGCPIAMEmptyAndNew: an empty list removes the role's unconditional
// bindings (its conditional one stays); a role without one reads as an
// empty list, and its first member makes a binding at the end.
func TestGCPIAMEmptyAndNew(t *testing.T) {
	e := startIAM(t)
	seedIAM(t, e.fake, iamProject, iamProjectPolicy())
	b := e.backend(t, iamProjectRN, nil)
	before := rawOf(t, e.fake, iamProject)
	w, err := b.Write(t.Context(), docOf(t), false, readIAM(t, b).Version)
	if err != nil || w.Outcome != etagclient.WriteCommitted {
		t.Fatalf("Write of an empty list: %+v, %v", w, err)
	}
	after := rawOf(t, e.fake, iamProject)
	samePreserved(t, before, after, iamRole)
	if n, m := len(after.Bindings), len(before.Bindings)-2; n != m {
		t.Errorf("%d bindings after, want %d", n, m)
	}
	ans := readIAM(t, b)
	if len(ans.Doc.Items()) != 0 {
		t.Fatalf("read %v after emptying", ans.Doc.Items())
	}

	if _, err := b.Write(t.Context(), docOf(t, "group:new@example.com"), false, ans.Version); err != nil {
		t.Fatal(err)
	}
	p, _ := e.fake.Policy(iamProject)
	last := p.Bindings[len(p.Bindings)-1]
	if last.Role != iamRole || last.Condition != nil || !slices.Equal(last.Members, []string{"group:new@example.com"}) {
		t.Errorf("the new binding is %+v, want it last", last)
	}
	samePreserved(t, before, rawOf(t, e.fake, iamProject), iamRole)
}

// TestGCPIAMStaleEtag: a write from a read that another writer overtook
// is lost, and writes nothing.
func TestGCPIAMStaleEtag(t *testing.T) {
	e := startIAM(t)
	seedIAM(t, e.fake, iamBucket, iamBucketPolicy())
	seedIAM(t, e.fake, iamProject, iamProjectPolicy())
	for _, tc := range []struct{ name, rn, resource string }{
		{"project", iamProjectRN, iamProject},
		{"bucket", iamBucketRN, iamBucket},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := e.backend(t, tc.rn, nil), e.backend(t, tc.rn, nil)
			readA, readB := readIAM(t, a), readIAM(t, b)
			if w, err := a.Write(t.Context(), docOf(t, "user:a@example.com"), false, readA.Version); err != nil || w.Outcome != etagclient.WriteCommitted {
				t.Fatalf("first write: %+v, %v", w, err)
			}
			won := rawOf(t, e.fake, tc.resource)
			w, err := b.Write(t.Context(), docOf(t, "user:b@example.com"), false, readB.Version)
			if err != nil || w.Outcome != etagclient.WriteLost {
				t.Fatalf("stale write: %+v, %v, want WriteLost", w, err)
			}
			if got := rawOf(t, e.fake, tc.resource); got.Etag != won.Etag {
				t.Error("the lost write changed the policy")
			}
		})
	}
	st := e.fake.Stats()
	if n := st.Count(iamfake.MethodSet, http.StatusConflict) + st.Count(iamfake.MethodSet, http.StatusPreconditionFailed); n != 2 {
		t.Errorf("the fake refused %d writes, want one 409 and one 412", n)
	}
}

// TestGCPIAMErrors: each kind of failure ends in its error class, and no
// message carries the API's text (which can quote the request) or more
// than the status and a word of IAM's vocabulary.
func TestGCPIAMErrors(t *testing.T) {
	e := startIAM(t)
	seedIAM(t, e.fake, iamProject, iamProjectPolicy())
	b := e.backend(t, iamProjectRN, nil)

	t.Run("a resource that does not exist", func(t *testing.T) {
		_, err := e.backend(t, "//storage.googleapis.com/projects/_/buckets/no-such-bucket", nil).Read(t.Context(), etagclient.Version{})
		wantClass(t, err, etagclient.ErrNotFound, "404", "notFound")
		// Resource Manager denies a project it does not know.
		_, err = e.backend(t, "//cloudresourcemanager.googleapis.com/projects/no-such-project", nil).Read(t.Context(), etagclient.Version{})
		wantClass(t, err, etagclient.ErrUnauthorized, "403", "PERMISSION_DENIED")
	})
	t.Run("a principal IAM refuses", func(t *testing.T) {
		const bogus = "robot:r2d2@example.com"
		_, err := b.Write(t.Context(), docOf(t, bogus), false, readIAM(t, b).Version)
		wantClass(t, err, etagclient.ErrRejected, "400", "INVALID_ARGUMENT")
		if strings.Contains(err.Error(), "r2d2") {
			t.Errorf("the error quotes the API's message: %v", err)
		}
	})
	t.Run("unavailable", func(t *testing.T) {
		e.fake.SetFaultHook(func(iamfake.Call) *iamfake.Error { return iamfake.ErrUnavailable() })
		defer e.fake.SetFaultHook(nil)
		_, err := b.Read(t.Context(), etagclient.Version{})
		wantClass(t, err, etagclient.ErrUnreachable, "503", "UNAVAILABLE")
	})
	t.Run("throttled write", func(t *testing.T) {
		ans := readIAM(t, b)
		e.fake.SetFaultHook(func(iamfake.Call) *iamfake.Error { return iamfake.ErrResourceExhausted() })
		defer e.fake.SetFaultHook(nil)
		_, err := b.Write(t.Context(), docOf(t, "user:x@example.com"), false, ans.Version)
		wantClass(t, err, etagclient.ErrUnreachable, "429", "RESOURCE_EXHAUSTED")
	})
	t.Run("a gateway that gave up on a write", func(t *testing.T) {
		ans := readIAM(t, b)
		e.fake.SetFaultHook(func(iamfake.Call) *iamfake.Error {
			return &iamfake.Error{Code: http.StatusGatewayTimeout, Status: "DEADLINE_EXCEEDED", Message: "upstream timed out"}
		})
		defer e.fake.SetFaultHook(nil)
		w, err := b.Write(t.Context(), docOf(t, "user:x@example.com"), false, ans.Version)
		if err != nil || w.Outcome != etagclient.WriteUnknown || w.Cause == nil {
			t.Errorf("504 to a write: %+v, %v, want WriteUnknown with a cause", w, err)
		}
	})
	t.Run("a write without a read", func(t *testing.T) {
		_, err := b.Write(t.Context(), docOf(t, "user:x@example.com"), false, etagclient.Version{Tag: "BwYAAAAAAAA="})
		wantClass(t, err, etagclient.ErrRejected)
		_, err = b.Write(t.Context(), docOf(t, "user:x@example.com"), true, etagclient.Version{})
		wantClass(t, err, etagclient.ErrRejected)
	})
	t.Run("too many members", func(t *testing.T) {
		f := e.factory(t, iamProjectRN)
		small, err := f(etagclient.BackendEnv{ShownURL: iamShownURL, HTTPClient: &http.Client{Transport: closingTransport(t)}, MaxItems: 2, MaxBodyBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer small.Close()
		_, err = small.Read(t.Context(), etagclient.Version{})
		wantClass(t, err, etagclient.ErrInvalidDocument)
		if !errors.Is(err, etagclient.ErrTooManyItems) {
			t.Errorf("err = %v, want ErrTooManyItems", err)
		}
	})
	t.Run("other roles' members push the policy over the item limit", func(t *testing.T) {
		// The role keeps 3 members, within the limit of 4, but the policy
		// read holds 8 across all its bindings: the decoder kept every one
		// of them, so the item limit, which bounds what a read costs,
		// counts them all.
		f := e.factory(t, iamProjectRN)
		small, err := f(etagclient.BackendEnv{ShownURL: iamShownURL, HTTPClient: &http.Client{Transport: closingTransport(t)}, MaxItems: 4, MaxBodyBytes: 1 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer small.Close()
		_, err = small.Read(t.Context(), etagclient.Version{})
		wantClass(t, err, etagclient.ErrInvalidDocument, "all its bindings")
		if !errors.Is(err, etagclient.ErrTooManyItems) {
			t.Errorf("err = %v, want ErrTooManyItems", err)
		}
	})
	t.Run("a policy over the size limit", func(t *testing.T) {
		f := e.factory(t, iamProjectRN)
		small, err := f(etagclient.BackendEnv{ShownURL: iamShownURL, HTTPClient: &http.Client{Transport: closingTransport(t)}, MaxItems: 100, MaxBodyBytes: 64})
		if err != nil {
			t.Fatal(err)
		}
		defer small.Close()
		_, err = small.Read(t.Context(), etagclient.Version{})
		if !errors.Is(err, etagclient.ErrTooLarge) {
			t.Errorf("err = %v, want ErrTooLarge", err)
		}
	})
}

// closingTransport is a transport of its own, closed when the test ends.
func closingTransport(t *testing.T) *http.Transport {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// wantClass fails the test unless err wraps class, and only class of the
// error classes, and its text holds each of words.
func wantClass(t *testing.T, err, class error, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", class)
	}
	var classes []error
	for _, c := range []error{etagclient.ErrNotFound, etagclient.ErrUnauthorized, etagclient.ErrRejected,
		etagclient.ErrUnreachable, etagclient.ErrUnsafeServer, etagclient.ErrInvalidDocument} {
		if errors.Is(err, c) {
			classes = append(classes, c)
		}
	}
	if len(classes) != 1 || !errors.Is(classes[0], class) {
		t.Errorf("err = %v: classes %v, want exactly %v", err, classes, class)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("err = %v, want it to say %q", err, w)
		}
	}
	for _, leak := range []string{"googleapi", "http://", "prettyPrint", "concurrent policy changes", "The caller does not have permission"} {
		if strings.Contains(err.Error(), leak) {
			t.Errorf("err = %v: it carries %q", err, leak)
		}
	}
	t.Logf("%v", err)
}
