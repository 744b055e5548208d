package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestContextSettingsErrors checks that a context window that leaves no
// room, and thresholds that are no percentages, are settings errors that
// name the file and the line: the file is skipped, but a window too small
// for the model chosen stops the run.
func TestContextSettingsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, settings, want string
		code                 int
	}{
		{"zero", "{\n  \"contextWindow\": 0\n}", "line 2: contextWindow is 0", 0},
		{"negative", "{\n  \"model\": \"mock\",\n  \"contextWindow\": -5\n}", "line 3: contextWindow is -5", 0},
		{"not above the reserve", "{\n\n  \"contextWindow\": 8000\n}", "line 3: contextWindow 8000 must be larger than the 8192 tokens kept for the reply of mock", 1},
		{"threshold", "{\n  \"compaction\": {\"snip\": 120}\n}", "line 2: compaction.snip is 120", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			path := filepath.Join(home, "settings.json")
			if err := os.WriteFile(path, []byte(tt.settings), 0o644); err != nil {
				t.Fatal(err)
			}
			r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "help", "--provider", "mock", "--workspace", t.TempDir())
			if want := "settings file " + path + ": " + tt.want; r.code != tt.code || !strings.Contains(r.stderr, want) {
				t.Errorf("exit %d, stderr %q; want %d and an error containing %q", r.code, r.stderr, tt.code, want)
			}
		})
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "settings.json"), []byte(`{"contextWindow": 30000}`), 0o644)
	if r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "help", "--provider", "mock", "--workspace", t.TempDir()); r.code != 0 {
		t.Errorf("a window above the reserve: exit %d, stderr %q; want success", r.code, r.stderr)
	}
}

// TestLineModeCompactCommands drives line mode with the demo model:
// the context line after each turn, /snip and /collapse with nothing to
// do, /compact summarising offline, and a turn that goes on after it.
func TestLineModeCompactCommands(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		os.WriteFile(filepath.Join(ws, name), []byte(strings.Repeat("text of "+name+"\n", 300)), 0o644)
	}
	input := "read a.txt\nread b.txt\nread c.txt\n/snip\n/collapse\n/compact the file names\nread a.txt\n"
	r := runMinicode(t, []string{"MINICODE_PROVIDER=mock"}, input, "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"(context: 2% of the context window (",
		"Nothing to snip",
		"Nothing to collapse",
		"\ncompaction (manual) saved ",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "Result of read_file"); n != 4 {
		t.Errorf("%d read_file results shown; want one for each of the 4 turns", n)
	}
	if n := strings.Count(r.stdout, "(context: "); n != 4+3 {
		t.Errorf("%d context lines; want one after each of the 4 turns and 3 commands", n)
	}
}

// TestEncodingCachedAndRenewed checks that a request encoded from cached
// messages is byte for byte the one encoded afresh, for both providers,
// and that a message a compaction rewrote is encoded anew.
func TestEncodingCachedAndRenewed(t *testing.T) {
	t.Parallel()
	msgs := append(history("go", read("a", 500), read("b", 500), read("c", 500), read("d", 500)), userText("and then?"), userText("well?"))
	req := ModelRequest{Model: "m", System: "sys", Messages: msgs, Tools: testTools}
	encoders := map[string]func(ModelRequest) (*wireBody, error){
		"anthropic": (&Anthropic{}).encode,
		"openai":    (&openAI{}).encodeRequest,
	}
	for name, encode := range encoders {
		fresh, err := bodyBytes(encode(req))
		if err != nil {
			t.Fatal(err)
		}
		withWireCaches(msgs)
		first, _ := bodyBytes(encode(req))
		cached, _ := bodyBytes(encode(req))
		if !bytes.Equal(fresh, first) || !bytes.Equal(first, cached) {
			t.Errorf("%s: encodings differ:\nfresh  %s\ncached %s", name, fresh, cached)
		}
		micro := applySplices(msgs, microCompact(msgs, 3, func(string) bool { return true }))
		renewed, _ := bodyBytes(encode(ModelRequest{Model: "m", System: "sys", Messages: micro, Tools: testTools}))
		if !bytes.Contains(renewed, []byte(microPlaceholderPrefix)) || bytes.Count(renewed, []byte(strings.Repeat("x", 500))) != 3 {
			t.Errorf("%s: after micro compact the request still holds the old result: %s", name, renewed)
		}
		var v any
		if json.Unmarshal(renewed, &v) != nil {
			t.Errorf("%s: the request is not valid JSON", name)
		}
	}
}

// bigHistory is a history of n messages holding about tokens tokens.
func bigHistory(n, tokens int) []Message {
	var rounds [][]tcall
	size := tokens * charsPerCodeToken / (n / 2)
	for i := 0; i < n/2; i++ {
		name := []string{"read_file", "grep_files", "run_command", "edit_file"}[i%4]
		rounds = append(rounds, []tcall{{name: name, input: fmt.Sprintf(`{"path":"f%d"}`, i), result: strings.Repeat("r", size), failed: i%37 == 0}})
	}
	return history("begin", rounds...)[:n]
}

// BenchmarkCompact decides and applies the layers that need no model call
// on a 2,000-message history of about a million tokens; B/op shows the
// history is copied once per layer.
func BenchmarkCompact(b *testing.B) {
	msgs := bigHistory(2000, 1_000_000)
	withWireCaches(msgs)
	a := &Agent{Model: "claude-sonnet-4-5"}
	b.Logf("history: %d messages, %d tokens", len(msgs), tokenCount(msgs))
	for _, layer := range []string{LayerMicro, LayerSnip} {
		b.Run(layer, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out, c, err := a.compactWith(context.Background(), "", msgs, layer, "auto", "", false)
				if err != nil || len(c.Splices) == 0 || len(out) >= len(msgs)+1 {
					b.Fatalf("%s: %v, %d splices", layer, err, len(c.Splices))
				}
			}
		})
	}
}

