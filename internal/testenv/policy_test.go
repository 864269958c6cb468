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

package testenv

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilversion "k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestFinalizerPolicy: Start installs the finalizer policy exactly where
// the kube-apiserver serves it (1.36 and later: 'make test'), and there
// every ListEntry created gets the cleanup finalizer once, beside the
// user's own; where it is not served (1.31: 'make test-compat') nothing is
// installed and entries are created as they are sent. This is also the
// proof that envtest's kube-apiserver runs the MutatingAdmissionPolicy
// admission plugin: the entries are really created, not dry-run.
func TestFinalizerPolicy(t *testing.T) {
	env.Require(t)
	v, err := utilversion.ParseGeneric(env.ServerVersion().GitVersion)
	if err != nil {
		t.Fatalf("server version %q: %v", env.ServerVersion().GitVersion, err)
	}
	served, err := ServesMutatingAdmissionPolicies(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if want := v.AtLeast(utilversion.MajorMinor(1, 36)); served != want {
		t.Errorf("kube-apiserver %s serves mutatingadmissionpolicies: %t, want %t", v, served, want)
	}
	if env.FinalizerPolicy() != served {
		t.Errorf("FinalizerPolicy() = %t on a kube-apiserver that serves the policy: %t", env.FinalizerPolicy(), served)
	}
	t.Logf("kube-apiserver %s, finalizer policy installed: %t", v, env.FinalizerPolicy())

	ctx, c := context.Background(), env.Client()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "finalizer-policy-"}}
	if err := c.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	const other = "example.com/other"
	tests := []struct {
		name      string
		sent      []string
		withoutMe []string // what is stored without the policy
		withMe    []string // and with it
	}{
		{"none", nil, nil, []string{v1alpha1.FinalizerName}},
		{"the user's own", []string{other}, []string{other}, []string{other, v1alpha1.FinalizerName}},
		{"already ours", []string{v1alpha1.FinalizerName}, []string{v1alpha1.FinalizerName}, []string{v1alpha1.FinalizerName}},
		{"ours after the user's", []string{other, v1alpha1.FinalizerName}, []string{other, v1alpha1.FinalizerName}, []string{other, v1alpha1.FinalizerName}},
		{"ours first", []string{v1alpha1.FinalizerName, other}, []string{v1alpha1.FinalizerName, other}, []string{v1alpha1.FinalizerName, other}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			le := &v1alpha1.ListEntry{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "entry-", Namespace: ns.Name, Finalizers: slices.Clone(tc.sent)},
				Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: "some-list"}, ID: "10.0.0.1"},
			}
			if err := c.Create(ctx, le); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				le.Finalizers = nil
				if err := c.Update(context.Background(), le); err != nil {
					t.Errorf("drop the finalizers of %s: %v", le.Name, err)
				}
				if err := c.Delete(context.Background(), le); client.IgnoreNotFound(err) != nil {
					t.Error(err)
				}
			})
			stored := &v1alpha1.ListEntry{}
			if err := c.Get(ctx, client.ObjectKeyFromObject(le), stored); err != nil {
				t.Fatal(err)
			}
			want := tc.withoutMe
			if served {
				want = tc.withMe
			}
			if !slices.Equal(stored.Finalizers, want) {
				t.Errorf("sent finalizers %q, stored %q; want %q", tc.sent, stored.Finalizers, want)
			}
		})
	}

	// The policy acts on CREATE only: a finalizer taken off by an update
	// (a user unsticking an entry) stays off.
	t.Run("update", func(t *testing.T) {
		le := &v1alpha1.ListEntry{
			ObjectMeta: metav1.ObjectMeta{GenerateName: "entry-", Namespace: ns.Name},
			Spec:       v1alpha1.ListEntrySpec{ListRef: v1alpha1.ListReference{Name: "some-list"}, ID: "10.0.0.2"},
		}
		if err := c.Create(ctx, le); err != nil {
			t.Fatal(err)
		}
		le.Finalizers = nil
		if err := c.Update(ctx, le); err != nil {
			t.Fatal(err)
		}
		if len(le.Finalizers) != 0 {
			t.Errorf("an update that removes every finalizer stored %q", le.Finalizers)
		}
		if err := c.Delete(ctx, le); err != nil {
			t.Fatal(err)
		}
	})
}

func TestReadKustomizationOfTheFinalizerPolicy(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	objs, err := readKustomization(filepath.Join(root, filepath.FromSlash(FinalizerPolicy)))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, o := range objs {
		if o.GetAPIVersion() != policyGroupVersion {
			t.Errorf("%s %s is %s, want %s", o.GetKind(), o.GetName(), o.GetAPIVersion(), policyGroupVersion)
		}
		kinds = append(kinds, o.GetKind())
	}
	if want := []string{"MutatingAdmissionPolicy", "MutatingAdmissionPolicyBinding"}; !slices.Equal(kinds, want) {
		t.Errorf("%s holds %q, want %q", FinalizerPolicy, kinds, want)
	}
}

func TestInstallsProjectCRDs(t *testing.T) {
	root := filepath.FromSlash("/repo")
	for _, tc := range []struct {
		dir  string
		want bool
	}{
		{"", false},
		{ProjectCRDs, true},
		{"config/crd/bases/", true},
		{filepath.Join(root, "config", "crd", "bases"), true},
		{"testdata/crds", false},
		{filepath.FromSlash("/elsewhere/config/crd/bases"), false},
	} {
		if got := installsProjectCRDs(Options{CRDDirectory: tc.dir}, root); got != tc.want {
			t.Errorf("installsProjectCRDs(%q) = %t, want %t", tc.dir, got, tc.want)
		}
	}
}
