package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Anthropic Messages API constants.
const (
	anthropicDefaultBase = "https://api.anthropic.com"
	anthropicVersion     = "2023-06-01"
)

// Anthropic is a Provider speaking the Anthropic Messages API with
// streaming. Thinking blocks are replayed exactly as received, and the
// request marks cache breakpoints on the system prompt, the last tool and
// the newest message so that a long conversation is read from the prompt
// cache instead of being paid for again at every step.
type Anthropic struct {
	base      string
	apiKey    string
	authToken string
	headers   http.Header // extra headers, from ANTHROPIC_CUSTOM_HEADERS
	client    streamClient
}

// NewAnthropic returns an Anthropic provider; see ProviderOptions for the
// defaults of the zero values.
func NewAnthropic(opts ProviderOptions) *Anthropic {
	base := strings.TrimRight(opts.BaseURL, "/")
	if base == "" {
		base = anthropicDefaultBase
	}
	return &Anthropic{base: base, apiKey: opts.APIKey, authToken: opts.AuthToken, headers: opts.Headers, client: newStreamClient("anthropic", "ANTHROPIC_BASE_URL", opts)}
}

// Name returns "anthropic".
func (a *Anthropic) Name() string { return "anthropic" }

// Stream sends req and streams the reply; see Provider and streamClient
// for the retry rules.
func (a *Anthropic) Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error) {
	body, err := encodeJSON(anthropicRequestBody(req))
	if err != nil {
		return ModelResponse{}, fmt.Errorf("encoding the anthropic request: %w", err)
	}
	newRequest := func(ctx context.Context) (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, a.base+"/v1/messages", bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("building the anthropic request: %w", err)
		}
		if a.authToken != "" {
			r.Header.Set("Authorization", "Bearer "+a.authToken)
		} else {
			r.Header.Set("x-api-key", a.apiKey)
		}
		for name, values := range a.headers {
			r.Header[name] = values
		}
		r.Header.Set("anthropic-version", anthropicVersion)
		r.Header.Set("content-type", "application/json")
		r.Header.Set("accept", "text/event-stream")
		return r, nil
	}
	return a.client.stream(ctx, newRequest, parseAnthropicStream, onDelta)
}

// encodeJSON marshals v without HTML escaping, so that text the model
// wrote is sent back in the form it came in.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// anthropicRequest is the body of POST /v1/messages.
type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	Stream    bool               `json:"stream"`
	System    []anthropicBlock   `json:"system,omitempty"`
	Tools     []anthropicTool    `json:"tools,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
}

// cacheControl marks the end of a prefix that the API should cache.
type cacheControl struct {
	Type string `json:"type"`
}

// ephemeral is the only cache_control kind the API has.
var ephemeral = &cacheControl{Type: "ephemeral"}

// anthropicTool is a tool as the Messages API declares it.
type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// anthropicMessage is one message of the request.
type anthropicMessage struct {
	Role    Role             `json:"role"`
	Content []anthropicBlock `json:"content"`
}

// anthropicBlock is a content block on the wire. Pointers mark the fields
// that a block type always carries, even when empty.
type anthropicBlock struct {
	Type         string          `json:"type"`
	Text         *string         `json:"text,omitempty"`
	Thinking     *string         `json:"thinking,omitempty"`
	Signature    *string         `json:"signature,omitempty"`
	Data         *string         `json:"data,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      string          `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

