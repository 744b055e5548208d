package main

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// sseCases pair an event stream with the events it holds, written as
// event|data|id|retry.
var sseCases = []struct {
	name, stream string
	want         []string
}{
	{"message", "event: message\ndata: {\"a\":1}\n\n", []string{`message|{"a":1}||0`}},
	{"priming event", "id: e1\nretry: 500\ndata: \n\n", []string{`||e1|500`}},
	{"id carries over", "id: 7\ndata: a\n\ndata: b\n\n", []string{`|a|7|0`, `|b|7|0`}},
	{"multi-line data", "data: one\ndata: two\n\n", []string{"|one\ntwo||0"}},
	{"CRLF and CR", "data: x\r\n\r\ndata: y\r\rdata: z\n\n", []string{`|x||0`, `|y||0`, `|z||0`}},
	{"comments and no space", ": keep-alive\nevent:endpoint\ndata:/messages?s=1\n\n", []string{`endpoint|/messages?s=1||0`}},
	{"bad retry ignored", "retry: soon\ndata: x\n\n", []string{`|x||0`}},
	{"unterminated last event dropped", "data: a\n\ndata: b", []string{`|a||0`}},
	{"blank lines only", "\n\n\n", nil},
}

// collectSSE parses stream fed in chunks of n bytes (0 = whole).
func collectSSE(stream string, n int) []string {
	var r io.Reader = strings.NewReader(stream)
	if n > 0 {
		r = &chunkReader{data: stream, n: n}
	}
	var got []string
	_ = mcpReadSSE(r, func(ev mcpSSEEvent) bool {
		got = append(got, fmt.Sprintf("%s|%s|%s|%d", ev.Event, ev.Data, ev.ID, ev.Retry))
		return true
	})
	return got
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	data string
	n    int
}

// Read hands out the next chunk.
func (c *chunkReader) Read(p []byte) (int, error) {
	if c.data == "" {
		return 0, io.EOF
	}
	k := min(c.n, len(p), len(c.data))
	copy(p, c.data[:k])
	c.data = c.data[k:]
	return k, nil
}

func TestMCPReadSSE(t *testing.T) {
	t.Parallel()
	for _, c := range sseCases {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range []int{0, 1, 2, 3, 5} {
				got := collectSSE(c.stream, n)
				if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
					t.Errorf("chunks of %d: got %q, want %q", n, got, c.want)
				}
			}
		})
	}
}

func TestMCPReadSSEStops(t *testing.T) {
	t.Parallel()
	seen := 0
	_ = mcpReadSSE(strings.NewReader("data: 1\n\ndata: 2\n\ndata: 3\n\n"), func(mcpSSEEvent) bool {
		seen++
		return seen < 2
	})
	if seen != 2 {
		t.Errorf("onEvent ran %d times after asking to stop at 2", seen)
	}
}

func FuzzMCPReadSSE(f *testing.F) {
	for _, c := range sseCases {
		f.Add(c.stream)
	}
	f.Fuzz(func(t *testing.T, stream string) {
		whole := collectSSE(stream, 0)
		if got := collectSSE(stream, 1); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", whole) {
			t.Errorf("byte by byte %q, whole %q", got, whole)
		}
	})
}
