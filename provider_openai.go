package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// openAIDefaultBase is the OpenAI API; any compatible server (DeepSeek,
// Ollama, vLLM, OpenRouter) is reached by setting the base URL.
const openAIDefaultBase = "https://api.openai.com/v1"

// OpenAI is a Provider speaking OpenAI-compatible Chat Completions with
// streaming. It translates the Anthropic-shaped conversation: tool calls
// become tool_calls, tool results become "tool" messages (prefixed with
// "Error: " when they failed, as the format has no error flag), and
// thinking blocks stay in the history but are not sent. Reasoning
// streamed by the server (reasoning_content or reasoning) comes back as a
// thinking block without a signature.
//
// The output limit is sent as max_completion_tokens to api.openai.com,
// whose reasoning models reject max_tokens, and as max_tokens to every
// other server, since that is the name compatible servers know.
type OpenAI struct {
	base                string
	apiKey              string
	maxCompletionTokens bool // send max_completion_tokens instead of max_tokens
	client              streamClient
	tools               toolsCache
}

// NewOpenAI returns an OpenAI-compatible provider; see ProviderOptions for
// the defaults of the zero values. Without an API key no Authorization
// header is sent (local servers need none).
func NewOpenAI(opts ProviderOptions) *OpenAI {
	base := strings.TrimRight(opts.BaseURL, "/")
	if base == "" {
		base = openAIDefaultBase
	}
	u, err := url.Parse(base)
	official := err == nil && u.Hostname() == "api.openai.com"
	return &OpenAI{base: base, apiKey: opts.APIKey, maxCompletionTokens: official, client: newStreamClient("openai", "OPENAI_BASE_URL", opts)}
}

// Name returns "openai".
func (o *OpenAI) Name() string { return "openai" }

// Stream sends req and streams the reply; see Provider and streamClient
// for the retry rules.
func (o *OpenAI) Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error) {
	body, err := o.encodeRequest(req)
	if err != nil {
		return ModelResponse{}, fmt.Errorf("encoding the openai request: %w", err)
	}
	newRequest := func(ctx context.Context) (*http.Request, error) {
		r, err := body.post(ctx, o.base+"/chat/completions")
		if err != nil {
			return nil, fmt.Errorf("building the openai request: %w", err)
		}
		if o.apiKey != "" {
			r.Header.Set("Authorization", "Bearer "+o.apiKey)
		}
		r.Header.Set("content-type", "application/json")
		r.Header.Set("accept", "text/event-stream")
		return r, nil
	}
	return o.client.stream(ctx, newRequest, parseOpenAIStream, onDelta)
}