// BenchmarkEncodeRequest encodes the request of a step whose history is
// already cached: the time per byte should not depend on how many
// messages there are.
func BenchmarkEncodeRequest(b *testing.B) {
	for _, n := range []int{2, 2000} {
		msgs := bigHistory(n, 100_000)
		withWireCaches(msgs)
		req := ModelRequest{Model: "m", System: "sys", Messages: msgs, Tools: testTools}
		p := &Anthropic{}
		body, _ := bodyBytes(p.encode(req))
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for i := 0; i < b.N; i++ {
				if _, err := p.encode(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStreamLongReply parses a 1 MB reply streamed in 20-byte text
// deltas.
func BenchmarkStreamLongReply(b *testing.B) {
	var stream strings.Builder
	stream.WriteString(anthropicEvents(`{"type":"message_start","message":{"usage":{"input_tokens":10}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`))
	piece := strings.Repeat("abcdefghij", 2)
	for i := 0; i < 1<<20/len(piece); i++ {
		fmt.Fprintf(&stream, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n", piece)
	}
	stream.WriteString(anthropicEvents(`{"type":"content_block_stop","index":0}`, `{"type":"message_delta","delta":{"stop_reason":"end_turn"}}`, `{"type":"message_stop"}`))
	data := stream.String()
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		resp, err := parseAnthropicStream(newSSEReader(strings.NewReader(data), 1<<20), func(Delta) {})
		if err != nil || len(resp.Content[0].Text) != 1<<20/len(piece)*len(piece) {
			b.Fatalf("parse: %v", err)
		}
	}
}

// TestPlainTextDelta checks that the fast reading of text deltas agrees
// with the full decoder, and leaves every other form to it.
func TestPlainTextDelta(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data   string
		fast   bool
		index  int
		wanted string
	}{
		{`{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"héllo <b>"}}`, true, 2, "héllo <b>"},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\"b"}}`, false, 0, `a"b`},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"line\nnext"}}`, false, 0, "line\nnext"},
		{`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"},"extra":1}`, false, 0, "x"},
		{`{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}`, false, 0, "x"},
		{`{"type":"content_block_delta","index":x,"delta":{"type":"text_delta","text":"x"}}`, false, 0, ""},
		{"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\xff\"}}", false, 0, "\ufffd"},
	}
	for _, tt := range tests {
		index, text, ok := plainTextDelta(tt.data)
		if ok != tt.fast || ok && (index != tt.index || text != tt.wanted) {
			t.Errorf("plainTextDelta(%q) = %d, %q, %v; want %d, %q, %v", tt.data, index, text, ok, tt.index, tt.wanted, tt.fast)
		}
		var full anthropicEvent
		if json.Unmarshal([]byte(tt.data), &full) == nil && full.Delta != nil && full.Delta.Text != tt.wanted {
			t.Errorf("the full decoder reads %q from %q; the table says %q", full.Delta.Text, tt.data, tt.wanted)
		}
	}
}

// TestCompactNeverGrowsTheHistory checks that /compact on a conversation
// too short to shrink leaves it as it is, instead of replacing it with a
// summary longer than what it replaces.
func TestCompactNeverGrowsTheHistory(t *testing.T) {
	t.Parallel()
	r := runMinicode(t, nil, "list files\n/compact\n", "--provider", "mock", "--workspace", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, "Nothing to compact") || strings.Contains(r.stdout, "saved -") {
		t.Errorf("exit %d, stdout %q; want nothing compacted", r.code, r.stdout)
	}
}

// bodyBytes returns the bytes of an encoded request body.
func bodyBytes(body *wireBody, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	return io.ReadAll(body.buffers())
}

// TestOversizedPromptIsRefusedBeforeItEntersTheHistory types a prompt larger than the
// context window: it is refused with its size, the room and what to do, the session goes
// on as before, and the next prompt runs.
func TestOversizedPromptIsRefusedBeforeItEntersTheHistory(t *testing.T) {
	t.Parallel()
	n := newNewcomer(t)
	writeFile(t, filepath.Join(n.ws, "main.go"), "package main\n")
	r := n.run(strings.Repeat("x", 2_000_000)+"\nlist files\n/compact\n", "--provider", "mock")
	for _, want := range []string{"Not sent: this prompt (2,000,000 characters, about ", "tokens the context window has room for", "@path", "main.go", "Nothing to compact"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, cutBytes(r.stdout, 3000, "..."))
		}
	}
	if strings.Contains(r.stdout, "no longer fits") || r.code != 0 {
		t.Errorf("exit %d; the refused prompt poisoned the session:\n%s", r.code, cutBytes(r.stdout, 3000, "..."))
	}
	r = n.mustRunWith(1, strings.Repeat("y ", 500_000), "-p", "--provider", "mock")
	if !strings.Contains(r.stdout+r.stderr, "Not sent: this prompt (999,999 characters") {
		t.Errorf("-p with an oversized prompt: stdout %q, stderr %q", r.stdout, cutBytes(r.stderr, 2000, "..."))
	}
}

