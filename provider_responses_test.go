package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestResponsesStreamFixtures parses Responses API streams recorded from the API reference's event
// shapes: text with cached tokens, reasoning summaries with encrypted content and function calls,
// and an unknown event before a response cut off by max_output_tokens.
func TestResponsesStreamFixtures(t *testing.T) {
	t.Parallel()
	runStreamFixtures(t, "responses", func(o ProviderOptions) Provider { return newOpenAIResponses(o) })
}

// TestResponsesStreamFaults checks a stream that ends early, response.failed and error events (as the
// reference has them, and with the error object nested): a rate limit is retried, a bad request is not.
func TestResponsesStreamFaults(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, want string
		retryable  bool
	}{
		{"fail_early_end.sse", "the stream ended before the reply was complete", true},
		{"fail_response_failed.sse", "openai API error: The model failed to generate a response. (error event in the stream, server_error)", true},
		{"fail_error_event.sse", "Invalid prompt: your prompt was flagged.", false},
		{"fail_rate_limited.sse", "Rate limit reached for gpt-5 on tokens per min (TPM).", true},
		{"fail_error_event_rate_limit.sse", "Rate limit reached for gpt-5 on requests per min (RPM).", true},
		{"fail_error_event_nested.sse", "Your input exceeds the context window of this model.", false},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			stream, err := os.ReadFile(filepath.Join("testdata", "responses", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			api := newFakeAPI(t, sseReply(string(stream)))
			p := newOpenAIResponses(ProviderOptions{BaseURL: api.srv.URL, APIKey: "k", MaxRetries: -1})
			_, err = p.Stream(context.Background(), ModelRequest{Model: "gpt-5", Messages: []Message{userText("q")}}, nil)
			var apiErr *APIError
			var streamErr *streamError
			retryable := errors.As(err, &streamErr) || errors.As(err, &apiErr) && apiErr.Retryable
			if err == nil || !strings.Contains(err.Error(), tc.want) || retryable != tc.retryable {
				t.Errorf("error = %v (retryable %v), want %q (retryable %v)", err, retryable, tc.want, tc.retryable)
			}
		})
	}
}

// TestResponsesRequestGolden checks the request body: instructions, input items for messages,
// images, a PDF, reasoning replayed with its encrypted content, calls and their outputs, tools.
func TestResponsesRequestGolden(t *testing.T) {
	t.Parallel()
	reasoned := []Message{
		userText("Compare a.go and b.go."),
		{Role: RoleAssistant, Content: []Block{
			{Type: BlockThinking, ID: "rs_1", Thinking: "Both files are needed.", Signature: "gAAAAencrypted"},
			{Type: BlockThinking, Thinking: "an Anthropic thought", Signature: "EqQB"}, // not the Responses API's: left out
			{Type: BlockText, Text: "Reading both."},
			{Type: BlockToolUse, ID: "call_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)},
			{Type: BlockToolUse, ID: "call_2", Name: "read_file", Input: json.RawMessage(`{"path":"b.go"}`)},
		}},
		{Role: RoleUser, Content: []Block{
			{Type: BlockToolResult, ToolUseID: "call_1", Content: "package a"},
			{Type: BlockToolResult, ToolUseID: "call_2", Content: "no such file", IsError: true},
		}},
	}
	tests := []struct {
		name   string
		effort string
		req    ModelRequest
	}{
		{"reasoning", "high", ModelRequest{Model: "gpt-5.5", System: "Use tools.", Tools: testTools, MaxTokens: 2048, Messages: reasoned}},
		{"images", "", ModelRequest{Model: "gpt-4.1", Messages: imageConversation}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(responsesText("ok")))
			p := newOpenAIResponses(ProviderOptions{BaseURL: api.srv.URL, APIKey: "sk-test", Effort: tt.effort})
			p.cacheKey = "minicode-test"
			if _, err := p.Stream(context.Background(), tt.req, nil); err != nil {
				t.Fatalf("Stream error: %v", err)
			}
			checkRequestGolden(t, filepath.Join("testdata", "responses", "request_"+tt.name+".json"), api.requests()[0])
		})
	}
}

