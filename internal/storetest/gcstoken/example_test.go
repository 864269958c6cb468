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
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
	"github.com/listkeeper/listkeeper/internal/storetest/gcstoken"
)

// Example wires a GCS client the way the operator builds one, from a
// service-account key, to the fake token endpoint and the gcs profile of
// the fake list server, which accepts only the tokens the endpoint issued.
func Example() {
	endpoint, err := gcstoken.New()
	if err != nil {
		panic(err)
	}
	tokenServer := httptest.NewServer(endpoint)
	defer tokenServer.Close()
	key, err := endpoint.NewServiceAccountKey(tokenServer.URL + gcstoken.TokenPath)
	if err != nil {
		panic(err)
	}

	store, err := fakeapi.New(fakeapi.WithProfile(fakeapi.ProfileGCS), fakeapi.WithTokenCheck(endpoint.Valid))
	if err != nil {
		panic(err)
	}
	if _, err := store.Set("/lists/allow", []byte(`["a"]`)); err != nil {
		panic(err)
	}
	storeServer := httptest.NewServer(store)
	defer storeServer.Close()

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: tr})
	creds, err := google.CredentialsFromJSONWithType(ctx, key, google.ServiceAccount, "https://www.googleapis.com/auth/devstorage.read_write")
	if err != nil {
		panic(err)
	}
	resp, err := oauth2.NewClient(ctx, creds.TokenSource).Get(storeServer.URL + "/lists/allow")
	if err != nil {
		panic(err)
	}
	_ = resp.Body.Close()
	fmt.Println("GET:", resp.StatusCode, "generation:", resp.Header.Get(fakeapi.HeaderGeneration) != "")
	fmt.Println("tokens issued:", endpoint.Stats().Issued)

	resp, err = storeServer.Client().Get(storeServer.URL + "/lists/allow")
	if err != nil {
		panic(err)
	}
	_ = resp.Body.Close()
	fmt.Println("GET without a token:", resp.StatusCode)
	// Output:
	// GET: 200 generation: true
	// tokens issued: 1
	// GET without a token: 401
}
