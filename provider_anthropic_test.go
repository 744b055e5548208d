package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// anthropicKit teaches the shared retry tests the Anthropic wire format.
var anthropicKit = providerKit{
	name: "anthropic",
	new: func(opts ProviderOptions) (Provider, *streamClient) {
		a := newAnthropic(opts)
		return a, &a.streamClient
	},
	reply: func(text string) string { return anthropicTextStream(text, StopEndTurn) },
	cut: func(text string) string {
		full := anthropicTextStream(text, StopEndTurn)
		return full[:strings.Index(full, "event: content_block_stop")]
	},
	cutEarly: anthropicEvents(`{"type":"message_start","message":{"usage":{"input_tokens":5}}}`),
}

// anthropicEvents frames JSON event data as a Messages API stream, each
// event named after its type.
func anthropicEvents(data ...string) string {
	var b strings.Builder
	for _, d := range data {
		var ev struct{ Type string }
		json.Unmarshal([]byte(d), &ev)
		fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", ev.Type, d)
	}
	return b.String()
}

// anthropicTextStream is a complete stream of one text block.
func anthropicTextStream(text, stopReason string) string {
	quoted, _ := json.Marshal(text)
	return anthropicEvents(
		`{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"output_tokens":1}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(quoted)+`}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"`+stopReason+`"},"usage":{"output_tokens":7}}`,
		`{"type":"message_stop"}`,
	)
}

// testTools are two tools as the registry would describe them.
var testTools = []ToolSpec{
	{Name: "read_file", Description: "Read a file.", InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	{Name: "list_files", Description: "List files.", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)},
}

// toolConversation is a conversation with parallel tool calls, their
// results (one failed), an empty text block and two user messages in a
// row.
var toolConversation = []Message{
	userText("Compare a.go and b.go."),
	{Role: RoleAssistant, Content: []Block{
		{Type: BlockText, Text: "Reading both."},
		{Type: BlockToolUse, ID: "toolu_1", Name: "read_file", Input: json.RawMessage(`{"path":"a.go"}`)},
		{Type: BlockToolUse, ID: "toolu_2", Name: "read_file", Input: json.RawMessage(`{"path":"b.go"}`)},
	}},
	{Role: RoleUser, Content: []Block{
		{Type: BlockToolResult, ToolUseID: "toolu_1", Content: "package a"},
		{Type: BlockToolResult, ToolUseID: "toolu_2", Content: "no such file", IsError: true},
	}},
	{Role: RoleAssistant, Content: []Block{
		{Type: BlockText, Text: " "},
		{Type: BlockToolUse, ID: "toolu_3", Name: "list_files", Input: nil},
	}},
	{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "toolu_3", Content: ""}}},
	userText("Also, be brief."),
}

// imageConversation has a user's image, an image and a PDF that read_file returned, and a URL image.
var imageConversation = []Message{
	userPrompt("What is on my screen?", []Block{{Type: BlockImage, Source: &ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgo=", Width: 1280, Height: 720}}}),
	{Role: RoleAssistant, Content: []Block{
		{Type: BlockToolUse, ID: "toolu_1", Name: "read_file", Input: json.RawMessage(`{"path":"shot.png"}`)},
		{Type: BlockToolUse, ID: "toolu_2", Name: "read_file", Input: json.RawMessage(`{"path":"spec.pdf"}`)},
	}},
	{Role: RoleUser, Content: []Block{
		{Type: BlockToolResult, ToolUseID: "toolu_1", Content: "shot.png: image 4000×3000 scaled down to 1568×1176, 1.2 MB",
			Media: []Block{{Type: BlockImage, Source: &ImageSource{Type: "base64", MediaType: "image/png", Data: "c2NhbGVk", Width: 1568, Height: 1176}}}},
		{Type: BlockToolResult, ToolUseID: "toolu_2", Content: "spec.pdf: PDF document, 1 KB",
			Media: []Block{{Type: BlockDocument, Source: &ImageSource{Type: "base64", MediaType: "application/pdf", Data: "JVBERi0="}}}},
	}},
	userPrompt("and this one", []Block{{Type: BlockImage, Source: &ImageSource{Type: "url", URL: "https://example.com/a.jpg"}}}),
}

// thinkingConversation replays thinking and redacted thinking blocks with
// text that JSON encoders like to rewrite.
var thinkingConversation = []Message{
	userText("Think first."),
	{Role: RoleAssistant, Content: []Block{
		{Type: BlockThinking, Thinking: "Let me think about <this> & that.\n  \"quoted\" \\ \u2028 é", Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDeZ+/=="},
		{Type: BlockRedactedThinking, Data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP=="},
		{Type: BlockToolUse, ID: "toolu_9", Name: "list_files", Input: json.RawMessage(`{}`)},
	}},
	{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "toolu_9", Content: "a.go"}}},
}

// TestAnthropicRequestGolden checks headers and body of requests against
// testdata/anthropic/request_*.json.
func TestAnthropicRequestGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts ProviderOptions
		req  ModelRequest
	}{
		{"basic", ProviderOptions{APIKey: "sk-test"}, ModelRequest{Model: "claude-sonnet-4-5", System: "You are terse.", MaxTokens: 1000, Messages: []Message{userText("hello")}}},
		{"auth_token", ProviderOptions{APIKey: "sk-ignored", AuthToken: "bearer-token"}, ModelRequest{Model: "claude-sonnet-4-5", Messages: []Message{userText("hello")}}},
		{"images", ProviderOptions{APIKey: "sk-test"}, ModelRequest{Model: "claude-sonnet-5", MaxTokens: 100, Messages: imageConversation}},
		{"one_million", ProviderOptions{APIKey: "sk-test"}, ModelRequest{Model: "claude-opus-4-8[1m]", MaxTokens: 100, Messages: []Message{userText("hello")}}},
		{"tools_conversation", ProviderOptions{APIKey: "sk-test"}, ModelRequest{Model: "claude-opus-4-1", System: "Use tools.", Tools: testTools, MaxTokens: 2048, Messages: toolConversation}},
		{"thinking_replay", ProviderOptions{APIKey: "sk-test"}, ModelRequest{Model: "claude-sonnet-4-5", MaxTokens: 4096, Messages: thinkingConversation}},
		{"merged_messages", ProviderOptions{APIKey: "sk-test"}, ModelRequest{Model: "claude-sonnet-4-5", MaxTokens: 100, Messages: []Message{
			userText("first"),
			userText("second"),
			{Role: RoleAssistant, Content: []Block{{Type: BlockToolUse, ID: "toolu_1", Name: "list_files", Input: json.RawMessage(`"not an object"`)}}},
			userText("typed while the tool ran"),
			{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "toolu_1", Content: "a.go"}}},
			{Role: RoleAssistant, Content: []Block{{Type: BlockThinking, Thinking: "hmm", Signature: "sig"}}},
		}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(anthropicKit.reply("ok")))
			tt.opts.BaseURL = api.srv.URL + "/"
			if _, err := newAnthropic(tt.opts).Stream(context.Background(), tt.req, nil); err != nil {
				t.Fatalf("Stream error: %v", err)
			}
			checkRequestGolden(t, filepath.Join("testdata", "anthropic", "request_"+tt.name+".json"), api.requests()[0])
		})
	}
}

// TestAnthropicThinkingRoundTrip streams thinking blocks, sends them back
// as history and checks that the request carries them byte for byte.
func TestAnthropicThinkingRoundTrip(t *testing.T) {
	t.Parallel()
	stream, err := os.ReadFile("testdata/anthropic/stream_thinking.sse")
	if err != nil {
		t.Fatal(err)
	}
	api := newFakeAPI(t, sseReply(string(stream)), sseReply(anthropicKit.reply("ok")))
	p := newAnthropic(ProviderOptions{BaseURL: api.srv.URL, APIKey: "k"})
	first, err := p.Stream(context.Background(), ModelRequest{Model: "m", Messages: []Message{userText("q")}}, nil)
	if err != nil {
		t.Fatalf("first Stream error: %v", err)
	}
	history := []Message{userText("q"), {Role: RoleAssistant, Content: first.Content}, userText("next")}
	if _, err := p.Stream(context.Background(), ModelRequest{Model: "m", Messages: history}, nil); err != nil {
		t.Fatalf("second Stream error: %v", err)
	}
	var sent struct {
		Messages []struct{ Content []Block }
	}
	body := api.requests()[1].Body
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	replayed := sent.Messages[1].Content
	for i, want := range first.Content[:2] {
		got := replayed[i]
		if got.Type != want.Type || got.Thinking != want.Thinking || got.Signature != want.Signature || got.Data != want.Data {
			t.Errorf("block %d replayed as %q, want %q", i, fmt.Sprint(got.Type, got.Thinking, got.Signature, got.Data), fmt.Sprint(want.Type, want.Thinking, want.Signature, want.Data))
		}
	}
	for _, raw := range []string{`"signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDeZ+/=="`, `Let me think about <this> & that.\n`} {
		if !bytes.Contains(body, []byte(raw)) {
			t.Errorf("request body lacks %q", raw)
		}
	}
}

// streamResult is what a stream gave, as the stream golden files spell it.
type streamResult struct {
	Content    []Block `json:"content"`
	StopReason string  `json:"stop_reason"`
	Usage      Usage   `json:"usage"`
	Deltas     []Delta `json:"deltas"`
}

// runStreamFixtures plays every testdata/<dir>/stream_*.sse through the
// provider built by newProvider and compares the result with the
// .golden.json file next to it.
func runStreamFixtures(t *testing.T, dir string, newProvider func(ProviderOptions) Provider) {
	files, err := filepath.Glob(filepath.Join("testdata", dir, "stream_*.sse"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no stream fixtures in testdata/%s: %v", dir, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			stream, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			api := newFakeAPI(t, sseReply(string(stream)))
			var got streamResult
			resp, err := newProvider(ProviderOptions{BaseURL: api.srv.URL, APIKey: "k"}).Stream(context.Background(),
				ModelRequest{Model: "m", Messages: []Message{userText("q")}}, func(d Delta) { got.Deltas = append(got.Deltas, d) })
			if err != nil {
				t.Fatalf("Stream error: %v", err)
			}
			got.Content, got.StopReason, got.Usage = resp.Content, resp.StopReason, resp.Usage
			golden := strings.TrimSuffix(file, ".sse") + ".golden.json"
			if *update {
				writeGoldenJSON(t, golden, got)
			}
			var want streamResult
			readGoldenJSON(t, golden, &want)
			gotJSON, _ := json.Marshal(got)
			wantJSON, _ := json.Marshal(want)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("stream result differs from %s:\n got %s\nwant %s", golden, gotJSON, wantJSON)
			}
		})
	}
}

// TestAnthropicStreamFixtures parses recorded streams: text with pings
// and unknown events, parallel tool calls from input_json_delta pieces,
// thinking with signatures, redacted thinking and an unknown block type.
func TestAnthropicStreamFixtures(t *testing.T) {
	t.Parallel()
	runStreamFixtures(t, "anthropic", func(o ProviderOptions) Provider { return newAnthropic(o) })
}

// TestAnthropicStopReasons checks that every stop reason comes through.
func TestAnthropicStopReasons(t *testing.T) {
	t.Parallel()
	for _, stop := range []string{StopEndTurn, StopToolUse, StopMaxTokens, StopSequence, StopPauseTurn, StopRefusal} {
		t.Run(stop, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(anthropicTextStream("x", stop)))
			resp, err := newAnthropic(ProviderOptions{BaseURL: api.srv.URL}).Stream(context.Background(), ModelRequest{Model: "m"}, nil)
			if err != nil || resp.StopReason != stop {
				t.Fatalf("stop reason = %q, %v; want %q", resp.StopReason, err, stop)
			}
		})
	}
}

// TestAnthropicErrorEvent checks error events after HTTP 200: overload is
// retried, a request error is final and shows the API's message.
func TestAnthropicErrorEvent(t *testing.T) {
	t.Parallel()
	start := `{"type":"message_start","message":{"usage":{"input_tokens":5}}}`
	tests := []struct {
		name     string
		errEvent string
		wantErr  string
		wantReqs int
	}{
		{"overloaded is retried", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "", 2},
		{"invalid request is final", `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long"}}`, "prompt is too long (error event in the stream, invalid_request_error)", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(anthropicEvents(start, tt.errEvent)), sseReply(anthropicKit.reply("ok")))
			log := &retryLog{}
			p := newTestProvider(anthropicKit, api, log, nil)
			text, _, err := collectText(context.Background(), p)
			switch {
			case tt.wantErr == "" && (err != nil || text != "ok"):
				t.Errorf("Stream = %q, %v; want %q", text, err, "ok")
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Stream error = %v, want one containing %q", err, tt.wantErr)
			}
			if n := len(api.requests()); n != tt.wantReqs {
				t.Errorf("requests = %d, want %d", n, tt.wantReqs)
			}
		})
	}
}

