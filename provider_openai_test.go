package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// openAIKit teaches the shared retry tests the Chat Completions wire format.
var openAIKit = providerKit{
	name: "openai",
	new: func(opts ProviderOptions) (Provider, *streamClient) {
		o := newOpenAI(opts)
		return o, &o.streamClient
	},
	reply: func(text string) string {
		return openAIChunks(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`, openAIContent(text),
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, `{"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2}}`, `[DONE]`)
	},
	cut: func(text string) string {
		return openAIChunks(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`, openAIContent(text))
	},
	cutEarly: openAIChunks(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`),
}

// openAIChunks frames chunk data as a Chat Completions stream.
func openAIChunks(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		fmt.Fprintf(&b, "data: %s\n\n", d)
	}
	return b.String()
}

// openAIContent is a chunk carrying a piece of reply text.
func openAIContent(text string) string {
	quoted, _ := json.Marshal(text)
	return `{"choices":[{"index":0,"delta":{"content":` + string(quoted) + `},"finish_reason":null}]}`
}

// TestOpenAIRequestGolden checks headers and body of requests against
// testdata/openai/request_*.json.
func TestOpenAIRequestGolden(t *testing.T) {
	t.Parallel()
	badArgs := []Message{
		userText("go"),
		{Role: RoleAssistant, Content: []Block{{Type: BlockToolUse, ID: "call_1", Name: "read_file", Input: toolInput(`{"path": "a.go`)}}},
		{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "call_1", Content: `invalid input`, IsError: true}}},
	}
	tests := []struct {
		name string
		key  string
		req  ModelRequest
	}{
		{"basic", "sk-test", ModelRequest{Model: "gpt-4o", System: "You are terse.", MaxTokens: 1000, Messages: []Message{userText("hello")}}},
		{"no_key", "", ModelRequest{Model: "llama3", Messages: []Message{userText("hello")}}},
		{"tools_conversation", "sk-test", ModelRequest{Model: "gpt-4.1", System: "Use tools.", Tools: testTools, MaxTokens: 2048, Messages: toolConversation}},
		{"thinking_dropped", "sk-test", ModelRequest{Model: "deepseek-reasoner", Messages: thinkingConversation}},
		{"invalid_arguments_replayed", "sk-test", ModelRequest{Model: "gpt-4o", Messages: badArgs}},
		{"images", "sk-test", ModelRequest{Model: "gpt-4.1", Messages: imageConversation}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(openAIKit.reply("ok")))
			p := newOpenAI(ProviderOptions{BaseURL: api.srv.URL + "/v1/", APIKey: tt.key})
			if _, err := p.Stream(context.Background(), tt.req, nil); err != nil {
				t.Fatalf("Stream error: %v", err)
			}
			checkRequestGolden(t, filepath.Join("testdata", "openai", "request_"+tt.name+".json"), api.requests()[0])
		})
	}
}

// TestOpenAIOutputLimitField checks which name the output limit is sent
// under for each kind of server.
func TestOpenAIOutputLimitField(t *testing.T) {
	t.Parallel()
	tests := []struct {
		base string
		want string
	}{
		{"", `"max_completion_tokens":500`},
		{"https://api.openai.com/v1", `"max_completion_tokens":500`},
		{"https://api.deepseek.com", `"max_tokens":500`},
		{"http://localhost:11434/v1", `"max_tokens":500`},
		{"https://openrouter.ai/api/v1", `"max_tokens":500`},
	}
	for _, tt := range tests {
		p := newOpenAI(ProviderOptions{BaseURL: tt.base})
		body, err := bodyBytes(p.encodeRequest(ModelRequest{Model: "m", MaxTokens: 500}))
		if err != nil || !strings.Contains(string(body), tt.want) {
			t.Errorf("base %q: body %q (%v), want it to hold %q", tt.base, body, err, tt.want)
		}
	}
}

// TestOpenAIStreamFixtures parses recorded streams: comments, a usage
// chunk, parallel tool calls by index, a new id at a used index, object
// and empty arguments, both reasoning fields (apart, and together with
// the same text), a finish without [DONE], and CRLF line ends.
func TestOpenAIStreamFixtures(t *testing.T) {
	t.Parallel()
	runStreamFixtures(t, "openai", func(o ProviderOptions) Provider { return newOpenAI(o) })
}

