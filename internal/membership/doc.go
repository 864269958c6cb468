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

// Package membership lets the replicas of listkeeper share the work without
// a leader.
//
// Each replica holds its own coordination.k8s.io/v1 Lease in the operator's
// namespace, labelled listkeeper.dev/member=<group> (Options.Group), and
// renews it. A member sees only the Leases of its own group, so two
// installations in one namespace never share work. The live Leases are the
// members. The work is cut into a fixed number of buckets, and every member
// computes locally, from the Leases it sees, which member each bucket
// belongs to (rendezvous hashing: when a member joins or leaves, about 1/R
// of the buckets move).
//
// # Moving a bucket
//
// Each member publishes, in an annotation of its own Lease, the buckets it
// holds. A member takes a bucket only when no live Lease claims it, and
// acts on it only after its own Lease says it holds it and a read of every
// Lease of its group, made after that write, shows no other live claim:
// members that join at once each find every bucket free and claim it, and
// of two such claims the later writer's read sees the earlier one, so at
// most one of them acts (a claim not acted on is dropped).
//
// A member that must give a bucket up stops taking new work for it at once
// (Acquire refuses), waits until the work it admitted is done (every
// release func was called), and only then drops the bucket from its Lease;
// the next owner sees that and takes it. If the bucket becomes its own
// again before the drain ends, it takes work again and reports the bucket
// through OnGained, since the work it refused meanwhile was dropped.
//
// A Lease is expired when this member has not seen it change for the lease
// duration. Only the local clock measures that, from when the Lease was
// seen to change; a Lease seen for the first time lives a full lease
// duration from first sight, whatever its renewTime (another node's clock
// wrote it), so clock skew between nodes does not matter. The view comes
// from a watch, which may lag; before a member takes a bucket that an
// expired Lease claims, it reads that Lease from the API server, and a
// Lease found changed is live again.
//
// # Fencing: the right to act
//
// A member's right to act ends at a deadline on its own monotonic clock:
// the start of its last successful renewal plus the renew deadline (the
// lease duration less one and a half renew periods). Owns, Acquire and
// Held check that deadline against the Clock, whatever the membership loop
// is doing, and ActUntil returns it, so that a writer ends each write's
// whole life by then. Every call the loop makes to the API server has a
// deadline. Another member considers the Lease expired a lease duration
// after it saw the renewal, so the holder has stopped acting before anyone
// may take over; then Start returns an error, and the process exits.
//
// A renewal the API server made but whose answer was lost leaves the
// member with a stale resourceVersion; the 409 that follows makes it read
// its Lease again and, while the Lease still names it, write over it.
//
// # Graceful and ungraceful takeover
//
// A write a member sent before its right to act ended may still land at a
// server up to LateWriteBound later (a request held by a slow server or
// proxy). Whether the next holder of a bucket must wait for such writes
// depends on how the bucket came to it:
//
//   - Graceful: the last Lease this member saw claiming the bucket dropped
//     the claim while it was live (a drained handover, or a clean leave,
//     which drops every claim before it deletes the Lease), or no Lease
//     claimed it. Nothing of the previous holder is in flight, and
//     SettleAfter is zero.
//   - Ungraceful: the Lease that claimed it expired in this member's view,
//     or was deleted while it still claimed it (by hand, or collected as a
//     dead member's). SettleAfter is when that holder's right to act ended
//     at the latest, on this member's clock (the Lease last seen to change
//     plus the lease duration, or the deletion seen, whichever is first),
//     plus LateWriteBound. The controller does not settle a change on "the
//     list already holds it" before then, and verifies the bucket's
//     documents once after it.
//
// A handover is graceful only if nothing is in flight, so a member does not
// drop a bucket (hand it over) before its SettleAfter has passed: until
// then it treats the bucket as if work were still admitted on it. A member
// that joins later, and never saw the old claim, therefore takes the
// bucket when every late write has landed.
//
// On a clean shutdown a member goes on renewing while it drains every
// bucket and drops it from its Lease; once its Lease claims nothing it
// deletes it, and the others take over at once. If work is still
// outstanding at ShutdownTimeout, it stops acting and leaves its Lease,
// with the claims it still has, to expire: the others take those buckets
// ungracefully, as a dead member's, however late they start.
//
// A member deletes the Lease of a dead member (conditionally on the
// version it saw) once that Lease has been expired for a lease duration
// and the late write bound, so that the Leases of killed replicas do not
// pile up. A member that starts after the deletion sees no claim and takes
// the buckets gracefully, which is safe by then.
package membership
