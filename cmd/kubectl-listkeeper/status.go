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

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/listconfig"
)

// listStatus is what `status` reports about a list; -o json prints it as
// it is.
type listStatus struct {
	Kind      kind   `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Mode      string `json:"mode"`
	// Ready is the list's Ready condition; nil before its first status.
	Ready *conditionView `json:"ready,omitempty"`
	// Claim says whether the list holds the claim on its document, Owner
	// which replica writes that document.
	Claim claimView `json:"claim"`
	Owner ownerView `json:"owner"`
	// Entries counts the list's ListEntries by condition; EntryCount is
	// the operator's count of the live ones (status.entryCount).
	Entries          entryCounts `json:"entries"`
	EntryCount       int32       `json:"entryCount"`
	ItemCount        int32       `json:"itemCount"`
	ForeignItemCount int32       `json:"foreignItemCount"`
	LastSyncTime     *time.Time  `json:"lastSyncTime,omitempty"`
	// LastError is the Ready condition when it is not True.
	LastError   *conditionView `json:"lastError,omitempty"`
	RedactedURL string         `json:"redactedURL,omitempty"`
	DocumentID  string         `json:"documentID,omitempty"`
	// FinalizerAtBirth says whether the API server adds the cleanup
	// finalizer to the entries of the list's namespace (of the user's, for
	// a ClusterExternalList) at creation.
	FinalizerAtBirth birthView `json:"finalizerAtBirth"`
}

// conditionView is one condition as the plugin shows it.
type conditionView struct {
	Type               string                 `json:"type"`
	Status             metav1.ConditionStatus `json:"status"`
	Reason             string                 `json:"reason"`
	Message            string                 `json:"message,omitempty"`
	LastTransitionTime time.Time              `json:"lastTransitionTime"`
}

func viewOf(c *metav1.Condition) *conditionView {
	if c == nil {
		return nil
	}
	return &conditionView{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message, LastTransitionTime: c.LastTransitionTime.Time}
}

// statusOptions are the flags of `status`.
type statusOptions struct {
	owner  ownerQuery
	output string
}

// runStatus prints the status of the list r names.
func runStatus(ctx context.Context, e *env, r ref, o statusOptions) error {
	s, err := readStatus(ctx, e, r, o.owner)
	if err != nil {
		return err
	}
	if o.output == outputJSON {
		enc := json.NewEncoder(e.out)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	renderStatus(e.out, s, e.now())
	return nil
}

// getList reads the list r names.
func getList(ctx context.Context, c client.Reader, r ref) (v1alpha1.List, error) {
	obj := r.object()
	if err := c.Get(ctx, r.key(), obj); err != nil {
		return nil, fmt.Errorf("get %s: %w", r, err)
	}
	l, ok := obj.(v1alpha1.List)
	if !ok {
		return nil, fmt.Errorf("%s is not a list", r)
	}
	return l, nil
}

// readStatus gathers the status of the list r names. What the user may
// not read (other namespaces' lists and entries, the operator's Leases)
// is left out, with a note.
func readStatus(ctx context.Context, e *env, r ref, q ownerQuery) (*listStatus, error) {
	l, err := getList(ctx, e.c, r)
	if err != nil {
		return nil, err
	}
	st, spec := l.ListStatus(), l.ListSpec()
	s := &listStatus{
		Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, Mode: string(spec.EffectiveMode()),
		EntryCount: st.EntryCount, ItemCount: st.ItemCount, ForeignItemCount: st.ForeignItemCount,
		RedactedURL: st.RedactedURL, DocumentID: st.DocumentID,
	}
	if s.DocumentID == "" {
		s.DocumentID = listconfig.DocumentOf(l)
	}
	if st.LastSyncTime != nil {
		t := st.LastSyncTime.Time
		s.LastSyncTime = &t
	}
	ready := meta.FindStatusCondition(st.Conditions, v1alpha1.ConditionReady)
	s.Ready = viewOf(ready)
	if ready != nil && ready.Status != metav1.ConditionTrue {
		s.LastError = s.Ready
	}
	if s.Claim, err = claimOf(ctx, e.c, l); err != nil {
		return nil, err
	}
	entries, note, err := readEntries(ctx, e.c, r, e.namespace)
	if err != nil {
		return nil, err
	}
	s.Entries = countEntries(entries, r)
	s.Entries.Note = note
	leases, err := readLeases(ctx, e.c, q)
	s.Owner = decideOwner(leases, listconfig.DocumentOf(l), q, e.now())
	if err != nil {
		s.Owner.Note = err.Error()
	}
	entryNS := r.Namespace
	if entryNS == "" {
		entryNS = e.namespace
	}
	s.FinalizerAtBirth = finalizerAtBirth(ctx, e.c, entryNS)
	return s, nil
}

// renderStatus writes s for people, with times relative to now.
func renderStatus(w io.Writer, s *listStatus, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", k, fmt.Sprintf(format, args...)) }
	fmt.Fprintf(tw, "%s\n", ref{Kind: s.Kind, Namespace: s.Namespace, Name: s.Name})
	if s.Ready == nil {
		row("Ready", "no status yet: the operator has not reconciled the list")
	} else {
		row("Ready", "%s (%s), since %s", s.Ready.Status, s.Ready.Reason, ago(s.Ready.LastTransitionTime, now))
	}
	row("Claim", "%s", claimText(s.Claim))
	row("Owner", "%s", ownerText(s.Owner, now))
	row("Mode", "%s", s.Mode)
	row("Items", "%d (foreign: %d)", s.ItemCount, s.ForeignItemCount)
	row("Entries", "%d (the operator counts %d live)", s.Entries.Total, s.EntryCount)
	for _, line := range entryLines(s.Entries, now) {
		fmt.Fprintf(tw, "\t  %s\n", line)
	}
	if s.LastSyncTime == nil {
		row("Last sync", "never")
	} else {
		row("Last sync", "%s (%s)", s.LastSyncTime.UTC().Format(time.RFC3339), ago(*s.LastSyncTime, now))
	}
	if s.LastError == nil {
		row("Last error", "none")
	} else {
		row("Last error", "%s: %s", s.LastError.Reason, s.LastError.Message)
	}
	row("URL", "%s", orDash(s.RedactedURL))
	row("Document ID", "%s", orDash(s.DocumentID))
	row("Finalizer", "%s", birthText(s.FinalizerAtBirth))
	_ = tw.Flush()
}

// entryLines renders the entry counts, one line per status and reason.
func entryLines(n entryCounts, now time.Time) []string {
	var rows [][2]string
	for _, c := range n.Ready {
		rows = append(rows, [2]string{fmt.Sprintf("Ready=%s %s", c.Status, c.Reason), fmt.Sprint(c.Count)})
	}
	if n.NoStatus > 0 {
		rows = append(rows, [2]string{"no status yet", fmt.Sprint(n.NoStatus)})
	}
	if n.Terminating > 0 {
		rows = append(rows, [2]string{"Terminating", fmt.Sprintf("%d (the oldest deleted %s)", n.Terminating, ago(*n.TerminatingSince, now))})
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r[0]))
	}
	out := make([]string, 0, len(rows)+1)
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%-*s  %s", width, r[0], r[1]))
	}
	if n.Note != "" {
		out = append(out, "("+n.Note+")")
	}
	return out
}

func claimText(c claimView) string {
	var s string
	switch {
	case !c.Known:
		s = "unknown"
	case c.Held:
		s = "holds the claim on its document"
	default:
		s = "does not hold the claim on its document: " + c.Holder + " does"
	}
	if c.Note != "" {
		s += " (" + c.Note + ")"
	}
	return s
}

func ownerText(o ownerView, now time.Time) string {
	if o.Holder == "" && o.Lease == "" {
		if o.Bucket != nil {
			return fmt.Sprintf("unknown, bucket %d of %d (%s)", *o.Bucket, o.Buckets, o.Note)
		}
		return "unknown (" + o.Note + ")"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (Lease %s", orDash(o.Holder), o.Lease)
	if o.Group != "" {
		fmt.Fprintf(&b, ", group %s", o.Group)
	}
	fmt.Fprintf(&b, ", bucket %d of %d", *o.Bucket, o.Buckets)
	if o.RenewTime != nil {
		fmt.Fprintf(&b, ", renewed %s", ago(*o.RenewTime, now))
	}
	b.WriteString(")")
	if o.Expired {
		b.WriteString(", EXPIRED: the replica is gone and the bucket moves once the others notice")
	}
	if len(o.AlsoClaimedBy) > 0 {
		fmt.Fprintf(&b, ", handing over: also claimed by %s", strings.Join(o.AlsoClaimedBy, ", "))
	}
	if o.Note != "" {
		fmt.Fprintf(&b, " (%s)", o.Note)
	}
	return b.String()
}

// ago renders how long before now t was, as kubectl renders ages.
func ago(t, now time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		return "just now"
	}
	return duration.HumanDuration(d) + " ago"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
