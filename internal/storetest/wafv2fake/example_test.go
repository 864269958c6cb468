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

package wafv2fake_test

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/wafv2"
	"github.com/aws/aws-sdk-go-v2/service/wafv2/types"

	"github.com/listkeeper/listkeeper/internal/storetest/wafv2fake"
)

// Example reads an IP set with aws-sdk-go-v2's WAFv2 client and updates it
// with the lock token of the read, keeping its description.
func Example() {
	s, err := wafv2fake.New()
	if err != nil {
		panic(err)
	}
	s.Start()
	defer s.Close()
	id, err := s.CreateIPSet(wafv2fake.ScopeRegional, "allow", "office", wafv2fake.IPv4, []string{"192.0.2.0/24"})
	if err != nil {
		panic(err)
	}

	client := wafv2.NewFromConfig(aws.Config{
		Region:      wafv2fake.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider(wafv2fake.TestAccessKeyID, wafv2fake.TestSecretAccessKey, ""),
	}, func(o *wafv2.Options) { o.BaseEndpoint = aws.String(s.URL()) })
	ctx := context.Background()
	read, err := client.GetIPSet(ctx, &wafv2.GetIPSetInput{Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id)})
	if err != nil {
		panic(err)
	}
	_, err = client.UpdateIPSet(ctx, &wafv2.UpdateIPSetInput{
		Name: aws.String("allow"), Scope: types.ScopeRegional, Id: aws.String(id),
		Description: read.IPSet.Description, // omitted, it would be cleared
		Addresses:   append(read.IPSet.Addresses, "198.51.100.7/32"),
		LockToken:   read.LockToken,
	})
	if err != nil {
		panic(err)
	}
	set, _ := s.IPSet(wafv2fake.ScopeRegional, id)
	fmt.Println(set.Description, set.Addresses)
	// Output: office [192.0.2.0/24 198.51.100.7/32]
}