// openAIRequest is the body of POST /chat/completions. Messages and
// Tools are encoded apart (see encodeRequest) and spliced in.
type openAIRequest struct {
	Model               string          `json:"model"`
	Messages            json.RawMessage `json:"messages"`
	Tools               json.RawMessage `json:"tools,omitempty"`
	MaxTokens           int             `json:"max_tokens,omitempty"`
	MaxCompletionTokens int             `json:"max_completion_tokens,omitempty"`
	Stream              bool            `json:"stream"`
	StreamOptions       struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// openAIMessage is one chat message. Content is null for an assistant
// message that only calls tools.
type openAIMessage struct {
	Role       string           `json:"role"`
	Content    *string          `json:"content"`
	ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// openAIToolCall is a tool call of an assistant message.
type openAIToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// openAITool declares a tool as a function.
type openAITool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// requestBody translates a model request, all but its messages and
// tools. A zero MaxTokens is left out, so the server's default applies.
func (o *OpenAI) requestBody(req ModelRequest) openAIRequest {
	body := openAIRequest{Model: req.Model, Messages: json.RawMessage("0"), Stream: true}
	body.StreamOptions.IncludeUsage = true
	if o.maxCompletionTokens {
		body.MaxCompletionTokens = req.MaxTokens
	} else {
		body.MaxTokens = req.MaxTokens
	}
	if len(req.Tools) > 0 {
		body.Tools = json.RawMessage("0")
	}
	return body
}

// encodeRequest encodes a model request. Each message's encoding is made
// once and reused by every later request, and the tools are encoded once
// per change.
func (o *OpenAI) encodeRequest(req ModelRequest) (*wireBody, error) {
	head, err := encodeJSON(o.requestBody(req))
	if err != nil {
		return nil, err
	}
	fields := []splicedField{{"messages", func(out *wireBody) error { return openAIMessages(out, req.System, req.Messages) }}}
	if len(req.Tools) > 0 {
		tools, err := o.tools.get(req.Tools, encodeOpenAITools)
		if err != nil {
			return nil, err
		}
		fields = append(fields, splicedField{"tools", func(out *wireBody) error { out.Ref(tools); return nil }})
	}
	out := newWireBody(len(head), len(req.Messages))
	if err := spliceJSON(out, head, fields...); err != nil {
		return nil, err
	}
	return out, nil
}

// encodeOpenAITools declares the tools as functions.
func encodeOpenAITools(specs []ToolSpec) ([]byte, error) {
	tools := make([]openAITool, len(specs))
	for i, t := range specs {
		tools[i].Type = "function"
		tools[i].Function.Name, tools[i].Function.Description, tools[i].Function.Parameters = t.Name, t.Description, t.InputSchema
	}
	return encodeJSON(tools)
}

// openAIMessages writes the conversation as a JSON array: the system
// prompt first, then each message's cached encoding.
func openAIMessages(out *wireBody, system string, msgs []Message) error {
	out.WriteByte('[')
	sep := false
	if system != "" {
		data, err := encodeJSON(openAIMessage{Role: "system", Content: &system})
		if err != nil {
			return err
		}
		out.Write(bytes.TrimSuffix(data, []byte("\n")))
		sep = true
	}
	for _, m := range msgs {
		data, err := openAIMessagesOf(m)
		if err != nil {
			return err
		}
		if len(data) > 0 && sep {
			out.WriteByte(',')
		}
		out.Ref(data)
		sep = sep || len(data) > 0
	}
	out.WriteByte(']')
	return nil
}

// openAIMessagesOf returns the chat messages one message becomes, encoded
// and joined by commas, from its cache when it has been sent before. A
// user message's tool results come first, as "tool" messages, since they
// must follow the assistant message that called the tools; its text
// follows as a user message. An assistant message loses its thinking.
func openAIMessagesOf(m Message) ([]byte, error) {
	if m.wire != nil && m.wire.encoded.openai {
		return m.wire.openai, nil
	}
	var msgs []openAIMessage
	if m.Role == RoleAssistant {
		if msg, ok := openAIAssistant(m); ok {
			msgs = append(msgs, msg)
		}
	} else {
		for _, b := range m.Content {
			if b.Type == BlockToolResult {
				content := b.Content
				if b.IsError {
					content = "Error: " + content
				}
				msgs = append(msgs, openAIMessage{Role: "tool", Content: &content, ToolCallID: b.ToolUseID})
			}
		}
		if text := m.Text(); text != "" {
			msgs = append(msgs, openAIMessage{Role: "user", Content: &text})
		}
	}
	var data []byte
	for i, msg := range msgs {
		enc, err := encodeJSON(msg)
		if err != nil {
			return nil, fmt.Errorf("encoding a %s message: %w", msg.Role, err)
		}
		if i > 0 {
			data = append(data, ',')
		}
		data = append(data, bytes.TrimSuffix(enc, []byte("\n"))...)
	}
	if m.wire != nil {
		m.wire.openai, m.wire.encoded.openai = data, true
	}
	return data, nil
}

// openAIAssistant translates an assistant message, dropping its thinking.
// It reports false when nothing is left to send.
func openAIAssistant(m Message) (openAIMessage, bool) {
	msg := openAIMessage{Role: "assistant"}
	if text := m.Text(); text != "" {
		msg.Content = &text
	}
	for _, use := range m.ToolUses() {
		call := openAIToolCall{ID: use.ID, Type: "function"}
		call.Function.Name, call.Function.Arguments = use.Name, openAIArguments(use.Input)
		msg.ToolCalls = append(msg.ToolCalls, call)
	}
	return msg, msg.Content != nil || len(msg.ToolCalls) > 0
}

// openAIArguments turns a tool input back into the arguments string the
// model wrote: {} when empty, and the original text when the input was
// kept as a JSON string because it was not valid JSON.
func openAIArguments(input json.RawMessage) string {
	trimmed := bytes.TrimSpace(input)
	var text string
	switch {
	case len(trimmed) == 0:
		return "{}"
	case trimmed[0] == '"' && json.Unmarshal(trimmed, &text) == nil:
		return text
	}
	return string(trimmed)
}

// openAIChunk is the data of one stream event. The usage chunk at the end
// has no choices; some servers report errors as a chunk with an error.
type openAIChunk struct {
	Choices []struct {
		Delta struct {
			Content          string                `json:"content"`
			ReasoningContent json.RawMessage       `json:"reasoning_content"`
			Reasoning        json.RawMessage       `json:"reasoning"`
			ToolCalls        []openAIToolCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens         int `json:"prompt_tokens"`
		CompletionTokens     int `json:"completion_tokens"`
		PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"`
		PromptTokensDetails  *struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// openAIToolCallDelta is a fragment of a streamed tool call. Arguments is
// normally a piece of a JSON string, but some servers send the whole
// arguments as a JSON object.
type openAIToolCallDelta struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// openAICall is a tool call being assembled.
type openAICall struct {
	id, name string
	args     strings.Builder
}

// openAIAssembler builds a reply from stream chunks.
type openAIAssembler struct {
	thinking, text strings.Builder
	calls          []*openAICall
	byIndex        map[int]*openAICall
	finish         string
	usage          Usage
	emit           func(Delta)
}

// parseOpenAIStream reads a Chat Completions stream up to [DONE]. A stream
// that ends without [DONE] is complete if a finish_reason came, and
// truncated otherwise.
func parseOpenAIStream(events *SSEReader, emit func(Delta)) (ModelResponse, error) {
	s := &openAIAssembler{byIndex: map[int]*openAICall{}, emit: emit}
	for {
		ev, err := events.Next()
		if err != nil {
			if err := readError(err); err != errTruncated || s.finish == "" {
				return ModelResponse{}, err
			}
			return s.response(), nil
		}
		if strings.TrimSpace(ev.Data) == "[DONE]" {
			return s.response(), nil
		}
		var chunk openAIChunk
		if err := json.Unmarshal([]byte(ev.Data), &chunk); err != nil {
			return ModelResponse{}, fmt.Errorf("decoding an openai stream chunk: %w", err)
		}
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
			return ModelResponse{}, openAIStreamError([]byte(ev.Data))
		}
		s.apply(chunk)
	}
}

// apply takes one chunk into the reply; only the first choice counts.
func (s *openAIAssembler) apply(chunk openAIChunk) {
	if u := chunk.Usage; u != nil {
		cached := u.PromptCacheHitTokens
		if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens > 0 {
			cached = u.PromptTokensDetails.CachedTokens
		}
		s.usage = Usage{InputTokens: u.PromptTokens - cached, OutputTokens: u.CompletionTokens, CacheReadInputTokens: cached}
	}
	if len(chunk.Choices) == 0 {
		return
	}
	c := chunk.Choices[0]
	if piece := reasoningPiece(c.Delta.ReasoningContent, c.Delta.Reasoning); piece != "" {
		s.thinking.WriteString(piece)
		s.emit(Delta{Kind: DeltaThinking, Text: piece})
	}
	if c.Delta.Content != "" {
		s.text.WriteString(c.Delta.Content)
		s.emit(Delta{Kind: DeltaText, Text: c.Delta.Content})
	}
	for i, d := range c.Delta.ToolCalls {
		s.toolCall(i, d)
	}
	if c.FinishReason != "" {
		s.finish = c.FinishReason
	}
}

// reasoningPiece is the reasoning text of a delta: reasoning_content, or
// else reasoning. Some servers write the same text under both names, so
// the two are never added together. A field that is not a string (some
// servers send an object) is ignored.
func reasoningPiece(reasoningContent, reasoning json.RawMessage) string {
	var piece string
	for _, raw := range []json.RawMessage{reasoningContent, reasoning} {
		if json.Unmarshal(raw, &piece) == nil && piece != "" {
			return piece
		}
	}
	return ""
}

// toolCall adds a fragment to the call at its index. A new id at an index
// already in use starts a new call (some servers put every call at index
// 0); a fragment without an index belongs to its position in the chunk.
func (s *openAIAssembler) toolCall(position int, d openAIToolCallDelta) {
	index := position
	if d.Index != nil {
		index = *d.Index
	}
	call := s.byIndex[index]
	if call == nil || (d.ID != "" && call.id != "" && d.ID != call.id) {
		call = &openAICall{}
		s.byIndex[index] = call
		s.calls = append(s.calls, call)
	}
	if call.id == "" {
		call.id = d.ID
	}
	if name := d.Function.Name; name != "" && name != call.name {
		call.name += name
	}
	args := bytes.TrimSpace(d.Function.Arguments)
	var piece string
	switch {
	case len(args) == 0 || string(args) == "null":
	case json.Unmarshal(args, &piece) == nil:
		call.args.WriteString(piece)
	default: // a whole JSON value replaces whatever came before
		call.args.Reset()
		call.args.Write(args)
	}
}

// response assembles the reply: thinking, then text, then tool calls.
func (s *openAIAssembler) response() ModelResponse {
	resp := ModelResponse{StopReason: openAIStopReason(s.finish, len(s.calls) > 0), Usage: s.usage}
	if s.thinking.Len() > 0 {
		resp.Content = append(resp.Content, Block{Type: BlockThinking, Thinking: s.thinking.String()})
	}
	if s.text.Len() > 0 {
		resp.Content = append(resp.Content, Block{Type: BlockText, Text: s.text.String()})
	}
	for i, call := range s.calls {
		id := call.id
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		resp.Content = append(resp.Content, Block{Type: BlockToolUse, ID: id, Name: call.name, Input: toolInput(call.args.String())})
	}
	return resp
}

// openAIStopReason maps a finish_reason to our stop reasons. A reply with
// tool calls stops for tool use even when a server calls it "stop".
func openAIStopReason(finish string, hasCalls bool) string {
	switch finish {
	case "length":
		return StopMaxTokens
	case "content_filter":
		return StopRefusal
	case "tool_calls", "function_call":
		return StopToolUse
	}
	if hasCalls {
		return StopToolUse
	}
	return StopEndTurn
}

// openAIStreamError is the error of an error chunk. Server-side failures
// are worth a retry; anything else is final.
func openAIStreamError(data []byte) error {
	e := parseErrorBody(data)
	e.Provider = "openai"
	if e.Message == "" {
		e.Message = "unknown error"
	}
	kind := strings.ToLower(e.Type)
	for _, word := range []string{"server_error", "overloaded", "internal", "500", "502", "503", "504", "529"} {
		if strings.Contains(kind, word) {
			e.Retryable = true
		}
	}
	return e
}
