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
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/wafv2"
	"github.com/aws/aws-sdk-go-v2/service/wafv2/types"
	"github.com/aws/smithy-go/middleware"

	"github.com/listkeeper/listkeeper/internal/etagclient"
)

// WAFv2MaxAddresses is the most addresses an AWS WAF IP set holds (WAF's
// quota, which cannot be raised). A write that would pass it is refused
// before anything is sent.
const WAFv2MaxAddresses = 10_000

// wafv2Backend keeps a list in an AWS WAF IP set: the set's addresses are
// the items, in the order WAF gives them, and its LockToken is the
// version.
//
//   - Read is GetIPSet. The addresses are kept exactly as read, so that
//     another writer's entries go back byte for byte. WAF stores CIDR
//     blocks in canonical form (IPv6 lower-case and compressed), which is
//     why the engine spells every ID that way before it applies a change
//     (NormalizeItem): an ID in another spelling would never be seen on
//     the list. A set that does not exist is ErrNotFound: listkeeper never
//     creates one.
//   - Write is UpdateIPSet with the lock token of the read it is based
//     on, and the description of that read: UpdateIPSet replaces the
//     set's description too, and one left out would be cleared. A stale
//     token (WAFOptimisticLockException) is a lost race, unless the SDK
//     sent the update more than once: an earlier attempt may have landed
//     and spent the token, so the outcome is unknown; more than
//     WAFv2MaxAddresses items are refused before anything is sent.
//
// It is safe for concurrent use.
type wafv2Backend struct {
	client   *wafv2.Client
	hc       *http.Client
	set      wafv2Set
	maxItems int
	// family is the set's address family once a read has told it: 0
	// before, else 4 or 6 (CheckItem).
	family atomic.Int32
}

var (
	_ etagclient.Backend        = (*wafv2Backend)(nil)
	_ etagclient.ItemChecker    = (*wafv2Backend)(nil)
	_ etagclient.ItemNormalizer = (*wafv2Backend)(nil)
)

// wafv2Version is what a write must carry back from the read it is based
// on, besides the lock token (Version.Tag). It is a comparable value.
type wafv2Version struct {
	// description is the set's description, when hasDescription.
	description    string
	hasDescription bool
	ipVersion      types.IPAddressVersion
}

// descriptionPtr returns the description to send: nil for none.
func (v wafv2Version) descriptionPtr() *string {
	if !v.hasDescription {
		return nil
	}
	return aws.String(v.description)
}

// Read implements etagclient.Backend.
func (b *wafv2Backend) Read(ctx context.Context, _ etagclient.Version) (etagclient.ReadAnswer, error) {
	out, err := b.client.GetIPSet(ctx, &wafv2.GetIPSetInput{Name: aws.String(b.set.name), Scope: b.set.scope, Id: aws.String(b.set.id)})
	if err != nil {
		return etagclient.ReadAnswer{}, classifyWAFv2(ctx, opGetIPSet, err).readError()
	}
	if out.IPSet == nil || aws.ToString(out.LockToken) == "" {
		return etagclient.ReadAnswer{}, fmt.Errorf("%w: AWS WAF GetIPSet answered without an IP set and its lock token", etagclient.ErrUnsafeServer)
	}
	addresses := out.IPSet.Addresses
	if b.maxItems > 0 && len(addresses) > b.maxItems {
		return etagclient.ReadAnswer{}, fmt.Errorf("%w: the IP set holds %d addresses, more than %d, the limit (--max-items raises it)", etagclient.ErrTooManyItems, len(addresses), b.maxItems)
	}
	empty, err := etagclient.NewDocument(nil)
	if err != nil {
		return etagclient.ReadAnswer{}, fmt.Errorf("%w: %w", etagclient.ErrInvalidDocument, err)
	}
	doc, err := empty.WithItems(addresses)
	if err != nil {
		return etagclient.ReadAnswer{}, fmt.Errorf("%w: the IP set's addresses cannot be held: %w", etagclient.ErrInvalidDocument, err)
	}
	v := wafv2Version{ipVersion: out.IPSet.IPAddressVersion}
	if d := out.IPSet.Description; d != nil {
		v.description, v.hasDescription = *d, true
	}
	switch v.ipVersion {
	case types.IPAddressVersionIpv4:
		b.family.Store(4)
	case types.IPAddressVersionIpv6:
		b.family.Store(6)
	}
	return etagclient.ReadAnswer{Doc: doc, Version: etagclient.Version{Tag: aws.ToString(out.LockToken), Data: v}}, nil
}

