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

// Package testenv is the one shared test environment of listkeeper's
// envtest suites: it finds the kube-apiserver and etcd binaries, starts
// them once per test binary through controller-runtime's envtest, and
// reports uniformly when they are not available. It is for tests only:
// import it from _test.go files (the e2e harness also takes RepoRoot,
// DefaultAssets and CheckAssets from it).
//
// A package's TestMain is a few lines:
//
//	var env *testenv.Env
//
//	func TestMain(m *testing.M) {
//		os.Exit(testenv.Main(m, testenv.Options{CRDDirectory: testenv.ProjectCRDs}, func(e *testenv.Env) error {
//			env = e
//			return nil
//		}))
//	}
//
// and a test that needs the control plane starts with env.Require(t), then
// uses env.Client() or env.Config().
//
// # Finding the binaries
//
// A KUBEBUILDER_ASSETS set by the user wins; otherwise the binaries are
// taken from bin/k8s at the module root, where 'make envtest-assets' builds
// them ('make test' always does). RepoRoot finds the module root from the
// working directory, which go test sets to the package's directory.
//
// # Kubernetes version
//
// Start reads the kube-apiserver's version (GET /version; Env.ServerVersion
// returns it). When LISTKEEPER_WANT_KUBE_MINOR is set, as 'make
// test-compat' sets it to 31, a control plane of another minor version is
// not available, and every test that needs it fails: a compatibility run
// cannot pass on the newest binaries by mistake. The Makefile stamps the
// version into the kube-apiserver it builds; one built without it reports
// v0.0.0 and never matches.
//
// # The finalizer policy
//
// With ProjectCRDs, on a kube-apiserver that serves
// admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (1.36 and later:
// bin/k8s, 'make test'), Start also installs the policy and binding of
// config/finalizer-policy, the files users install, and waits until a
// dry-run ListEntry comes back with the cleanup finalizer; Env.FinalizerPolicy
// reports it. On 1.31 ('make test-compat') the kinds do not exist and
// nothing is installed, so the envtest suites run both paths of the
// operator: the finalizer from birth, and the finalizer the operator patches
// on. Options.WithoutFinalizerPolicy leaves the policy out everywhere;
// InstallFinalizerPolicy does the same for a control plane started
// elsewhere.
//
// # Not available
//
// When the binaries are missing or the control plane does not start, Start
// still returns an Env that records why. Require then fails the test with
// that reason; it never skips, because a missing control plane is a broken
// setup, not an optional test. Tests that do not need the control plane
// run as usual.
//
// # Scope and limitations
//
//   - One control plane per test binary, shared by all its tests: tests
//     keep apart by namespace or by name, and cluster-scoped objects (CRDs,
//     ClusterRoles) are seen by every test of the package. No test deletes
//     or replaces what the shared control plane serves: a test that needs
//     a cluster without listkeeper's CRDs, or changes them, starts a
//     control plane of its own with StartForTest, which stops it when the
//     test is done.
//   - The control plane's processes are envtest's: Stop must run (Main
//     defers it), or kube-apiserver and etcd outlive the test binary.
//   - The end-to-end harness (test/e2e/harness) starts its own control plane
//     with log files and a kubeconfig on disk for manager processes; it
//     shares only the finding of the binaries with this package.
package testenv
