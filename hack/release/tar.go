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

package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// passwd and group name the images' only users: root, who owns the files,
// and nonroot, who runs the binary. With them a process can look its user
// up (os/user) and has a home.
var (
	passwd = fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n", NonRootUID, NonRootUID)
	group  = fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", NonRootUID)
)

// rootLayer is the gzipped tar of an image's file system: the binary at
// /<name> (root's, 0755), /etc/passwd, /etc/group, /home/nonroot (nonroot's)
// and /tmp (1777). Every entry has the time created, so that the same
// binary gives the same bytes.
func rootLayer(name, binary string, created time.Time) ([]byte, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	entries := []struct {
		hdr  tar.Header
		body []byte
	}{
		{tar.Header{Name: "etc/", Typeflag: tar.TypeDir, Mode: 0o755}, nil},
		{tar.Header{Name: "etc/group", Typeflag: tar.TypeReg, Mode: 0o644}, []byte(group)},
		{tar.Header{Name: "etc/passwd", Typeflag: tar.TypeReg, Mode: 0o644}, []byte(passwd)},
		{tar.Header{Name: "home/", Typeflag: tar.TypeDir, Mode: 0o755}, nil},
		{tar.Header{Name: "home/nonroot/", Typeflag: tar.TypeDir, Mode: 0o700, Uid: NonRootUID, Gid: NonRootUID}, nil},
		{tar.Header{Name: "tmp/", Typeflag: tar.TypeDir, Mode: 0o1777}, nil},
		{tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o755}, bin},
	}
	for _, e := range entries {
		h := e.hdr
		h.Size = int64(len(e.body))
		h.ModTime = created
		if err := tw.WriteHeader(&h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// tarDir writes the files under dir to a tar file at out, sorted by path,
// owned by root, 0644 (directories 0755), all with the time created.
func tarDir(dir, out string, created time.Time) (err error) {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	tw := tar.NewWriter(f)
	// WalkDir visits in lexical order.
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: created}
		switch {
		case d.IsDir():
			h.Typeflag, h.Mode, h.Name = tar.TypeDir, 0o755, h.Name+"/"
			return tw.WriteHeader(h)
		case d.Type().IsRegular():
			return copyFileToTar(tw, h, path)
		default:
			return fmt.Errorf("%s: not a file or directory", path)
		}
	})
	if err != nil {
		return err
	}
	return tw.Close()
}

func copyFileToTar(tw *tar.Writer, h *tar.Header, path string) error {
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }()
	st, err := src.Stat()
	if err != nil {
		return err
	}
	h.Typeflag, h.Mode, h.Size = tar.TypeReg, 0o644, st.Size()
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	_, err = io.Copy(tw, src)
	return err
}

// untarDir unpacks a tar file of regular files and directories, as tarDir
// writes them, into dir. An entry of another type, or one whose path
// leaves dir, is an error.
func untarDir(tarFile, dir string) (err error) {
	f, err := os.Open(tarFile)
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, filepath.Clean(dir)+string(filepath.Separator)) {
			return fmt.Errorf("%s: entry %q leaves the directory", tarFile, h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			err = writeFileFrom(p, tr)
		default:
			err = fmt.Errorf("%s: entry %q is neither a file nor a directory", tarFile, h.Name)
		}
		if err != nil {
			return err
		}
	}
}

// writeFileFrom writes what r holds to a new file at path, creating its
// directory.
func writeFileFrom(path string, r io.Reader) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = io.Copy(f, r)
	return err
}
