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
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// kubectlUser is the envtest user whose kubeconfig kubectl uses.
const kubectlUser = "kubectl"

// kubectlPath is the kubectl the tests run.
const kubectlPath = "/usr/bin/kubectl"

// kubectl runs kubectl against the envtest API server and returns its
// combined output.
func kubectl(t *testing.T, args ...string) (string, error) {
	t.Helper()
	kubeconfig, err := testEnv.Kubeconfig(kubectlUser)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath(kubectlPath); err != nil {
		t.Fatalf("kubectl is needed for this test: %v", err)
	}
	args = append([]string{"--kubeconfig", kubeconfig, "--cache-dir", t.TempDir()}, args...)
	out, err := exec.CommandContext(ctxFor(t), kubectlPath, args...).CombinedOutput()
	return string(out), err
}

// TestKubectlWait: kubectl wait --for=condition=Ready succeeds for an entry
// whose ID is on the list, and times out for one that cannot get there.
func TestKubectlWait(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	good, bad := listPath(t, ns)+"-good", listPath(t, ns)+"-bad"
	setDoc(t, sharedLists, good, []string{})
	setDoc(t, sharedLists, bad, map[string]any{"not": "a list"})
	create(t, newExternalList(ns, "good", sharedListsURL+good))
	create(t, newExternalList(ns, "bad", sharedListsURL+bad))
	create(t, newListEntry(ns, "good-entry", "good", "w-1"))
	failing := newListEntry(ns, "bad-entry", "bad", "w-2")
	create(t, failing)

	out, err := kubectl(t, "wait", "-n", ns, "--for=condition=Ready", "listentry/good-entry", "--timeout=60s")
	if err != nil {
		t.Fatalf("kubectl wait for the good entry: %v\n%s", err, out)
	}
	if !strings.Contains(out, "condition met") {
		t.Errorf("kubectl wait said %q, want condition met", out)
	}

	// The failing entry has failed (not merely not started) before kubectl
	// waits for it.
	waitCondition(t, failing, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonInvalidDocument, waitTimeout)
	out, err = kubectl(t, "wait", "-n", ns, "--for=condition=Ready", "listentry/bad-entry", "--timeout=3s")
	if err == nil {
		t.Fatalf("kubectl wait succeeded for an entry on an invalid document:\n%s", out)
	}
	if !strings.Contains(out, "timed out") {
		t.Errorf("kubectl wait failed with %q, want a time-out", out)
	}
}

// TestPrinterColumns: what kubectl get shows. The Ready reason is in the
// default view and the message only in -o wide, and a token in spec.url's
// query shows in neither (nor in the Table the API server serves).
func TestPrinterColumns(t *testing.T) {
	t.Parallel()
	ns := newNamespace(t)
	startManager(t, managerConfig{namespace: ns})
	const token = "s3cr3t-T0KEN"
	path := listPath(t, ns)
	setDoc(t, sharedLists, path, []string{})
	xl := newExternalList(ns, "tokened", sharedListsURL+path+"?sig="+token)
	create(t, xl)
	e := newListEntry(ns, "tokened-entry", "tokened", "p-1")
	create(t, e)
	waitCondition(t, e, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonAdded, waitTimeout)
	waitCondition(t, xl, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonReady, waitTimeout)
	if !strings.HasSuffix(xl.Status.RedactedURL, path) || strings.Contains(xl.Status.RedactedURL, "sig") || strings.Contains(xl.Status.RedactedURL, token) {
		t.Errorf("status.redactedURL = %q, want the URL without its query", xl.Status.RedactedURL)
	}

	for _, resource := range []string{"externallists", "listentries"} {
		t.Run("table "+resource, func(t *testing.T) {
			table, raw := getTable(t, "/apis/listkeeper.dev/v1alpha1/namespaces/"+ns+"/"+resource)
			priority := map[string]int32{}
			for _, c := range table.ColumnDefinitions {
				priority[c.Name] = c.Priority
			}
			if p, ok := priority["Reason"]; !ok || p != 0 {
				t.Errorf("Reason column priority = %d (present %t), want 0 (default view)", p, ok)
			}
			if p, ok := priority["Message"]; !ok || p == 0 {
				t.Errorf("Message column priority = %d (present %t), want > 0 (wide only)", p, ok)
			}
			if strings.Contains(raw, token) {
				t.Errorf("the token shows in the Table:\n%s", raw)
			}
			if len(table.Rows) != 1 {
				t.Errorf("rows = %d, want 1", len(table.Rows))
			}
		})
	}

	for _, tc := range []struct{ resource, name string }{{"externallist", "tokened"}, {"listentry", "tokened-entry"}} {
		t.Run("kubectl get "+tc.resource, func(t *testing.T) {
			def, err := kubectl(t, "get", "-n", ns, tc.resource, tc.name)
			if err != nil {
				t.Fatalf("kubectl get: %v\n%s", err, def)
			}
			wide, err := kubectl(t, "get", "-n", ns, tc.resource, tc.name, "-o", "wide")
			if err != nil {
				t.Fatalf("kubectl get -o wide: %v\n%s", err, wide)
			}
			defHeader, wideHeader := firstLine(def), firstLine(wide)
			if !strings.Contains(defHeader, "REASON") || strings.Contains(defHeader, "MESSAGE") {
				t.Errorf("default view header %q, want REASON and no MESSAGE", defHeader)
			}
			if !strings.Contains(wideHeader, "REASON") || !strings.Contains(wideHeader, "MESSAGE") {
				t.Errorf("wide view header %q, want REASON and MESSAGE", wideHeader)
			}
			if strings.Contains(def+wide, token) {
				t.Errorf("the token shows in kubectl get:\n%s\n%s", def, wide)
			}
		})
	}
	wide, err := kubectl(t, "get", "-n", ns, "externallist", "tokened", "-o", "wide")
	if err != nil || !strings.Contains(wide, path) || strings.Contains(wide, "sig=") {
		t.Errorf("the wide view should show the redacted URL (err %v):\n%s", err, wide)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// getTable asks the API server for the Table form of path, as kubectl get
// does, and returns it decoded and raw.
func getTable(t *testing.T, path string) (*metav1.Table, string) {
	t.Helper()
	hc, err := rest.HTTPClientFor(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, strings.TrimRight(restConfig.Host, "/")+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s as Table: %s\n%s", path, resp.Status, body)
	}
	table := &metav1.Table{}
	if err := json.Unmarshal(body, table); err != nil {
		t.Fatalf("decode Table: %v\n%s", err, body)
	}
	return table, string(body)
}
