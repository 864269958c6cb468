// Package controller holds listkeeper's controllers.
//
// The ListEntry controller keeps one ID on its ExternalList's document while
// the entry lives, and takes it off when the last entry holding it is
// deleted (finalizer listkeeper.dev/cleanup). The ExternalList controller
// checks that the list is reachable and well-formed, reports its state, and
// corrects drift every resync interval.
//
// Both talk to a list only through the combining ETag client
// (internal/etagclient), one per list per process, kept by [ListClients]. A
// reconcile submits its change and returns without holding a worker; when the
// change is committed the entry is queued again and the outcome is recorded.
// That lets every change a replica has in flight combine into a few writes.
//
// No replica coordinates with another. Every replica reconciles every
// object, and correctness rests on two rules: each write is a conditional
// read-modify-write, and each decision made from a possibly stale cache is
// checked against the API server after the write (an ID added for an entry
// that was meanwhile deleted is taken off again; an ID removed while another
// entry came to hold it is put back).
package controller
