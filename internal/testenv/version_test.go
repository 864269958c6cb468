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
	"os"
	"strings"
	"testing"

	apiversion "k8s.io/apimachinery/pkg/version"
)

// TestServerVersion logs the version of the control plane the package's
// tests ran against (go test -v shows it), and checks it against
// WantMinorEnv as Start did.
func TestServerVersion(t *testing.T) {
	env.Require(t)
	info := env.ServerVersion()
	if info == nil {
		t.Fatal("an available Env has no ServerVersion")
	}
	t.Logf("kube-apiserver %s (%s=%q)", info.GitVersion, WantMinorEnv, os.Getenv(WantMinorEnv))
	again, err := CheckServerVersion(env.Config())
	if err != nil {
		t.Fatal(err)
	}
	if again.GitVersion != info.GitVersion {
		t.Errorf("CheckServerVersion reports %s, Start recorded %s", again.GitVersion, info.GitVersion)
	}
}

func TestCheckMinor(t *testing.T) {
	tests := []struct {
		gitVersion, want string
		wantErr          string // "" for no error
	}{
		{"v1.37.2", "", ""},
		{"v0.0.0-master+$Format:%H$", "", ""},
		{"v1.31.14", "31", ""},
		{"v1.31.2-eks-1234", " 31 ", ""},
		{"v1.37.2", "31", "wants 1.31"},
		{"v2.31.0", "31", "wants 1.31"},
		{"v0.0.0-master+$Format:%H$", "31", "stamped"},
		{"", "31", "not a version"},
		{"v1.31.14", "1.31", "not a minor version"},
	}
	for _, tc := range tests {
		err := checkMinor(&apiversion.Info{GitVersion: tc.gitVersion}, tc.want)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("checkMinor(%q, %q) = %v, want nil", tc.gitVersion, tc.want, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("checkMinor(%q, %q) = %v, want an error with %q", tc.gitVersion, tc.want, err, tc.wantErr)
		}
	}
}
