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

package membership

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/clock"
)

// Defaults of Options.
const (
	// DefaultLeaseDuration is how long a member's Lease lives without
	// renewal; a dead member's buckets move after about this long.
	DefaultLeaseDuration = 10 * time.Second
	// DefaultRenewPeriod is how often a member renews its Lease.
	DefaultRenewPeriod = 2 * time.Second
	// DefaultBuckets is the number of buckets the work is cut into. Every
	// replica must use the same number.
	DefaultBuckets = 256
	// DefaultShutdownTimeout bounds how long a member waits on shutdown
	// for the buckets it holds to be handed over; then it leaves its Lease
	// to expire.
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultLateWriteBound is how long after a member's right to act
	// ended a write it sent may still land at a server: the ETag client's
	// default request timeout.
	DefaultLateWriteBound = 10 * time.Second
	// DefaultGroup is the member group of a member whose Options name none.
	DefaultGroup = "listkeeper"
)

// LabelMember marks the Leases of listkeeper's members; its value is the
// member group (Options.Group).
const LabelMember = "listkeeper.dev/member"

// AnnotationBuckets holds, on a member's Lease, the buckets it holds.
const AnnotationBuckets = "listkeeper.dev/buckets"

// Options configure a Member. Namespace is required.
type Options struct {
	// Namespace is where the Leases live: the operator's namespace.
	Namespace string
	// Group is the member group: a member's Lease is labelled
	// LabelMember=Group and it sees only the Leases of its own group, so
	// two installations in one namespace never share buckets. It must be
	// a valid label value. Default: DefaultGroup.
	Group string
	// Identity names this member, and its Lease; it must be unique in the
	// namespace, across groups too. Default: POD_NAME, or the host name,
	// with a random suffix, so that a restarted process is a new member.
	Identity string
	// LeaseDuration defaults to DefaultLeaseDuration.
	LeaseDuration time.Duration
	// RenewPeriod defaults to DefaultRenewPeriod; it must be less than a
	// third of LeaseDuration. It also bounds each call to the API server
	// while the member runs.
	RenewPeriod time.Duration
	// Buckets defaults to DefaultBuckets.
	Buckets int
	// ShutdownTimeout defaults to DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// LateWriteBound is how long after a member's right to act ended a
	// write it sent may still land at a server (a request held by a slow
	// server or proxy). It sets SettleAfter, and how long the Lease of a
	// dead member is kept. Default: DefaultLateWriteBound.
	LateWriteBound time.Duration
	// Clock defaults to the real clock. A member's right to act is
	// measured on it, so it should be monotonic, as the real one is.
	Clock clock.WithTicker
	// Log defaults to discarding.
	Log logr.Logger
}

// withDefaults returns opts with every unset field defaulted, or why they
// cannot work.
func (opts Options) withDefaults() (Options, error) {
	if opts.Namespace == "" {
		return opts, errors.New("membership: a namespace is required")
	}
	if opts.Group == "" {
		opts.Group = DefaultGroup
	}
	if errs := validation.IsValidLabelValue(opts.Group); len(errs) > 0 {
		return opts, fmt.Errorf("membership: group %q is not a label value: %s", opts.Group, strings.Join(errs, "; "))
	}
	if opts.Identity == "" {
		opts.Identity = defaultIdentity()
	}
	if opts.LeaseDuration == 0 {
		opts.LeaseDuration = DefaultLeaseDuration
	}
	if opts.RenewPeriod == 0 {
		opts.RenewPeriod = DefaultRenewPeriod
	}
	if opts.Buckets == 0 {
		opts.Buckets = DefaultBuckets
	}
	if opts.ShutdownTimeout == 0 {
		opts.ShutdownTimeout = DefaultShutdownTimeout
	}
	if opts.LateWriteBound == 0 {
		opts.LateWriteBound = DefaultLateWriteBound
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Log.GetSink() == nil {
		opts.Log = logr.Discard()
	}
	if opts.RenewPeriod*3 > opts.LeaseDuration {
		return opts, fmt.Errorf("membership: the renew period (%s) must be less than a third of the lease duration (%s)", opts.RenewPeriod, opts.LeaseDuration)
	}
	if opts.LateWriteBound < 0 {
		return opts, fmt.Errorf("membership: the late write bound must not be negative, got %s", opts.LateWriteBound)
	}
	if opts.Buckets < 1 || opts.Buckets > 1<<16 {
		return opts, fmt.Errorf("membership: buckets must be in 1..65536, got %d", opts.Buckets)
	}
	return opts, nil
}
