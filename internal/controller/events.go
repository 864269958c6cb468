package controller

import "k8s.io/apimachinery/pkg/runtime"

// EventRecorder is the part of the events API the controllers use; the
// manager's GetEventRecorder satisfies it.
type EventRecorder interface {
	Eventf(regarding runtime.Object, related runtime.Object, eventtype, reason, action, note string, args ...any)
}
