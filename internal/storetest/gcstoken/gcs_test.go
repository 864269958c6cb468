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

package gcstoken_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
)

const listPath = "/lists/allow"

// startGCS serves a fake list server with the gcs profile that accepts
// only the tokens e issued and that have not expired, holding an empty
// list at listPath.
func startGCS(t *testing.T, e *endpoint) (*fakeapi.Server, string) {
	t.Helper()
	s, err := fakeapi.New(fakeapi.WithProfile(fakeapi.ProfileGCS), fakeapi.WithTokenCheck(e.Valid))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Set(listPath, []byte(`{"items":[]}`)); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts.URL + listPath
}

// readModifyWrite reads the list at url and writes it back with one more
// item, conditioned on the generation it read. It returns the status codes
// of the GET and the PUT.
func readModifyWrite(c *http.Client, url string, i int) (get, put int, err error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, 0, err
	}
	var doc struct {
		Items []string `json:"items"`
	}
	err = json.NewDecoder(resp.Body).Decode(&doc)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, 0, nil
	}
	if err != nil {
		return resp.StatusCode, 0, fmt.Errorf("decode the list: %w", err)
	}
	doc.Items = append(doc.Items, fmt.Sprintf("id-%d", i))
	next, _ := json.Marshal(doc)
	req, _ := http.NewRequest(http.MethodPut, url, bytes.NewReader(next))
	req.Header.Set(fakeapi.HeaderIfGenerationMatch, resp.Header.Get(fakeapi.HeaderGeneration))
	req.Header.Set("Content-Type", "application/json")
	resp, err = c.Do(req)
	if err != nil {
		return http.StatusOK, 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return http.StatusOK, resp.StatusCode, nil
}

// TestClientRefreshesTokensBeforeExpiry runs a GCS client built the way
// the operator builds one, from a service-account key through
// golang.org/x/oauth2/google, against the gcs profile for longer than a
// token lives: it must fetch new tokens before the old ones expire, so
// that no request is refused and none carries an expired token. The
// oauth2 library reads the real clock, so this test runs in real time:
// tokens live 2 s, the client refreshes 1.5 s early (so a slow machine has
// 1.5 s to deliver a request), and requests go on for 2.5 s.
func TestClientRefreshesTokensBeforeExpiry(t *testing.T) {
	const lifetime, early, run = 2 * time.Second, 1500 * time.Millisecond, 2500 * time.Millisecond
	e := startEndpoint(t, gcstoken.WithLifetime(lifetime))
	s, url := startGCS(t, e)
	ctx := clientContext(t)
	creds, err := google.CredentialsFromJSONWithType(ctx, e.key, google.ServiceAccount, storageScope)
	if err != nil {
		t.Fatalf("credentials: %v", err)
	}
	c := oauth2.NewClient(ctx, oauth2.ReuseTokenSourceWithExpiry(nil, creds.TokenSource, early))

	var cycles int
	for begin := time.Now(); time.Since(begin) < run; cycles++ {
		get, put, err := readModifyWrite(c, url, cycles)
		if err != nil {
			t.Fatalf("cycle %d: %v", cycles, err)
		}
		if get != http.StatusOK || put != http.StatusOK {
			t.Fatalf("cycle %d: GET %d, PUT %d; endpoint %+v", cycles, get, put, e.Stats())
		}
		time.Sleep(50 * time.Millisecond) // pace the cycles across the token lifetimes
	}

	st := e.Stats()
	if st.Issued < 2 {
		t.Errorf("the endpoint issued %d tokens in %s with a lifetime of %s, want at least 2", st.Issued, run, lifetime)
	}
	if st.Expired != 0 || st.Unknown != 0 || st.Refused != 0 {
		t.Errorf("endpoint stats %+v: a request carried an expired or unknown token, or a token request was refused", st)
	}
	if n := s.Stats().CountCode(http.StatusUnauthorized); n != 0 {
		t.Errorf("the list server answered 401 %d times", n)
	}
	if want := int64(2 * cycles); st.Accepted != int(want) || s.Stats().Commits != int64(cycles) {
		t.Errorf("%d cycles: %d tokens accepted, %d commits", cycles, st.Accepted, s.Stats().Commits)
	}
	t.Logf("%d read-modify-write cycles, endpoint %+v", cycles, st)
}

// TestExpiredTokenRefused checks that a token the endpoint issued is
// accepted until its lifetime is over and then refused with 401 and GCS's
// error body, by moving the endpoint's clock instead of waiting.
func TestExpiredTokenRefused(t *testing.T) {
	clock := newFakeClock(time.Now())
	e := startEndpoint(t, gcstoken.WithLifetime(time.Hour), gcstoken.WithClock(clock.now))
	s, url := startGCS(t, e)
	ctx := clientContext(t)
	creds, err := google.CredentialsFromJSONWithType(ctx, e.key, google.ServiceAccount, storageScope)
	if err != nil {
		t.Fatalf("credentials: %v", err)
	}
	tok, err := creds.TokenSource.Token()
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	// A client that keeps sending the same token, as one that never
	// refreshes would.
	c := oauth2.NewClient(ctx, oauth2.StaticTokenSource(tok))
	get := func() (int, string) {
		t.Helper()
		resp, err := c.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		body, _ := io.ReadAll(resp.Body)
		var e struct {
			Code string `xml:"Code"`
		}
		_ = xml.Unmarshal(body, &e)
		return resp.StatusCode, e.Code
	}

	if code, _ := get(); code != http.StatusOK {
		t.Fatalf("GET with a fresh token = %d", code)
	}
	clock.advance(time.Hour)
	if code, errCode := get(); code != http.StatusUnauthorized || errCode != "AuthenticationRequired" {
		t.Fatalf("GET with an expired token = %d %q, want 401 AuthenticationRequired", code, errCode)
	}
	if err := e.Valid(tok.AccessToken); !errors.Is(err, gcstoken.ErrExpiredToken) {
		t.Errorf("Valid = %v, want ErrExpiredToken", err)
	}
	if st := e.Stats(); st.Issued != 1 || st.Accepted != 1 || st.Expired != 2 {
		t.Errorf("endpoint stats %+v", st)
	}
	if n := s.Stats().Count(http.MethodGet, http.StatusUnauthorized); n != 1 {
		t.Errorf("list server counted %d GET 401s", n)
	}
}
