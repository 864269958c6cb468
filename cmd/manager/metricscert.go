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
	"crypto/tls"
	"errors"
	"fmt"
	"path/filepath"
)

// The files --metrics-cert-path holds: the names of a kubernetes.io/tls
// Secret's keys, as cert-manager writes them.
const (
	metricsCertName = "tls.crt"
	metricsKeyName  = "tls.key"
)

// checkMetricsCert fails when --metrics-cert-path is set and the metrics
// server could not serve its certificate: --metrics-secure is off, or the
// directory lacks a certificate and key that belong together.
// controller-runtime would otherwise fall back to a self-signed
// certificate without a word, and a scraper that verifies the server's
// certificate would fail with no hint why.
func (o *options) checkMetricsCert() error {
	if o.metricsCertPath == "" {
		return nil
	}
	if !o.metricsSecure {
		return errors.New("--metrics-cert-path needs --metrics-secure: plain http serves no certificate")
	}
	certFile, keyFile := filepath.Join(o.metricsCertPath, metricsCertName), filepath.Join(o.metricsCertPath, metricsKeyName)
	if _, err := tls.LoadX509KeyPair(certFile, keyFile); err != nil {
		return fmt.Errorf("--metrics-cert-path %s: load %s and %s: %w", o.metricsCertPath, metricsCertName, metricsKeyName, err)
	}
	return nil
}
