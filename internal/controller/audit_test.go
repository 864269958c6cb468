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

package controller

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// auditRecord is one audit line of the manager's JSON log.
type auditRecord struct {
	Msg        string   `json:"msg"`
	Level      string   `json:"level"`
	Logger     string   `json:"logger"`
	Lists      []string `json:"lists"`
	URL        string   `json:"url"`
	Added      []string `json:"added"`
	Removed    []string `json:"removed"`
	ETagBefore string   `json:"etagBefore"`
	ETagAfter  string   `json:"etagAfter"`
	Replica    string   `json:"replica"`
}

// auditRecords parses the audit lines out of a JSON log.
func auditRecords(t *testing.T, log string) []auditRecord {
	t.Helper()
	var out []auditRecord
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, AuditMessage) {
			continue
		}
		var r auditRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("audit line is not JSON: %v: %s", err, line)
		}
		out = append(out, r)
	}
	return out
}

// TestAuditLog adds and removes IDs through the real controllers and
// checks that every committed write is logged at Info with the lists that
// name the document, the IDs added and removed, an unbroken chain of
// ETags, and the replica; and that no header value from a Secret is
// logged.
func TestAuditLog(t *testing.T) {
	ns := newNamespace(t)
	const token = "Bearer audit-s3cr3t-token"
	create(t, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "auth"},
		StringData: map[string]string{"Authorization": token}})
	rep := startManager(t, managerConfig{namespace: ns})
	path := listPath(t, ns)
	setDoc(t, sharedLists, path, map[string]any{"owner": "team-a", "items": []string{"keep"}})
	_, startETag, _ := sharedLists.Get(path)

	// Two ExternalLists name the same document; the older holds the claim
	// and writes, and a commit names both, the holder first.
	withAuth := func(s *v1alpha1.ExternalListSpec) {
		s.ItemsPointer = "/items"
		s.HeadersFrom = &v1alpha1.HeadersSource{SecretRef: v1alpha1.SecretReference{Name: "auth"}}
		s.AllowInsecureHTTP = true // the fake server is plain http on loopback
	}
	primary := newExternalList(ns, "primary", sharedListsURL+path+"?sig=abc", withAuth)
	alias := newExternalList(ns, "alias", sharedListsURL+path+"?sig=abc", func(s *v1alpha1.ExternalListSpec) { s.ItemsPointer = "/items" })
	create(t, primary)
	waitCondition(t, primary, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, 30*time.Second)
	nextSecond(t)
	create(t, alias)
	waitCondition(t, alias, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonDocumentInUse, 30*time.Second)

	a, b := newListEntry(ns, "a", "primary", "a"), newListEntry(ns, "b", "primary", "b")
	create(t, a)
	create(t, b)
	waitOnList(t, sharedLists, path, "/items", "a", true, 30*time.Second)
	waitOnList(t, sharedLists, path, "/items", "b", true, 30*time.Second)
	deleteObj(t, a)
	waitOnList(t, sharedLists, path, "/items", "a", false, 30*time.Second)
	waitGone(t, a, 30*time.Second)

	var recs []auditRecord
	eventually(t, 10*time.Second, "audit records of the additions and the removal", func() error {
		recs = auditRecords(t, rep.log.String())
		var added, removed []string
		for _, r := range recs {
			added = append(added, r.Added...)
			removed = append(removed, r.Removed...)
		}
		sort.Strings(added)
		if !slices.Equal(added, []string{"a", "b"}) || !slices.Equal(removed, []string{"a"}) {
			return fmt.Errorf("added %v, removed %v in %d records", added, removed, len(recs))
		}
		return nil
	})

	if testing.Verbose() {
		for _, line := range strings.Split(rep.log.String(), "\n") {
			if strings.Contains(line, AuditMessage) {
				t.Log(line)
			}
		}
	}
	replica := defaultIdentity(SoleOwner{})
	if replica == "" {
		t.Fatal("the default replica identity is empty")
	}
	_, endETag, _ := sharedLists.Get(path)
	prev := startETag
	for i, r := range recs {
		if r.Level != "info" || r.Logger != "audit" {
			t.Errorf("record %d: level %q logger %q, want info/audit", i, r.Level, r.Logger)
		}
		if want := []string{ns + "/primary", ns + "/alias"}; !slices.Equal(r.Lists, want) {
			t.Errorf("record %d: lists %v, want %v", i, r.Lists, want)
		}
		if r.Replica != replica {
			t.Errorf("record %d: replica %q, want %q", i, r.Replica, replica)
		}
		if strings.Contains(r.URL, "abc") || !strings.Contains(r.URL, path) {
			t.Errorf("record %d: url %q, want the redacted URL of %s", i, r.URL, path)
		}
		// One writer: each write was conditional on the previous one's ETag.
		if r.ETagBefore != prev || r.ETagAfter == "" {
			t.Errorf("record %d: etag %q -> %q, want it to follow %q", i, r.ETagBefore, r.ETagAfter, prev)
		}
		prev = r.ETagAfter
	}
	if prev != endETag {
		t.Errorf("last audited ETag %q, the document's is %q", prev, endETag)
	}
	if strings.Contains(rep.log.String(), "audit-s3cr3t-token") {
		t.Error("the manager's log carries the Authorization header value")
	}
}
