package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fakeOllama speaks the parts of Ollama's API minicode uses: the OpenAI-compatible model list and
// chat, and /api/show with a model's parameters and architecture; it records the paths asked.
func fakeOllama(t *testing.T, parameters string) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path+" "+string(body))
		mu.Unlock()
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"object":"list","data":[{"id":"qwen3-coder:30b","object":"model","created":1754000000,"owned_by":"library"},{"id":"llama3.2:3b","object":"model","created":1753000000,"owned_by":"library"}]}`)
		case "/api/show":
			show, _ := json.Marshal(map[string]any{"parameters": parameters, "capabilities": []string{"completion", "tools"},
				"details": map[string]string{"family": "qwen3moe", "parameter_size": "30.5B", "quantization_level": "Q4_K_M"},
				"model_info": map[string]any{"general.architecture": "qwen3moe", "qwen3moe.context_length": 262144, "qwen3moe.block_count": 48,
					"clip.context_length": 4096, "bert.context_length": 512}})
			w.Write(show)
		case "/v1/chat/completions":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"qwen3-coder:30b","choices":[{"index":0,"delta":{"role":"assistant","content":"Hello from Ollama."},"finish_reason":null}]}`+"\n\n")
			fmt.Fprint(w, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"qwen3-coder:30b","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":4,"total_tokens":904}}`+"\n\ndata: [DONE]\n\n")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), paths...)
	}
}

// TestOllamaPresetNeedsNoSettings runs --provider ollama against a running Ollama: the model is
// the first it has, the context window the num_ctx it runs the model with (else the model's own).
func TestOllamaPresetNeedsNoSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		parameters string
		window     string
	}{{"num_ctx 32768\ntemperature 0.7", `"contextWindow":32768`}, {"temperature 0.7", `"contextWindow":262144`}} {
		srv, paths := fakeOllama(t, tc.parameters)
		r := runMinicode(t, []string{"OLLAMA_HOST=" + strings.TrimPrefix(srv.URL, "http://")}, "", "--provider", "ollama", "-p", "hi", "--output-format", "json")
		if r.code != 0 || !strings.Contains(r.stdout, "Hello from Ollama.") || !strings.Contains(r.stdout, `"qwen3-coder:30b":{`) || !strings.Contains(r.stdout, tc.window) {
			t.Errorf("exit %d: %s %s", r.code, r.stdout, r.stderr)
		}
		if got := strings.Join(paths(), "\n"); !strings.Contains(got, `POST /api/show {"model":"qwen3-coder:30b"}`) || !strings.Contains(got, "GET /v1/models \n") || !strings.Contains(got, `"model":"qwen3-coder:30b"`) {
			t.Errorf("requests:\n%s", got)
		}
	}
}

// TestPresetServerNotRunning names the address tried and how to start the server.
func TestPresetServerNotRunning(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	r := runMinicode(t, []string{"OLLAMA_HOST=" + addr}, "", "--provider", "ollama", "-p", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, "http://"+addr+"/v1") || !strings.Contains(r.stderr, "start it with `ollama serve`") {
		t.Errorf("exit %d: %q", r.code, r.stderr)
	}
	r = runMinicode(t, nil, "", "--provider", "gemini", "-p", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "the gemini provider needs GEMINI_API_KEY") {
		t.Errorf("gemini without a key: exit %d, %q", r.code, r.stderr)
	}
}

// TestModelListsWhatTheProviderOffers asks /model and /status of an LM Studio.
func TestModelListsWhatTheProviderOffers(t *testing.T) {
	t.Parallel()
	srv, _ := fakeOllama(t, "")
	r := runMinicode(t, []string{"LMSTUDIO_BASE_URL=" + srv.URL + "/v1"}, "/model\n/status\n", "--provider", "lmstudio", "--model", "my-local-model")
	for _, want := range []string{"model: my-local-model (lmstudio)", "offered: qwen3-coder:30b, llama3.2:3b",
		"context window: 128,000 tokens, a guess: my-local-model is not in minicode's table; set \"contextWindow\" in settings"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("line mode lacks %q: %s %s", want, r.stdout, r.stderr)
		}
	}
}
