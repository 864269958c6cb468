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

package sizing_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// serverEnv, when set in the environment, makes the test binary serve a
// list instead of running tests: "IDS,LEN,ESCAPED" serves IDS IDs of LEN
// bytes, spelled with an escape when ESCAPED is true.
const serverEnv = "LISTKEEPER_SIZING_SERVER"

// listPath is the document's path on the fake server.
const listPath = "/lists/sized"

func TestMain(m *testing.M) {
	if spec := os.Getenv(serverEnv); spec != "" {
		if err := serve(spec); err != nil {
			fmt.Fprintln(os.Stderr, "sizing server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// shape is what a list is made of: how many IDs, of how many bytes each,
// and whether the document spells each with an escape (its first
// character as \u0030), so that the client must decode it apart.
type shape struct {
	ids, idLen int
	escaped    bool
}

// spell returns id as the document spells it, quotes included.
func (sh shape) spell(id string) string {
	if sh.escaped {
		return `"\u00` + fmt.Sprintf("%02x", id[0]) + id[1:] + `"`
	}
	return `"` + id + `"`
}

// spelledLen is the length of an ID as the document spells it.
func (sh shape) spelledLen() int { return len(sh.spell(id(0, sh.idLen))) }

// id returns ID number i of the given length, unique per i: a UUID when
// the length is 36, else i in base 36, padded with zeros.
func id(i, idLen int) string {
	if idLen == 36 {
		return fmt.Sprintf("00000000-0000-4000-8000-%012x", i)
	}
	s := strconv.FormatInt(int64(i), 36)
	if len(s) > idLen {
		panic(fmt.Sprintf("ID %d does not fit in %d bytes", i, idLen))
	}
	return strings.Repeat("0", idLen-len(s)) + s
}

// documentBytes is the size of the document of sh.
func (sh shape) documentBytes() int {
	return len(`{"items":[]}`) + sh.ids*sh.spelledLen() + max(sh.ids-1, 0)
}

// document is {"items":[...]} with the IDs of sh.
func (sh shape) document() []byte {
	var b strings.Builder
	b.Grow(sh.documentBytes())
	b.WriteString(`{"items":[`)
	for i := range sh.ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(sh.spell(id(i, sh.idLen)))
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// Where the numbers of IDs that writers add start: above any list's own
// IDs, and low enough for IDs of 4 bytes (36^4 = 1,679,616).
const (
	touchBase  = 1_000_000 // another writer (server.touch)
	clientBase = 1_300_000 // the client measured
)

// serve runs the fake list server with one document of the shape in spec
// on a loopback port, prints its base URL, and serves until stdin closes.
// Each line "touch" on stdin makes another writer change the document,
// replacing its first ID with a new one of the same length, so the
// client's next read is a full one; the server answers "ok".
func serve(spec string) error {
	var sh shape
	if _, err := fmt.Sscanf(spec, "%d,%d,%t", &sh.ids, &sh.idLen, &sh.escaped); err != nil {
		return fmt.Errorf("spec %q: %w", spec, err)
	}
	srv, err := fakeapi.New()
	if err != nil {
		return err
	}
	if _, err := srv.Set(listPath, sh.document()); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("http://" + ln.Addr().String())
	go func() {
		defer func() { _ = ln.Close() }()
		in := bufio.NewScanner(os.Stdin)
		for k := 0; in.Scan(); k++ {
			body, _, ok := srv.Get(listPath)
			if !ok {
				fmt.Fprintln(os.Stderr, "touch: the document is gone")
				return
			}
			if _, err := srv.Set(listPath, replaceFirst(body, sh.spell(id(touchBase+k, sh.idLen)))); err != nil {
				fmt.Fprintln(os.Stderr, "touch:", err)
				return
			}
			fmt.Println("ok")
		}
	}()
	if err := http.Serve(ln, srv); err != nil && !strings.Contains(err.Error(), "use of closed") {
		return err
	}
	return nil
}

// replaceFirst replaces the first ID of a document built by document with
// spelled, which is as long as its spelling.
func replaceFirst(doc []byte, spelled string) []byte {
	out := append([]byte(nil), doc...)
	at := len(`{"items":[`)
	copy(out[at:at+len(spelled)], spelled)
	return out
}

// server is the child process serving a list.
type server struct {
	url   string // the document's URL
	stdin io.WriteCloser
	out   *bufio.Reader
}

// startServer starts the child process serving a list of the given shape.
func startServer(tb testing.TB, sh shape) *server {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d,%d,%t", serverEnv, sh.ids, sh.idLen, sh.escaped))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	s := &server{stdin: stdin, out: bufio.NewReader(stdout)}
	line, err := s.out.ReadString('\n')
	if err != nil {
		tb.Fatalf("read the server's address: %v", err)
	}
	s.url = strings.TrimSpace(line) + listPath
	return s
}

// touch makes another writer change the document, and waits until it
// has.
func (s *server) touch(tb testing.TB) {
	tb.Helper()
	if _, err := io.WriteString(s.stdin, "touch\n"); err != nil {
		tb.Fatal(err)
	}
	if line, err := s.out.ReadString('\n'); err != nil || strings.TrimSpace(line) != "ok" {
		tb.Fatalf("touch: %q, %v", line, err)
	}
}