// Write implements etagclient.Backend.
func (b *wafv2Backend) Write(ctx context.Context, next *etagclient.Document, create bool, base etagclient.Version) (etagclient.WriteAnswer, error) {
	if create {
		return etagclient.WriteAnswer{}, fmt.Errorf("%w: listkeeper does not create AWS WAF IP sets: create the set and name it in spec.wafv2", etagclient.ErrRejected)
	}
	v, ok := base.Data.(wafv2Version)
	if !ok || base.Tag == "" {
		return etagclient.WriteAnswer{}, fmt.Errorf("%w: an AWS WAF IP set is written only on a read's lock token", etagclient.ErrUnsafeServer)
	}
	items := next.Items()
	if len(items) > WAFv2MaxAddresses {
		return etagclient.WriteAnswer{}, fmt.Errorf("%w: AWS WAF IP sets hold at most 10,000 addresses, and the change would make it %d", etagclient.ErrRejected, len(items))
	}
	addresses := make([]string, len(items)) // never nil: Addresses is required
	copy(addresses, items)
	var attempts atomic.Int32
	out, err := b.client.UpdateIPSet(ctx, &wafv2.UpdateIPSetInput{
		Name: aws.String(b.set.name), Scope: b.set.scope, Id: aws.String(b.set.id),
		Description: v.descriptionPtr(),
		Addresses:   addresses,
		LockToken:   aws.String(base.Tag),
	}, countAttempts(&attempts))
	if err != nil {
		answer, err := classifyWAFv2(ctx, opUpdateIPSet, err).writeAnswer()
		if answer.Outcome == etagclient.WriteLost && attempts.Load() > 1 {
			// The SDK sent the update again (after a dropped connection,
			// a 5xx or throttling), and an earlier attempt may have landed
			// and spent the token: only a fresh read tells.
			answer = etagclient.WriteAnswer{Outcome: etagclient.WriteUnknown,
				Cause: &wafv2Cause{msg: "AWS WAF refused a retried update's lock token: the update may or may not have landed"}}
		}
		return answer, err
	}
	answer := etagclient.WriteAnswer{Outcome: etagclient.WriteCommitted}
	if tok := aws.ToString(out.NextLockToken); tok != "" {
		answer.Version = etagclient.Version{Tag: tok, Data: v}
	}
	return answer, nil
}

// NormalizeItem implements etagclient.ItemNormalizer: an ID is spelled as
// WAF stores it (NormalizeCIDR), so that "10.0.0.1" is the "10.0.0.1/32"
// the set holds; an ID that is no CIDR block stays as it is, for
// CheckItem to refuse.
func (b *wafv2Backend) NormalizeItem(id string) string {
	if norm, err := NormalizeCIDR(id); err == nil {
		return norm
	}
	return id
}

// CheckItem implements etagclient.ItemChecker: an ID must be an address or
// a CIDR block that NormalizeCIDR takes, of the set's address family once
// a read has told it (either before).
func (b *wafv2Backend) CheckItem(id string) error {
	return checkWAFv2Item(id, int(b.family.Load()))
}

// countAttempts is an option of one operation that counts in n the
// attempts the SDK's retryer makes: its middleware runs once per attempt,
// after the retry step.
func countAttempts(n *atomic.Int32) func(*wafv2.Options) {
	return func(o *wafv2.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Finalize.Insert(middleware.FinalizeMiddlewareFunc("ListkeeperCountAttempts",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					n.Add(1)
					return next.HandleFinalize(ctx, in)
				}), "Retry", middleware.After)
		})
	}
}

// Close implements etagclient.Backend.
func (b *wafv2Backend) Close() { b.hc.CloseIdleConnections() }
