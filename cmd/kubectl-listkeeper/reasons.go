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

package main

import "github.com/listkeeper/listkeeper/api/v1alpha1"

// explanation says what a condition reason means and what to do about it,
// in the words of the "Troubleshooting by condition reason" table of
// docs/operations/troubleshooting.md (reasons_test.go keeps the two the same). This table
// is the one place the plugin keeps them.
type explanation struct {
	// Meaning is what the reason says happened, a phrase that can follow
	// a colon.
	Meaning string
	// Action is the next step, a phrase that starts with a verb.
	Action string
}

// explanations maps every reason of api/v1alpha1/conditions.go to its
// explanation; reasons_test.go fails when one is missing.
var explanations = map[string]explanation{
	v1alpha1.ReasonAdded: {
		Meaning: "the ID is on the list",
		Action:  "nothing",
	},
	v1alpha1.ReasonReady: {
		Meaning: "the document was read and is well-formed",
		Action:  "nothing",
	},
	v1alpha1.ReasonProgressing: {
		Meaning: "a ListEntry's change is in flight; an Exclusive ExternalList is about to remove the foreign IDs its message and Normal event name",
		Action:  "wait",
	},
	v1alpha1.ReasonRemoved: {
		Meaning: "the deleted ListEntry's ID was taken off the list, or kept because another live ListEntry carries the same ID",
		Action:  "nothing",
	},
	v1alpha1.ReasonListNotFound: {
		Meaning: "the ExternalList does not exist (yet), or the document is 404 and createIfMissing is false",
		Action:  "create the ExternalList or the document, or set createIfMissing: true",
	},
	v1alpha1.ReasonListUnreachable: {
		Meaning: "connection refused, timeout, TLS error, 5xx/429 after retries, or an unexpected status",
		Action:  "check the URL, the network policy, the CA bundle",
	},
	v1alpha1.ReasonUnauthorized: {
		Meaning: "the server answered 401 or 403",
		Action:  "check the token or credentials in the Secret, and the permissions they carry",
	},
	v1alpha1.ReasonRejected: {
		Meaning: "the server refused the request as such (400, 405, 409, 411, 413, 415, 422), or redirected a write",
		Action:  "a redirected write names the new location in the message: point spec.url at it; otherwise check the document's size and the server's rules",
	},
	v1alpha1.ReasonInvalidDocument: {
		Meaning: "not JSON (e.g. an HTML error page), the pointer does not lead to an array of strings, an object on the pointer's path has the key twice, the body exceeds --max-body-bytes, or the array holds more than --max-items items",
		Action:  "fix itemsPointer or the server, or raise the cap (docs/operations/sizing.md); nothing was written",
	},
	v1alpha1.ReasonMemoryBudgetExceeded: {
		Meaning: "the list's read did not fit in the replica's memory budget, which all its lists share: the document needs more than the whole budget, or other lists' reads held it for longer than the read could wait",
		Action:  "wait: the list is retried with backoff; if it needs more than the whole budget, raise --memory-budget-bytes or the memory limit it derives from (docs/operations/sizing.md)",
	},
	v1alpha1.ReasonUnsafeServer: {
		Meaning: "no ETag, a weak ETag, or 428 to a conditional PUT",
		Action:  "the API must send strong ETags and honour If-Match; listkeeper will not write blindly",
	},
	v1alpha1.ReasonConflictRetriesExhausted: {
		Meaning: "every write lost to other writers until the limit",
		Action:  "very heavy contention or a server whose ETag changes on every read; raise --conflict-max-attempts",
	},
	v1alpha1.ReasonSecretNotFound: {
		Meaning: "a Secret the list reads (headersFrom, urlFrom, auth) is missing, or lacks the key urlFrom names",
		Action:  "create it; the list recovers as soon as it exists",
	},
	v1alpha1.ReasonInvalidSpec: {
		Meaning: "a CA bundle without a certificate, a Secret key that is not a header name",
		Action:  "fix the spec or the Secret",
	},
	v1alpha1.ReasonHostNotAllowed: {
		Meaning: "spec.url's host is outside --allowed-hosts",
		Action:  "ask the operator's admin",
	},
	v1alpha1.ReasonDestinationNotAllowed: {
		Meaning: "the list's host resolves to an address the operator may not reach (link-local, loopback, metadata or the Kubernetes API server, or outside its --allowed-hosts entry); nothing was sent",
		Action:  "point the list at a host outside the cluster's own network, or ask the operator's admin to allow the range in --allowed-hosts",
	},
	v1alpha1.ReasonInsecureTransport: {
		Meaning: "the list would send Secret headers, credentials or a URL from a Secret over plain http; nothing was sent",
		Action:  "use an https URL; for a loopback or test server only, set spec.allowInsecureHTTP: true",
	},
	v1alpha1.ReasonAmbientCredentialsNotAllowed: {
		Meaning: "spec.auth names no Secret, so the list would use the operator's own cloud identity, and the operator does not allow that for this kind of list or this host; nothing was sent",
		Action:  "put credentials in a Secret and name it in spec.auth, or ask the operator's administrator for a ClusterExternalList",
	},
	v1alpha1.ReasonDocumentInUse: {
		Meaning: "another list that has read the document with its own credentials (a ClusterExternalList, or an older ExternalList) names the same document and items pointer and holds the claim (two spellings of one document, such as two URL styles of one S3 object, count as one); this list writes nothing and its entries hold nothing: IDs they added before come off, through the holder, unless one of its entries holds them",
		Action:  "delete one of the two lists, point this one at another document, or share the list with a ClusterExternalList; it takes the claim by itself when the holder goes",
	},
	v1alpha1.ReasonNamespaceNotAllowed: {
		Meaning: "the entry refers to a ClusterExternalList whose namespaceSelector does not select its namespace; its ID is not written, and one it added while the namespace was selected comes off (unless an entry of a selected namespace holds it)",
		Action:  "ask the list's administrator to select the namespace (a label on it is enough)",
	},
	v1alpha1.ReasonRemoveSkipped: {
		Meaning: "the entry was deleted while its list was gone (as the API server confirmed) or being deleted with deletionPolicy: Orphan, while no list wrote the document its ID was added to any more, or without ever having added its ID (its list did not admit it), so the document was left as it was",
		Action:  "remove the ID by hand if the list still exists elsewhere",
	},
	v1alpha1.ReasonDriftCorrected: {
		Meaning: "a resync put back missing IDs or (Exclusive) removed foreign ones; the event names them (at most 10 per direction, then \"and N more\")",
		Action:  "look for who edits the list behind the operator's back",
	},
}

// explain returns the explanation of reason, and a generic one for a
// reason this build of the plugin does not know (an operator newer than
// the plugin).
func explain(reason string) explanation {
	if e, ok := explanations[reason]; ok {
		return e
	}
	return explanation{
		Meaning: "a reason this version of kubectl-listkeeper does not know",
		Action:  "read the condition's message, and update kubectl-listkeeper to the operator's version",
	}
}
