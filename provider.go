package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Stop reasons, normalised to the Anthropic names.
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
	StopPauseTurn = "pause_turn"
	StopSequence  = "stop_sequence"
	StopRefusal   = "refusal"
)

// ToolSpec is what the model is told about a tool.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// ModelRequest is one call to the model: the whole conversation so far.
type ModelRequest struct {
	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int
	Thinking  int // tokens the model may think before answering; 0 leaves it to the model
}

// ModelResponse is the assembled reply of one model call.
type ModelResponse struct {
	Content    []Block
	StopReason string
	Usage      Usage
	Model      string // the model that answered, when a fallback did
}

// Delta is a piece of streamed output, shown to the user as it arrives.
type Delta struct {
	Kind string // the block it fills: BlockText or BlockThinking
	Text string
}

// replyBuilder assembles a reply from streamed pieces, showing text and thinking as they come.
type replyBuilder struct {
	resp  ModelResponse
	parts []strings.Builder // per block: its text, thinking or tool input so far
	at    map[int]int       // the stream's key for a block → its position
	emit  func(Delta)
}

// open starts block b under key (in place of the block the key named before) and returns its position.
func (r *replyBuilder) open(key int, b Block) int {
	r.resp.Content = append(r.resp.Content, b)
	r.parts = append(r.parts, strings.Builder{})
	r.at[key] = len(r.parts) - 1
	return len(r.parts) - 1
}

// add appends a streamed piece to the block under key if it is open and of type kind.
func (r *replyBuilder) add(key int, kind, piece string) {
	i, ok := r.at[key]
	if piece == "" || !ok || r.resp.Content[i].Type != kind {
		return
	}
	r.parts[i].WriteString(piece)
	if kind != BlockToolUse {
		r.emit(Delta{Kind: kind, Text: piece})
	}
}

// finish sets every block's text, thinking or tool input from what was streamed.
func (r *replyBuilder) finish() ModelResponse {
	for i := range r.resp.Content {
		switch b := &r.resp.Content[i]; b.Type {
		case BlockText:
			b.Text = r.parts[i].String()
		case BlockThinking:
			b.Thinking = r.parts[i].String()
		case BlockToolUse:
			b.Input = toolInput(r.parts[i].String())
		}
	}
	return r.resp
}

// Provider is a model behind an API: Stream sends the request, calls onDelta
// for each piece of text or thinking, and returns the reply; ctx cancels it.
type Provider interface {
	Name() string
	Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error)
}

// ModelLimits are a model family's context window and output ceiling.
type ModelLimits struct {
	ContextWindow int `json:"context_window"`
	MaxOutput     int `json:"max_output"`
}

// modelLimitTable maps a model-name prefix to its limits; the longest match wins ("" matches all).
var modelLimitTable = map[string]ModelLimits{
	"claude-opus-5":     {1_000_000, 128_000},
	"claude-sonnet-5":   {1_000_000, 128_000},
	"claude-haiku-5":    {1_000_000, 128_000},
	"claude-fable-5":    {1_000_000, 128_000},
	"claude-opus-4":     {200_000, 32_000},
	"claude-sonnet-4":   {200_000, 64_000},
	"claude-haiku-4":    {200_000, 64_000},
	"claude-3-7-sonnet": {200_000, 64_000},
	"claude-3-5":        {200_000, 8_192},
	"claude":            {200_000, 8_192},
	"gpt-4o":            {128_000, 16_384},
	"gpt-4.1":           {1_000_000, 32_768},
	"gpt-5":             {400_000, 128_000},
	"o3":                {200_000, 100_000},
	"o4":                {200_000, 100_000},
	"deepseek":          {128_000, 8_192},
	"qwen":              {128_000, 8_192},
	"llama":             {128_000, 4_096},
	"mock":              {200_000, 8_192},
	"":                  {128_000, 8_192},
}

