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

package ipgroupfake_test

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/network/armnetwork/v9"

	"github.com/listkeeper/listkeeper/internal/storetest/ipgroupfake"
)

// Example reads an IP Group with armnetwork's IPGroupsClient, authenticated
// by azidentity's ClientSecretCredential against the fake's Entra ID, and
// writes it back with one more address, on the condition that nobody
// wrote it in between (If-Match), waiting for the write's operation.
func Example() {
	s, err := ipgroupfake.New()
	if err != nil {
		panic(err)
	}
	s.StartTLS()
	defer s.Close()
	if _, err := s.CreateGroup("network", "allow", "westeurope", []string{"192.0.2.0/24"}); err != nil {
		panic(err)
	}

	opts := azcore.ClientOptions{Cloud: s.Cloud(), Transport: s.Client()}
	cred, err := azidentity.NewClientSecretCredential(ipgroupfake.TestTenantID, ipgroupfake.TestClientID, ipgroupfake.TestClientSecret,
		&azidentity.ClientSecretCredentialOptions{ClientOptions: opts, DisableInstanceDiscovery: true})
	if err != nil {
		panic(err)
	}
	groups, err := armnetwork.NewIPGroupsClient(s.SubscriptionID(), cred, &arm.ClientOptions{ClientOptions: opts})
	if err != nil {
		panic(err)
	}

	ctx := context.Background()
	read, err := groups.Get(ctx, "network", "allow", nil)
	if err != nil {
		panic(err)
	}
	g := read.IPGroup
	g.Properties.IPAddresses = append(g.Properties.IPAddresses, to.Ptr("198.51.100.0-198.51.100.15"))
	poller, err := groups.BeginCreateOrUpdate(policy.WithHTTPHeader(ctx, http.Header{"If-Match": {*g.Etag}}), "network", "allow", g, nil)
	if err != nil {
		panic(err) // a 412 here: someone wrote the group since the read
	}
	done, err := poller.PollUntilDone(ctx, &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	if err != nil {
		panic(err)
	}
	fmt.Println(*done.Properties.ProvisioningState)
	stored, _ := s.Group("network", "allow")
	fmt.Println(stored.Addresses)
	// Output:
	// Succeeded
	// [192.0.2.0/24 198.51.100.0-198.51.100.15]
}
