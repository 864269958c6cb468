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
	"fmt"
	"os"
	"strconv"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	apiversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// WantMinorEnv names the environment variable that holds the Kubernetes
// minor version the control plane must serve, such as 31 for 1.31. When it
// is set, Start (and CheckServerVersion) fail unless the kube-apiserver
// reports that minor. 'make test-compat' sets it, so that a compatibility
// run that picked up other binaries (a stale KUBEBUILDER_ASSETS, bin/k8s)
// fails instead of passing against the newest version.
const WantMinorEnv = "LISTKEEPER_WANT_KUBE_MINOR"

// ServerVersion returns the version the kube-apiserver at cfg reports
// (GET /version).
func ServerVersion(cfg *rest.Config) (*apiversion.Info, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(rest.CopyConfig(cfg))
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	info, err := dc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("server version: %w", err)
	}
	return info, nil
}

// CheckServerVersion returns the server's version and, when WantMinorEnv
// is set, an error unless the server reports that minor version.
func CheckServerVersion(cfg *rest.Config) (*apiversion.Info, error) {
	info, err := ServerVersion(cfg)
	if err != nil {
		return nil, err
	}
	return info, checkMinor(info, os.Getenv(WantMinorEnv))
}

// checkMinor returns an error unless info is of Kubernetes 1.<want>; an
// empty want accepts any version. The minor is read from GitVersion: a
// kube-apiserver built without the version stamped in (-ldflags -X
// k8s.io/component-base/version.gitVersion=...) reports v0.0.0-master and
// never matches.
func checkMinor(info *apiversion.Info, want string) error {
	if want == "" {
		return nil
	}
	wantMinor, err := strconv.ParseUint(strings.TrimSpace(want), 10, 32)
	if err != nil {
		return fmt.Errorf("%s=%q is not a minor version such as 31", WantMinorEnv, want)
	}
	v, err := utilversion.ParseGeneric(info.GitVersion)
	if err != nil {
		return fmt.Errorf("kube-apiserver reports version %q, not a version: %s=%s wants 1.%d", info.GitVersion, WantMinorEnv, want, wantMinor)
	}
	if v.Major() != 1 || uint64(v.Minor()) != wantMinor {
		return fmt.Errorf("kube-apiserver is %s, but %s=%s wants 1.%d: check KUBEBUILDER_ASSETS (a binary built without its version stamped in reports v0.0.0)", info.GitVersion, WantMinorEnv, want, wantMinor)
	}
	return nil
}
