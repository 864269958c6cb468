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

package config_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// placeholder is what every secret value of the samples holds in place of a
// real credential: obviously fake, and nothing a secret scanner takes for a
// key.
const placeholder = "REPLACE-ME"

// storeSamples are the directories of config/samples that a user copies
// for each kind of list, and what each must show.
var storeSamples = map[string]func(t *testing.T, s *sampleSet){
	"http": func(t *testing.T, s *sampleSet) {
		l := s.one(t, "ExternalList", "http-allow-list")
		s.wantField(t, l, "http-allow-list-auth", "spec", "headersFrom", "secretRef", "name")
		s.wantKeys(t, "http-allow-list-auth", "Authorization")
		e := s.one(t, "ListEntry", "shared-tenant-a")
		if k, _, _ := unstructured.NestedString(e.Object, "spec", "listRef", "kind"); k != "ClusterExternalList" {
			t.Errorf("ListEntry shared-tenant-a refers to a %q, want the ClusterExternalList of http/cluster", k)
		}
	},
	"http/cluster": func(t *testing.T, s *sampleSet) {
		l := s.one(t, "ClusterExternalList", "shared-allow-list")
		if sel, ok, _ := unstructured.NestedStringMap(l.Object, "spec", "namespaceSelector", "matchLabels"); !ok || len(sel) == 0 {
			t.Errorf("ClusterExternalList %s selects no namespace by label", l.GetName())
		}
		if ns := s.one(t, "Secret", "shared-allow-list-auth").GetNamespace(); ns != systemNamespace {
			t.Errorf("the ClusterExternalList's Secret is in namespace %q, want the operator's, %s", ns, systemNamespace)
		}
	},
	"s3": func(t *testing.T, s *sampleSet) {
		l := s.one(t, "ExternalList", "s3-allow-list")
		s.wantField(t, l, "s3-credentials", "spec", "auth", "aws", "secretRef", "name")
		s.wantKeys(t, "s3-credentials", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
	},
	"gcs": func(t *testing.T, s *sampleSet) {
		l := s.one(t, "ExternalList", "gcs-allow-list")
		s.wantField(t, l, "gcs-credentials", "spec", "auth", "gcp", "secretRef", "name")
		s.wantKeys(t, "gcs-credentials", "credentials.json")
		var key map[string]string
		if err := json.Unmarshal([]byte(s.secretData(t, "gcs-credentials")["credentials.json"]), &key); err != nil {
			t.Fatalf("credentials.json is not a JSON object of strings: %v", err)
		}
		if key["type"] != "service_account" || key["token_uri"] != "https://oauth2.googleapis.com/token" {
			t.Errorf("credentials.json has type %q and token_uri %q, want a service-account key with Google's token endpoint", key["type"], key["token_uri"])
		}
	},
	"wafv2": func(t *testing.T, s *sampleSet) {
		l := s.one(t, "ExternalList", "wafv2-egress-allow")
		s.wantField(t, l, "wafv2-credentials", "spec", "auth", "aws", "secretRef", "name")
		s.wantKeys(t, "wafv2-credentials", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")
	},
	"gcpiam": func(t *testing.T, s *sampleSet) {
		l := s.one(t, "ExternalList", "gcpiam-bucket-readers")
		s.wantField(t, l, "gcpiam-credentials", "spec", "auth", "gcp", "secretRef", "name")
		s.wantKeys(t, "gcpiam-credentials", "credentials.json")
	},
	"azure": func(t *testing.T, s *sampleSet) {
		l := s.one(t, "ExternalList", "azure-allow-list")
		s.wantField(t, l, "azure-account", "spec", "auth", "azure", "sharedKey", "secretRef", "name")
		s.wantKeys(t, "azure-account", "accountName", "accountKey")
		sas := s.one(t, "ExternalList", "azure-sas-allow-list")
		if _, ok, _ := unstructured.NestedMap(sas.Object, "spec", "auth"); ok {
			t.Errorf("the SAS list has spec.auth; a SAS URL is its own credential")
		}
		s.wantField(t, sas, "azure-sas", "spec", "urlFrom", "secretKeyRef", "name")
	},
}

// sampleSet is one rendered sample directory.
type sampleSet struct {
	dir  string
	docs []document
}

func (s *sampleSet) find(kind, name string) *unstructured.Unstructured {
	for _, d := range s.docs {
		if d.obj.GetKind() == kind && d.obj.GetName() == name {
			return d.obj
		}
	}
	return nil
}

func (s *sampleSet) one(t *testing.T, kind, name string) *unstructured.Unstructured {
	t.Helper()
	o := s.find(kind, name)
	if o == nil {
		t.Fatalf("config/samples/%s has no %s %s", s.dir, kind, name)
	}
	return o
}

func (s *sampleSet) wantField(t *testing.T, o *unstructured.Unstructured, want string, path ...string) {
	t.Helper()
	if got, _, _ := unstructured.NestedString(o.Object, path...); got != want {
		t.Errorf("%s %s: %s = %q, want %q", o.GetKind(), o.GetName(), strings.Join(path, "."), got, want)
	}
}

// secretData returns a Secret's stringData and data, the latter decoded.
func (s *sampleSet) secretData(t *testing.T, name string) map[string]string {
	t.Helper()
	o := s.one(t, "Secret", name)
	out, _, _ := unstructured.NestedStringMap(o.Object, "stringData")
	if out == nil {
		out = map[string]string{}
	}
	if data, _, _ := unstructured.NestedStringMap(o.Object, "data"); len(data) > 0 {
		t.Errorf("Secret %s uses data; the samples use stringData, which a user can read and edit", name)
	}
	return out
}

func (s *sampleSet) wantKeys(t *testing.T, secret string, keys ...string) {
	t.Helper()
	data := s.secretData(t, secret)
	for _, k := range keys {
		if _, ok := data[k]; !ok {
			t.Errorf("Secret %s has no key %s", secret, k)
		}
	}
}

// sampleDirs returns every directory under config/samples with a
// kustomization.yaml, config/samples itself (the demo's) left out.
func sampleDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir("samples", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "kustomization.yaml" || filepath.Dir(path) == "samples" {
			return err
		}
		dirs = append(dirs, filepath.ToSlash(strings.TrimPrefix(filepath.Dir(path), "samples"+string(filepath.Separator))))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	return dirs
}

// TestStoreSamplesAccepted renders each sample directory under
// config/samples with kubectl kustomize and has the API server accept every
// object (server-side dry run), as `kubectl apply -k` would send it: into a
// namespace of the test's, unless the objects name their own. Each sample
// is also checked for what a user copies it for: its lists name Secrets and
// lists of the same directory, speak https, hold their own documents, and
// carry only placeholder credentials.
func TestStoreSamplesAccepted(t *testing.T) {
	env.Require(t)
	crds := split(t, render(t, "crd"))
	var crdNames []string
	for _, d := range crds {
		crdNames = append(crdNames, "crd/"+d.obj.GetName())
	}
	kubectl(t, join(crds), "apply", "-f", "-")
	kubectl(t, nil, append([]string{"wait", "--for=condition=Established", "--timeout=60s"}, crdNames...)...)

	dirs := sampleDirs(t)
	for dir := range storeSamples {
		if !slices.Contains(dirs, dir) {
			t.Errorf("config/samples/%s is missing", dir)
		}
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			s := &sampleSet{dir: dir, docs: split(t, render(t, filepath.Join("samples", dir)))}
			if len(s.docs) == 0 {
				t.Fatal("renders no object")
			}
			checkSample(t, s)
			if check := storeSamples[dir]; check != nil {
				check(t, s)
			} else {
				t.Errorf("config/samples/%s has no entry in storeSamples: say what it must show", dir)
			}

			args := []string{"apply", "--dry-run=server", "-f", "-"}
			namespaces := map[string]bool{}
			for _, d := range s.docs {
				if ns := d.obj.GetNamespace(); ns != "" {
					namespaces[ns] = true
				}
			}
			if len(namespaces) == 0 {
				ns := "samples-" + strings.ReplaceAll(dir, "/", "-")
				namespaces[ns] = true
				args = append(args, "--namespace="+ns)
			}
			for ns := range namespaces {
				kubectl(t, []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+ns+"\n"), "apply", "-f", "-")
			}
			out := kubectl(t, join(s.docs), args...)
			if n := strings.Count(out, "(server dry run)"); n != len(s.docs) {
				t.Errorf("%d of %d objects accepted:\n%s", n, len(s.docs), out)
			}
		})
	}
}