// TestCompactRecoversAHistoryThatNoLongerFits resumes, with a window too small for it, a session
// whose newest messages no longer fit: /compact cuts the oversized message, and so does the next
// turn's automatic compaction when the failed prompt is the newest message of all.
func TestCompactRecoversAHistoryThatNoLongerFits(t *testing.T) {
	t.Parallel()
	n := newNewcomer(t)
	big, small := strings.Repeat("word ", 80_000), `{"contextWindow": 30000}`
	id := func(r runResult) string {
		var res struct {
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
			t.Fatalf("stdout %q: %v", r.stdout, err)
		}
		return res.SessionID
	}
	answered := id(n.mustRunWith(0, big, "-p", "--provider", "mock", "--output-format", "json"))
	r := n.run("/compact\nlist files\n", "--provider", "mock", "--resume", answered, "--settings", small)
	if !strings.Contains(r.stdout, "compaction (manual) saved") || strings.Contains(r.stdout, "Nothing to compact") || strings.Contains(r.stdout, "no longer fits") ||
		!strings.Contains(r.stdout, "→ list_files") {
		t.Errorf("/compact of a history that no longer fits:\n%s", cutBytes(r.stdout, 3000, "..."))
	}
	script := writeScript(t, `[{"error": "the model is down"}]`)
	failed := id(n.mustRunWith(1, big, "-p", "--provider", "mock", "--mock-script", script, "--output-format", "json"))
	r = n.mustRun(0, "-p", "list files", "--provider", "mock", "--resume", failed, "--settings", small)
	if !strings.Contains(r.stdout, "./: ") {
		t.Errorf("the turn after a failed oversized prompt: stdout %q, stderr %q", r.stdout, cutBytes(r.stderr, 2000, "..."))
	}
}
