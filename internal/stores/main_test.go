package stores_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: a
// token or credential fetch that outlived the request that wanted it, a
// client that was not closed, a handler still running.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
