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
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/listkeeper/listkeeper/internal/etagclient"
	"github.com/listkeeper/listkeeper/internal/fakeapi"
)

// serverEnv, when set in the environment, makes the test binary serve a
// list of that many IDs instead of running tests.
const serverEnv = "LISTKEEPER_SIZING_SERVER_IDS"

// listPath is the document's path on the fake server.
const listPath = "/lists/sized"

func TestMain(m *testing.M) {
	if n := os.Getenv(serverEnv); n != "" {
		if err := serve(n); err != nil {
			fmt.Fprintln(os.Stderr, "sizing server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// document is {"items": ["id-0000000", ...]} with n IDs of 10 bytes.
func document(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\"id-%07d\"", i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// serve runs the fake list server with one document of n IDs on a
// loopback port, prints its base URL, and serves until stdin closes.
func serve(n string) error {
	ids, err := strconv.Atoi(n)
	if err != nil {
		return err
	}
	srv, err := fakeapi.New()
	if err != nil {
		return err
	}
	if _, err := srv.Set(listPath, document(ids)); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println("http://" + ln.Addr().String())
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		_ = ln.Close()
	}()
	if err := http.Serve(ln, srv); err != nil && !strings.Contains(err.Error(), "use of closed") {
		return err
	}
	return nil
}

// startServer starts the child process serving n IDs and returns the
// document's URL.
func startServer(b *testing.B, n int) string {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d", serverEnv, n))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("read the server's address: %v", err)
	}
	return strings.TrimSpace(line) + listPath
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

const mib = 1 << 20

// BenchmarkClientMemory measures, per list size, the heap one client keeps
// after its first write (the cached document, retained) and the bytes each
// further write allocates (a read of the whole document after another
// writer changed it, the edit, and the PUT body).
func BenchmarkClientMemory(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("ids=%d", n), func(b *testing.B) {
			url := startServer(b, n)
			ctx := context.Background()
			other, err := etagclient.New(url, etagclient.WithItemsPointer("/items"))
			if err != nil {
				b.Fatal(err)
			}
			defer other.Close()

			before := heapAfterGC()
			c, err := etagclient.New(url, etagclient.WithItemsPointer("/items"))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Update(ctx, etagclient.Change{Add: []string{"warm-up"}}); err != nil {
				b.Fatal(err)
			}
			retained := heapAfterGC() - before

			var allocated uint64
			for i := 0; b.Loop(); i++ {
				// Another writer changes the list, so each write of c reads
				// the whole document again, as a replica does after a 412.
				b.StopTimer()
				if _, err := other.Update(ctx, etagclient.Change{Add: []string{fmt.Sprintf("other-%d", i)}}); err != nil {
					b.Fatal(err)
				}
				start := totalAlloc()
				b.StartTimer()
				if _, err := c.Update(ctx, etagclient.Change{Add: []string{fmt.Sprintf("new-%d", i)}}); err != nil {
					b.Fatal(err)
				}
				allocated += totalAlloc() - start
			}
			b.ReportMetric(float64(retained)/mib, "MiB-retained")
			b.ReportMetric(float64(allocated)/float64(b.N)/mib, "MiB-alloc/write")
		})
	}
}
