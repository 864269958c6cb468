package testenv_test

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
	"github.com/listkeeper/listkeeper/internal/testenv"
)

// Start and Stop by hand, outside TestMain. Tests use Main instead, and
// env.Require(t) where this checks the error.
func ExampleStart() {
	env, err := testenv.Start(testenv.Options{CRDDirectory: testenv.ProjectCRDs})
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Println(err)
		}
	}()
	if err != nil {
		fmt.Println("envtest is not available:", err)
		return
	}
	var lists v1alpha1.ExternalListList
	if err := env.Client().List(context.Background(), &lists, client.InNamespace("default")); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(lists.Items), "ExternalLists")
}
