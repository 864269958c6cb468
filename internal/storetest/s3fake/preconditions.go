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

package s3fake

import (
	"encoding/hex"
	"net/http"
	"strings"
	"sync"

	"github.com/johannesboyne/gofakes3"
)

// keyLocks holds one mutex per object key that some request is using, so
// that a conditional PUT checks its precondition and writes without another
// write to the same key in between. gofakes3 checks PutObject preconditions
// under its own backend lock too, but answers 412 where S3 answers 404 and
// compares If-Match literally; the wrapper decides, and gofakes3 only
// stores.
type keyLocks struct {
	mu sync.Mutex
	m  map[string]*keyLock
}

type keyLock struct {
	mu   sync.Mutex
	refs int
}

// acquire locks key and returns the function that unlocks it. With try, it
// does not wait: ok is false when another request holds the key. When the
// key is held, contended (if not nil) is called first, before the wait or
// the refusal.
func (k *keyLocks) acquire(key string, try bool, contended func()) (release func(), ok bool) {
	k.mu.Lock()
	l := k.m[key]
	if l == nil {
		l = &keyLock{}
		k.m[key] = l
	}
	l.refs++
	k.mu.Unlock()

	drop := func() {
		k.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(k.m, key)
		}
		k.mu.Unlock()
	}
	if !l.mu.TryLock() {
		if contended != nil {
			contended()
		}
		if try {
			drop()
			return nil, false
		}
		l.mu.Lock()
	}
	return func() { l.mu.Unlock(); drop() }, true
}

// conditions are the preconditions of a PutObject.
type conditions struct {
	ifMatch     string
	hasIfMatch  bool
	ifNoneMatch bool // If-None-Match: *
}

// parseConditions reads If-Match and If-None-Match. S3 takes them on a
// plain PutObject; elsewhere on a write (copy, multipart part, DELETE,
// POST) this fake does not evaluate them and says so with 501 rather than
// ignore them. If-None-Match takes only "*".
func parseConditions(r *http.Request) (*conditions, *Error) {
	_, hasMatch := r.Header["If-Match"]
	_, hasNone := r.Header["If-None-Match"]
	if !hasMatch && !hasNone {
		return nil, nil
	}
	q := r.URL.Query()
	plainPut := r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") == "" &&
		!q.Has("uploadId") && !q.Has("partNumber") && !q.Has("tagging") && !q.Has("acl")
	if !plainPut {
		if hasMatch {
			return nil, errNotImplemented("If-Match")
		}
		return nil, errNotImplemented("If-None-Match")
	}
	c := &conditions{hasIfMatch: hasMatch, ifMatch: r.Header.Get("If-Match")}
	if hasNone {
		if strings.TrimSpace(r.Header.Get("If-None-Match")) != "*" {
			return nil, errNotImplemented("If-None-Match")
		}
		c.ifNoneMatch = true
	}
	return c, nil
}

// dispatch hands r to gofakes3. A write to an object key holds the key's
// lock while it is stored, and a conditional PUT has its preconditions
// checked under that lock first.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request, bucket, key string) *Error {
	write := key != "" && (r.Method == http.MethodPut || r.Method == http.MethodPost || r.Method == http.MethodDelete)
	if !write {
		s.store.ServeHTTP(w, r)
		return nil
	}
	cond, e := parseConditions(r)
	if e != nil {
		return e
	}
	var contended func()
	if s.cfg.overlapHook != nil {
		contended = func() { s.cfg.overlapHook(r) }
	}
	release, ok := s.locks.acquire(bucket+"/"+key, cond != nil && s.cfg.conflictOnOverlap, contended)
	if !ok {
		return ConditionalRequestConflict()
	}
	defer release()
	if cond != nil {
		if e := s.checkConditions(bucket, key, cond); e != nil {
			return e
		}
		r.Header.Del("If-Match")
		r.Header.Del("If-None-Match")
	}
	if s.cfg.writeHook != nil {
		s.cfg.writeHook(r)
	}
	s.store.ServeHTTP(w, r)
	return nil
}

// checkConditions evaluates cond against the stored object, as S3 does:
// If-Match on a missing key is 404 NoSuchKey, a stale If-Match 412,
// If-None-Match: * on an existing key 412. The caller holds the key lock.
func (s *Server) checkConditions(bucket, key string, cond *conditions) *Error {
	etag, exists, e := s.currentETag(bucket, key)
	if e != nil {
		return e
	}
	if cond.hasIfMatch {
		if !exists {
			return errNoSuchKey(key)
		}
		if !etagMatches(cond.ifMatch, etag) {
			return errPreconditionFailed("If-Match")
		}
	}
	if cond.ifNoneMatch && exists {
		return errPreconditionFailed("If-None-Match")
	}
	return nil
}

// currentETag returns the unquoted ETag (hex MD5) of the stored object.
func (s *Server) currentETag(bucket, key string) (etag string, exists bool, e *Error) {
	obj, err := s.backend.HeadObject(bucket, key)
	switch {
	case err == nil:
	case gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchKey):
		return "", false, nil
	case gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchBucket):
		return "", false, errNoSuchBucket(bucket)
	default:
		return "", false, InternalError()
	}
	if obj.Contents != nil {
		_ = obj.Contents.Close()
	}
	if obj.IsDeleteMarker {
		return "", false, nil
	}
	return hex.EncodeToString(obj.Hash), true, nil
}

// etagMatches compares an If-Match value with the current ETag: quoted or
// not (S3 accepts both), "*" for any existing object (RFC 9110); a weak tag
// never matches (strong comparison).
func etagMatches(ifMatch, etag string) bool {
	v := strings.TrimSpace(ifMatch)
	switch {
	case v == "*":
		return true
	case strings.HasPrefix(v, "W/"):
		return false
	}
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	return v == etag
}
