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

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/version"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+) \(profile ([a-z0-9-]+),`)

// startRun runs run with args in the background and returns the base URL it
// printed and a function that cancels it and returns its error.
func startRun(t *testing.T, args ...string) (base string, stop func() error) {
	t.Helper()
	base, _, stop = startRunProfile(t, args...)
	return base, stop
}

// startRunProfile is startRun that also returns the profile the start line
// names.
func startRunProfile(t *testing.T, args ...string) (base, profile string, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, args, pw, io.Discard)
		_ = pw.CloseWithError(io.EOF)
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no start line (%v); run: %v", err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	m := listening.FindStringSubmatch(line)
	if m == nil {
		cancel()
		if err := <-done; err != nil {
			t.Log(err)
		}
		t.Fatalf("start line %q does not say where it listens and with which profile", line)
	}
	return m[1], m[2], func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("run did not return after cancel")
			return nil
		}
	}
}

// reply is what do keeps of a response, whose body it has read and closed.
type reply struct {
	StatusCode int
	Header     http.Header
}

func do(t *testing.T, c *http.Client, method, url, body string, header map[string]string) (*reply, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return &reply{StatusCode: resp.StatusCode, Header: resp.Header}, string(b)
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("t0ken\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{
		"--addr", "127.0.0.1:0", "--state-file", state, "--token-file", tokenFile,
		"--history", "--seed-doc", `/lists/a={"items":["a"]}`,
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	auth := map[string]string{"Authorization": "Bearer t0ken"}

	base, stop := startRun(t, args...)
	if resp, _ := do(t, c, "GET", base+"/lists/a", "", nil); resp.StatusCode != 401 {
		t.Fatalf("GET without token = %d, want 401", resp.StatusCode)
	}
	resp, body := do(t, c, "GET", base+"/lists/a", "", auth)
	if resp.StatusCode != 200 || body != `{"items":["a"]}` {
		t.Fatalf("GET = %d %q", resp.StatusCode, body)
	}
	put := map[string]string{"Authorization": auth["Authorization"], "If-Match": resp.Header.Get("ETag")}
	if resp, _ := do(t, c, "PUT", base+"/lists/a", `{"items":["a","b"]}`, put); resp.StatusCode != 200 {
		t.Fatalf("PUT = %d", resp.StatusCode)
	}
	resp, body = do(t, c, "GET", base+"/_fakeapi/stats", "", auth)
	var st fakeapi.Stats
	if err := json.Unmarshal([]byte(body), &st); err != nil || st.Commits != 1 {
		t.Fatalf("stats = %d %s (%v)", resp.StatusCode, body, err)
	}
	if err := stop(); err != nil {
		t.Fatalf("run: %v", err)
	}

	// Restart on the same state file: the write survives and --seed-doc does
	// not overwrite it.
	base, stop = startRun(t, args...)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	if _, body := do(t, c, "GET", base+"/lists/a", "", auth); body != `{"items":["a","b"]}` {
		t.Fatalf("after restart GET = %q", body)
	}
	if resp, _ := do(t, c, "GET", base+"/_fakeapi/healthz", "", nil); resp.StatusCode != 200 {
		t.Fatalf("healthz = %d", resp.StatusCode)
	}
}

func TestRunRejectsBadFlags(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
	}{
		{"unknown flag", []string{"--nope"}},
		{"positional argument", []string{"extra"}},
		{"rate above 1", []string{"--rate-503", "1.5"}},
		{"rates sum above 1", []string{"--rate-503", "0.6", "--rate-reset", "0.6"}},
		{"seed doc without =", []string{"--seed-doc", "/lists/a"}},
		{"seed doc relative path", []string{"--seed-doc", `lists/a=[]`}},
		{"seed doc missing file", []string{"--seed-doc", "/lists/a=@" + filepath.Join(dir, "missing.json")}},
		{"seed doc not json", []string{"--seed-doc", "/lists/a=@" + writeFile(t, dir, "bad.json", "{")}},
		{"token and token file", []string{"--token", "a", "--token-file", writeFile(t, dir, "tok", "b")}},
		{"empty token file", []string{"--token-file", writeFile(t, dir, "empty", "\n")}},
		{"bad max body", []string{"--max-body-bytes", "0"}},
		{"bad address", []string{"--addr", "127.0.0.1:notaport"}},
		{"unknown profile", []string{"--profile", "minio"}},
		{"empty profile", []string{"--profile", ""}},
		{"negative weak window", []string{"--profile", "webdav", "--weak-window", "-1s"}},
		{"negative hold", []string{"--hold-writes", "-1s"}},
		{"hold rate without hold", []string{"--hold-writes-rate", "0.5"}},
		{"hold rate above 1", []string{"--hold-writes", "1s", "--hold-writes-rate", "1.5"}},
		{"hold and drop above 1", []string{"--hold-writes", "1s", "--rate-commit-drop", "0.5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := run(context.Background(), tt.args, io.Discard, io.Discard); err == nil {
				t.Fatal("run succeeded, want an error")
			}
		})
	}
}