// byPrefix returns the value of table's longest key that prefixes model, and its length or -1.
func byPrefix[V any](table map[string]V, model string) (best V, length int) {
	length = -1
	for prefix, v := range table {
		if strings.HasPrefix(model, prefix) && len(prefix) > length {
			best, length = v, len(prefix)
		}
	}
	return best, length
}

// limitsFor returns the limits of a model, preferring overrides from settings.
func limitsFor(model string, overrides map[string]ModelLimits) ModelLimits {
	limits, length := byPrefix(modelLimitTable, model)
	if override, n := byPrefix(overrides, model); n >= length {
		return override
	}
	return limits
}

// resolveModelAlias turns Claude Code's short model names (opus, opus-latest, opus[1m], ...) into ids.
func resolveModelAlias(name string) string {
	base, _, _ := strings.Cut(name, "[")
	aliases := map[string]string{"opus": "claude-opus-5-5", "sonnet": "claude-sonnet-5-5", "haiku": "claude-haiku-5-5", "fable": "claude-fable-5-1"}
	return cmp.Or(aliases[strings.TrimSuffix(strings.TrimPrefix(base, "claude-"), "-latest")], name)
}

// modelPrice is what a model costs, in dollars per million tokens.
type modelPrice struct{ input, output float64 }

// costUSD prices usage at the model's price, found by longest prefix (unknown models are free);
// cache writes cost 1.25 times input, reads a tenth.
func costUSD(model string, u Usage) float64 {
	p, _ := byPrefix(map[string]modelPrice{
		"claude-fable-5":  {10, 50},
		"claude-opus-5-5": {4, 20},
		"claude-opus-5":   {5, 25},
		"claude-opus-4-5": {5, 25}, "claude-opus-4-6": {5, 25}, "claude-opus-4-7": {5, 25}, "claude-opus-4-8": {5, 25},
		"claude-opus-4":     {15, 75},
		"claude-sonnet-5":   {2, 10},
		"claude-sonnet-4":   {3, 15},
		"claude-3-7-sonnet": {3, 15},
		"claude-haiku-5":    {0.10, 0.50},
		"claude-haiku-4":    {1, 5},
		"claude-3-5-haiku":  {0.80, 4},
		"gpt-4.1":           {2, 8},
		"gpt-4o":            {2.5, 10},
	}, model)
	return (float64(u.InputTokens)*p.input + float64(u.OutputTokens)*p.output +
		float64(u.CacheCreationInputTokens)*p.input*1.25 + float64(u.CacheReadInputTokens)*p.input*0.1) / 1e6
}

// parseCustomHeaders reads ANTHROPIC_CUSTOM_HEADERS: "Name: value" lines.
func parseCustomHeaders(s string) (http.Header, error) {
	h := http.Header{}
	for _, line := range strings.Split(s, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, fmt.Errorf("ANTHROPIC_CUSTOM_HEADERS: %q is not a \"Name: value\" line", line)
		}
		h.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	return h, nil
}

// maxOutputTokens is CLAUDE_CODE_MAX_OUTPUT_TOKENS, else the setting, else the model's limit.
func maxOutputTokens(env string, setting, limit int) (int, error) {
	if env == "" {
		return cmp.Or(setting, limit), nil
	}
	n, err := strconv.Atoi(env)
	if err != nil || n <= 0 {
		return 0, usageErrorf("CLAUDE_CODE_MAX_OUTPUT_TOKENS must be a positive number, not %q", env)
	}
	return n, nil
}

// fallbackProvider asks another model when the first is overloaded or missing (--fallback-model).
type fallbackProvider struct {
	Provider
	fallback string
	notify   func(string)
}

// Stream sends req, and again with the fallback model after a 529 or 404.
func (f *fallbackProvider) Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error) {
	resp, err := f.Provider.Stream(ctx, req, onDelta)
	var apiErr *APIError
	if err == nil || req.Model == f.fallback || !errors.As(err, &apiErr) || apiErr.Status != 529 && apiErr.Status != http.StatusNotFound {
		return resp, err
	}
	f.notify(fmt.Sprintf("%s is unavailable (%v); answering with %s", req.Model, err, f.fallback))
	req.Model = f.fallback
	resp, err = f.Provider.Stream(ctx, req, onDelta)
	resp.Model = f.fallback
	return resp, err
}

