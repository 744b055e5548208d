package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sessionSteps is how many read_file calls the scripted session makes
// before it answers.
const sessionSteps = 10

// scriptedAnthropicServer speaks the Anthropic Messages streaming format:
// for the first sessionSteps requests it asks for read_file of file<N>.txt,
// then it answers with text. The step is the number of tool results in
// the request, so the server holds no state between requests.
func scriptedAnthropicServer(t testing.TB) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []Message `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad body"}}`, http.StatusBadRequest)
			return
		}
		step := 0
		for _, m := range req.Messages {
			step += len(m.ToolResults())
		}
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(name string, data any) {
			b, _ := json.Marshal(data)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		}
		event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": fmt.Sprintf("msg_%d", step), "type": "message", "role": "assistant", "content": []any{},
			"model": "claude-sonnet-4-5", "usage": map[string]int{"input_tokens": 100 + 50*step, "output_tokens": 1}}})
		stop := "tool_use"
		if step < sessionSteps {
			event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", step), "name": "read_file", "input": map[string]any{}}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": fmt.Sprintf(`{"path": "file%d.txt"}`, step)}})
		} else {
			stop = "end_turn"
			event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": fmt.Sprintf("Read %d files.", step)}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]int{"output_tokens": 20}})
		event("message_stop", map[string]any{"type": "message_stop"})
	}))
}

// sessionWorkspace holds the files the scripted session reads.
func sessionWorkspace(t testing.TB) string {
	ws := t.TempDir()
	for i := 0; i < sessionSteps; i++ {
		content := strings.Repeat(fmt.Sprintf("line of file %d\n", i), 200)
		if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("file%d.txt", i)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// measured wraps a command in /usr/bin/time, when present, to learn its
// peak resident memory: the rusage a Go parent reads counts the parent's
// own memory at fork time, so it cannot tell a small child's peak. It
// returns the command and a function reporting the peak in bytes (0 when
// it cannot be measured).
func measured(t testing.TB, bin string, args ...string) (*exec.Cmd, func() int64) {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		return exec.Command(bin, args...), func() int64 { return 0 }
	}
	out := filepath.Join(t.TempDir(), "rss")
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", out, bin}, args...)...)
	return cmd, func() int64 {
		data, err := os.ReadFile(out)
		if err != nil {
			return 0
		}
		var kb int64
		fmt.Sscan(string(data), &kb)
		return kb * 1024
	}
}

// runScriptedSession runs the built binary once through the session and
// returns its CPU time and peak resident memory.
func runScriptedSession(t testing.TB, bin, url, ws, home string) (cpu time.Duration, maxRSS int64) {
	cmd, peak := measured(t, bin, "-p", "read the ten files", "--output-format", "json", "--workspace", ws)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "MINICODE_HOME=" + home,
		"ANTHROPIC_API_KEY=test-key", "ANTHROPIC_BASE_URL=" + url}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("session failed: %v\n%s", err, out)
	}
	var res resultRecord
	if err := json.Unmarshal(out, &res); err != nil || res.Result != "Read 10 files." || res.NumTurns != sessionSteps+1 {
		t.Fatalf("session result = %s, want %d turns ending in \"Read 10 files.\"", out, sessionSteps+1)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), peak()
}

func TestScriptedSessionThroughAnthropic(t *testing.T) {
	t.Parallel()
	srv := scriptedAnthropicServer(t)
	defer srv.Close()
	runScriptedSession(t, minicodeBinary(t), srv.URL, sessionWorkspace(t), t.TempDir())
}

// BenchmarkScriptedSession measures a whole 10-step session of the built
// binary against a local Anthropic-format server: CPU time and peak RSS of
// the minicode process are reported per session.
func BenchmarkScriptedSession(b *testing.B) {
	srv := scriptedAnthropicServer(b)
	defer srv.Close()
	bin, ws, home := minicodeBinary(b), sessionWorkspace(b), b.TempDir()
	var cpu time.Duration
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, rss := runScriptedSession(b, bin, srv.URL, ws, home)
		cpu += c
		peak = max(peak, rss)
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}

// BenchmarkVersion measures starting the built binary for --version.
func BenchmarkVersion(b *testing.B) {
	bin := minicodeBinary(b)
	var peak int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd, rss := measured(b, bin, "--version")
		if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), "minicode ") {
			b.Fatalf("--version: %v %q", err, out)
		}
		peak = max(peak, rss())
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}
