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

package ec2fake_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"github.com/listkeeper/listkeeper/internal/storetest/ec2fake"
)

// TestSignatureRefused: requests the SDK signs with a wrong secret, an
// unknown key, for another region, or with a missing, wrong or expired
// session token are refused with EC2's codes before they reach a list; the
// request log names the key they claimed and holds none of the secrets.
func TestSignatureRefused(t *testing.T) {
	temp := aws.Credentials{AccessKeyID: "LISTKEEPEREC2TEMP001", SecretAccessKey: "temp-secret-4b1d", SessionToken: "session-7f3e"}
	expiring := aws.Credentials{AccessKeyID: "LISTKEEPEREC2TEMP002", SecretAccessKey: "temp-secret-9c2a", SessionToken: "session-9a1c"}
	s := start(t, ec2fake.WithCredentials(ec2fake.DefaultCredentials(), temp, expiring))
	id := seed(t, s, 10, ec2fake.Entry{CIDR: "192.0.2.0/24"})
	if err := s.ExpireSessionToken(expiring.AccessKeyID); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		creds  aws.Credentials
		region string
		code   string
		status int
	}{
		{"wrong secret", aws.Credentials{AccessKeyID: ec2fake.TestAccessKeyID, SecretAccessKey: "not-the-secret"}, "", "AuthFailure", 401},
		{"unknown access key", aws.Credentials{AccessKeyID: "LISTKEEPEREC2NOKEY01", SecretAccessKey: "x"}, "", "AuthFailure", 401},
		{"signed for another region", ec2fake.DefaultCredentials(), "eu-west-1", "AuthFailure", 401},
		{"temporary key without its token", aws.Credentials{AccessKeyID: temp.AccessKeyID, SecretAccessKey: temp.SecretAccessKey}, "", "AuthFailure", 401},
		{"temporary key with another token", aws.Credentials{AccessKeyID: temp.AccessKeyID, SecretAccessKey: temp.SecretAccessKey, SessionToken: "forged"}, "", "AuthFailure", 401},
		{"expired session token", expiring, "", "RequestExpired", 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t, s, tt.creds)
			if tt.region != "" {
				c = ec2.New(c.Options(), func(o *ec2.Options) { o.Region = tt.region })
			}
			_, err := modify(t.Context(), c, id, 1, add("198.51.100.0/24"), nil)
			wantCode(t, err, tt.code, tt.status)
			recs := s.Requests()
			if last := recs[len(recs)-1]; last.AccessKeyID != tt.creds.AccessKeyID || last.Code != tt.code || last.Action != ec2fake.ActionModifyManagedPrefixList {
				t.Errorf("logged %+v", last)
			}
		})
	}
	if pl, _ := s.PrefixList(id); pl.Version != 1 {
		t.Errorf("version = %d: a refused request changed the list", pl.Version)
	}
	if _, err := modify(t.Context(), client(t, s, temp), id, 1, add("198.51.100.0/24"), nil); err != nil {
		t.Errorf("the temporary key with its token: %v", err)
	}
	log := fmt.Sprintf("%+v %+v", s.Requests(), s.Stats())
	for _, secret := range []string{ec2fake.TestSecretAccessKey, temp.SecretAccessKey, temp.SessionToken, expiring.SecretAccessKey,
		expiring.SessionToken, "not-the-secret", "forged", "Signature="} {
		if strings.Contains(log, secret) {
			t.Errorf("the request log holds %q", secret)
		}
	}
}

// TestClockSkew: a request dated more than 15 minutes from the Server's
// clock, either way, has expired.
func TestClockSkew(t *testing.T) {
	for _, skew := range []time.Duration{-16 * time.Minute, 16 * time.Minute} {
		s := start(t, ec2fake.WithClock(func() time.Time { return time.Now().Add(skew) }))
		_, err := client(t, s).DescribeManagedPrefixLists(t.Context(), &ec2.DescribeManagedPrefixListsInput{})
		wantCode(t, err, "RequestExpired", http.StatusBadRequest)
	}
	s := start(t, ec2fake.WithClock(func() time.Time { return time.Now().Add(14 * time.Minute) }))
	if _, err := client(t, s).DescribeManagedPrefixLists(t.Context(), &ec2.DescribeManagedPrefixListsInput{}); err != nil {
		t.Errorf("14 minutes off: %v", err)
	}
}

