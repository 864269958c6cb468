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

package ipgroupfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// The statuses of an asynchronous operation, as its URL reports them.
const (
	OperationInProgress = "InProgress"
	OperationSucceeded  = "Succeeded"
	OperationFailed     = "Failed"
)

// operation is the asynchronous operation of an accepted write. Its fields
// are guarded by Server.mu.
type operation struct {
	id    string
	url   string
	group *group
	// done is when, by the Server's clock, the operation ends.
	done time.Time
	// fail is the error it ends with; nil: it succeeds.
	fail   *Error
	status string
}

// startOperation starts the operation of a write to g, reachable at an
// nfvOperations URL under base, as Azure Firewall's resources answer;
// the caller holds Server.mu.
func (s *Server) startOperation(g *group, base string, fail *Error) *operation {
	op := &operation{id: newUUID(), group: g, done: s.cfg.now().Add(s.cfg.operationDelay), fail: fail, status: OperationInProgress}
	loc := strings.ToLower(strings.ReplaceAll(g.location, " ", ""))
	op.url = fmt.Sprintf("%s/subscriptions/%s/providers/Microsoft.Network/locations/%s/nfvOperations/%s?api-version=%s",
		base, s.cfg.subscriptionID, loc, op.id, APIVersion)
	s.ops[op.id] = op
	g.op = op
	return op
}

// APIVersion is the api-version the operation URLs carry: the one of the
// Azure SDK for Go's armnetwork/v9 (the Server accepts any).
const APIVersion = "2025-05-01"

// settle ends g's operation if its time has come; the caller holds
// Server.mu. Everything that reads a group settles it first, so that an
// operation ends by the Server's clock without a timer; the write's own
// answer does not, so it shows Updating even when the operation takes no
// time.
func (s *Server) settle(g *group) {
	op := g.op
	if op == nil || s.cfg.now().Before(op.done) {
		return
	}
	op.status, g.state = OperationSucceeded, StateSucceeded
	if op.fail != nil {
		op.status, g.state = OperationFailed, StateFailed
	}
	if s.cfg.etagOnDone {
		g.etag = newEtag()
	}
	g.op = nil
}

// operationStatus answers a poll of an operation URL:
// {"status":"InProgress"}, {"status":"Succeeded"}, or {"status":"Failed",
// "error":{...}}, all with 200.
func (s *Server) operationStatus(id string) (answer, *Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	op, ok := s.ops[id]
	if !ok {
		return answer{}, errOperationNotFound()
	}
	s.settle(op.group)
	doc := struct {
		Status string     `json:"status"`
		Error  *errorBody `json:"error,omitempty"`
	}{Status: op.status}
	if op.status == OperationFailed {
		doc.Error = &errorBody{Code: op.fail.Code, Message: op.fail.Message, Details: op.fail.Details}
	}
	body, _ := json.Marshal(doc)
	h := http.Header{}
	if op.status == OperationInProgress && s.cfg.pollAfter > 0 {
		h.Set("Retry-After", retryAfterSeconds(s.cfg.pollAfter))
	}
	return answer{status: http.StatusOK, body: body, header: h}, nil
}
