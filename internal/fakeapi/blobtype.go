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
	"net/http"
	"strings"
)

// blockBlob is the only blob type the fake stores.
const blockBlob = "BlockBlob"

// checkBlobType checks the x-ms-blob-type header that Azure's Put Blob
// requires. It returns the 400 to answer, and false, when it is missing or
// names another type.
func (s *Server) checkBlobType(r *http.Request) (response, bool) {
	switch v := r.Header.Get("x-ms-blob-type"); {
	case v == "":
		return s.fail(r, http.StatusBadRequest, "MissingRequiredHeader", "x-ms-blob-type is required"), false
	case !strings.EqualFold(v, blockBlob):
		return s.fail(r, http.StatusBadRequest, "InvalidHeaderValue", "x-ms-blob-type "+v+" is not supported, only "+blockBlob), false
	}
	return response{}, true
}
