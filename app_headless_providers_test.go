package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// scriptedOpenAIServer speaks the Chat Completions streaming format: the
// first request gets a read_file call for notes.txt, split into fragments;
// the next gets the answer. It records the model each request named.
func scriptedOpenAIServer(t *testing.T, models chan<- string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string            `json:"model"`
			Messages []json.RawMessage `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/chat/completions" || json.Unmarshal(body, &req) != nil || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		models <- req.Model
		w.Header().Set("Content-Type", "text/event-stream")
		chunk := func(data string) { fmt.Fprintf(w, "data: %s\n\n", data) }
		if !strings.Contains(string(body), `"role":"tool"`) {
			chunk(`{"choices":[{"index":0,"delta":{"role":"assistant","content":"Reading."}}]}`)
			chunk(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"pa"}}]}}]}`)
			chunk(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"notes.txt\"}"}}]}}]}`)
			chunk(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		} else {
			chunk(`{"choices":[{"index":0,"delta":{"content":"The notes say alpha."}}]}`)
			chunk(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
		}
		chunk(`{"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":7}}`)
		chunk(`[DONE]`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestHeadlessStreamJSONThroughOpenAI(t *testing.T) {
	t.Parallel()
	models := make(chan string, 4)
	srv := scriptedOpenAIServer(t, models)
	ws := workspaceWith(t, map[string]string{"notes.txt": "alpha\n"})
	r := runMinicode(t, []string{"OPENAI_API_KEY=sk-test", "OPENAI_BASE_URL=" + srv.URL}, "",
		"-p", "what do the notes say", "--output-format", "stream-json", "--model", "local-coder", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var types []string
	var last map[string]any
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		last = nil
		if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
			t.Fatalf("line %q is not JSON", sc.Text())
		}
		types = append(types, last["type"].(string))
	}
	if got := strings.Join(types, ","); got != "system,assistant,user,assistant,result" {
		t.Errorf("line types = %s", got)
	}
	if last["result"] != "The notes say alpha." || last["subtype"] != "success" {
		t.Errorf("result line = %v", last)
	}
	usage := last["usage"].(map[string]any)
	if usage["input_tokens"] != 80.0 || usage["output_tokens"] != 14.0 {
		t.Errorf("usage = %v, want the two steps' usage added", usage)
	}
	if m := <-models; m != "local-coder" {
		t.Errorf("the request named model %q, want the --model value", m)
	}
}

func TestHeadlessProviderErrorExitsOne(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
	}))
	defer srv.Close()
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=wrong", "ANTHROPIC_BASE_URL=" + srv.URL}, "",
		"-p", "hello", "--output-format", "json", "--workspace", t.TempDir())
	if r.code != 1 || !strings.Contains(r.stdout, `"subtype":"error_during_execution"`) || !strings.Contains(r.stdout, "invalid x-api-key") {
		t.Errorf("exit %d, stdout %q; want 1 and the API's message", r.code, r.stdout)
	}
}

func TestInterruptExits130(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		arrived <- struct{}{}
		<-r.Context().Done() // stall until the client goes away
	}))
	defer srv.Close()
	cmd := exec.Command(minicodeBinary(t), "-p", "hello", "--workspace", t.TempDir())
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + t.TempDir(),
		"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the request never reached the server")
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("minicode did not stop after SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit code %d after SIGINT, want %d", code, exitInterrupted)
	}
}

func TestLineModeShowsRetryNoticeBetweenAttempts(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n")
		fmt.Fprint(w, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n")
		if calls.Add(1) == 1 {
			fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Half an ans\"}}\n\n")
			return // the stream ends without message_stop
		}
		fmt.Fprint(w, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Whole answer.\"}}\n\n")
		fmt.Fprint(w, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n")
		fmt.Fprint(w, "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":2}}\n\n")
		fmt.Fprint(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}))
	defer srv.Close()
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "hello\n", "--workspace", t.TempDir())
	half := strings.Index(r.stdout, "Half an ans")
	notice := strings.Index(r.stdout, partialDiscardedNotice)
	whole := strings.Index(r.stdout, "Whole answer.")
	if r.code != 0 || half < 0 || notice < half || whole < notice {
		t.Errorf("exit %d; want the partial text, then the notice, then the retried answer on stdout:\n%s", r.code, r.stdout)
	}
}
