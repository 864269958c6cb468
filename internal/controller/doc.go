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
// Replicas share the work through internal/membership: each ListEntry
// falls in a bucket hashed from its document (URL and items pointer) and
// ID, each ExternalList in one hashed from its namespace and name, and only
// the replica that holds a bucket acts on its objects (Owner). All holders
// of one ID in one document are thus decided in one process, in order, and
// the entry's finalizer is the durable record that its ID may be on the
// list: it goes only after the owner has removed the ID or seen another
// live holder. Changes are fenced, so a replica that lost a bucket never
// writes for it again after a lost write. Setup wires everything, for
// cmd/manager and the tests alike.
package controller
