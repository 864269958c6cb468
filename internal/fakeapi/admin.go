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
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// faultsJSON is the JSON form of Faults, served and taken at
// /_fakeapi/faults; durations are Go duration strings such as "2s", and
// an empty or missing one is zero.
type faultsJSON struct {
	Rate503               float64 `json:"rate503"`
	Rate429               float64 `json:"rate429"`
	RetryAfter            string  `json:"retryAfter,omitempty"`
	RateResetBeforeCommit float64 `json:"rateResetBeforeCommit"`
	RateCommitThenDrop    float64 `json:"rateCommitThenDrop"`
	RateHoldWrites        float64 `json:"rateHoldWrites"`
	HoldWrites            string  `json:"holdWrites,omitempty"`
}

var (
	_ json.Marshaler   = Faults{}
	_ json.Unmarshaler = (*Faults)(nil)
)

// MarshalJSON writes f in the form /_fakeapi/faults serves.
func (f Faults) MarshalJSON() ([]byte, error) {
	return json.Marshal(faultsJSON{
		Rate503: f.Rate503, Rate429: f.Rate429, RetryAfter: durationString(f.RetryAfter),
		RateResetBeforeCommit: f.RateResetBeforeCommit, RateCommitThenDrop: f.RateCommitThenDrop,
		RateHoldWrites: f.RateHoldWrites, HoldWrites: durationString(f.HoldWrites),
	})
}

// UnmarshalJSON reads f from the form /_fakeapi/faults takes. Unknown
// fields and malformed durations are errors; it does not validate the
// rates (see Validate).
func (f *Faults) UnmarshalJSON(b []byte) error {
	var in faultsJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return err
	}
	out := Faults{
		Rate503: in.Rate503, Rate429: in.Rate429,
		RateResetBeforeCommit: in.RateResetBeforeCommit, RateCommitThenDrop: in.RateCommitThenDrop,
		RateHoldWrites: in.RateHoldWrites,
	}
	var err error
	if out.RetryAfter, err = parseDuration("retryAfter", in.RetryAfter); err != nil {
		return err
	}
	if out.HoldWrites, err = parseDuration("holdWrites", in.HoldWrites); err != nil {
		return err
	}
	*f = out
	return nil
}

// durationString renders d for the JSON forms; "" for zero.
func durationString(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// parseDuration parses the duration field name; "" is zero.
func parseDuration(name, v string) (time.Duration, error) {
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

// latencyJSON is the wire form of the latency on /_fakeapi/latency.
type latencyJSON struct {
	Base   string `json:"base"`
	Jitter string `json:"jitter"`
}

// adminHandler serves the routes under AdminPrefix:
//
//	GET    /_fakeapi/healthz              200 "ok" (no token needed)
//	GET    /_fakeapi/stats                Stats as JSON
//	DELETE /_fakeapi/stats                ResetStats, 204
//	GET    /_fakeapi/history?path=/lists/a  History(path) as a JSON array
//	GET    /_fakeapi/faults               the rate-based faults (Faults as JSON)
//	PUT    /_fakeapi/faults               replace them (400 when invalid); {} switches them off
//	GET    /_fakeapi/latency              the injected latency
//	PUT    /_fakeapi/latency              replace it (400 when invalid)
func (s *Server) adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+AdminPrefix+"healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	guarded := http.NewServeMux()
	guarded.HandleFunc("GET "+AdminPrefix+"stats", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.Stats())
	})
	guarded.HandleFunc("DELETE "+AdminPrefix+"stats", func(w http.ResponseWriter, _ *http.Request) {
		s.ResetStats()
		w.WriteHeader(http.StatusNoContent)
	})
	guarded.HandleFunc("GET "+AdminPrefix+"history", func(w http.ResponseWriter, r *http.Request) {
		h := s.History(r.URL.Query().Get("path"))
		if h == nil {
			h = []Version{}
		}
		writeJSON(w, h)
	})
	guarded.HandleFunc("GET "+AdminPrefix+"faults", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, s.Faults())
	})
	guarded.HandleFunc("PUT "+AdminPrefix+"faults", s.putFaults)
	guarded.HandleFunc("GET "+AdminPrefix+"latency", func(w http.ResponseWriter, _ *http.Request) {
		base, jitter := s.Latency()
		writeJSON(w, latencyJSON{Base: base.String(), Jitter: jitter.String()})
	})
	guarded.HandleFunc("PUT "+AdminPrefix+"latency", s.putLatency)
	mux.Handle(AdminPrefix, s.requireToken(guarded))
	return mux
}

func (s *Server) putFaults(w http.ResponseWriter, r *http.Request) {
	var f Faults
	if err := decodeJSON(w, r, &f); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := s.SetFaults(f); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) putLatency(w http.ResponseWriter, r *http.Request) {
	var in latencyJSON
	if err := decodeJSON(w, r, &in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var ds [2]time.Duration
	for i, v := range []string{in.Base, in.Jitter} {
		if v == "" {
			continue
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ds[i] = d
	}
	if err := s.SetLatency(ds[0], ds[1]); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// requireToken answers 401 unless the request carries the bearer token.
func (s *Server) requireToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="fakeapi"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// decodeJSON decodes a small admin request body strictly.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode request body: %w", err)
	}
	return nil
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}
