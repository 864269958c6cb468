package testenv

import (
	"os"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// The package's own tests run on the environment they test, started the
// way every envtest suite starts it.

const (
	testUser  = "testenv-admin"
	testQPS   = 123
	testBurst = 456
)

var env *Env

func TestMain(m *testing.M) {
	os.Exit(Main(m, Options{
		CRDDirectory: ProjectCRDs,
		QPS:          testQPS,
		Burst:        testBurst,
		Users:        []envtest.User{{Name: testUser, Groups: []string{"system:masters"}}},
	}, func(e *Env) error {
		env = e
		return nil
	}))
}
