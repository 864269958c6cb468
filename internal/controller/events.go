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

package controller

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/listkeeper/listkeeper/internal/safetext"
)

// EventRecorder is the part of the events API the controllers use; the
// manager's GetEventRecorder satisfies it.
type EventRecorder interface {
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any)
}

// maxEventNote bounds an event's note: events.k8s.io/v1 refuses a note of
// more than 1 kB, and an event that is refused is lost.
const maxEventNote = 1000

// safeRecorder formats each event's note, makes it printable and cuts it
// to maxEventNote: notes quote errors, and errors may quote a server.
type safeRecorder struct{ EventRecorder }

// Eventf implements EventRecorder.
func (r safeRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	r.EventRecorder.Eventf(regarding, related, eventtype, reason, action, "%s", safetext.Short(fmt.Sprintf(note, args...), maxEventNote))
}