// TestRunHoldWrites starts run with --hold-writes and checks that a PUT is
// held and a GET is not, that /_fakeapi/faults reports the hold, and that
// it can be switched off there at run time.
func TestRunHoldWrites(t *testing.T) {
	const hold = 200 * time.Millisecond
	base, stop := startRun(t, "--addr", "127.0.0.1:0", "--hold-writes", hold.String(), "--seed-doc", `/lists/a={"items":[]}`)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	timed := func(method, path, body string, header map[string]string) (*reply, string, time.Duration) {
		begin := time.Now()
		resp, b := do(t, c, method, base+path, body, header)
		return resp, b, time.Since(begin)
	}
	resp, _, took := timed("GET", "/lists/a", "", nil)
	if resp.StatusCode != 200 || took >= hold {
		t.Fatalf("GET = %d after %v, want 200 without a hold", resp.StatusCode, took)
	}
	resp, _, took = timed("PUT", "/lists/a", `{"items":["x"]}`, map[string]string{"If-Match": resp.Header.Get("ETag")})
	if resp.StatusCode != 200 || took < hold {
		t.Errorf("PUT = %d after %v, want 200 after a hold of %v", resp.StatusCode, took, hold)
	}
	_, body, _ := timed("GET", "/_fakeapi/faults", "", nil)
	var f fakeapi.Faults
	if err := json.Unmarshal([]byte(body), &f); err != nil || f != (fakeapi.Faults{RetryAfter: fakeapi.DefaultRetryAfter, RateHoldWrites: 1, HoldWrites: hold}) {
		t.Errorf("GET /_fakeapi/faults = %s (%+v, %v), want every write held %v", body, f, err, hold)
	}
	if resp, _, _ := timed("PUT", "/_fakeapi/faults", `{}`, nil); resp.StatusCode != 204 {
		t.Fatalf("PUT /_fakeapi/faults = %d", resp.StatusCode)
	}
	if resp, _, took := timed("PUT", "/lists/b", `{"items":[]}`, map[string]string{"If-None-Match": "*"}); resp.StatusCode != 201 || took >= hold {
		t.Errorf("PUT after switching the hold off = %d after %v, want 201 at once", resp.StatusCode, took)
	}
}

