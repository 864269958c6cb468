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
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// readmeUninstall returns the ```sh blocks of the "## Uninstall" section of
// docs/install.md, each as its commands (comments stripped).
func readmeUninstall(t *testing.T) [][]string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/install.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]string
	in, inBlock := false, false
	for _, line := range strings.Split(string(raw), "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in = line == "## Uninstall"
		case !in:
		case strings.HasPrefix(line, "```sh"):
			inBlock = true
			blocks = append(blocks, nil)
		case strings.HasPrefix(line, "```"):
			inBlock = false
		case inBlock:
			cmd, _, _ := strings.Cut(line, "  #")
			if cmd = strings.TrimSpace(cmd); cmd != "" {
				blocks[len(blocks)-1] = append(blocks[len(blocks)-1], cmd)
			}
		}
	}
	if len(blocks) != 2 {
		t.Fatalf("docs/install.md's Uninstall section has %d sh blocks, want 2 (the order, and the way out when the CRDs go first)", len(blocks))
	}
	return blocks
}

// uninstallFixture is an installation to uninstall: an Orphan list and a
// Delete list on two documents of the test's own server, with entries, and
// bystanders on both documents.
type uninstallFixture struct {
	ns   string
	srv  *fakeapi.Server
	rep  *replica
	want map[string][]string // path -> every ID that must stay
}

func newUninstallFixture(t *testing.T) *uninstallFixture {
	t.Helper()
	f := &uninstallFixture{ns: newNamespace(t)}
	var url string
	f.srv, url = ownServer(t)
	f.rep = startManager(t, managerConfig{namespace: f.ns})
	setDoc(t, f.srv, "/a", []string{"bystander-a"})
	setDoc(t, f.srv, "/b", []string{"bystander-b"})
	create(t, newExternalList(f.ns, "orphan", url+"/a"))
	create(t, newExternalList(f.ns, "cleanup", url+"/b", func(s *v1alpha1.ExternalListSpec) {
		s.DeletionPolicy = v1alpha1.DeletionPolicyDelete
	}))
	createSynced(t, f.ns, "orphan", "tenant-1", "tenant-2")
	createSynced(t, f.ns, "cleanup", "tenant-3")
	f.want = map[string][]string{
		"/a": {"bystander-a", "tenant-1", "tenant-2"},
		"/b": {"bystander-b", "tenant-3"},
	}
	for path, ids := range f.want {
		wantItems(t, f.srv, path, ids...)
	}
	return f
}

var patchPayload = regexp.MustCompile(`-p '([^']*)'`)

// replay carries out one command of docs/install.md against the fixture's
// namespace, as kubectl and make would against a cluster; a command it does
// not know fails the test, so the docs cannot document a step the test
// skips.
func (f *uninstallFixture) replay(t *testing.T, cmd string) {
	t.Helper()
	ctx := context.Background()
	in := client.InNamespace(f.ns)
	switch {
	case strings.HasPrefix(cmd, "kubectl get "):
		// Read-only.
	case strings.HasPrefix(cmd, "kubectl patch externallist "), strings.HasPrefix(cmd, "kubectl patch listentry "):
		m := patchPayload.FindStringSubmatch(cmd)
		if m == nil || !strings.Contains(cmd, "--type=merge") {
			t.Fatalf("docs/install.md command %q: want a --type=merge patch with -p '<json>'", cmd)
		}
		patch := client.RawPatch(types.MergePatchType, []byte(m[1]))
		for _, obj := range f.patchTargets(t, strings.HasPrefix(cmd, "kubectl patch listentry ")) {
			if err := k8sClient.Patch(ctx, obj, patch); err != nil {
				t.Fatalf("docs/install.md command %q on %s: %v", cmd, obj.GetName(), err)
			}
		}
	case cmd == "kubectl delete externallists --all --all-namespaces":
		f.deleteAll(t, &v1alpha1.ExternalList{})
	case cmd == "kubectl delete listentries --all --all-namespaces":
		f.deleteAll(t, &v1alpha1.ListEntry{})
	case strings.HasPrefix(cmd, "kubectl scale deployment listkeeper-controller-manager ") && strings.HasSuffix(cmd, "--replicas=0"):
		f.rep.stop()
	case cmd == "make undeploy":
		// The Deployment goes, and with the CRDs every object that is
		// left; an object held by a finalizer would block the CRDs.
		f.rep.stop()
		f.deleteAll(t, &v1alpha1.ExternalList{})
		f.deleteAll(t, &v1alpha1.ListEntry{})
		var left v1alpha1.ListEntryList
		if err := k8sClient.List(ctx, &left, in); err != nil || len(left.Items) != 0 {
			t.Fatalf("after make undeploy: %d entries left (%v)", len(left.Items), err)
		}
	default:
		t.Fatalf("docs/install.md's Uninstall section runs %q, which this test does not replay: add it here", cmd)
	}
}

