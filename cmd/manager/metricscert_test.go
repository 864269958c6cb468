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
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// metricsServerName is the name the test's certificate is issued for, as a
// cert-manager Certificate for the chart's metrics Service would be.
const metricsServerName = "listkeeper-metrics.listkeeper-system.svc"

// issue writes a CA-signed certificate for metricsServerName into dir as
// tls.crt and tls.key, and returns the CA's pool.
func issue(t *testing.T, dir string) *x509.CertPool {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: metricsServerName},
		DNSNames:  []string{metricsServerName},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, filepath.Join(dir, metricsCertName), "CERTIFICATE", der)
	writePEM(t, filepath.Join(dir, metricsKeyName), "EC PRIVATE KEY", keyDER)
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pool
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestMetricsCertPathServed: with --metrics-cert-path, the metrics server
// serves the certificate in that directory, so a scraper that verifies it
// against its CA and the Service's name (a ServiceMonitor's tlsConfig
// without insecureSkipVerify) gets the metrics.
func TestMetricsCertPathServed(t *testing.T) {
	dir := t.TempDir()
	pool := issue(t, dir)
	o := &options{metricsAddr: "127.0.0.1:0", metricsSecure: true, metricsCertPath: dir}
	if err := o.checkMetricsCert(); err != nil {
		t.Fatal(err)
	}
	mo := managerOptions(o, runtime.NewScheme()).Metrics
	if mo.CertDir != dir || mo.CertName != "tls.crt" || mo.KeyName != "tls.key" {
		t.Fatalf("metrics options CertDir %q CertName %q KeyName %q, want %s/tls.crt and tls.key", mo.CertDir, mo.CertName, mo.KeyName, dir)
	}
	// The authentication filter needs an API server; what is under test
	// here is the certificate.
	mo.FilterProvider = nil
	srv, err := metricsserver.NewServer(mo, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("metrics server: %v", err)
		}
	}()
	bound, ok := srv.(interface{ GetBindAddr() string })
	if !ok {
		t.Fatalf("the metrics server %T does not tell its address", srv)
	}
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == ""; time.Sleep(10 * time.Millisecond) {
		if addr = bound.GetBindAddr(); addr == "" && time.Now().After(deadline) {
			t.Fatal("the metrics server did not listen")
		}
	}

	get := func(serverName string) (*http.Response, error) {
		c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{
			RootCAs: pool, ServerName: serverName, MinVersion: tls.VersionTLS12,
		}}}
		return c.Get("https://" + addr + "/metrics")
	}
	resp, err := get(metricsServerName)
	if err != nil {
		t.Fatalf("GET /metrics verifying the certificate: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /metrics: %s", resp.Status)
	}
	// The control: the same client refuses a name the certificate does not
	// hold, so the success above was a verification.
	if resp, err := get("elsewhere.example.com"); err == nil {
		_ = resp.Body.Close()
		t.Error("a certificate for another name was accepted")
	}
}

// TestMetricsCertPathRefused: the manager refuses to start when
// --metrics-cert-path cannot be served, instead of serving a self-signed
// certificate in its place.
func TestMetricsCertPathRefused(t *testing.T) {
	good := t.TempDir()
	issue(t, good)
	mismatched := t.TempDir()
	issue(t, mismatched)
	other := t.TempDir()
	issue(t, other)
	key, err := os.ReadFile(filepath.Join(other, metricsKeyName))
	if err != nil {
		t.Fatal(err)
	}
	writeFile := func(path string, b []byte) {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(filepath.Join(mismatched, metricsKeyName), key)

	for _, tc := range []struct {
		name string
		o    options
		want string // in the error; "" for none
	}{
		{"unset", options{metricsSecure: true}, ""},
		{"a certificate and its key", options{metricsSecure: true, metricsCertPath: good}, ""},
		{"an empty directory", options{metricsSecure: true, metricsCertPath: t.TempDir()}, "tls.crt"},
		{"a key of another certificate", options{metricsSecure: true, metricsCertPath: mismatched}, "private key does not match"},
		{"plain http", options{metricsCertPath: good}, "--metrics-secure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.checkMetricsCert()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one that says %q", err, tc.want)
			}
		})
	}

	// The check runs before the manager needs a cluster.
	_, stderr, err := manager(t, "--metrics-bind-address=:0", "--metrics-cert-path="+t.TempDir())
	if err == nil || !strings.Contains(stderr, "--metrics-cert-path") {
		t.Errorf("manager with an empty --metrics-cert-path: err %v, stderr %q; want a refusal naming the flag", err, stderr)
	}
}