// anthropicRequestBody translates a model request. A zero MaxTokens means
// the model's output ceiling from the limits table.
func anthropicRequestBody(req ModelRequest) anthropicRequest {
	body := anthropicRequest{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true, Messages: anthropicMessages(req.Messages)}
	if body.MaxTokens <= 0 {
		body.MaxTokens = limitsFor(req.Model, nil).MaxOutput
	}
	if req.System != "" {
		body.System = []anthropicBlock{{Type: BlockText, Text: &req.System, CacheControl: ephemeral}}
	}
	for _, t := range req.Tools {
		body.Tools = append(body.Tools, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
	}
	if n := len(body.Tools); n > 0 {
		body.Tools[n-1].CacheControl = ephemeral
	}
	return body
}

// anthropicMessages translates the conversation. Blocks the API rejects
// (empty text) are left out, consecutive messages of one role are merged
// (tool results first, as the API requires), and the last block of the
// newest message gets a cache breakpoint.
func anthropicMessages(msgs []Message) []anthropicMessage {
	var out []anthropicMessage
	for _, m := range msgs {
		var blocks []anthropicBlock
		for _, b := range m.Content {
			if wire, ok := toAnthropicBlock(b); ok {
				blocks = append(blocks, wire)
			}
		}
		switch n := len(out); {
		case len(blocks) == 0:
		case n > 0 && out[n-1].Role == m.Role:
			out[n-1].Content = append(out[n-1].Content, blocks...)
		default:
			out = append(out, anthropicMessage{Role: m.Role, Content: blocks})
		}
	}
	for _, m := range out {
		sort.SliceStable(m.Content, func(i, j int) bool {
			return m.Content[i].Type == BlockToolResult && m.Content[j].Type != BlockToolResult
		})
	}
	if n := len(out); n > 0 {
		content := out[n-1].Content
		for i := len(content) - 1; i >= 0; i-- {
			if t := content[i].Type; t != BlockThinking && t != BlockRedactedThinking {
				content[i].CacheControl = ephemeral
				break
			}
		}
	}
	return out
}

// toAnthropicBlock translates one block; it reports false for a block
// that must not be sent. Thinking text, signatures and redacted data are
// copied unchanged: the API checks them.
func toAnthropicBlock(b Block) (anthropicBlock, bool) {
	switch b.Type {
	case BlockText:
		if strings.TrimSpace(b.Text) == "" {
			return anthropicBlock{}, false
		}
		return anthropicBlock{Type: b.Type, Text: &b.Text}, true
	case BlockThinking:
		return anthropicBlock{Type: b.Type, Thinking: &b.Thinking, Signature: &b.Signature}, true
	case BlockRedactedThinking:
		return anthropicBlock{Type: b.Type, Data: &b.Data}, true
	case BlockToolUse:
		return anthropicBlock{Type: b.Type, ID: b.ID, Name: b.Name, Input: objectOrEmpty(b.Input)}, true
	case BlockToolResult:
		return anthropicBlock{Type: b.Type, ToolUseID: b.ToolUseID, Content: b.Content, IsError: b.IsError}, true
	}
	return anthropicBlock{}, false
}

// objectOrEmpty returns raw if it is a JSON object, else {}: the API
// accepts only objects as tool input, and a call whose arguments were
// not valid JSON must not make every later request fail.
func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		return trimmed
	}
	return json.RawMessage("{}")
}

// toolInput turns streamed tool arguments into a block's input: empty
// means {}, and text that is not valid JSON is kept as a JSON string, so
// that the tool reports the bad input to the model and the history stays
// valid JSON. Both providers use it.
func toolInput(raw string) json.RawMessage {
	trimmed := strings.TrimSpace(raw)
	switch {
	case trimmed == "":
		return json.RawMessage("{}")
	case json.Valid([]byte(trimmed)):
		return json.RawMessage(trimmed)
	}
	quoted, _ := json.Marshal(raw)
	return quoted
}

