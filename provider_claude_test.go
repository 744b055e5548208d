package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// apiStep is one scripted reply of fakeClaudeAPI: an HTTP error status,
// a tool call, or a text answer.
type apiStep struct {
	status     int
	tool, args string
	text       string
	cacheRead  int // cache_read_input_tokens reported, if any
}

// apiRequest is what fakeClaudeAPI saw of one request.
type apiRequest struct {
	header    http.Header
	model     string
	maxTokens int
	system    string
	body      string
}

// fakeClaudeAPI speaks the Anthropic Messages streaming format, replying
// to the n-th request with steps[n] (the last step repeats). It records
// every request.
func fakeClaudeAPI(t *testing.T, steps ...apiStep) (*httptest.Server, func() []apiRequest) {
	t.Helper()
	var mu sync.Mutex
	var seen []apiRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model     string          `json:"model"`
			MaxTokens int             `json:"max_tokens"`
			System    json.RawMessage `json:"system"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		seen = append(seen, apiRequest{header: r.Header.Clone(), model: req.Model, maxTokens: req.MaxTokens, system: string(req.System), body: string(body)})
		step := steps[min(len(seen), len(steps))-1]
		n := len(seen)
		mu.Unlock()
		if step.status != 0 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(step.status)
			fmt.Fprintf(w, `{"type":"error","error":{"type":"not_found_error","message":"model: %s"}}`, req.Model)
			return
		}
		writeAnthropicReply(w, n, req.Model, step)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []apiRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]apiRequest(nil), seen...)
	}
}

// writeAnthropicReply streams one reply as server-sent events.
func writeAnthropicReply(w http.ResponseWriter, n int, model string, step apiStep) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	usage := map[string]int{"input_tokens": 1000, "output_tokens": 1}
	if step.cacheRead > 0 {
		usage["cache_read_input_tokens"] = step.cacheRead
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "content": []any{}, "model": model, "usage": usage}})
	stop := "end_turn"
	if step.tool != "" {
		stop = "tool_use"
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", n), "name": step.tool, "input": map[string]any{}}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": step.args}})
	} else {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		for _, piece := range strings.SplitAfter(step.text, " ") {
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": piece}})
		}
	}
	event("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop}, "usage": map[string]int{"output_tokens": 20}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

func TestClaudeEnvironmentReachesTheAPI(t *testing.T) {
	t.Parallel()
	srv, requests := fakeClaudeAPI(t, apiStep{status: http.StatusNotFound}, apiStep{text: "Hello there."})
	ws, mhome := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(mhome, "settings.json"), `{"env": {"ANTHROPIC_BASE_URL": "`+srv.URL+`", "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "1234"}}`)
	env := []string{"ANTHROPIC_API_KEY=k", "MINICODE_HOME=" + mhome, "ANTHROPIC_CUSTOM_HEADERS=X-Team: compilers\nX-Trace: on"}
	r := runMinicode(t, env, "", "-p", "hi", "--model", "opus", "--fallback-model", "haiku", "--workspace", ws,
		"--system-prompt", "You are terse.", "--append-system-prompt", "Answer in French.")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Hello there." {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	got := requests()
	if len(got) != 2 {
		t.Fatalf("%d requests, want the model's and the fallback's", len(got))
	}
	if got[0].model != "claude-opus-4-8" || got[1].model != "claude-haiku-4-5" {
		t.Errorf("models sent = %q then %q, want the aliases resolved: claude-opus-4-8, then the fallback claude-haiku-4-5", got[0].model, got[1].model)
	}
	for _, req := range got {
		if req.header.Get("X-Team") != "compilers" || req.header.Get("X-Trace") != "on" || req.maxTokens != 1234 {
			t.Errorf("headers %q, max_tokens %d; want the custom headers and 1234", req.header, req.maxTokens)
		}
		if !strings.Contains(req.system, "You are terse.") || strings.Contains(req.system, "You are minicode") || !strings.Contains(req.system, "Answer in French.") {
			t.Errorf("system prompt %q, want the given one with the appended text", req.system)
		}
	}
	if !strings.Contains(r.stderr, "answering with claude-haiku-4-5") {
		t.Errorf("stderr %q, want a notice of the fallback", r.stderr)
	}
}

// modelRecorder answers every request with a summary and records the
// model each named.
type modelRecorder struct{ models []string }

// Name reports "recorder".
func (m *modelRecorder) Name() string { return "recorder" }

// Stream records the model and replies with a summary.
func (m *modelRecorder) Stream(_ context.Context, req ModelRequest, _ func(Delta)) (ModelResponse, error) {
	m.models = append(m.models, req.Model)
	return ModelResponse{Content: []Block{{Type: BlockText, Text: "<summary>\nState.\n</summary>"}}, StopReason: StopEndTurn}, nil
}

func TestSmallFastModelWritesSummaries(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "k", "ANTHROPIC_SMALL_FAST_MODEL": "haiku", "MINICODE_HOME": t.TempDir(), "HOME": t.TempDir()}
	app, err := newApp(t.Context(), Options{Print: true, Workspace: t.TempDir(), Model: "opus"}, strings.NewReader(""), io.Discard, io.Discard,
		func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	rec := &modelRecorder{}
	app.Agent.Provider = rec
	if _, err := app.Agent.summarize(t.Context(), []Message{userText("read the files")}, "", 100_000); err != nil {
		t.Fatal(err)
	}
	if want := []string{"claude-haiku-4-5"}; len(rec.models) != 1 || rec.models[0] != want[0] || app.Agent.Model != "claude-opus-4-8" {
		t.Errorf("summary asked of %q (main model %q), want %q", rec.models, app.Agent.Model, want)
	}
}

// TestAliasesFollowClaudeCodesVariables resolves opus through ANTHROPIC_DEFAULT_OPUS_MODEL, as Claude Code does.
func TestAliasesFollowClaudeCodesVariables(t *testing.T) {
	t.Parallel()
	srv, requests := fakeClaudeAPI(t, apiStep{text: "ok"})
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "ANTHROPIC_DEFAULT_OPUS_MODEL=claude-opus-4-7"}, "", "-p", "hi", "--model", "opus")
	if r.code != 0 || len(requests()) != 1 || requests()[0].model != "claude-opus-4-7" {
		t.Errorf("exit %d, %q; models sent: %+v", r.code, r.stderr, requests())
	}
}
