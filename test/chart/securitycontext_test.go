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

package chart_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// TestSecurityContextOpenShift: podSecurityContext and securityContext are
// values; a key set to null is removed. OpenShift's restricted SCC assigns
// each namespace's user and group itself and refuses the image's fixed
// 65532, so a user there removes runAsUser and runAsGroup; the rest of the
// defaults stay, and the pod still passes the "restricted" Pod Security
// Standard. (The defaults themselves are held to config/manager's by
// TestKustomizeAndChartAgree.)
func TestSecurityContextOpenShift(t *testing.T) {
	env.Require(t)
	const ns = "lk-openshift"
	r := render(t, renderOpts{release: "lko", namespace: ns, values: map[string]any{
		"securityContext":    map[string]any{"runAsUser": nil, "runAsGroup": nil},
		"podSecurityContext": map[string]any{"fsGroupChangePolicy": "OnRootMismatch"},
	}})
	d := one[appsv1.Deployment](t, r, "Deployment")
	sc := managerContainer(t, d).SecurityContext
	if sc == nil {
		t.Fatal("the manager has no securityContext")
	}
	if sc.RunAsUser != nil || sc.RunAsGroup != nil {
		t.Errorf("runAsUser %v, runAsGroup %v: set to null, they must be gone", sc.RunAsUser, sc.RunAsGroup)
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("securityContext %+v lost a default it was not asked to drop", sc)
	}
	psc := d.Spec.Template.Spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.SeccompProfile == nil ||
		psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault || psc.FSGroupChangePolicy == nil {
		t.Errorf("pod securityContext %+v: want the defaults and fsGroupChangePolicy", psc)
	}
	applyAndDryRun(t, r, ns)
	checkRestrictedPod(t, ns, d)
}