// ProviderOptions configure an HTTP provider.
type ProviderOptions struct {
	BaseURL    string        // "" means the provider's default
	APIKey     string        // sent as x-api-key (Anthropic) or Bearer (OpenAI)
	AuthToken  string        // Anthropic only: sent as a Bearer token instead of the key
	Headers    http.Header   // Anthropic only: sent with every request
	MaxRetries int           // 0 means the default (4), negative never
	Timeout    time.Duration // for the first byte and for silence inside a stream; 0 means the default
	Notify     func(string)  // receives retry notices
	ShowsText  bool          // text deltas reach the user as they come, so a retry must say so
}

// wireCache holds what is computed once per message, each provider's encoding and the token estimate.
type wireCache struct {
	anthropic []anthropicWireBlock // the content blocks; nil until encoded
	openai    []byte               // the chat messages, joined by commas; nil until encoded
	tokens    int
}

// withWireCaches gives every message of msgs that has none a cache.
func withWireCaches(msgs []Message) {
	for i := range msgs {
		if msgs[i].wire == nil {
			msgs[i].wire = &wireCache{}
		}
	}
}

// toolsCache keeps the encoded tool list of the newest request.
type toolsCache struct {
	mu    sync.Mutex
	specs []ToolSpec
	json  []byte
}

// write writes the encoded tools, encoding them only when specs differ from the previous request's.
func (c *toolsCache) write(out *wireBody, specs []ToolSpec, encode func([]ToolSpec) ([]byte, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	same := c.json != nil && slices.EqualFunc(c.specs, specs, func(a, b ToolSpec) bool {
		return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.InputSchema, b.InputSchema)
	})
	if !same {
		data, err := encode(specs)
		if err != nil {
			return fmt.Errorf("encoding the tools: %w", err)
		}
		c.specs, c.json = slices.Clone(specs), data
	}
	out.Ref(c.json)
	return nil
}

// wireBody is a request body of copied bytes and referenced ones, the cached
// encodings of messages and tools, so building a request costs only its small parts.
type wireBody struct {
	bytes.Buffer // the copied bytes
	refs         []wireRef
	refBytes     int
}

// wireRef is referenced data that goes before the copied byte at.
type wireRef struct {
	at   int
	data []byte
}

// Ref adds data to the body without copying it.
func (w *wireBody) Ref(data []byte) {
	w.refs = append(w.refs, wireRef{w.Len(), data})
	w.refBytes += len(data)
}

// buffers returns the body's bytes in order, as a reader of them.
func (w *wireBody) buffers() *net.Buffers {
	copied, at := w.Bytes(), 0
	bufs := make(net.Buffers, 0, 2*len(w.refs)+1)
	for _, r := range w.refs {
		bufs = append(bufs, copied[at:r.at], r.data)
		at = r.at
	}
	bufs = append(bufs, copied[at:])
	return &bufs
}

// newWireBody returns an empty body with room for a request of msgs.
func newWireBody(msgs []Message) *wireBody {
	out := &wireBody{refs: make([]wireRef, 0, 2*len(msgs)+2)}
	out.Grow(256 + 48*len(msgs))
	return out
}

// writeJSONString writes s as a JSON string.
func (w *wireBody) writeJSONString(s string) {
	data, _ := encodeJSON(s, len(s))
	w.Write(data)
}

// encodeJSON marshals v without HTML escaping, so the model's text goes back
// as it came; size is about the length of v's text, so one buffer holds it.
func encodeJSON(v any, size int) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, size+size/16+128))
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// toolInput turns streamed tool arguments into an input: empty is {}, invalid JSON a JSON string.
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
