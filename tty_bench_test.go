package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
)

// fillTranscript runs n entries through the UI: tool calls with results
// and lines of reply text.
func fillTranscript(u *tui, n int) {
	for i := 0; i < n; i++ {
		call := &Block{ID: fmt.Sprint(i), Name: "read_file", Input: json.RawMessage(`{"path":"main.go"}`)}
		if i%2 == 0 {
			u.event(Event{Kind: EventToolStart, Call: call})
			u.event(Event{Kind: EventToolEnd, Call: call, Result: &Block{Content: "1\tpackage main\n2\n3\tfunc main() {}\n"}})
		} else {
			u.event(Event{Kind: EventTextDelta, Text: fmt.Sprintf("Line %d of the answer with **bold** and `code`.\n", i)})
		}
	}
	u.event(Event{Kind: EventAssistant, Message: &Message{}})
}

// BenchmarkKeystroke measures one typed key, from decoding to the bytes
// written to the terminal, after a 10,000-entry transcript.
func BenchmarkKeystroke(b *testing.B) {
	u := plainTUI(b, io.Discard)
	u.tr.color = true
	fillTranscript(u, 10_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		u.mu.Lock()
		if len(u.editor.buf) > 60 {
			u.editor.reset()
		}
		k, _ := decodeKey([]byte("x"))
		u.handleKey(k)
		u.draw()
		u.mu.Unlock()
	}
}

// BenchmarkStream1MB streams 1 MB of Markdown reply text through the UI
// in 64-byte deltas, as a fast model would.
func BenchmarkStream1MB(b *testing.B) {
	line := "Some **streamed** text with `code` in it, and more words to fill a line.\n"
	text := strings.Repeat(line, 1<<20/len(line))
	u := plainTUI(b, io.Discard)
	u.tr.color = true
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := 0; j < len(text); j += 64 {
			u.event(Event{Kind: EventTextDelta, Text: text[j:min(j+64, len(text))]})
		}
		u.event(Event{Kind: EventAssistant, Message: &Message{}})
	}
}

// frameClock records when the first write holding a marker arrived.
type frameClock struct {
	marker []byte
	at     time.Time
}

// Write notes the time of the first write that shows the marker.
func (c *frameClock) Write(p []byte) (int, error) {
	if c.at.IsZero() && bytes.Contains(p, c.marker) {
		c.at = time.Now()
	}
	return len(p), nil
}

// BenchmarkFirstFrame measures the time from a reply's first token to the
// frame that shows it, while the model was thinking just before; it
// reports the median and the 99th percentile.
func BenchmarkFirstFrame(b *testing.B) {
	clock := &frameClock{marker: []byte("Hello")}
	u := plainTUI(b, clock)
	took := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		u.event(Event{Kind: EventThinkingDelta, Text: "pondering"})
		clock.at = time.Time{}
		start := time.Now()
		u.event(Event{Kind: EventTextDelta, Text: "Hello"})
		if clock.at.IsZero() {
			b.Fatal("the first token was not drawn at once")
		}
		took = append(took, clock.at.Sub(start))
		u.event(Event{Kind: EventAssistant, Message: &Message{}})
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2])/float64(time.Millisecond), "ms-p50")
	b.ReportMetric(float64(took[len(took)*99/100])/float64(time.Millisecond), "ms-p99")
}

// resumedTUI is a terminal UI whose app resumed a saved session of n messages: prompts, replies with
// Markdown and a tool call each, and their results.
func resumedTUI(b testing.TB, n int) *tui {
	b.Helper()
	env := map[string]string{"MINICODE_HOME": b.TempDir(), "HOME": b.TempDir()}
	ws := b.TempDir()
	s := newSession(projectDir(env["MINICODE_HOME"], ws), newSessionID(), nil)
	for i := 0; len(s.View()) < n; i++ {
		call := Block{Type: BlockToolUse, ID: fmt.Sprint("toolu_", i), Name: "read_file", Input: json.RawMessage(`{"path":"main.go"}`)}
		s.AddUser(userText(fmt.Sprintf("question %d about the code", i)))
		s.Event(Event{Kind: EventAssistant, Message: &Message{Role: RoleAssistant, Content: []Block{{Type: BlockText, Text: "I'll **read** `main.go`."}, call}}})
		s.Event(Event{Kind: EventToolResults, Message: &Message{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: call.ID, Content: "1\tpackage main\n"}}}})
		s.Event(Event{Kind: EventAssistant, Message: &Message{Role: RoleAssistant, Content: []Block{{Type: BlockText, Text: "## Answer\n- it is `package main`\n- and short\n"}}}})
	}
	s.Close()
	app, err := newApp(context.Background(), Options{Workspace: ws, Resume: s.ID}, strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(app.Close)
	u := newTUI(app, io.Discard, 120, 40)
	u.history = app.Session.View()
	return u
}

// BenchmarkResume300 measures resuming a 300-message session: reading its journal and printing the
// last screenfuls of its conversation.
func BenchmarkResume300(b *testing.B) {
	u := resumedTUI(b, 300)
	for b.Loop() {
		u.mu.Lock()
		s, err := u.app.loadSession(u.app.Session.ID, false, "")
		if err != nil {
			b.Fatal(err)
		}
		u.history = s.View()
		u.showResumed()
		u.draw()
		u.mu.Unlock()
	}
}

// BenchmarkKeystrokeAfterResume measures a typed key once a 10,000-message session was resumed.
func BenchmarkKeystrokeAfterResume(b *testing.B) {
	u := resumedTUI(b, 10_000)
	u.tr.color = true
	u.showResumed()
	u.draw()
	for b.Loop() {
		u.mu.Lock()
		if len(u.editor.buf) > 60 {
			u.editor.reset()
		}
		k, _ := decodeKey([]byte("x"))
		u.handleKey(k)
		u.draw()
		u.mu.Unlock()
	}
}
