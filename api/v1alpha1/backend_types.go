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

package v1alpha1

// WAFv2Scope is where an AWS WAF IP set lives: in a region, or global for
// CloudFront (whose IP sets live in us-east-1).
//
// +kubebuilder:validation:Enum=REGIONAL;CLOUDFRONT
type WAFv2Scope string

const (
	// WAFv2ScopeRegional is an IP set of a region (ALB, API Gateway, AppSync,
	// Cognito, App Runner, Verified Access).
	WAFv2ScopeRegional WAFv2Scope = "REGIONAL"
	// WAFv2ScopeCloudFront is an IP set for CloudFront, kept in us-east-1.
	WAFv2ScopeCloudFront WAFv2Scope = "CLOUDFRONT"
)

// WAFv2IPSet names an AWS WAF (WAFv2) IP set whose addresses are the list.
// The IDs of its entries are CIDRs ("10.0.0.1" is taken as "10.0.0.1/32");
// reads use GetIPSet and writes UpdateIPSet with the LockToken of the read,
// so a concurrent change fails with WAFOptimisticLockException and is
// retried from a fresh read. The set's description is kept on every write.
// Requests are signed with spec.auth.aws.
// +kubebuilder:validation:XValidation:rule="self.scope != 'CLOUDFRONT' || self.region == 'us-east-1'",message="an IP set of scope CLOUDFRONT lives in region us-east-1"
type WAFv2IPSet struct {
	// region is the AWS region of the IP set, for example eu-west-1.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	Region string `json:"region"`

	// scope is REGIONAL or CLOUDFRONT.
	// +required
	Scope WAFv2Scope `json:"scope"`

	// name is the IP set's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=128
	// +kubebuilder:validation:Pattern=`^[\w\-]+$`
	Name string `json:"name"`

	// id is the IP set's ID, as WAF assigned it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=36
	// +kubebuilder:validation:Pattern=`^[0-9a-f\-]+$`
	ID string `json:"id"`

	// endpoint overrides the WAFv2 API endpoint (an SDK base endpoint), for
	// a private endpoint or a test server. It must be https unless
	// spec.allowInsecureHTTP is true. Default: the region's public endpoint.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="endpoint must be an http or https URL"
	Endpoint string `json:"endpoint,omitempty"`
}

// GCPIAMBinding names the unconditional binding of one role in the IAM
// policy of a Google Cloud resource: its members are the list. Reads use
// getIamPolicy (policy version 3) and writes setIamPolicy with the etag of
// the read, so a concurrent change fails (409 ABORTED) and is retried from a
// fresh read. Every other binding, conditional bindings of the same role,
// the audit configs and the policy version are written back as they were
// read. Requests carry tokens from spec.auth.gcp.
type GCPIAMBinding struct {
	// resource is the full resource name of the resource whose policy
	// holds the binding: //cloudresourcemanager.googleapis.com/projects/P,
	// //cloudresourcemanager.googleapis.com/folders/F,
	// //cloudresourcemanager.googleapis.com/organizations/O, or
	// //storage.googleapis.com/projects/_/buckets/B.
	// +required
	// +kubebuilder:validation:MaxLength=1024
	// +kubebuilder:validation:XValidation:rule="self.matches('^//cloudresourcemanager[.]googleapis[.]com/(projects|folders|organizations)/[a-zA-Z0-9._:-]+$') || self.matches('^//storage[.]googleapis[.]com/projects/_/buckets/[a-z0-9._-]+$')",message="resource must be //cloudresourcemanager.googleapis.com/projects/P (or folders/F, organizations/O) or //storage.googleapis.com/projects/_/buckets/B"
	Resource string `json:"resource"`

	// role is the role whose unconditional binding is the list, for
	// example roles/storage.objectViewer or projects/P/roles/custom.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	// +kubebuilder:validation:XValidation:rule="self.matches('^(roles|projects/[^/]+/roles|organizations/[^/]+/roles)/[a-zA-Z0-9_.]+$')",message="role must be roles/NAME, projects/P/roles/NAME or organizations/O/roles/NAME"
	Role string `json:"role"`

	// endpoint overrides the API's base URL, for a private endpoint or a
	// test server. It must be https unless spec.allowInsecureHTTP is true.
	// Default: the resource's service endpoint
	// (https://cloudresourcemanager.googleapis.com/ or
	// https://storage.googleapis.com/).
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="isURL(self) && url(self).getScheme() in ['http', 'https'] && url(self).getHostname() != ''",message="endpoint must be an http or https URL"
	Endpoint string `json:"endpoint,omitempty"`
}