// responsesText is a whole Responses API stream answering text.
func responsesText(text string) string {
	delta, _ := json.Marshal(text)
	return "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_t\",\"status\":\"in_progress\"}}\n\n" +
		"event: response.output_item.added\ndata: {\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,\"item\":{\"id\":\"msg_t\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n" +
		"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"sequence_number\":2,\"item_id\":\"msg_t\",\"output_index\":0,\"content_index\":0,\"delta\":" + string(delta) + "}\n\n" +
		"event: response.completed\ndata: {\"type\":\"response.completed\",\"sequence_number\":3,\"response\":{\"id\":\"resp_t\",\"status\":\"completed\",\"usage\":{\"input_tokens\":2000,\"input_tokens_details\":{\"cached_tokens\":1500},\"output_tokens\":3}}}\n\n"
}

// TestResponsesReasoningAcrossTurns runs the binary against a Responses API that reasons and
// calls two tools, then answers: the second request carries the encrypted reasoning, both calls
// and their outputs, the effort from --effort, store:false and the same prompt cache key; the
// result counts the cached tokens.
func TestResponsesReasoningAcrossTurns(t *testing.T) {
	t.Parallel()
	first, err := os.ReadFile("testdata/responses/stream_reasoning_and_calls.sse")
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, sseReply(string(first)), sseReply(responsesText("a.go is package a.")))
	ws := workspaceWith(t, map[string]string{"a.go": "package a\n"})
	r := runMinicode(t, []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + api.srv.URL}, "",
		"--provider", "openai", "--api", "responses", "--model", "gpt-5.5", "--effort", "high", "-p", "read a.go", "--output-format", "json", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "a.go is package a.") || !strings.Contains(r.stdout, `"cache_read_input_tokens":1500`) {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := api.requests()
	if len(reqs) != 2 || reqs[0].Path != "/responses" {
		t.Fatalf("requests: %+v", reqs)
	}
	var second struct {
		Input          []map[string]any  `json:"input"`
		Reasoning      map[string]string `json:"reasoning"`
		Include        []string          `json:"include"`
		Store          *bool             `json:"store"`
		PromptCacheKey string            `json:"prompt_cache_key"`
	}
	var firstBody struct {
		PromptCacheKey string `json:"prompt_cache_key"`
	}
	_ = json.Unmarshal(reqs[0].Body, &firstBody)
	if err := json.Unmarshal(reqs[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, item := range second.Input {
		kinds = append(kinds, item["type"].(string))
	}
	if got := strings.Join(kinds, " "); got != "message reasoning function_call function_call function_call_output function_call_output" {
		t.Errorf("input items: %s", got)
	}
	if enc, _ := second.Input[1]["encrypted_content"].(string); enc != "gAAAAABotmVQ7xX2f0u9cXJ0ZXN0LWVuY3J5cHRlZC1yZWFzb25pbmc=" {
		t.Errorf("the reasoning item lost its encrypted content: %v", second.Input[1])
	}
	if out, _ := second.Input[4]["output"].(string); second.Input[4]["call_id"] != "call_Jj3Xu8SDmpbo0oSUPsdDE1Wn" || !strings.Contains(out, "package a") {
		t.Errorf("the first output: %v", second.Input[4])
	}
	if second.Reasoning["effort"] != "high" || len(second.Include) != 1 || second.Include[0] != "reasoning.encrypted_content" || second.Store == nil || *second.Store ||
		second.PromptCacheKey == "" || second.PromptCacheKey != firstBody.PromptCacheKey {
		t.Errorf("reasoning %v, include %v, store %v, cache keys %q and %q", second.Reasoning, second.Include, second.Store, firstBody.PromptCacheKey, second.PromptCacheKey)
	}
}

// TestResponsesRetries sends a request answered by a 429 with Retry-After, then by a stream that
// fails with rate_limit_exceeded, then by the reply: both failures are waited out and retried,
// the first for as long as the server asked.
func TestResponsesRetries(t *testing.T) {
	t.Parallel()
	failed, err := os.ReadFile(filepath.Join("testdata", "responses", "fail_rate_limited.sse"))
	if err != nil {
		t.Fatal(err)
	}
	rate429 := `{"error":{"message":"Rate limit reached for gpt-5 on requests per min (RPM): Limit 500, Used 500.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	api := newFakeAPI(t, statusReply(http.StatusTooManyRequests, rate429, "Retry-After", "7"), sseReply(string(failed)), sseReply(responsesText("done")))
	log := &retryLog{}
	p := newOpenAIResponses(log.options(api.srv.URL))
	log.instrument(&p.streamClient)
	text, _, err := collectText(context.Background(), p)
	if err != nil || text != "done" || len(api.requests()) != 3 {
		t.Fatalf("reply %q, error %v after %d requests; want done after 3", text, err, len(api.requests()))
	}
	if len(log.waits) != 2 || log.waits[0] != 7*time.Second || len(log.notices) != 2 || !strings.Contains(log.notices[1], "tokens per min") {
		t.Errorf("waits %v, notices %q; want 7s first and a notice for each failure", log.waits, log.notices)
	}
}

// TestResponsesCutOffByMaxOutputTokens runs the binary against a Responses API whose replies end
// with response.incomplete (max_output_tokens): text cut off is continued and joined to the rest,
// and a call cut off is not run but asked for again; the answer is the whole text.
func TestResponsesCutOffByMaxOutputTokens(t *testing.T) {
	t.Parallel()
	var replies []http.HandlerFunc
	for _, file := range []string{"stream_unknown_event_and_incomplete.sse", "stream_call_cut_by_max_output_tokens.sse"} {
		stream, err := os.ReadFile(filepath.Join("testdata", "responses", file))
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, sseReply(string(stream)))
	}
	api := newFakeAPI(t, append(replies, sseReply(responsesText(" off here.")))...)
	r := runMinicode(t, []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + api.srv.URL}, "",
		"--provider", "openai", "--api", "responses", "--model", "gpt-4.1", "-p", "answer", "--output-format", "json", "--workspace", t.TempDir())
	if r.code != 0 || !strings.Contains(r.stdout, `"result":"The answer is cut off here."`) {
		t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
	}
	reqs := api.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{continuePrompt, halfToolCallPrompt} {
		var body struct {
			Input []struct {
				Type    string
				Content json.RawMessage
			}
		}
		if err := json.Unmarshal(reqs[i+1].Body, &body); err != nil {
			t.Fatal(err)
		}
		last := body.Input[len(body.Input)-1]
		if last.Type != "message" || !strings.Contains(string(last.Content), want) || strings.Contains(string(reqs[i+1].Body), "function_call") {
			t.Errorf("request %d ends with %s %s, want the prompt %q and no call", i+2, last.Type, last.Content, want)
		}
	}
}

// TestResponsesWithoutSummaries answers the first request with the 400 the API gives an organization
// it has not verified when reasoning summaries are asked for: the request is sent again without
// them (retries or not), the user is told once, and later requests go without them too.
func TestResponsesWithoutSummaries(t *testing.T) {
	t.Parallel()
	unverified := `{"error":{"message":"Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.","type":"invalid_request_error","param":"reasoning.summary","code":"unsupported_value"}}`
	api := newFakeAPI(t, statusReply(http.StatusBadRequest, unverified), sseReply(responsesText("ok")), sseReply(responsesText("again")))
	log := &retryLog{}
	opts := log.options(api.srv.URL)
	opts.MaxRetries = -1
	p := newOpenAIResponses(opts)
	for _, want := range []string{"ok", "again"} {
		resp, err := p.Stream(context.Background(), ModelRequest{Model: "gpt-5", Messages: []Message{userText("q")}}, nil)
		if got := (Message{Content: resp.Content}).Text(); err != nil || got != want {
			t.Fatalf("reply %q, error %v; want %q", got, err, want)
		}
	}
	reqs := api.requests()
	for i, wantSummary := range []bool{true, false, false} {
		var body struct{ Reasoning map[string]string }
		if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		if _, asked := body.Reasoning["summary"]; asked != wantSummary || body.Reasoning["effort"] != "medium" {
			t.Errorf("request %d asks for reasoning %v, want a summary %v", i+1, body.Reasoning, wantSummary)
		}
	}
	if len(log.notices) != 1 || !strings.Contains(log.notices[0], "until it is verified") {
		t.Errorf("notices %q, want one saying why the thinking is not shown", log.notices)
	}
}
