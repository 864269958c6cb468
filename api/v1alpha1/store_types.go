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

// URLSource names where a list's URL comes from.
type URLSource struct {
	// secretKeyRef names a key of a Secret in the ExternalList's namespace
	// whose value is the URL.
	// +required
	SecretKeyRef SecretKeySelector `json:"secretKeyRef"`
}

// SecretKeySelector names one key of a Secret in the same namespace.
type SecretKeySelector struct {
	// name is the name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// key is the key within the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Key string `json:"key"`
}

// StoreAuth says how requests to an object store are authenticated. At most
// one of its fields is set.
// +kubebuilder:validation:XValidation:rule="(has(self.aws) ? 1 : 0) + (has(self.gcp) ? 1 : 0) + (has(self.azure) ? 1 : 0) <= 1",message="at most one of aws, gcp and azure may be set"
type StoreAuth struct {
	// aws signs every request with AWS Signature Version 4 (S3). Writes are
	// conditional on the ETag (If-Match); S3's 409
	// ConditionalRequestConflict counts as a lost race.
	// +optional
	AWS *AWSAuth `json:"aws,omitempty"`

	// gcp sends an OAuth2 bearer token, renewed before it expires (Google
	// Cloud Storage). Writes are conditional on the object generation
	// (x-goog-if-generation-match).
	// +optional
	GCP *GCPAuth `json:"gcp,omitempty"`

	// azure authenticates to Azure Blob Storage with SharedKey or Entra
	// workload identity. Writes are conditional on the ETag (If-Match); a
	// 409 on create counts as a lost race.
	// +optional
	Azure *AzureAuth `json:"azure,omitempty"`
}

// AWSAuth configures SigV4 signing.
type AWSAuth struct {
	// region is the AWS region of the bucket, for example eu-west-1.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	Region string `json:"region"`

	// service is the signing name of the service. Default: s3.
	// +optional
	// +kubebuilder:default=s3
	// +kubebuilder:validation:MaxLength=64
	Service string `json:"service,omitempty"`

	// secretRef names a Secret with the keys AWS_ACCESS_KEY_ID,
	// AWS_SECRET_ACCESS_KEY and, optionally, AWS_SESSION_TOKEN. Without it
	// the AWS SDK's default chain is used (IRSA web identity, EKS Pod
	// Identity, the environment).
	// +optional
	SecretRef *SecretReference `json:"secretRef,omitempty"`
}

// GCPAuth configures OAuth2 bearer tokens for Google Cloud Storage.
type GCPAuth struct {
	// secretRef names a Secret with the key credentials.json (a service
	// account key). Without it Application Default Credentials are used
	// (GKE Workload Identity).
	// +optional
	SecretRef *SecretReference `json:"secretRef,omitempty"`
}

// AzureAuth configures Azure Blob Storage authentication: exactly one of
// sharedKey and workloadIdentity. A SAS URL needs neither: put it in a
// Secret and use urlFrom.
// +kubebuilder:validation:XValidation:rule="has(self.sharedKey) != has(self.workloadIdentity)",message="exactly one of sharedKey and workloadIdentity must be set"
type AzureAuth struct {
	// sharedKey signs requests with the storage account key.
	// +optional
	SharedKey *AzureSharedKey `json:"sharedKey,omitempty"`

	// workloadIdentity gets Entra tokens through the pod's federated
	// workload identity (AZURE_CLIENT_ID, AZURE_TENANT_ID and
	// AZURE_FEDERATED_TOKEN_FILE, as AKS injects them).
	// +optional
	WorkloadIdentity *AzureWorkloadIdentity `json:"workloadIdentity,omitempty"`
}

// AzureSharedKey names the Secret with the storage account's name and key.
type AzureSharedKey struct {
	// secretRef names a Secret with the keys accountName and accountKey.
	// +required
	SecretRef SecretReference `json:"secretRef"`
}

// AzureWorkloadIdentity selects Entra workload identity. It has no fields.
type AzureWorkloadIdentity struct{}
