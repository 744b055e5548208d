package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// update rewrites golden files with what the code produces now:
// go test -run TestName -update.
var update = flag.Bool("update", false, "rewrite golden files in testdata")

// fixtureMaxLine is the line limit the SSE fixtures are read with, small so
// that the over-long cases stay readable.
const fixtureMaxLine = 128

// sseResult is everything a stream yields: its events, then how it ended.
type sseResult struct {
	Events []goldenEvent `json:"events"`
	Err    string        `json:"error,omitempty"` // "" when the stream ended with io.EOF
}

// String shows a result as JSON, for failure messages.
func (r sseResult) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// goldenEvent is an SSEEvent as the golden files spell it.
type goldenEvent struct {
	Event   string `json:"event"`
	Data    string `json:"data"`
	ID      string `json:"id,omitempty"`
	RetryMS int64  `json:"retry_ms,omitempty"`
}

// readAllEvents reads events until the stream ends.
func readAllEvents(r io.Reader, maxLine int) sseResult {
	s := newSSEReader(r, maxLine)
	res := sseResult{Events: []goldenEvent{}}
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return res
		}
		if err != nil {
			res.Err = err.Error()
			return res
		}
		res.Events = append(res.Events, goldenEvent{ev.Event, ev.Data, ev.ID, ev.Retry.Milliseconds()})
	}
}

// chunkReader returns its input in slices whose sizes cycle through sizes,
// sometimes with an empty read in between.
type chunkReader struct {
	data  []byte
	sizes []int
	i     int
}

// Read implements io.Reader.
func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	size := c.sizes[c.i%len(c.sizes)]
	c.i++
	n := copy(p[:min(len(p), size)], c.data)
	c.data = c.data[n:]
	return n, nil
}

// sseChunkings are the ways a stream is fed to the reader; all must agree.
var sseChunkings = map[string]func([]byte) io.Reader{
	"whole":     func(b []byte) io.Reader { return bytes.NewReader(b) },
	"one_byte":  func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
	"half":      func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
	"data_err":  func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
	"uneven":    func(b []byte) io.Reader { return &chunkReader{data: b, sizes: []int{3, 1, 7, 2, 0, 13, 5}} },
	"two_bytes": func(b []byte) io.Reader { return &chunkReader{data: b, sizes: []int{2}} },
}

// TestSSEFixtures reads every testdata/sse/*.input in every chunking and
// compares the events with the .golden file next to it.
func TestSSEFixtures(t *testing.T) {
	t.Parallel()
	inputs, err := filepath.Glob("testdata/sse/*.input")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no SSE fixtures found: %v", err)
	}
	for _, input := range inputs {
		name := strings.TrimSuffix(filepath.Base(input), ".input")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(input)
			if err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(input, ".input") + ".golden"
			got := readAllEvents(bytes.NewReader(data), fixtureMaxLine)
			if *update {
				writeGoldenJSON(t, golden, got)
			}
			var want sseResult
			readGoldenJSON(t, golden, &want)
			for chunking, wrap := range sseChunkings {
				got := readAllEvents(wrap(data), fixtureMaxLine)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %q\nwant %q", chunking, got, want)
				}
			}
		})
	}
}

// TestSSEReadError checks that a read error other than EOF is returned,
// after the events completed before it, and stays returned.
func TestSSEReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("data: a\n\ndata: b\n"), iotest.ErrReader(boom))
	s := newSSEReader(r, 1024)
	ev, err := s.Next()
	if err != nil || ev.Data != "a" {
		t.Fatalf("first event = %q, %v; want %q", ev.Data, err, "a")
	}
	for range 2 {
		if _, err := s.Next(); !errors.Is(err, boom) {
			t.Fatalf("Next error = %v, want %v", err, boom)
		}
	}
}

// TestSSENoProgress checks that a reader returning nothing forever is an
// error, not a hang.
func TestSSENoProgress(t *testing.T) {
	t.Parallel()
	s := newSSEReader(emptyReader{}, 1024)
	if _, err := s.Next(); !errors.Is(err, io.ErrNoProgress) {
		t.Fatalf("Next error = %v, want %v", err, io.ErrNoProgress)
	}
}

// emptyReader returns no bytes and no error.
type emptyReader struct{}

// Read implements io.Reader.
func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// TestSSEDispatchWithoutLookahead checks that an event is returned as soon
// as its blank line arrives, even when that line ends in a lone CR whose
// possible LF has not been sent yet: a live stream must not wait for the
// next event.
func TestSSEDispatchWithoutLookahead(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pr.Close()
	go func() {
		pw.Write([]byte("data: now\r\r"))
	}()
	s := newSSEReader(pr, 1024)
	ev, err := s.Next()
	if err != nil || ev.Data != "now" {
		t.Fatalf("Next = %q, %v; want %q", ev.Data, err, "now")
	}
}

// FuzzSSE checks that any input gives the same events however it is
// split into reads, and that the reader never panics.
func FuzzSSE(f *testing.F) {
	inputs, _ := filepath.Glob("testdata/sse/*.input")
	for _, input := range inputs {
		data, err := os.ReadFile(input)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		const maxLine = 32
		want := readAllEvents(bytes.NewReader(data), maxLine)
		sizes := []int{int(chunk%7) + 1, int(chunk%3) + 1, 0, int(chunk%11) + 1}
		readers := map[string]io.Reader{
			"one_byte": iotest.OneByteReader(bytes.NewReader(data)),
			"uneven":   &chunkReader{data: data, sizes: sizes},
			"data_err": iotest.DataErrReader(bytes.NewReader(data)),
		}
		for name, r := range readers {
			if got := readAllEvents(r, maxLine); !reflect.DeepEqual(got, want) {
				t.Errorf("%s:\n got %q\nwant %q", name, got, want)
			}
		}
	})
}

// writeGoldenJSON writes v as indented JSON to path.
func writeGoldenJSON(t *testing.T, path string, v any) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readGoldenJSON decodes the JSON file at path into v.
func readGoldenJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decoding %s: %v", path, err)
	}
}