// answer is a raw answer of the Server: its status and error code.
type answer struct {
	status int
	code   string
}

// post sends a form body to the Server, signed with the default
// credentials unless sign is false; tamper, when set, changes the request
// after it was signed.
func post(t *testing.T, s *ec2fake.Server, body string, sign bool, tamper func(*http.Request)) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL()+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	if sign {
		sum := sha256.Sum256([]byte(body))
		if err := v4.NewSigner().SignHTTP(t.Context(), ec2fake.DefaultCredentials(), req, hex.EncodeToString(sum[:]),
			ec2fake.Service, s.Region(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if tamper != nil {
		tamper(req)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Code      string `xml:"Errors>Error>Code"`
			RequestID string `xml:"RequestID"`
		}
		if err := xml.Unmarshal(raw, &e); err != nil || e.RequestID == "" {
			t.Fatalf("error answer is not EC2's XML: %q", raw)
		}
		a.code = e.Code
	}
	return a
}

// TestRawRequests: what the SDK never sends is answered as EC2 does, and
// changes nothing.
func TestRawRequests(t *testing.T) {
	s := start(t)
	id := seed(t, s, 10, ec2fake.Entry{CIDR: "192.0.2.0/24"})
	good := "Action=ModifyManagedPrefixList&Version=2016-11-15&PrefixListId=" + id + "&CurrentVersion=1&AddEntry.1.Cidr=198.51.100.0%2F24"
	tests := []struct {
		name     string
		body     string
		unsigned bool
		tamper   func(*http.Request)
		want     answer
	}{
		{name: "no signature", body: good, unsigned: true, want: answer{400, "MissingParameter"}},
		{name: "body changed after signing", body: good, want: answer{401, "AuthFailure"},
			tamper: func(r *http.Request) {
				b := strings.Replace(good, "198.51.100.0", "198.51.100.128", 1)
				r.Body, r.ContentLength = io.NopCloser(strings.NewReader(b)), int64(len(b))
			}},
		{name: "SigV2-style header", body: good, want: answer{400, "IncompleteSignature"},
			tamper: func(r *http.Request) { r.Header.Set("Authorization", "AWS "+ec2fake.TestAccessKeyID+":c2lnbmF0dXJl") }},
		{name: "no action", body: "Version=2016-11-15", want: answer{400, "MissingAction"}},
		{name: "unknown action", body: "Action=DeleteManagedPrefixList&Version=2016-11-15&PrefixListId=" + id, want: answer{400, "InvalidAction"}},
		{name: "no version", body: "Action=DescribeManagedPrefixLists", want: answer{400, "MissingParameter"}},
		{name: "dry run", body: good + "&DryRun=true", want: answer{400, "UnsupportedOperation"}},
		{name: "entry without a CIDR", body: strings.Replace(good, "AddEntry.1.Cidr", "AddEntry.1.Description", 1), want: answer{400, "MissingParameter"}},
		{name: "CurrentVersion not a number", body: strings.Replace(good, "CurrentVersion=1", "CurrentVersion=one", 1), want: answer{400, "InvalidParameterValue"}},
		{name: "nothing to change", body: "Action=ModifyManagedPrefixList&Version=2016-11-15&PrefixListId=" + id, want: answer{400, "InvalidRequest"}},
		{name: "bad page token", body: "Action=GetManagedPrefixListEntries&Version=2016-11-15&PrefixListId=" + id + "&NextToken=bm9wZQ", want: answer{400, "InvalidPaginationToken"}},
		{name: "page of 101", body: "Action=GetManagedPrefixListEntries&Version=2016-11-15&PrefixListId=" + id + "&MaxResults=101", want: answer{400, "InvalidParameterValue"}},
		{name: "a good modification", body: good, want: answer{200, ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := post(t, s, tt.body, !tt.unsigned, tt.tamper); got != tt.want {
				t.Errorf("answer = %+v, want %+v", got, tt.want)
			}
		})
	}
	if pl, _ := s.PrefixList(id); pl.Version != 2 || len(pl.Entries) != 2 || pl.Entries[1].CIDR != "198.51.100.0/24" {
		t.Errorf("list = version %d %+v: only the good modification may have landed", pl.Version, pl.Entries)
	}
}
