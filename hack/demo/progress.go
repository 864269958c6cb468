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
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// barWidth is the number of cells of the progress bar.
const barWidth = 20

// plainInterval is how often progress is printed when stdout is not a
// terminal.
const plainInterval = time.Second

// status is how far a phase has got at one moment.
type status struct {
	phase     string
	adding    bool          // IDs go onto the list (create) or off it (delete)
	elapsed   time.Duration // since the phase began
	done      int           // demo IDs where they should be: on the list, or off it
	total     int           // demo IDs
	entries   int           // demo ListEntries that exist
	synced    int           // of which Synced=True
	conflicts int64         // 412s (and S3's 409s) the store answered since the phase began
	label     string        // what conflicts counts, "412s" when empty
}

// line renders s on one line, with a bar when bar is true.
func (s status) line(bar bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s", s.phase)
	if bar {
		b.WriteString(" " + progressBar(s.done, s.total))
	}
	where := "off"
	if s.adding {
		where = "on"
	}
	fmt.Fprintf(&b, " %d/%d IDs %s the list", s.done, s.total, where)
	if s.adding {
		fmt.Fprintf(&b, " | entries %d, synced %d", s.entries, s.synced)
	} else {
		fmt.Fprintf(&b, " | entries left %d", s.entries)
	}
	label := s.label
	if label == "" {
		label = "412s"
	}
	fmt.Fprintf(&b, " | %s %d | %4.1fs", label, s.conflicts, s.elapsed.Seconds())
	return b.String()
}

// progressBar draws done/total as [#####.....].
func progressBar(done, total int) string {
	filled := 0
	if total > 0 {
		filled = min(barWidth, max(0, done*barWidth/total))
	}
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", barWidth-filled) + "]"
}

// progress shows a phase's status: on a terminal as one line redrawn in
// place, otherwise as a plain line every plainInterval. It is not safe for
// concurrent use.
type progress struct {
	w        io.Writer
	tty      bool
	drawn    bool      // a live line is on the screen
	lastLine time.Time // when the last plain line was printed
	lastText string    // the last plain line
}

func newProgress(w io.Writer, tty bool) *progress {
	return &progress{w: w, tty: tty}
}

// isTerminal reports whether f is a character device, such as a terminal.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// show updates the display with s.
func (p *progress) show(s status) {
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", s.line(true))
		p.drawn = true
		return
	}
	if time.Since(p.lastLine) >= plainInterval {
		p.plain(s.line(false))
	}
}

// plain prints a plain progress line unless it repeats the last one.
func (p *progress) plain(line string) {
	if line != p.lastText {
		fmt.Fprintln(p.w, line)
	}
	p.lastLine, p.lastText = time.Now(), line
}

// finish shows s as the phase's last status and ends the line.
func (p *progress) finish(s status) {
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s\n", s.line(true))
	} else {
		p.plain(s.line(false))
	}
	p.drawn, p.lastLine, p.lastText = false, time.Time{}, ""
}

// printf prints a message on its own line, clearing a live line first.
func (p *progress) printf(format string, args ...any) {
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
	fmt.Fprintf(p.w, format, args...)
}