// TestOpenAIStopReasons checks the finish_reason mapping.
func TestOpenAIStopReasons(t *testing.T) {
	t.Parallel()
	tests := []struct{ finish, want string }{
		{"stop", StopEndTurn},
		{"tool_calls", StopToolUse},
		{"function_call", StopToolUse},
		{"length", StopMaxTokens},
		{"content_filter", StopRefusal},
		{"eos", StopEndTurn},
	}
	for _, tt := range tests {
		t.Run(tt.finish, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(openAIChunks(openAIContent("x"), `{"choices":[{"index":0,"delta":{},"finish_reason":"`+tt.finish+`"}]}`, "[DONE]")))
			resp, err := newOpenAI(ProviderOptions{BaseURL: api.srv.URL}).Stream(context.Background(), ModelRequest{Model: "m"}, nil)
			if err != nil || resp.StopReason != tt.want {
				t.Fatalf("stop reason = %q, %v; want %q", resp.StopReason, err, tt.want)
			}
		})
	}
}

// TestOpenAIIncompleteStreams checks that a stream with neither [DONE]
// nor a finish_reason is truncated, while [DONE] alone completes it.
func TestOpenAIIncompleteStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, stream, wantErr string
	}{
		{"no done, no finish", openAIChunks(openAIContent("half")), "the stream ended before the reply was complete"},
		{"done without finish", openAIChunks(openAIContent("whole"), "[DONE]"), ""},
		{"error chunk", openAIChunks(openAIContent("a"), `{"error":{"message":"context length exceeded","type":"invalid_request_error","code":400}}`), "context length exceeded (error event in the stream, invalid_request_error, 400)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(tt.stream))
			p := newOpenAI(ProviderOptions{BaseURL: api.srv.URL, MaxRetries: -1})
			_, err := p.Stream(context.Background(), ModelRequest{Model: "m"}, nil)
			if (tt.wantErr == "" && err != nil) || (tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr))) {
				t.Fatalf("Stream error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// TestOpenAIErrorChunkRetried checks that a server error reported inside
// the stream is retried.
func TestOpenAIErrorChunkRetried(t *testing.T) {
	t.Parallel()
	api := newFakeAPI(t, sseReply(openAIChunks(`{"error":{"message":"Provider disconnected","code":502}}`)), sseReply(openAIKit.reply("ok")))
	text, _, err := collectText(context.Background(), newTestProvider(openAIKit, api, &retryLog{}, nil))
	if err != nil || text != "ok" {
		t.Fatalf("Stream = %q, %v; want %q", text, err, "ok")
	}
}

// TestOpenAIArguments checks how a tool input is sent back as arguments.
func TestOpenAIArguments(t *testing.T) {
	t.Parallel()
	tests := []struct{ input, want string }{
		{``, `{}`},
		{`{"a":1}`, `{"a":1}`},
		{`"{\"a\": "`, `{"a": `},
	}
	for _, tt := range tests {
		if got := openAIArguments(json.RawMessage(tt.input)); got != tt.want {
			t.Errorf("openAIArguments(%q) = %q, want %q", tt.input, got, tt.want)
		}
	}
}

// TestOpenAIImageParts sends a user message with images as content parts:
// base64 data as a data URL, a URL as it is; text alone stays a string.
func TestOpenAIImageParts(t *testing.T) {
	msg := Message{Role: RoleUser, Content: []Block{{Type: BlockText, Text: "compare"},
		{Type: BlockImage, Source: &ImageSource{Type: "base64", MediaType: "image/png", Data: "AAAA"}},
		{Type: BlockImage, Source: &ImageSource{Type: "url", URL: "https://example.com/b.jpg"}}}}
	body, err := bodyBytes((&openAI{}).encodeRequest(ModelRequest{Model: "m", Messages: []Message{msg, userText("plain")}}))
	if err != nil {
		t.Fatal(err)
	}
	want := `"messages":[{"role":"user","content":[{"type":"text","text":"compare"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},` +
		`{"type":"image_url","image_url":{"url":"https://example.com/b.jpg"}}]},{"role":"user","content":"plain"}]`
	if !strings.Contains(string(body), want) {
		t.Errorf("body = %s\nwant it to contain %s", body, want)
	}
}