// patchTargets returns every entry (entries) or every ExternalList with
// deletionPolicy Delete: the objects the "for each" comments of
// docs/install.md name.
func (f *uninstallFixture) patchTargets(t *testing.T, entries bool) []client.Object {
	t.Helper()
	var out []client.Object
	if entries {
		var list v1alpha1.ListEntryList
		if err := k8sClient.List(context.Background(), &list, client.InNamespace(f.ns)); err != nil {
			t.Fatal(err)
		}
		for i := range list.Items {
			out = append(out, &list.Items[i])
		}
		return out
	}
	var list v1alpha1.ExternalListList
	if err := k8sClient.List(context.Background(), &list, client.InNamespace(f.ns)); err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		if list.Items[i].Spec.DeletionPolicy == v1alpha1.DeletionPolicyDelete {
			out = append(out, &list.Items[i])
		}
	}
	if len(out) == 0 {
		t.Fatal("no ExternalList with deletionPolicy Delete left to patch; the fixture has one")
	}
	return out
}

// deleteAll deletes every object of obj's kind in the namespace and waits
// until they are gone, as kubectl delete does.
func (f *uninstallFixture) deleteAll(t *testing.T, obj client.Object) {
	t.Helper()
	if err := k8sClient.DeleteAllOf(context.Background(), obj, client.InNamespace(f.ns)); err != nil {
		t.Fatal(err)
	}
	var objs []client.Object
	switch obj.(type) {
	case *v1alpha1.ExternalList:
		var list v1alpha1.ExternalListList
		if err := k8sClient.List(context.Background(), &list, client.InNamespace(f.ns)); err != nil {
			t.Fatal(err)
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	case *v1alpha1.ListEntry:
		var list v1alpha1.ListEntryList
		if err := k8sClient.List(context.Background(), &list, client.InNamespace(f.ns)); err != nil {
			t.Fatal(err)
		}
		for i := range list.Items {
			objs = append(objs, &list.Items[i])
		}
	}
	for _, o := range objs {
		waitGone(t, o, waitTimeout)
	}
}

// TestUninstallDocumentedOrder replays the Uninstall section of
// docs/install.md, each block on a fresh installation, and checks that the
// lists keep every ID and were not written. A control replays the first
// block with the entries deleted before their lists, the order the section
// warns against, and sees the IDs go: the check can fail.
func TestUninstallDocumentedOrder(t *testing.T) {
	t.Parallel()
	blocks := readmeUninstall(t)
	for i, name := range []string{"in order", "operator first"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newUninstallFixture(t)
			commits := f.srv.Stats().Commits
			for _, cmd := range blocks[i] {
				f.replay(t, cmd)
			}
			for path, ids := range f.want {
				wantItems(t, f.srv, path, ids...)
			}
			if n := f.srv.Stats().Commits - commits; n != 0 {
				t.Errorf("the uninstall wrote the lists %d times, want never", n)
			}
		})
	}
	t.Run("control: entries before lists", func(t *testing.T) {
		t.Parallel()
		cmds := slices.Clone(blocks[0])
		lists := slices.Index(cmds, "kubectl delete externallists --all --all-namespaces")
		entries := slices.Index(cmds, "kubectl delete listentries --all --all-namespaces")
		if lists < 0 || entries < 0 {
			t.Fatalf("the first Uninstall block deletes no lists or no entries: %q", cmds)
		}
		cmds[lists], cmds[entries] = cmds[entries], cmds[lists]
		f := newUninstallFixture(t)
		for _, cmd := range cmds {
			f.replay(t, cmd)
		}
		if got := mustDocItems(t, f.srv, "/a", ""); slices.Contains(got, "tenant-1") || slices.Contains(got, "tenant-2") {
			t.Errorf("items of /a = %v: deleting the entries while their list lives must take their IDs off", got)
		}
	})
}
