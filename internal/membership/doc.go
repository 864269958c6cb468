// Package membership lets the replicas of listkeeper share the work without
// a leader.
//
// Each replica holds its own coordination.k8s.io/v1 Lease in the operator's
// namespace (label listkeeper.dev/member) and renews it. The live Leases are
// the members. The work is cut into a fixed number of buckets, and every
// member computes locally, from the Leases it sees, which member each bucket
// belongs to (rendezvous hashing: when a member joins or leaves, about 1/R
// of the buckets move).
//
// A bucket moves safely. Each member publishes, in an annotation of its own
// Lease, the buckets it holds. A member takes a bucket only when no live
// member's Lease claims it, and acts on it only after its own Lease says it
// holds it. A member that must give a bucket up stops taking new work for
// it at once (Acquire refuses), waits until the work it admitted is done
// (every release func was called), and only then drops the bucket from its
// Lease; the next owner sees that and takes it. The buckets of a member
// that died are free once its Lease has expired: a Lease is expired when
// this member has not seen it change for the lease duration (the local
// clock measures how long, so clock skew between nodes does not matter).
//
// A member that cannot renew its Lease for the renew deadline stops acting
// (Acquire and Owns say no for every bucket) before any other member can
// consider its Lease expired, and then Start returns an error, so the
// process exits. On a clean shutdown it drains every bucket and deletes its
// Lease, so the others take over at once.
//
// Writes that were already in flight when a bucket moved are fenced by the
// list server: they carry If-Match, and after a 412 the caller must check
// Owns before it applies anything again.
package membership
