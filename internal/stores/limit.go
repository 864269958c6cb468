package stores

import (
	"io"
)

// limitedBody fails a read past the size limit with err, which wraps
// etagclient.ErrTooLarge: an endpoint that answers without end must not
// fill the operator's memory, and a body is never cut short silently.
// The backends behind a provider's SDK (wafv2.go, gcpiam_wire.go) put it
// under the SDK's decoder.
type limitedBody struct {
	io.ReadCloser
	left int64
	err  error
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// At the limit: one more byte means the body is longer.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			return 0, b.err
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}
