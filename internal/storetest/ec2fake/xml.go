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

package ec2fake

import "encoding/xml"

// The XML bodies of successful answers. Every answer is an element
// <Action>Response in the namespace of the API version, with the request
// ID; lists are <...Set> elements of <item>s.

// meta is what every answer carries.
type meta struct {
	Xmlns     string `xml:"xmlns,attr"`
	RequestID string `xml:"requestId"`
}

func (m *meta) stamp(requestID string) { m.Xmlns, m.RequestID = Namespace, requestID }

// stamper is an answer that takes the request ID.
type stamper interface{ stamp(requestID string) }

type xmlTag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

type xmlPrefixList struct {
	PrefixListID   string   `xml:"prefixListId"`
	AddressFamily  string   `xml:"addressFamily"`
	State          string   `xml:"state"`
	PrefixListArn  string   `xml:"prefixListArn"`
	PrefixListName string   `xml:"prefixListName"`
	MaxEntries     int32    `xml:"maxEntries"`
	Version        int64    `xml:"version"`
	Tags           []xmlTag `xml:"tagSet>item,omitempty"`
	OwnerID        string   `xml:"ownerId"`
}

func toXML(pl PrefixList) xmlPrefixList {
	out := xmlPrefixList{PrefixListID: pl.ID, AddressFamily: pl.AddressFamily, State: pl.State, PrefixListArn: pl.ARN,
		PrefixListName: pl.Name, MaxEntries: pl.MaxEntries, Version: pl.Version, OwnerID: pl.OwnerID}
	for _, t := range pl.Tags {
		out.Tags = append(out.Tags, xmlTag(t))
	}
	return out
}

type xmlEntry struct {
	Cidr        string `xml:"cidr"`
	Description string `xml:"description,omitempty"`
}

type describeResponse struct {
	XMLName xml.Name `xml:"DescribeManagedPrefixListsResponse"`
	meta
	PrefixLists []xmlPrefixList `xml:"prefixListSet>item"`
	NextToken   string          `xml:"nextToken,omitempty"`
}

type entriesResponse struct {
	XMLName xml.Name `xml:"GetManagedPrefixListEntriesResponse"`
	meta
	Entries   []xmlEntry `xml:"entrySet>item"`
	NextToken string     `xml:"nextToken,omitempty"`
}

type modifyResponse struct {
	XMLName xml.Name `xml:"ModifyManagedPrefixListResponse"`
	meta
	PrefixList xmlPrefixList `xml:"prefixList"`
}

type createResponse struct {
	XMLName xml.Name `xml:"CreateManagedPrefixListResponse"`
	meta
	PrefixList xmlPrefixList `xml:"prefixList"`
}
