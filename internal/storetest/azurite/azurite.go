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

package azurite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/listkeeper/listkeeper/test/e2e/harness"
)

const (
	// Version is the Azurite release that hack/azurite pins.
	Version = "3.35.0"

	// AccountName is Azurite's well-known development account.
	AccountName = "devstoreaccount1"
	// AccountKey is the published key of AccountName. It is no secret: every
	// Azurite accepts it.
	AccountKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

	// DefaultStartTimeout is Options.StartTimeout when it is zero. Azurite
	// loads in about a second on an idle machine; the margin is for a
	// machine busy with builds.
	DefaultStartTimeout = 60 * time.Second

	// ExtentMemoryLimitMB caps the memory that Azurite's in-memory store
	// may use for blob contents (its own default is half the machine's).
	ExtentMemoryLimitMB = 256
)

// binPath is where 'make azurite' puts the blob service's launcher,
// relative to Options.Dir.
const binPath = "node_modules/.bin/azurite-blob"

// ErrNotInstalled is wrapped by the error of Start when Azurite is not
// installed under Options.Dir.
var ErrNotInstalled = errors.New("azurite is not installed")

// Options configure Start. The zero value is ready to use.
type Options struct {
	// Dir is the npm project that holds Azurite. Default: hack/azurite in
	// the repository root (harness.RepoRoot, which is testenv.RepoRoot).
	Dir string
	// LogDir receives azurite-blob.log, which is kept. Default: a temporary
	// directory that Stop removes.
	LogDir string
	// StartTimeout bounds the wait for Azurite to listen and answer.
	// Default: DefaultStartTimeout.
	StartTimeout time.Duration
}

// Azurite is a running blob service. Its methods are safe for concurrent
// use.
type Azurite struct {
	addr    string // 127.0.0.1:port
	proc    *harness.Proc
	http    *http.Client
	tempDir string // removed by Stop; "" when Options.LogDir was given

	stopOnce sync.Once
	stopErr  error
}

// listenLine is the line Azurite prints once its server listens.
var listenLine = regexp.MustCompile(`successfully listens on http://(127\.0\.0\.1:[0-9]+)`)

// Start runs hack/azurite's azurite-blob bound to 127.0.0.1 with in-memory
// persistence and waits until it answers HTTP. ctx bounds only the start:
// the emulator runs until Stop. The caller must call Stop.
func Start(ctx context.Context, opts Options) (*Azurite, error) {
	dir, err := installDir(opts.Dir)
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(dir, filepath.FromSlash(binPath))
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%w: run 'make azurite' (npm ci in hack/azurite): %w", ErrNotInstalled, err)
	}
	timeout := opts.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}

	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // loopback only
	a := &Azurite{http: &http.Client{Transport: tr, Timeout: RequestTimeout}}
	logDir := opts.LogDir
	if logDir == "" {
		if logDir, err = os.MkdirTemp("", "azurite-"); err != nil {
			return nil, fmt.Errorf("azurite log directory: %w", err)
		}
		a.tempDir = logDir
	}
	sup := harness.NewSupervisor(logDir)
	a.proc, err = sup.Start("azurite-blob", bin,
		"--blobHost", harness.Host,
		"--blobPort", "0",
		"--inMemoryPersistence",
		"--extentMemoryLimit", strconv.Itoa(ExtentMemoryLimitMB),
		"--skipApiVersionCheck",
		"--disableTelemetry",
	)
	if err != nil {
		_ = a.removeTemp()
		return nil, fmt.Errorf("start azurite: %w", err)
	}
	if err := a.waitReady(ctx, timeout); err != nil {
		tail := a.LogTail(2048)
		_ = a.Stop()
		return nil, fmt.Errorf("%w; its log ends:\n%s", err, tail)
	}
	return a, nil
}

// installDir returns dir, or hack/azurite in the repository root.
func installDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	root, err := harness.RepoRoot()
	if err != nil {
		return "", fmt.Errorf("find hack/azurite: %w", err)
	}
	return filepath.Join(root, "hack", "azurite"), nil
}

// waitReady polls the log for the line with the port, then wants one HTTP
// answer (any status) from it.
func (a *Azurite) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if a.addr == "" {
			if m := listenLine.FindSubmatch([]byte(a.LogTail(64 << 10))); m != nil {
				a.addr = string(m[1])
			}
		}
		if a.addr != "" && a.answers(ctx, "http://"+a.addr+"/") {
			return nil
		}
		select {
		case <-a.proc.Done():
			err := a.proc.ExitErr()
			if err == nil {
				err = errors.New("exit status 0")
			}
			return fmt.Errorf("azurite exited before it was ready: %w", err)
		case <-ctx.Done():
			return fmt.Errorf("azurite not ready after %v: %w", timeout, ctx.Err())
		case <-tick.C:
		}
	}
}

// answers reports whether url gives any HTTP answer.
func (a *Azurite) answers(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return true
}

// Addr returns host:port of the blob service, on 127.0.0.1.
func (a *Azurite) Addr() string { return a.addr }

// BlobEndpoint returns the blob service URL of the development account,
// http://127.0.0.1:PORT/devstoreaccount1 (path-style, as Azurite serves
// it), without a trailing slash.
func (a *Azurite) BlobEndpoint() string {
	return "http://" + a.addr + "/" + AccountName
}

// BlobURL returns the URL of blob in container, with each path segment
// escaped.
func (a *Azurite) BlobURL(container, blob string) string {
	return a.BlobEndpoint() + "/" + url.PathEscape(container) + "/" + escapeBlobName(blob)
}

// escapeBlobName escapes a blob name for a URL path, keeping its slashes.
func escapeBlobName(name string) string {
	return (&url.URL{Path: name}).EscapedPath()
}

// Pid returns the emulator's process ID, which is also its process group
// ID.
func (a *Azurite) Pid() int { return a.proc.Pid() }

// LogPath returns the file that holds the emulator's output.
func (a *Azurite) LogPath() string { return a.proc.LogPath }

// LogTail returns up to the last maxBytes of the emulator's log, or a note
// saying why it cannot be read. It is meant for failure messages.
func (a *Azurite) LogTail(maxBytes int) string {
	f, err := os.Open(a.proc.LogPath)
	if err != nil {
		return fmt.Sprintf("(no log: %v)", err)
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err == nil && fi.Size() > int64(maxBytes) {
		if _, err := f.Seek(fi.Size()-int64(maxBytes), io.SeekStart); err != nil {
			return fmt.Sprintf("(log unreadable: %v)", err)
		}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("(log unreadable: %v)", err)
	}
	return string(b)
}

// Stop kills the emulator's process group with SIGKILL, waits for it to
// exit, closes HTTPClient's idle connections and removes the temporary log directory (one given in
// Options.LogDir is kept). Stopping again returns the first result.
func (a *Azurite) Stop() error {
	a.stopOnce.Do(func() {
		a.proc.Kill()
		a.http.CloseIdleConnections()
		a.stopErr = a.removeTemp()
	})
	return a.stopErr
}

func (a *Azurite) removeTemp() error {
	if a.tempDir == "" {
		return nil
	}
	if err := os.RemoveAll(a.tempDir); err != nil {
		return fmt.Errorf("remove azurite log directory: %w", err)
	}
	return nil
}
