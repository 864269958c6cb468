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

package listconfig

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

func newExternalList(ns, name, url string, mutate ...func(*v1alpha1.ExternalListSpec)) *v1alpha1.ExternalList {
	xl := &v1alpha1.ExternalList{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       v1alpha1.ExternalListSpec{URL: url},
	}
	for _, m := range mutate {
		m(&xl.Spec)
	}
	return xl
}

func TestHeadersFrom(t *testing.T) {
	const secretValue = "s3cr3t-VALUE-never-printed"
	tests := []struct {
		name    string
		data    map[string]string
		want    map[string]string // canonical header -> value
		wantErr bool
	}{
		{name: "empty secret", data: map[string]string{}, want: map[string]string{}},
		{name: "authorization", data: map[string]string{"Authorization": "Bearer " + secretValue},
			want: map[string]string{"Authorization": "Bearer " + secretValue}},
		{name: "key is canonicalized", data: map[string]string{"x-api-key": secretValue},
			want: map[string]string{"X-Api-Key": secretValue}},
		{name: "value is trimmed (a trailing newline from echo)", data: map[string]string{"X-Token": secretValue + "\n"},
			want: map[string]string{"X-Token": secretValue}},
		{name: "several keys", data: map[string]string{"A": "1", "B": "2"}, want: map[string]string{"A": "1", "B": "2"}},
		{name: "key with space", data: map[string]string{"Bad Key": secretValue}, wantErr: true},
		{name: "key with colon", data: map[string]string{"X-Token:": secretValue}, wantErr: true},
		{name: "key with slash", data: map[string]string{"a/b": secretValue}, wantErr: true},
		{name: "non-ASCII key", data: map[string]string{"Tökén": secretValue}, wantErr: true},
		{name: "value with CRLF injection", data: map[string]string{"X-Token": secretValue + "\r\nX-Evil: 1"}, wantErr: true},
		{name: "value with LF in the middle", data: map[string]string{"X-Token": "a\n" + secretValue}, wantErr: true},
		{name: "value with NUL", data: map[string]string{"X-Token": secretValue + "\x00x"}, wantErr: true},
		{name: "value with another control character", data: map[string]string{"X-Token": secretValue + "\x01x"}, wantErr: true},
		{name: "value with DEL", data: map[string]string{"X-Token": secretValue + "\x7fx"}, wantErr: true},
		{name: "one bad key among good ones", data: map[string]string{"Authorization": "Bearer " + secretValue, "bad key": "x"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hdrs", Namespace: "ns"}, Data: map[string][]byte{}}
			for k, v := range tc.data {
				s.Data[k] = []byte(v)
			}
			h, err := headersFrom(s)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("want an error, got headers %v", h)
				}
				if strings.Contains(err.Error(), secretValue) || strings.Contains(err.Error(), "s3cr3t") {
					t.Fatalf("error reveals the secret value: %v", err)
				}
				var cfgErr *ConfigError
				if !errors.As(err, &cfgErr) || cfgErr.Reason != v1alpha1.ReasonInvalidSpec {
					t.Fatalf("want a configError with reason InvalidSpec, got %#v", err)
				}
				if !strings.Contains(err.Error(), `"hdrs"`) {
					t.Errorf("error %q does not name the Secret", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(h) != len(tc.want) {
				t.Errorf("headers = %v, want %v", h, tc.want)
			}
			for k, v := range tc.want {
				if got := h.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
				if _, ok := h[k]; !ok {
					t.Errorf("header %s is not stored under its canonical name: %v", k, h)
				}
			}
		})
	}
}
