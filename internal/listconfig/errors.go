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

package listconfig

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/listkeeper/listkeeper/api/v1alpha1"
)

// ConfigError is a list configuration, or an entry's relation to its list,
// that cannot work until someone fixes it. Reason is the condition reason
// to report, Msg the condition message.
type ConfigError struct {
	Reason string
	Msg    string
}

// Error returns Msg.
func (e *ConfigError) Error() string { return e.Msg }

// secretError reports a Secret that could not be read: SecretNotFound when
// it does not exist.
func secretError(name string, err error) error {
	if apierrors.IsNotFound(err) {
		return &ConfigError{Reason: v1alpha1.ReasonSecretNotFound, Msg: fmt.Sprintf("secret %q not found", name)}
	}
	return fmt.Errorf("get secret %q: %w", name, err)
}
