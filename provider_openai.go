package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
)

// openAIDefaultBase is the OpenAI API; the base URL reaches any compatible server.
const openAIDefaultBase = "https://api.openai.com/v1"

// openAI is a Provider speaking streaming OpenAI-compatible Chat Completions;
// thinking is not sent, and streamed reasoning comes back as a thinking block.
type openAI struct {
	streamClient
	maxCompletionTokens bool        // send max_completion_tokens instead of max_tokens
	cacheKey            string      // the Responses API's prompt_cache_key, one a provider
	noSummary           atomic.Bool // the Responses API gives this organization no reasoning summaries
}

// newOpenAI returns an OpenAI-compatible provider; api.openai.com gets max_completion_tokens.
func newOpenAI(opts ProviderOptions) *openAI {
	base := cmp.Or(strings.TrimRight(opts.BaseURL, "/"), openAIDefaultBase)
	u, err := url.Parse(base)
	h := http.Header{}
	if opts.APIKey != "" {
		h.Set("Authorization", "Bearer "+opts.APIKey)
	}
	o := &openAI{streamClient: newStreamClient("openai", "OPENAI_BASE_URL", base+"/chat/completions", h, opts),
		maxCompletionTokens: err == nil && u.Hostname() == "api.openai.com"}
	o.build, o.parse, o.media = o.encodeRequest, parseOpenAIStream, mediaLimitsFor("openai", "chat")
	return o
}

// encodeRequest encodes a model request; a zero MaxTokens is left to the server.
func (o *openAI) encodeRequest(req ModelRequest) (*wireBody, error) {
	out := newWireBody(req.Messages, req.Model)
	out.WriteString(`,"messages":[`)
	if req.System != "" {
		out.WriteString(`{"role":"system","content":`)
		out.writeJSONString(req.System)
		out.WriteByte('}')
	}
	if err := writeEncodings(out, req.Messages, openAIMessagesOf, req.System != ""); err != nil {
		return nil, err
	}
	out.WriteByte(']')
	if err := o.tools.write(out, req.Tools, encodeOpenAITools); err != nil {
		return nil, err
	}
	if req.MaxTokens != 0 {
		fmt.Fprintf(out, `,%q:%d`, map[bool]string{false: "max_tokens", true: "max_completion_tokens"}[o.maxCompletionTokens], req.MaxTokens)
	}
	out.WriteString(`,"stream":true,"stream_options":{"include_usage":true}}`)
	return out, nil
}