// anthropicEvent is the data of one stream event; which fields are set
// depends on Type.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message *struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock *struct {
		Type      string          `json:"type"`
		Text      string          `json:"text"`
		Thinking  string          `json:"thinking"`
		Signature string          `json:"signature"`
		Data      string          `json:"data"`
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Input     json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage *anthropicUsage `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// anthropicUsage is the usage object of message_start and message_delta.
type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

// merge copies the counts that u reports into usage. message_delta
// counts are running totals, so a reported count replaces the old one.
func (u anthropicUsage) merge(usage *Usage) {
	for _, f := range []struct{ from, to *int }{
		{&u.InputTokens, &usage.InputTokens},
		{&u.OutputTokens, &usage.OutputTokens},
		{&u.CacheCreationInputTokens, &usage.CacheCreationInputTokens},
		{&u.CacheReadInputTokens, &usage.CacheReadInputTokens},
	} {
		if *f.from > 0 {
			*f.to = *f.from
		}
	}
}

// anthropicAssembler builds a reply from stream events.
type anthropicAssembler struct {
	resp   ModelResponse
	at     map[int]int              // stream index → position in resp.Content
	inputs map[int]*strings.Builder // stream index → tool input so far
	emit   func(Delta)
}

// parseAnthropicStream reads a Messages API stream up to message_stop.
func parseAnthropicStream(events *SSEReader, emit func(Delta)) (ModelResponse, error) {
	s := &anthropicAssembler{at: map[int]int{}, inputs: map[int]*strings.Builder{}, emit: emit}
	for {
		ev, err := events.Next()
		if err != nil {
			return ModelResponse{}, readError(err)
		}
		var data anthropicEvent
		if err := json.Unmarshal([]byte(ev.Data), &data); err != nil {
			return ModelResponse{}, fmt.Errorf("decoding anthropic %s event: %w", ev.Event, err)
		}
		done, err := s.apply(data)
		if err != nil || done {
			return s.resp, err
		}
	}
}

// apply takes one event into the reply. It reports true at message_stop.
func (s *anthropicAssembler) apply(ev anthropicEvent) (bool, error) {
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			ev.Message.Usage.merge(&s.resp.Usage)
		}
	case "content_block_start":
		s.start(ev)
	case "content_block_delta":
		s.delta(ev)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != "" {
			s.resp.StopReason = ev.Delta.StopReason
		}
		if ev.Usage != nil {
			ev.Usage.merge(&s.resp.Usage)
		}
	case "message_stop":
		s.finish()
		return true, nil
	case "error":
		return false, anthropicStreamError(ev)
	}
	return false, nil
}

// start opens a content block. Block types this client does not know are
// skipped, with their deltas.
func (s *anthropicAssembler) start(ev anthropicEvent) {
	cb := ev.ContentBlock
	if cb == nil {
		return
	}
	b := Block{Type: cb.Type}
	switch cb.Type {
	case BlockText:
	case BlockThinking:
		b.Signature = cb.Signature
	case BlockRedactedThinking:
		b.Data = cb.Data
	case BlockToolUse:
		b.ID, b.Name = cb.ID, cb.Name
		s.inputs[ev.Index] = &strings.Builder{}
		if in := bytes.TrimSpace(cb.Input); len(in) > 0 && !bytes.Equal(in, []byte("{}")) {
			s.inputs[ev.Index].Write(in)
		}
	default:
		return
	}
	s.at[ev.Index] = len(s.resp.Content)
	s.resp.Content = append(s.resp.Content, b)
	s.appendText(ev.Index, cb.Text, cb.Thinking)
}

// delta adds a piece of a content block.
func (s *anthropicAssembler) delta(ev anthropicEvent) {
	d := ev.Delta
	i, ok := s.at[ev.Index]
	if d == nil || !ok {
		return
	}
	switch d.Type {
	case "text_delta":
		s.appendText(ev.Index, d.Text, "")
	case "thinking_delta":
		s.appendText(ev.Index, "", d.Thinking)
	case "signature_delta":
		s.resp.Content[i].Signature += d.Signature
	case "input_json_delta":
		if in := s.inputs[ev.Index]; in != nil {
			in.WriteString(d.PartialJSON)
		}
	}
}

// appendText adds streamed text or thinking to a block and shows it.
func (s *anthropicAssembler) appendText(index int, text, thinking string) {
	b := &s.resp.Content[s.at[index]]
	if text != "" && b.Type == BlockText {
		b.Text += text
		s.emit(Delta{Kind: DeltaText, Text: text})
	}
	if thinking != "" && b.Type == BlockThinking {
		b.Thinking += thinking
		s.emit(Delta{Kind: DeltaThinking, Text: thinking})
	}
}

// finish sets the input of every tool call from its streamed JSON.
func (s *anthropicAssembler) finish() {
	for index, in := range s.inputs {
		s.resp.Content[s.at[index]].Input = toolInput(in.String())
	}
}

// anthropicStreamError is the error of an error event. Overload and
// internal errors are temporary and worth a retry.
func anthropicStreamError(ev anthropicEvent) error {
	e := &APIError{Provider: "anthropic", Message: "unknown error"}
	if ev.Error != nil {
		e.Type, e.Message = ev.Error.Type, ev.Error.Message
	}
	switch e.Type {
	case "overloaded_error", "api_error", "rate_limit_error":
		e.Retryable = true
	}
	return e
}
