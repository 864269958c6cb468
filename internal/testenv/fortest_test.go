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
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// TestStartForTest: the control plane StartForTest starts is the test's
// own, not the shared one (it has no CRDs where the shared one serves
// listkeeper's), and it is gone once the test that started it is done.
func TestStartForTest(t *testing.T) {
	env.Require(t)
	var own *Env
	t.Run("own", func(t *testing.T) {
		own = StartForTest(t, Options{})
		if own.Config().Host == env.Config().Host {
			t.Fatalf("StartForTest returned the shared control plane at %s", own.Config().Host)
		}
		ctx := context.Background()
		err := own.Client().List(ctx, &v1alpha1.ListEntryList{})
		if !meta.IsNoMatchError(err) {
			t.Errorf("list ListEntries on the test's own control plane: %v, want no match (no CRDs there)", err)
		}
		if err := env.Client().List(ctx, &v1alpha1.ListEntryList{}); err != nil {
			t.Errorf("list ListEntries on the shared control plane: %v", err)
		}
	})
	if own == nil {
		t.Fatal("the subtest did not start a control plane")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := own.Client().List(ctx, &corev1.NamespaceList{}); err == nil {
		t.Error("the test's own control plane still serves after its test is done")
	}
}

// TestStartForTestNotAvailable: without binaries StartForTest fails the
// test at once, with the reason.
func TestStartForTestNotAvailable(t *testing.T) {
	r := &recordingTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		StartForTest(r, Options{Assets: t.TempDir()})
		t.Error("StartForTest returned without a control plane")
	}()
	<-done
	if !r.failed || !strings.Contains(r.msg, "lack kube-apiserver") {
		t.Errorf("StartForTest failed = %t with %q; want it to fail with the reason", r.failed, r.msg)
	}
}
