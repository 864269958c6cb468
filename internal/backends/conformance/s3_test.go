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

package conformance_test

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/backends/conformance"
	"github.com/listkeeper/listkeeper/internal/stores"
	"github.com/listkeeper/listkeeper/internal/storetest/s3fake"
)

// TestS3: an object in s3fake (gofakes3 behind a SigV4 verifier that
// decides conditional writes as S3 does), signed with a key from a Secret.
func TestS3(t *testing.T) { conformance.Run(t, s3Harness()) }

func s3Harness() conformance.Harness {
	return conformance.Harness{
		Kind: "s3", Start: startS3, IDs: entryIDs, IsWrite: isPut,
		Absent: true, Create: true, Ordered: true,
		Unsafe: etagUnsafe,
	}
}

func startS3(t *testing.T, probe *conformance.Probe) *conformance.Target {
	srv, err := s3fake.New(s3fake.WithBuckets("lists"))
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	auth := &v1alpha1.StoreAuth{AWS: &v1alpha1.AWSAuth{Region: s3fake.DefaultRegion, SecretRef: &v1alpha1.SecretReference{Name: "aws"}}}
	sec := secrets(map[string]map[string]string{"aws": {
		stores.AWSAccessKeyID: s3fake.TestAccessKeyID, stores.AWSSecretAccessKey: s3fake.TestSecretAccessKey}})
	target := func(t *testing.T, bucket string) *conformance.Target {
		url := srv.URL() + "/" + bucket + "/allow.json"
		opts, _, err := stores.Options(t.Context(), auth, url, sec, stores.Policy{})
		if err != nil {
			t.Fatalf("stores.Options: %v", err)
		}
		return &conformance.Target{
			URL: url, Options: opts, ItemsPointer: docPointer,
			Seed: func(t *testing.T, items []string) {
				if _, err := srv.PutObject(bucket, "allow.json", jsonDoc(t, items)); err != nil {
					t.Fatal(err)
				}
			},
			Stored: func(t *testing.T) ([]byte, bool) {
				body, _, err := srv.GetObject(bucket, "allow.json")
				if errors.Is(err, s3fake.ErrNoSuchKey) || errors.Is(err, s3fake.ErrNoSuchBucket) {
					return nil, false
				}
				if err != nil {
					t.Fatal(err)
				}
				return body, true
			},
			Items: docItems, Foreign: docForeign,
			Inject: func(f conformance.Fault, pick func(*http.Request) bool) error {
				var fault func() *s3fake.Error
				switch f {
				case conformance.FaultDropBefore, conformance.FaultDropAfter:
					// s3fake answers every request it takes: the probe
					// drops the connection.
					return probe.Inject(f, pick)
				case conformance.FaultThrottled:
					fault = s3fake.SlowDown
				case conformance.FaultUnavailable:
					fault = func() *s3fake.Error {
						return &s3fake.Error{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable", Message: "Service is unable to handle request."}
					}
				case conformance.FaultInternal:
					fault = s3fake.InternalError
				default:
					return fmt.Errorf("%w: %s", conformance.ErrNoFault, f)
				}
				srv.SetFaultHook(func(r *http.Request) *s3fake.Error {
					if pick(r) {
						return fault()
					}
					return nil
				})
				return nil
			},
		}
	}
	tg := target(t, "lists")
	tg.Missing = func(t *testing.T, _ *conformance.Probe) *conformance.Target { return target(t, "no-such-bucket") }
	return tg
}
