package controller

import (
	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/membership"
)

// Owner decides which replica acts on what. Each ListEntry and each
// ExternalList falls in a bucket; a replica acts on an object only while it
// holds the object's bucket, and holds it for as long as the work it
// admitted lasts. *membership.Member implements Owner; SoleOwner owns
// everything, for a single replica.
type Owner interface {
	// Bucket returns the bucket of key.
	Bucket(key string) int
	// Acquire admits work on a bucket, or reports that another replica
	// owns it. release must be called once when the work is done.
	Acquire(bucket int) (release func(), ok bool)
	// Owns reports whether this replica still holds the bucket: a change
	// whose write was lost is applied again only if so.
	Owns(bucket int) bool
	// OnGained registers a callback for buckets this replica has taken.
	OnGained(f func(gained []int))
}

var _ Owner = (*membership.Member)(nil)

// SoleOwner is the Owner of a replica that runs alone: it owns every
// bucket. It is safe for concurrent use.
type SoleOwner struct{}

var _ Owner = SoleOwner{}

// Bucket implements Owner.
func (SoleOwner) Bucket(string) int { return 0 }

// Acquire implements Owner.
func (SoleOwner) Acquire(int) (func(), bool) { return func() {}, true }

// Owns implements Owner.
func (SoleOwner) Owns(int) bool { return true }

// OnGained implements Owner.
func (SoleOwner) OnGained(func([]int)) {}

// documentKey identifies the document an ExternalList names: its URL and
// items pointer. Reference counts are kept per document, so two
// ExternalLists that name the same document share their IDs.
// A URL from a Secret is not read here (it may carry a token, and this
// runs on every event); the Secret's key stands for it.
func documentKey(xl *v1alpha1.ExternalList) string {
	if ref := xl.Spec.URLFrom; ref != nil {
		return "secret:" + xl.Namespace + "/" + ref.SecretKeyRef.Name + "/" + ref.SecretKeyRef.Key + "\x00" + xl.Spec.ItemsPointer
	}
	return xl.Spec.URL + "\x00" + xl.Spec.ItemsPointer
}

// entryKey is what an entry's bucket is hashed from: its document and its
// ID, so that every holder of one ID in one document, whichever
// ExternalList and namespace it is in, is decided in one replica, in the
// order of its queue and of its combining client. Without the ExternalList
// the entry's namespace and list name stand in; such an entry writes to no
// list.
func entryKey(e *v1alpha1.ListEntry, xl *v1alpha1.ExternalList) string {
	if xl == nil {
		return "entry\x00" + e.Namespace + "/" + e.Spec.ListRef.Name + "\x00" + e.Spec.ID
	}
	return "entry\x00" + documentKey(xl) + "\x00" + e.Spec.ID
}

// listKey is what an ExternalList's bucket is hashed from: list-level work
// (status, drift, Exclusive mode) has one owner per ExternalList.
func listKey(namespace, name string) string {
	return "list\x00" + namespace + "/" + name
}