func TestSeedDocValue(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "doc.json", `["from file"]`)
	tests := []struct {
		value    string
		wantBody string
	}{
		{`/a=["inline"]`, `["inline"]`},
		{`/a={"x":1}`, `{"x":1}`},
		{"/a=@" + file, `["from file"]`},
		{"/a=" + file, `["from file"]`},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			var s seedDocs
			if err := s.Set(tt.value); err != nil {
				t.Fatal(err)
			}
			if len(s) != 1 || s[0].path != "/a" || string(s[0].body) != tt.wantBody {
				t.Fatalf("got %+v, want /a %s", s, tt.wantBody)
			}
		})
	}
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunProfile starts the binary's run under each profile and checks
// that the start line names it and that the server behaves like it: a PUT
// without any precondition is refused (428) by strict servers only (and
// by gcs with 401 when it carries no bearer token), and each profile
// answers a create in its own way.
func TestRunProfile(t *testing.T) {
	tests := []struct {
		args        []string
		wantProfile string
		wantCode    int    // PUT /lists/new without precondition
		wantETag    string // regexp for the ETag of GET /lists/a; "" for none
		bearer      bool   // the PUT carries a bearer token
	}{
		{args: nil, wantProfile: "strict", wantCode: 428, wantETag: `^"v\d+-[0-9a-f]{16}"$`},
		{args: []string{"--profile", "strict"}, wantProfile: "strict", wantCode: 428, wantETag: `^"v\d+-[0-9a-f]{16}"$`},
		{args: []string{"--profile", "s3"}, wantProfile: "s3", wantCode: 200, wantETag: `^"[0-9a-f]{32}"$`},
		{args: []string{"--profile=azure-blob"}, wantProfile: "azure-blob", wantCode: 201, wantETag: `^"0x8D[0-9A-F]{13}"$`},
		// Weak for a second after the seed document was written, unless
		// the machine was slow to send the GET.
		{args: []string{"--profile", "webdav"}, wantProfile: "webdav", wantCode: 201, wantETag: `^(W/)?"[0-9a-f]+-[0-9a-f]{13}"$`},
		{args: []string{"--profile", "webdav", "--weak-window", "0"}, wantProfile: "webdav", wantCode: 201, wantETag: `^"[0-9a-f]+-[0-9a-f]{13}"$`},
		{args: []string{"--profile", "quirky"}, wantProfile: "quirky", wantCode: 428, wantETag: `^"v\d+-[0-9a-f]{16}"$`},
		{args: []string{"--profile", "gcs"}, wantProfile: "gcs", wantCode: 401, wantETag: `^"[0-9a-f]{32}"$`},
		{args: []string{"--profile", "gcs"}, wantProfile: "gcs", wantCode: 200, wantETag: `^"[0-9a-f]{32}"$`, bearer: true},
	}
	tr := &http.Transport{DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s bearer %v", strings.Join(tt.args, " "), tt.bearer), func(t *testing.T) {
			args := append([]string{"--addr", "127.0.0.1:0", "--seed-doc", `/lists/a=["a"]`}, tt.args...)
			base, profile, stop := startRunProfile(t, args...)
			defer func() {
				if err := stop(); err != nil {
					t.Errorf("run: %v", err)
				}
			}()
			if profile != tt.wantProfile {
				t.Errorf("start line names profile %q, want %q", profile, tt.wantProfile)
			}
			resp, _ := do(t, c, "GET", base+"/lists/a", "", nil)
			if !regexp.MustCompile(tt.wantETag).MatchString(resp.Header.Get("ETag")) {
				t.Errorf("ETag = %q, want %s", resp.Header.Get("ETag"), tt.wantETag)
			}
			if gen := resp.Header.Get(fakeapi.HeaderGeneration); (gen != "") != (tt.wantProfile == "gcs") {
				t.Errorf("%s = %q under %s", fakeapi.HeaderGeneration, gen, tt.wantProfile)
			}
			header := map[string]string{"x-ms-blob-type": "BlockBlob"}
			if tt.bearer {
				header["Authorization"] = "Bearer any"
			}
			resp, body := do(t, c, "PUT", base+"/lists/new", `["b"]`, header)
			if resp.StatusCode != tt.wantCode {
				t.Errorf("PUT without precondition = %d %q, want %d", resp.StatusCode, body, tt.wantCode)
			}
		})
	}
}

// TestHelpListsProfiles checks that -h names every profile, and that an
// unknown one is refused with the valid names.
func TestHelpListsProfiles(t *testing.T) {
	var help strings.Builder
	if err := run(context.Background(), []string{"-h"}, io.Discard, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("run -h = %v, want flag.ErrHelp", err)
	}
	var bad strings.Builder
	err := run(context.Background(), []string{"--profile", "minio"}, io.Discard, &bad)
	if err == nil {
		t.Fatal("--profile minio accepted")
	}
	for _, p := range fakeapi.Profiles() {
		if !strings.Contains(help.String(), string(p)) {
			t.Errorf("help does not name profile %q:\n%s", p, help.String())
		}
		if !strings.Contains(err.Error(), string(p)) {
			t.Errorf("error %q does not name profile %q", err, p)
		}
	}
}

func TestVersion(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"--version"}, &out, io.Discard); err != nil {
		t.Fatalf("run --version = %v", err)
	}
	if got, want := strings.TrimSpace(out.String()), version.String("fakeapi"); got != want {
		t.Errorf("--version printed %q, want %q", got, want)
	}
}
