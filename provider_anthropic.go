package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Anthropic Messages API constants.
const (
	anthropicDefaultBase = "https://api.anthropic.com"
	anthropicVersion     = "2023-06-01"
)

// Anthropic is a Provider for the streaming Messages API; it caches the system prompt, the last tool and the newest message.
type Anthropic struct{ streamClient }

// newAnthropic returns an Anthropic provider.
func newAnthropic(opts ProviderOptions) *Anthropic {
	h := http.Header{}
	if opts.AuthToken != "" {
		h.Set("Authorization", "Bearer "+opts.AuthToken)
	} else {
		h.Set("x-api-key", opts.APIKey)
	}
	maps.Copy(h, opts.Headers)
	h.Set("anthropic-version", anthropicVersion)
	base := cmp.Or(strings.TrimRight(opts.BaseURL, "/"), anthropicDefaultBase)
	a := &Anthropic{streamClient: newStreamClient("anthropic", "ANTHROPIC_BASE_URL", base+"/v1/messages", h, opts)}
	a.build, a.parse, a.media = a.encode, parseAnthropicStream, mediaLimitsFor("anthropic", "anthropic")
	return a
}

// cacheBreakpoint ends a JSON object that marks the end of a prefix the API should cache.
const cacheBreakpoint = `,"cache_control":{"type":"ephemeral"}}`

// anthropicThinking is a thinking block on the wire, its fields sent even when empty.
type anthropicThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

// encode encodes a model request; a zero MaxTokens means the model's output ceiling.
func (a *Anthropic) encode(req ModelRequest) (*wireBody, error) {
	maxTokens := cmp.Or(max(req.MaxTokens, 0), limitsFor(req.Model, nil).MaxOutput)
	if req.Thinking > 0 {
		maxTokens = max(maxTokens, req.Thinking+4096) // the answer comes after the thinking
	}
	model, long := strings.CutSuffix(req.Model, oneMillionSuffix)
	out := newWireBody(req.Messages, model)
	if long {
		out.header = http.Header{"Anthropic-Beta": {oneMillionBeta}}
	}
	fmt.Fprintf(out, `,"max_tokens":%d,"stream":true`, maxTokens)
	if req.System != "" {
		out.WriteString(`,"system":[{"type":"text","text":`)
		out.writeJSONString(req.System)
		out.WriteString(cacheBreakpoint + "]")
	}
	if err := a.tools.write(out, req.Tools, encodeAnthropicTools); err != nil {
		return nil, err
	}
	out.WriteString(`,"messages":`)
	if err := anthropicMessages(out, req.Messages); err != nil {
		return nil, err
	}
	if req.Thinking > 0 {
		fmt.Fprintf(out, `,"thinking":{"type":"enabled","budget_tokens":%d}`, req.Thinking)
	}
	out.WriteByte('}')
	return out, nil
}

// encodeAnthropicTools encodes the tools, with a cache breakpoint on the last.
func encodeAnthropicTools(specs []ToolSpec) ([]byte, error) {
	data, err := encodeJSON(specs, 0)
	if err != nil {
		return nil, err
	}
	return append(data[:len(data)-2], cacheBreakpoint+"]"...), nil
}

// anthropicMessages writes the conversation as a JSON array, merging consecutive messages of one role.
func anthropicMessages(out *wireBody, msgs []Message) error {
	out.WriteByte('[')
	group := make([]anthropicWireBlock, 0, 8)
	var role Role
	for _, m := range msgs {
		blocks, err := anthropicBlocksOf(m)
		if err != nil {
			return err
		}
		if len(blocks) > 0 && len(group) > 0 && m.Role != role {
			writeAnthropicMessage(out, role, group, false)
			out.WriteByte(',') // another message follows
			group = group[:0]
		}
		if len(blocks) > 0 {
			role, group = m.Role, append(group, blocks...)
		}
	}
	if len(group) > 0 {
		writeAnthropicMessage(out, role, group, true)
	}
	out.WriteByte(']')
	return nil
}

