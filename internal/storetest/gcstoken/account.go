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

package gcstoken

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/url"
)

// ProjectID is the project_id of every service-account key a Server
// makes.
const ProjectID = "listkeeper-fake"

// keyBits is the size of the RSA keys of service accounts, as Google's.
const keyBits = 2048

// account is a service account the Server made: what it needs to verify
// the account's assertions.
type account struct {
	email     string
	keyID     string
	publicKey *rsa.PublicKey
	tokenURI  string
}

// ServiceAccountKey is the service-account key JSON (credentials.json)
// that NewServiceAccountKey returns, with the fields Google's carry that
// a client reads.
type ServiceAccountKey struct {
	Type           string `json:"type"`
	ProjectID      string `json:"project_id"`
	PrivateKeyID   string `json:"private_key_id"`
	PrivateKey     string `json:"private_key"`
	ClientEmail    string `json:"client_email"`
	ClientID       string `json:"client_id"`
	TokenURI       string `json:"token_uri"`
	UniverseDomain string `json:"universe_domain"`
}

// NewServiceAccountKey makes a new service account, with a fresh 2048-bit
// RSA key, whose assertions the Server accepts when they are posted to
// tokenURL, and returns its service-account key JSON: type
// service_account, client_email, private_key (PKCS #8 PEM),
// private_key_id and token_uri tokenURL. tokenURL must be an absolute
// http or https URL, normally the Server's address plus TokenPath. The
// key holds a private key: keep it in memory or in a test's temporary
// directory.
func (s *Server) NewServiceAccountKey(tokenURL string) ([]byte, error) {
	if u, err := url.Parse(tokenURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("gcstoken: token URL %q is not an absolute http(s) URL", tokenURL)
	}
	priv, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return nil, fmt.Errorf("gcstoken: generate RSA key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("gcstoken: encode RSA key: %w", err)
	}
	var id [20]byte
	_, _ = rand.Read(id[:]) // never fails: crypto/rand.Read crashes instead

	s.mu.Lock()
	n := len(s.accounts) + 1
	a := &account{
		email:     fmt.Sprintf("fake-%d@%s.iam.gserviceaccount.com", n, ProjectID),
		keyID:     hex.EncodeToString(id[:]),
		publicKey: &priv.PublicKey,
		tokenURI:  tokenURL,
	}
	s.accounts[a.email] = a
	s.mu.Unlock()

	key, err := json.MarshalIndent(ServiceAccountKey{
		Type:           "service_account",
		ProjectID:      ProjectID,
		PrivateKeyID:   a.keyID,
		PrivateKey:     string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		ClientEmail:    a.email,
		ClientID:       fmt.Sprintf("1%020d", n),
		TokenURI:       tokenURL,
		UniverseDomain: "googleapis.com",
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("gcstoken: encode key: %w", err)
	}
	return key, nil
}

// account returns the service account with client_email email, or nil.
func (s *Server) account(email string) *account {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accounts[email]
}
