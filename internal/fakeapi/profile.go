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
	"strings"
)

// Profile names a kind of server the fake behaves like: the form of its
// ETags, the status codes of its conflicts, whether 304 carries an ETag,
// what a PUT answers and how errors look. The package doc describes each
// profile, and what it does not mimic, under "Profiles". The zero value is
// not a valid Profile; New uses ProfileStrict unless WithProfile says
// otherwise.
type Profile string

// The profiles. Profiles lists them in this order.
const (
	// ProfileStrict is the list HTTP contract (docs/guides/list-api.md), strictly: 428
	// without a precondition, ETags never reused. The default.
	ProfileStrict Profile = "strict"
	// ProfileS3 behaves like Amazon S3 conditional writes.
	ProfileS3 Profile = "s3"
	// ProfileAzureBlob behaves like Azure Blob Storage Put Blob and Get
	// Blob.
	ProfileAzureBlob Profile = "azure-blob"
	// ProfileWebDAV behaves like Apache httpd with mod_dav and mod_deflate.
	ProfileWebDAV Profile = "webdav"
	// ProfileQuirky is strict, but redirects trailing-slash paths and
	// answers a PUT with a report instead of the stored document.
	ProfileQuirky Profile = "quirky"
	// ProfileGCS behaves like the Google Cloud Storage XML API: writes are
	// conditional on x-goog-if-generation-match, not on If-Match.
	ProfileGCS Profile = "gcs"
)

// Profiles returns every profile, ProfileStrict first. The slice is the
// caller's. New profiles are appended, so that an index into the slice (the
// fuzz corpus stores one) keeps naming the same profile.
func Profiles() []Profile {
	return []Profile{ProfileStrict, ProfileS3, ProfileAzureBlob, ProfileWebDAV, ProfileQuirky, ProfileGCS}
}

// ParseProfile returns the profile named s (as listed by Profiles), or an
// error that lists the valid names.
func ParseProfile(s string) (Profile, error) {
	p := Profile(s)
	if _, ok := behaviors[p]; !ok {
		names := make([]string, 0, len(behaviors))
		for _, q := range Profiles() {
			names = append(names, string(q))
		}
		return "", fmt.Errorf("unknown profile %q (want one of %s)", s, strings.Join(names, ", "))
	}
	return p, nil
}

// MarshalText implements encoding.TextMarshaler.
func (p Profile) MarshalText() ([]byte, error) { return []byte(p), nil }

// UnmarshalText implements encoding.TextUnmarshaler with ParseProfile, so
// that a Profile can be a flag (flag.TextVar) or a JSON field.
func (p *Profile) UnmarshalText(b []byte) error {
	v, err := ParseProfile(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Profile returns the profile the Server was built with.
func (s *Server) Profile() Profile { return s.cfg.profile }