// checkSample checks what every sample directory must get right: the
// Secrets and lists its objects name are in it, every list speaks https
// and names a document no other list of the sample names, and every Secret
// value is a placeholder.
func checkSample(t *testing.T, s *sampleSet) {
	t.Helper()
	documents := map[string]string{}
	for _, d := range s.docs {
		o := d.obj
		switch o.GetKind() {
		case "Secret":
			for k, v := range s.secretData(t, o.GetName()) {
				if !strings.Contains(v, placeholder) {
					t.Errorf("Secret %s key %s holds no %s: every credential in a sample must be an obvious placeholder", o.GetName(), k, placeholder)
				}
			}
		case "ListEntry":
			kind, _, _ := unstructured.NestedString(o.Object, "spec", "listRef", "kind")
			if kind == "" {
				kind = "ExternalList"
			}
			name, _, _ := unstructured.NestedString(o.Object, "spec", "listRef", "name")
			if kind == "ClusterExternalList" && s.dir == "http" {
				continue // http/cluster makes it
			}
			if s.find(kind, name) == nil {
				t.Errorf("ListEntry %s refers to %s %s, which the sample does not have", o.GetName(), kind, name)
			}
		case "ExternalList", "ClusterExternalList":
			spec, _, _ := unstructured.NestedMap(o.Object, "spec")
			if insecure, _, _ := unstructured.NestedBool(spec, "allowInsecureHTTP"); insecure {
				t.Errorf("%s %s sets allowInsecureHTTP; a sample must show https", o.GetKind(), o.GetName())
			}
			for _, ref := range secretRefs(spec) {
				if s.find("Secret", ref) == nil {
					t.Errorf("%s %s names Secret %s, which the sample does not have", o.GetKind(), o.GetName(), ref)
				}
			}
			if backendSample(spec) {
				// No URL: a provider's API, at its public endpoint.
				for _, f := range []string{"wafv2", "gcpIAM"} {
					if ep, ok, _ := unstructured.NestedString(spec, f, "endpoint"); ok {
						t.Errorf("%s %s sets %s.endpoint %q; a sample uses the provider's own", o.GetKind(), o.GetName(), f, ep)
					}
				}
				continue
			}
			raw, _, _ := unstructured.NestedString(spec, "url")
			if name, _, _ := unstructured.NestedString(spec, "urlFrom", "secretKeyRef", "name"); name != "" {
				key, _, _ := unstructured.NestedString(spec, "urlFrom", "secretKeyRef", "key")
				raw = s.secretData(t, name)[key]
			}
			u, err := url.Parse(raw)
			if err != nil || u.Scheme != "https" || u.Host == "" {
				t.Errorf("%s %s: url %q is not an https URL", o.GetKind(), o.GetName(), raw)
				continue
			}
			pointer, _, _ := unstructured.NestedString(spec, "itemsPointer")
			doc := strings.ToLower(u.Host) + u.Path + " " + pointer
			if other, ok := documents[doc]; ok {
				t.Errorf("%s %s and %s name the same document: one of them would be DocumentInUse", o.GetKind(), o.GetName(), other)
			}
			documents[doc] = o.GetName()
		}
	}
}

// secretRefs returns the names of the Secrets a list spec reads.
func secretRefs(spec map[string]any) []string {
	var out []string
	for _, path := range [][]string{
		{"headersFrom", "secretRef", "name"},
		{"urlFrom", "secretKeyRef", "name"},
		{"auth", "aws", "secretRef", "name"},
		{"auth", "gcp", "secretRef", "name"},
		{"auth", "azure", "sharedKey", "secretRef", "name"},
	} {
		if name, _, _ := unstructured.NestedString(spec, path...); name != "" {
			out = append(out, name)
		}
	}
	return out
}

// backendSample reports whether a list's spec names a list behind a
// provider's API (spec.wafv2, spec.gcpIAM) instead of a URL.
func backendSample(spec map[string]any) bool {
	for _, f := range []string{"wafv2", "gcpIAM"} {
		if _, ok, _ := unstructured.NestedMap(spec, f); ok {
			return true
		}
	}
	return false
}
