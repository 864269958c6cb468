package membership

import "testing"

// TestDecide checks what a member does with one bucket in each state it
// can see it in.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    bucketView
		want move
	}{
		{"held and mine", bucketView{held: true, mine: true}, keep},
		{"held and mine, with work", bucketView{held: true, mine: true, inflight: 2}, keep},
		{"held, another's, idle", bucketView{held: true}, drop},
		{"held, another's, with work", bucketView{held: true, inflight: 1}, drain},
		{"draining, with work", bucketView{held: true, draining: true, inflight: 1}, keep},
		{"draining, idle", bucketView{held: true, draining: true}, drop},
		{"draining, mine again", bucketView{held: true, draining: true, mine: true, inflight: 1}, retake},
		{"draining, mine again, idle", bucketView{held: true, draining: true, mine: true}, retake},
		{"mine, free", bucketView{mine: true}, take},
		{"mine, claimed by a live Lease", bucketView{mine: true, claimed: true}, keep},
		{"another's", bucketView{}, keep},
		{"another's, claimed", bucketView{claimed: true}, keep},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decide(tc.v); got != tc.want {
				t.Errorf("decide(%+v) = %s, want %s", tc.v, got, tc.want)
			}
		})
	}
}
