package membership

// move is what a member does with one bucket in a step of its loop.
type move int

const (
	// keep: nothing changes.
	keep move = iota
	// drain: the bucket is held but now belongs to another member; the
	// member admits no new work for it until it is dropped.
	drain
	// drop: the bucket is held, belongs to another member and its
	// admitted work is done; the member gives it up.
	drop
	// take: the bucket belongs to this member and no live Lease claims
	// it; the member claims it.
	take
	// retake: the bucket was draining and belongs to this member again;
	// it admits work again.
	retake
)

var moveNames = [...]string{keep: "keep", drain: "drain", drop: "drop", take: "take", retake: "retake"}

func (m move) String() string { return moveNames[m] }

// bucketView is what a member knows of one bucket when it decides.
type bucketView struct {
	held     bool // this member's Lease claims it
	draining bool // it admits no new work for it
	inflight int  // work admitted and not yet released
	mine     bool // the assignment, among the live members, gives it to this member
	claimed  bool // a live Lease of another member claims it
}

// decide returns what a member does with a bucket it sees as v.
func decide(v bucketView) move {
	switch {
	case v.held && !v.mine && v.inflight == 0:
		return drop
	case v.held && !v.mine && !v.draining:
		return drain
	case v.held && v.mine && v.draining:
		return retake
	case !v.held && v.mine && !v.claimed:
		return take
	}
	return keep
}