// writeAnthropicMessage writes one message, tool results first and, in the
// newest, a cache breakpoint on the last block that is not thinking.
func writeAnthropicMessage(out *wireBody, role Role, group []anthropicWireBlock, newest bool) {
	out.WriteString(`{"role":"` + string(role) + `","content":[`)
	slices.SortStableFunc(group, func(a, b anthropicWireBlock) int { return a.rank - b.rank })
	mark := -1
	for i, b := range group {
		if newest && !b.thinking {
			mark = i
		}
	}
	for i, b := range group {
		if i > 0 {
			out.WriteByte(',')
		}
		if i != mark {
			out.ref(b.json)
			continue
		}
		out.ref(b.json[:len(b.json)-1])
		out.WriteString(cacheBreakpoint)
	}
	out.WriteString("]}")
}

// anthropicBlocksOf returns a message's encoded blocks, cached in the message; empty text is not sent.
func anthropicBlocksOf(m Message) ([]anthropicWireBlock, error) {
	if m.wire != nil && m.wire.anthropic != nil {
		return m.wire.anthropic, nil
	}
	blocks := []anthropicWireBlock{}
	for _, b := range m.Content {
		var wire any
		switch b.Type {
		case BlockText:
			if strings.TrimSpace(b.Text) != "" {
				wire = Block{Type: b.Type, Text: b.Text}
			}
		case BlockThinking:
			if b.ID == "" { // with an ID it is another API's reasoning, which the Messages API cannot check
				wire = anthropicThinking{b.Type, b.Thinking, b.Signature}
			}
		case BlockRedactedThinking:
			wire = Block{Type: b.Type, Data: b.Data}
		case BlockToolUse:
			wire = Block{Type: b.Type, ID: b.ID, Name: b.Name, Input: objectOrEmpty(b.Input)}
		case BlockToolResult:
			wire = anthropicToolResult(b)
		case BlockImage, BlockDocument:
			if b.Source != nil {
				wire = anthropicMediaOf(b)
			}
		}
		if wire == nil {
			continue
		}
		data, err := encodeJSON(wire, len(b.Text)+len(b.Content)+len(b.Input)+len(b.Thinking)+len(b.Data))
		if err != nil {
			return nil, fmt.Errorf("encoding a %s block: %w", b.Type, err)
		}
		block := anthropicWireBlock{json: data, rank: 1, thinking: b.Type == BlockThinking || b.Type == BlockRedactedThinking}
		if b.Type == BlockToolResult {
			block.rank = 0
		}
		blocks = append(blocks, block)
	}
	if m.wire != nil {
		m.wire.anthropic = blocks
	}
	return blocks, nil
}

// anthropicMediaOf is an image or document block as the API takes it: without the size and file
// minicode keeps beside its data.
func anthropicMediaOf(b Block) Block {
	source := *b.Source
	source.Width, source.Height, source.File = 0, 0, ""
	return Block{Type: b.Type, Source: &source}
}

// anthropicToolResult encodes a tool result: its text, or its text and the images and documents it shows.
func anthropicToolResult(b Block) any {
	type result struct {
		Type      string `json:"type"`
		ToolUseID string `json:"tool_use_id"`
		Content   any    `json:"content,omitempty"`
		IsError   bool   `json:"is_error,omitempty"`
	}
	r := result{Type: b.Type, ToolUseID: b.ToolUseID, IsError: b.IsError}
	if b.Content != "" {
		r.Content = b.Content
	}
	if len(b.Media) > 0 {
		content := []any{Block{Type: BlockText, Text: cmp.Or(b.Content, "(no text)")}}
		for _, m := range b.Media {
			if m.Source != nil {
				content = append(content, anthropicMediaOf(m))
			}
		}
		r.Content = content
	}
	return r
}

// objectOrEmpty returns raw if it is a JSON object, the only tool input the API accepts, else {}.
func objectOrEmpty(raw json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) > 0 && trimmed[0] == '{' && json.Valid(trimmed) {
		return trimmed
	}
	return json.RawMessage("{}")
}

// anthropicEvent is the data of one stream event.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Usage Usage `json:"usage"`
	} `json:"message"`
	ContentBlock *Block `json:"content_block"`
	Delta        *struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage Usage `json:"usage"`
}

// mergeUsage takes the running totals of a message_start or message_delta into usage.
func mergeUsage(u Usage, usage *Usage) {
	*usage = Usage{cmp.Or(u.InputTokens, usage.InputTokens), cmp.Or(u.OutputTokens, usage.OutputTokens),
		cmp.Or(u.CacheCreationInputTokens, usage.CacheCreationInputTokens), cmp.Or(u.CacheReadInputTokens, usage.CacheReadInputTokens)}
}

