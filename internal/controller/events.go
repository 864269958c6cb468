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