// openAIMessage is one chat message; Content is null when it only calls tools.
type openAIMessage struct {
	Role       string           `json:"role"`
	Content    any              `json:"content"` // *string, or []openAIPart for a user message with images
	ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

// openAIToolCall is a tool call, or a fragment of one in a stream, whose
// Arguments are a JSON string (or a piece of one), or from some servers an object.
type openAIToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// openAIFunction declares a tool as a function, as both OpenAI APIs do.
type openAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// encodeOpenAITools declares the tools as functions, nested under "function" as Chat Completions has them.
func encodeOpenAITools(specs []ToolSpec) ([]byte, error) {
	type tool struct {
		Type     string         `json:"type"`
		Function openAIFunction `json:"function"`
	}
	tools := make([]tool, len(specs))
	for i, t := range specs {
		tools[i] = tool{"function", openAIFunction{t.Name, t.Description, t.InputSchema}}
	}
	return encodeJSON(tools, 0)
}

// openAIMessagesOf returns the chat messages one message becomes, joined by
// commas and cached: tool results as "tool" messages ("Error: " if failed), then the rest.
func openAIMessagesOf(m Message) ([]byte, error) {
	if m.wire != nil && m.wire.openai != nil {
		return m.wire.openai, nil
	}
	msgs, size, shown := []openAIMessage{}, 0, []Block{}
	for _, b := range m.Content {
		size += len(b.Text) + len(b.Content) + len(b.Input)
		if b.Type == BlockToolResult {
			content := b.Content
			if b.IsError {
				content = "Error: " + content
			}
			if len(b.Media) > 0 { // a tool message holds text only
				content += "\n(What this shows follows in the next user message: the Chat Completions API takes images in user messages only.)"
				shown = append(shown, b.Media...)
			}
			msgs = append(msgs, openAIMessage{Role: "tool", Content: &content, ToolCallID: b.ToolUseID})
		}
	}
	if len(shown) > 0 {
		m = Message{Role: RoleUser, Content: append(append([]Block{{Type: BlockText, Text: "The tool results above show:"}}, shown...), m.Content...)}
	}
	msg := openAIMessage{Role: string(m.Role)} // an assistant message goes without its thinking
	if text := m.Text(); text != "" {
		msg.Content = &text
	}
	if m.Role == RoleAssistant {
		for _, use := range m.ToolUses() {
			call := openAIToolCall{ID: use.ID, Type: "function"}
			call.Function.Name = use.Name
			call.Function.Arguments, _ = json.Marshal(openAIArguments(use.Input))
			msg.ToolCalls = append(msg.ToolCalls, call)
		}
	} else if parts := openAIParts(m); parts != nil {
		msg.Content = parts
	}
	if msg.Content != nil || len(msg.ToolCalls) > 0 {
		msgs = append(msgs, msg)
	}
	data, err := encodeJSON(msgs, size)
	if err != nil {
		return nil, fmt.Errorf("encoding a %s message: %w", m.Role, err)
	}
	data = data[1 : len(data)-1] // the messages without the brackets of their list
	if m.wire != nil {
		m.wire.openai = data
	}
	return data, nil
}

// openAIArguments turns a tool input back into the arguments the model wrote, undoing toolInput.
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

// openAIPart is one part of a user message's content: text or an image.
type openAIPart struct {
	Type     string            `json:"type"` // "text" or "image_url"
	Text     string            `json:"text,omitempty"`
	ImageURL map[string]string `json:"image_url,omitempty"`
}

// openAIParts returns a user message's text and images as content parts, or nil without images.
func openAIParts(m Message) []openAIPart {
	if !slices.ContainsFunc(m.Content, func(b Block) bool { return (b.Type == BlockImage || b.Type == BlockDocument) && b.Source != nil }) {
		return nil
	}
	var parts []openAIPart
	for _, b := range m.Content {
		switch {
		case b.Type == BlockText && b.Text != "":
			parts = append(parts, openAIPart{Type: "text", Text: b.Text})
		case b.Type == BlockImage && b.Source != nil:
			parts = append(parts, openAIPart{Type: "image_url", ImageURL: map[string]string{"url": dataURL(b.Source)}})
		case b.Type == BlockDocument: // read under another provider
			parts = append(parts, openAIPart{Type: "text", Text: "[a PDF document was here; Chat Completions APIs do not take PDFs]"})
		}
	}
	return parts
}

// dataURL is an image's URL, or its data as a data: URL.
func dataURL(src *ImageSource) string {
	return cmp.Or(src.URL, "data:"+src.MediaType+";base64,"+src.Data)
}

// openAIChunk is the data of one stream event.
type openAIChunk struct {
	Choices []struct {
		Delta struct {
			Content          string           `json:"content"`
			ReasoningContent any              `json:"reasoning_content"` // a string, or ignored
			Reasoning        any              `json:"reasoning"`
			ToolCalls        []openAIToolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens         int `json:"prompt_tokens"`
		CompletionTokens     int `json:"completion_tokens"`
		PromptCacheHitTokens int `json:"prompt_cache_hit_tokens"`
		PromptTokensDetails  struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// The keys of the thinking and the text block, apart from any tool call's index.
const (
	openAIThinkingKey = math.MinInt + iota
	openAITextKey
)

// openAIStream reads a Chat Completions stream into the reply it builds:
// one thinking block, one text block and tool calls keyed by their index.
type openAIStream struct{ replyBuilder } // resp.StopReason holds the finish_reason until the end

// parseOpenAIStream reads a Chat Completions stream up to [DONE], or its end after a finish_reason.
func parseOpenAIStream(events *SSEReader, emit func(Delta)) (ModelResponse, error) {
	s := &openAIStream{newReplyBuilder(emit)}
	for {
		ev, err := events.Next()
		if err != nil {
			if err := readError(err); err != errTruncated || s.resp.StopReason == "" {
				return ModelResponse{}, err
			}
			return s.response(), nil
		}
		if strings.TrimSpace(ev.Data) == "[DONE]" {
			return s.response(), nil
		}
		var chunk openAIChunk
		if err := json.Unmarshal([]byte(ev.Data), &chunk); err != nil {
			return ModelResponse{}, &streamError{error: fmt.Errorf("the stream sent an openai chunk that is not valid JSON: %w", err)}
		}
		if len(chunk.Error) > 0 && string(chunk.Error) != "null" {
			return ModelResponse{}, streamErrorEvent("openai", ev.Data)
		}
		s.apply(chunk)
	}
}

// apply takes one chunk into the reply; only the first choice counts.
func (s *openAIStream) apply(chunk openAIChunk) {
	if u := chunk.Usage; u != nil {
		cached := cmp.Or(u.PromptTokensDetails.CachedTokens, u.PromptCacheHitTokens)
		s.resp.Usage = Usage{InputTokens: u.PromptTokens - cached, OutputTokens: u.CompletionTokens, CacheReadInputTokens: cached}
	}
	if len(chunk.Choices) == 0 {
		return
	}
	c := chunk.Choices[0]
	reasoning, _ := c.Delta.ReasoningContent.(string) // some servers send both fields
	if reasoning == "" {
		reasoning, _ = c.Delta.Reasoning.(string)
	}
	s.addOpening(openAIThinkingKey, BlockThinking, reasoning)
	s.addOpening(openAITextKey, BlockText, c.Delta.Content)
	for i, d := range c.Delta.ToolCalls {
		s.addToolCall(i, d)
	}
	s.resp.StopReason = cmp.Or(c.FinishReason, s.resp.StopReason)
}

// addToolCall adds a fragment to the call at its index (else its position), or a new id's new call.
func (s *openAIStream) addToolCall(position int, d openAIToolCall) {
	index := position
	if d.Index != nil {
		index = *d.Index
	}
	i, ok := s.at[index]
	if !ok || (d.ID != "" && s.resp.Content[i].ID != "" && d.ID != s.resp.Content[i].ID) {
		i = s.open(index, Block{Type: BlockToolUse})
	}
	call := &s.resp.Content[i]
	call.ID = cmp.Or(call.ID, d.ID)
	if name := d.Function.Name; name != "" && name != call.Name {
		call.Name += name
	}
	args := bytes.TrimSpace(d.Function.Arguments)
	var piece string
	switch {
	case len(args) == 0 || string(args) == "null":
	case json.Unmarshal(args, &piece) == nil:
		s.add(index, BlockToolUse, piece)
	default: // a whole JSON value replaces whatever came before
		s.parts[i].Reset()
		s.parts[i].Write(args)
	}
}

// response assembles the reply: thinking, then text, then tool calls, each with an id.
func (s *openAIStream) response() ModelResponse {
	resp := s.finish()
	order := map[string]int{BlockThinking: 0, BlockText: 1, BlockToolUse: 2}
	slices.SortStableFunc(resp.Content, func(a, b Block) int { return order[a.Type] - order[b.Type] })
	calls := 0
	for i := range resp.Content {
		if b := &resp.Content[i]; b.Type == BlockToolUse {
			b.ID = cmp.Or(b.ID, fmt.Sprintf("call_%d", calls))
			calls++
		}
	}
	unnamed := map[bool]string{false: StopEndTurn, true: StopToolUse}[calls > 0]
	resp.StopReason = cmp.Or(map[string]string{"length": StopMaxTokens, "content_filter": StopRefusal, "tool_calls": StopToolUse, "function_call": StopToolUse}[resp.StopReason], unnamed)
	return resp
}
