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

package stores

import (
	"regexp"
	"slices"
	"strings"
)

// The providers' own endpoints: the hosts that the operator's ambient
// identity may be sent to without Policy.AmbientHosts naming them (and
// only over https, see Policy.ambientTo). Each rule takes a host as
// normalHost leaves it. A private or sovereign endpoint not listed here
// (an S3 VPC endpoint, an AWS ISO partition, a GCS regional endpoint, an
// Azure private endpoint) is added by the operator as an ambient host.

// awsRegion is an AWS region code: us-east-1, eu-central-2,
// us-gov-west-1, cn-north-1, ap-southeast-5. A region that is not shaped
// like one has no endpoints, so no spec.auth.aws.region can widen the
// hosts that get the operator's identity.
var awsRegion = regexp.MustCompile(`^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$`)

// s3Endpoint returns the rule for Amazon S3's endpoints in region: the
// regional, dual-stack, FIPS and access point endpoints, the legacy
// s3-<region> form, and for us-east-1 the legacy global endpoint, each
// with any bucket or access point in front (virtual-hosted style). China
// regions are under amazonaws.com.cn, all others under amazonaws.com.
func s3Endpoint(region string) func(host string) bool {
	if !awsRegion.MatchString(region) {
		return func(string) bool { return false }
	}
	suffix := ".amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = ".amazonaws.com.cn"
	}
	var bases []string
	for _, prefix := range []string{"s3", "s3-fips", "s3-accesspoint", "s3-accesspoint-fips"} {
		bases = append(bases, prefix+"."+region+suffix, prefix+".dualstack."+region+suffix)
	}
	bases = append(bases, "s3-"+region+suffix)
	if region == "us-east-1" {
		bases = append(bases, "s3"+suffix, "s3-external-1"+suffix)
	}
	return func(host string) bool {
		for _, b := range bases {
			if host == b || strings.HasSuffix(host, "."+b) {
				return true
			}
		}
		return false
	}
}

// wafv2Endpoint returns the rule for AWS WAF's (WAFv2) API endpoints in
// region: wafv2.<region>.amazonaws.com and its FIPS variant
// wafv2-fips.<region>.amazonaws.com (amazonaws.com.cn in China), the hosts
// aws-sdk-go-v2's wafv2 client resolves for a region. Nothing is in front
// of them: an IP set is named in the request body, not the host.
func wafv2Endpoint(region string) func(host string) bool {
	if !awsRegion.MatchString(region) {
		return func(string) bool { return false }
	}
	suffix := ".amazonaws.com"
	if strings.HasPrefix(region, "cn-") {
		suffix = ".amazonaws.com.cn"
	}
	hosts := []string{"wafv2." + region + suffix, "wafv2-fips." + region + suffix}
	return func(host string) bool { return slices.Contains(hosts, host) }
}

// gcsEndpoint is the rule for Cloud Storage's endpoints:
// storage.googleapis.com, path style, and <bucket>.storage.googleapis.com,
// virtual-hosted style.
func gcsEndpoint(host string) bool {
	const gcs = "storage.googleapis.com"
	return host == gcs || strings.HasSuffix(host, "."+gcs)
}

// blobAccount is a storage account name (3 to 24 lower-case letters and
// digits), optionally with the -secondary of read-access geo-redundant
// storage.
const blobAccount = `[a-z0-9]{3,24}(-secondary)?`

// blobHost matches Azure Blob Storage's standard endpoints in the public,
// China and US Government clouds, <account>.blob.core.windows.net and the
// like, and its Azure DNS zone endpoints,
// <account>.z<NN>.blob.storage.azure.net.
var blobHost = regexp.MustCompile(`^` + blobAccount + `\.(blob\.core\.(windows\.net|chinacloudapi\.cn|usgovcloudapi\.net)|z[0-9]{2}\.blob\.storage\.azure\.net)$`)

// blobEndpoint is the rule for Azure Blob Storage's endpoints: any
// account's, since the list's URL names the account.
func blobEndpoint(host string) bool { return blobHost.MatchString(host) }

// s3Host matches the host of any S3 endpoint, of any region, with or
// without a bucket in front: enough to pick S3's dialect for a list whose
// URL carries its own credentials (a presigned URL). It grants nothing.
var s3Host = regexp.MustCompile(`(^|\.)s3([.-][a-z0-9-]+)*\.amazonaws\.com(\.cn)?$`)

// anyS3Endpoint reports whether host is one of S3's endpoints, in any
// region.
func anyS3Endpoint(host string) bool { return s3Host.MatchString(host) }

// The default endpoints of the APIs that hold Google Cloud IAM policies
// (spec.gcpIAM): Resource Manager for projects, folders and organizations,
// Cloud Storage's JSON API for buckets.
const (
	resourceManagerHost = "cloudresourcemanager.googleapis.com"
	storageHost         = "storage.googleapis.com"
)

// gcpIAMEndpoint is the rule for the endpoints of IAM policies: exactly
// the two APIs' default hosts. A regional, private (Private Service
// Connect) or sovereign endpoint is added by the operator as an ambient
// host.
func gcpIAMEndpoint(host string) bool { return host == resourceManagerHost || host == storageHost }