// TestAnthropicThinkingBudget checks that extended thinking is asked for
// with its budget_tokens, and that max_tokens leaves room for the answer.
func TestAnthropicThinkingBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		thinking, maxOut int
		wantThinking     string // the thinking field as sent; "" means absent
		wantMaxTokens    int
	}{
		{"off", 0, 1000, "", 1000},
		{"budget within max_tokens", 2000, 16000, `{"type":"enabled","budget_tokens":2000}`, 16000},
		{"max_tokens raised past the budget", 8000, 1000, `{"type":"enabled","budget_tokens":8000}`, 8000 + 4096},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			api := newFakeAPI(t, sseReply(anthropicKit.reply("ok")))
			req := ModelRequest{Model: "claude-sonnet-4-5", MaxTokens: tt.maxOut, Thinking: tt.thinking, Messages: []Message{userText("think")}}
			if _, err := newAnthropic(ProviderOptions{BaseURL: api.srv.URL, APIKey: "k"}).Stream(context.Background(), req, nil); err != nil {
				t.Fatalf("Stream error: %v", err)
			}
			var sent struct {
				MaxTokens int             `json:"max_tokens"`
				Thinking  json.RawMessage `json:"thinking"`
			}
			if err := json.Unmarshal(api.requests()[0].Body, &sent); err != nil {
				t.Fatal(err)
			}
			if string(sent.Thinking) != tt.wantThinking || sent.MaxTokens != tt.wantMaxTokens {
				t.Errorf("thinking = %q, max_tokens = %d; want %q, %d", sent.Thinking, sent.MaxTokens, tt.wantThinking, tt.wantMaxTokens)
			}
		})
	}
}
