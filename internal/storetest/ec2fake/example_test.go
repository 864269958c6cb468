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
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/listkeeper/listkeeper/internal/storetest/ec2fake"
)

// Example reads a prefix list's version with aws-sdk-go-v2's EC2 client
// and adds an entry conditioned on it, over the Server's Client.
func Example() {
	s, err := ec2fake.New()
	if err != nil {
		panic(err)
	}
	s.Start()
	defer s.Close()
	id, err := s.CreatePrefixList("office", ec2fake.IPv4, 10, ec2fake.Entry{CIDR: "192.0.2.0/24", Description: "office"})
	if err != nil {
		panic(err)
	}

	client := ec2.NewFromConfig(aws.Config{
		Region:      ec2fake.DefaultRegion,
		Credentials: credentials.NewStaticCredentialsProvider(ec2fake.TestAccessKeyID, ec2fake.TestSecretAccessKey, ""),
		HTTPClient:  s.Client(), // see Client: needed on loopback
	}, func(o *ec2.Options) { o.BaseEndpoint = aws.String(s.URL()) })
	ctx := context.Background()
	read, err := client.DescribeManagedPrefixLists(ctx, &ec2.DescribeManagedPrefixListsInput{PrefixListIds: []string{id}})
	if err != nil {
		panic(err)
	}
	out, err := client.ModifyManagedPrefixList(ctx, &ec2.ModifyManagedPrefixListInput{
		PrefixListId:   aws.String(id),
		CurrentVersion: read.PrefixLists[0].Version, // another writer in between: PrefixListVersionMismatch
		AddEntries:     []types.AddPrefixListEntry{{Cidr: aws.String("198.51.100.7/32"), Description: aws.String("vpn")}},
	})
	if err != nil {
		panic(err)
	}
	pl, _ := s.PrefixList(id)
	fmt.Println(aws.ToInt64(out.PrefixList.Version), pl.Entries)
	// Output: 2 [{192.0.2.0/24 office} {198.51.100.7/32 vpn}]
}
