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
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// stateFormat is the version of the state file layout.
const stateFormat = 1

// stateFile is the on-disk layout of a state file. Generation is the last
// generation handed out; files written before generations existed lack it
// and the documents' generations, and get new ones when loaded.
type stateFile struct {
	Format     int                 `json:"format"`
	Seq        uint64              `json:"seq"`
	Generation int64               `json:"generation,omitempty"`
	Documents  map[string]stateDoc `json:"documents"`
}

// stateDoc is one persisted document. The body is kept as a string, not as
// raw JSON, so that it round-trips byte for byte: a strong ETag promises
// an identical representation.
type stateDoc struct {
	ETag       string `json:"etag"`
	Seq        uint64 `json:"seq"`
	Generation int64  `json:"generation,omitempty"`
	Body       string `json:"body"`
	// Written is when the version was committed (absent in files written
	// before it was kept).
	Written time.Time `json:"written,omitzero"`
}

// loadState reads the state file at path. A missing file is an empty state.
// Documents without a generation keep 0; see assignMissingGenerations.
func loadState(path string) (seq uint64, generation int64, docs map[string]*document, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, map[string]*document{}, nil
	}
	if err != nil {
		return 0, 0, nil, fmt.Errorf("read state file: %w", err)
	}
	var st stateFile
	if err := json.Unmarshal(data, &st); err != nil {
		return 0, 0, nil, fmt.Errorf("parse state file %s: %w", path, err)
	}
	if st.Format != stateFormat {
		return 0, 0, nil, fmt.Errorf("state file %s: unsupported format %d, want %d", path, st.Format, stateFormat)
	}
	docs = make(map[string]*document, len(st.Documents))
	for p, d := range st.Documents {
		if d.ETag == "" || !validOpaque(d.ETag) || d.Seq == 0 || d.Seq > st.Seq {
			return 0, 0, nil, fmt.Errorf("state file %s: document %q has an invalid ETag or sequence", path, p)
		}
		if d.Generation < 0 || d.Generation > st.Generation {
			return 0, 0, nil, fmt.Errorf("state file %s: document %q has an invalid generation", path, p)
		}
		body := []byte(d.Body)
		if !json.Valid(body) {
			return 0, 0, nil, fmt.Errorf("state file %s: document %q is not valid JSON", path, p)
		}
		docs[p] = &document{body: body, opaque: d.ETag, seq: d.Seq, generation: d.Generation, written: d.Written}
	}
	return st.Seq, st.Generation, docs, nil
}

// assignMissingGenerations gives a new generation to every loaded document
// that has none (a state file from before generations), in path order.
// It runs in New, before the Server is shared.
func (s *Server) assignMissingGenerations() {
	paths := make([]string, 0, len(s.docs))
	for p, d := range s.docs {
		if d.generation == 0 {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		s.docs[p].generation = s.nextGenerationLocked()
	}
}

// snapshotLocked returns the current documents and counter in their
// on-disk layout. s.mu must be held.
func (s *Server) snapshotLocked() stateFile {
	st := stateFile{Format: stateFormat, Seq: s.seq, Generation: s.generation, Documents: make(map[string]stateDoc, len(s.docs)+1)}
	for p, d := range s.docs {
		st.Documents[p] = d.state()
	}
	return st
}

// persistLocked writes the state that results from applying a pending
// change at path (next, or a deletion when next is nil) to the current
// documents, before the change is applied in memory. It does nothing
// without a state file. s.mu must be held, so that snapshots reach the disk
// in commit order.
func (s *Server) persistLocked(path string, next *document) error {
	if s.cfg.stateFile == "" {
		return nil
	}
	st := s.snapshotLocked()
	if next == nil {
		delete(st.Documents, path)
	} else {
		st.Documents[path] = next.state()
	}
	return s.writeState(st)
}

// writeState encodes st and writes it atomically to the state file.
func (s *Server) writeState(st stateFile) error {
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	if err := writeFileAtomic(s.cfg.stateFile, data); err != nil {
		return fmt.Errorf("persist state: %w", err)
	}
	return nil
}

// state returns d in its on-disk layout.
func (d *document) state() stateDoc {
	return stateDoc{ETag: d.opaque, Seq: d.seq, Generation: d.generation, Body: string(d.body), Written: d.written}
}

// writeFileAtomic replaces the file at path with data so that a crash at
// any moment leaves either the old or the new content: it writes a
// temporary file in the same directory, fsyncs it, renames it over path and
// fsyncs the directory. The temporary file never outlives the call.
func writeFileAtomic(path string, data []byte) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// syncDir fsyncs a directory so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		_ = d.Close()
		return err
	}
	return d.Close()
}
