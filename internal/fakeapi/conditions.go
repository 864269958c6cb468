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

package fakeapi

import (
	"fmt"
	"net/http"
)

// conditions are the parsed conditional headers of a request.
type conditions struct {
	ifMatch     etagList
	ifNoneMatch etagList
	// ifGeneration and ifMetageneration are x-goog-if-generation-match
	// and x-goog-if-metageneration-match, read only under generations.
	ifGeneration     generationMatch
	ifMetageneration generationMatch
}

// parseConditions parses If-Match and If-None-Match. An empty If-None-Match
// list matches nothing, so it can never block the request: it is as good as
// absent. An empty If-Match stays present and fails, because it matches
// nothing either.
func parseConditions(h http.Header) (conditions, error) {
	im, err := parseETagList(h.Values("If-Match"))
	if err != nil {
		return conditions{}, fmt.Errorf("If-Match: %w", err)
	}
	inm, err := parseETagList(h.Values("If-None-Match"))
	if err != nil {
		return conditions{}, fmt.Errorf("If-None-Match: %w", err)
	}
	if !inm.any && len(inm.tags) == 0 {
		inm = etagList{}
	}
	return conditions{ifMatch: im, ifNoneMatch: inm}, nil
}

// current is the state preconditions are evaluated against.
type current struct {
	exists     bool
	opaque     string // the document's entity tag, without quotes
	weak       bool   // the tag is weak now, so no If-Match tag matches it
	generation int64
}

// verdict is the outcome of evaluating a request's preconditions.
type verdict int

const (
	// proceed: the preconditions hold, or there are none.
	proceed verdict = iota
	// notModified: If-None-Match matched on a GET or HEAD.
	notModified
	// staleTag: If-Match did not match the document.
	staleTag
	// noDocument: If-Match was sent and there is no document.
	noDocument
	// exists: If-None-Match: * met a document on a write.
	exists
	// tagListed: If-None-Match listed the document's tag on a write.
	tagListed
	// generationMismatch: x-goog-if-generation-match or
	// x-goog-if-metageneration-match does not hold.
	generationMismatch
)

// evaluate applies RFC 9110 section 13.2.2 (If-Match first, then
// If-None-Match) to cur, then the generation preconditions; safe is true
// for GET and HEAD.
func (c conditions) evaluate(cur current, safe bool) verdict {
	if c.ifMatch.present && !c.ifMatch.matchStrong(cur.exists, cur.opaque, cur.weak) {
		if !cur.exists {
			return noDocument
		}
		return staleTag
	}
	if c.ifNoneMatch.present && c.ifNoneMatch.matchWeak(cur.exists, cur.opaque) {
		switch {
		case safe:
			return notModified
		case c.ifNoneMatch.any:
			return exists
		default:
			return tagListed
		}
	}
	if (c.ifGeneration.present && !c.ifGeneration.holds(cur.exists, cur.generation)) ||
		(c.ifMetageneration.present && !c.ifMetageneration.holdsMeta(cur.exists)) {
		return generationMismatch
	}
	return proceed
}

// failPrecondition answers a verdict other than proceed and notModified,
// with the status code the profile uses for it.
func (s *Server) failPrecondition(r *http.Request, v verdict) response {
	switch v {
	case noDocument:
		return s.fail(r, s.b.noDocumentCode, "", "If-Match given, but there is no document")
	case exists:
		return s.fail(r, s.b.existsCode, "", "the document exists (If-None-Match: *)")
	case tagListed:
		return s.fail(r, http.StatusPreconditionFailed, "", "If-None-Match lists the current ETag")
	case generationMismatch:
		return s.fail(r, http.StatusPreconditionFailed, "", "At least one of the pre-conditions you specified did not hold.")
	default:
		return s.fail(r, http.StatusPreconditionFailed, "", "If-Match does not match the current ETag")
	}
}
