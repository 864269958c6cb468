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
