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

package azurite_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/listkeeper/listkeeper/internal/storetest/azurite"
)

func ExampleStart() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	az, err := azurite.Start(ctx, azurite.Options{})
	if err != nil {
		fmt.Println(err) // e.g. "azurite is not installed: ...; run 'make azurite'"
		return
	}
	defer func() { _ = az.Stop() }()

	if err := az.CreateContainer(ctx, "lists"); err != nil {
		fmt.Println(err)
		return
	}
	client, err := az.NewClient(nil) // SharedKey with the development account
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := client.UploadBuffer(ctx, "lists", "team.json", []byte(`["alice"]`), nil); err != nil {
		fmt.Println(err)
		return
	}
	resp, err := client.DownloadStream(ctx, "lists", "team.json", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(resp.Body)

	fmt.Println(strings.HasPrefix(az.BlobEndpoint(), "http://127.0.0.1:"), strings.HasSuffix(az.BlobEndpoint(), "/"+azurite.AccountName))
	fmt.Println(az.BlobURL("lists", "team.json") == az.BlobEndpoint()+"/lists/team.json")
	fmt.Println(string(body))
	// Output:
	// true true
	// true
	// ["alice"]
}