// anthropicStream reads a Messages API stream into the reply it builds.
type anthropicStream struct{ replyBuilder }

// parseAnthropicStream reads a Messages API stream up to message_stop.
func parseAnthropicStream(events *SSEReader, emit func(Delta)) (ModelResponse, error) {
	s := &anthropicStream{newReplyBuilder(emit)} // blocks keyed by their stream index
	for {
		ev, err := events.Next()
		if err != nil {
			return ModelResponse{}, readError(err)
		}
		if index, text, ok := plainTextDelta(ev.Data); ok { // the usual text delta, read without decoding
			s.add(index, BlockText, text)
			continue
		}
		var data anthropicEvent
		if err := json.Unmarshal([]byte(ev.Data), &data); err != nil {
			return ModelResponse{}, &streamError{error: fmt.Errorf("the stream sent an anthropic %s event that is not valid JSON: %w", ev.Event, err)}
		}
		if data.Type == "error" {
			return ModelResponse{}, streamErrorEvent("anthropic", ev.Data)
		}
		if s.apply(data) {
			return s.resp, nil
		}
	}
}

// apply takes one Messages API event into the reply. It reports true at message_stop.
func (s *anthropicStream) apply(ev anthropicEvent) bool {
	switch ev.Type {
	case "content_block_start":
		s.start(ev)
	case "content_block_delta":
		s.delta(ev)
	case "message_start", "message_delta": // the first has the message's usage, the second its own
		if ev.Delta != nil {
			s.resp.StopReason = cmp.Or(ev.Delta.StopReason, s.resp.StopReason)
		}
		mergeUsage(ev.Message.Usage, &s.resp.Usage)
		mergeUsage(ev.Usage, &s.resp.Usage)
		s.emit(Delta{Kind: deltaUsage, Usage: s.resp.Usage})
	case "message_stop":
		s.finish()
		return true
	}
	return false
}

// start opens a content block; unknown types are skipped with their deltas.
func (s *anthropicStream) start(ev anthropicEvent) {
	cb := ev.ContentBlock
	if cb == nil || !slices.Contains([]string{BlockText, BlockThinking, BlockRedactedThinking, BlockToolUse}, cb.Type) {
		return
	}
	i := s.open(ev.Index, Block{Type: cb.Type, Signature: cb.Signature, Data: cb.Data, ID: cb.ID, Name: cb.Name})
	if in := bytes.TrimSpace(cb.Input); cb.Type == BlockToolUse && len(in) > 0 && !bytes.Equal(in, []byte("{}")) {
		s.parts[i].Write(in)
	}
	s.add(ev.Index, BlockText, cb.Text)
	s.add(ev.Index, BlockThinking, cb.Thinking)
}

// delta adds a piece of a content block: text, thinking, tool input or signature.
func (s *anthropicStream) delta(ev anthropicEvent) {
	d := ev.Delta
	i, ok := s.at[ev.Index]
	switch {
	case d == nil || !ok:
	case d.Type == "signature_delta":
		s.resp.Content[i].Signature += d.Signature
	default: // a delta carries one of these, for a block of its kind
		kind := map[string]string{"text_delta": BlockText, "thinking_delta": BlockThinking, "input_json_delta": BlockToolUse}[d.Type]
		s.add(ev.Index, kind, d.Text+d.Thinking+d.PartialJSON)
	}
}

// plainTextDelta is the fast path beside the general one above: it reads a text_delta of the API's
// usual form, whose text needs no unescaping, without the JSON decoder, which would cost more than
// the rest of a long stream (BenchmarkStreamLongReply); any other form is left to the decoder.
func plainTextDelta(data string) (index int, text string, ok bool) {
	rest, ok := strings.CutPrefix(data, `{"type":"content_block_delta","index":`)
	digits, rest, found := strings.Cut(rest, `,"delta":{"type":"text_delta","text":"`)
	text, closed := strings.CutSuffix(rest, `"}}`)
	if !ok || !found || !closed || strings.ContainsAny(text, `"\`) || !utf8.ValidString(text) ||
		strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 }) {
		return 0, "", false
	}
	index, err := strconv.Atoi(digits)
	return index, text, err == nil
}
