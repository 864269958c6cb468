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

package loopback

import (
	"net"
	"net/http"
)

// HangUp closes the connection of a request without an answer, with a TCP
// reset where it can, so that a fake can play a connection lost before or
// after the server acted. The client sees the connection end (EOF, or a
// reset) after it sent the request. Under HTTP/2, which cannot hijack, it
// aborts the stream instead, by panicking with http.ErrAbortHandler as
// net/http expects.
func HangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
