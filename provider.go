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
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"
)

// Provider is a model behind an API: Stream sends the request, calls onDelta
// for each piece of text or thinking, and returns the reply; ctx cancels it.
type Provider interface {
	Name() string
	Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error)
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

// ToolSpec is what the model is told about a tool.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Stop reasons, normalised to the Anthropic names.
const (
	StopEndTurn   = "end_turn"
	StopToolUse   = "tool_use"
	StopMaxTokens = "max_tokens"
	StopPauseTurn = "pause_turn"
	StopSequence  = "stop_sequence"
	StopRefusal   = "refusal"
)

// ModelResponse is the assembled reply of one model call.
type ModelResponse struct {
	Content    []Block
	StopReason string
	Usage      Usage
	Model      string // the model that answered, when a fallback did
	ID         string // the message id the headless output gives the reply
}

// Delta is a piece of streamed output, shown to the user as it arrives.
type Delta struct {
	Kind  string // the block it fills: BlockText or BlockThinking; or deltaUsage
	Text  string
	Usage Usage `json:",omitzero"` // of deltaUsage: the reply's tokens as reported so far
}

// deltaUsage is the Kind of a Delta that reports the reply's tokens while it streams.
const deltaUsage = "usage"

// FallbackProvider asks another model when the first is overloaded or missing (--fallback-model).
type FallbackProvider struct {
	Provider
	fallback string
	notify   func(string)
}

// Stream sends req, and again with the fallback model after a 529 or 404.
func (f *FallbackProvider) Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error) {
	resp, err := f.Provider.Stream(ctx, req, onDelta)
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok || req.Model == f.fallback || apiErr.Status != 529 && apiErr.Status != http.StatusNotFound {
		return resp, err
	}
	f.notify(fmt.Sprintf("%s is unavailable (%v); answering with %s", req.Model, err, f.fallback))
	req.Model = f.fallback
	resp, err = f.Provider.Stream(ctx, req, onDelta)
	resp.Model = f.fallback
	return resp, err
}

// providerMedia is what a provider takes in an image or document, looking through a fallback.
func providerMedia(p Provider) MediaLimits {
	switch p := p.(type) {
	case *FallbackProvider:
		return providerMedia(p.Provider)
	case interface{ Media() MediaLimits }:
		return p.Media()
	}
	return mediaLimitsFor(p.Name(), "chat")
}

// ProviderOptions configure an HTTP provider.
type ProviderOptions struct {
	BaseURL    string        // "" means the provider's default
	APIKey     string        // sent as x-api-key (Anthropic) or Bearer (OpenAI)
	AuthToken  string        // Anthropic only: sent as a Bearer token instead of the key
	KeyHelper  *KeyHelper    // gives the key instead, sent as both
	Headers    http.Header   // Anthropic only: sent with every request
	MaxRetries int           // 0 means the default (4), negative never
	Timeout    time.Duration // for the first byte and for silence inside a stream; 0 means the default
	Notify     func(string)  // receives retry notices
	ShowsText  bool          // text deltas reach the user as they come, so a retry must say so
	Effort     string        // OpenAI Responses only: the reasoning effort (--effort)
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

// KeyHelper runs the apiKeyHelper setting's shell command for the API key, as the user (it is the user's,
// or a trusted project's), as Claude Code does: the key is kept for ttl, and fetched afresh after a 401.
type KeyHelper struct {
	command, dir string
	ttl          time.Duration

	mu      sync.Mutex
	key     string
	fetched time.Time
}

// Key returns the key, running the command when none is kept or it is older than the ttl.
func (k *KeyHelper) Key(ctx context.Context) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != "" && time.Since(k.fetched) < k.ttl {
		return k.key, nil
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", k.command)
	var stderr bytes.Buffer
	cmd.Dir, cmd.Stderr = k.dir, &stderr
	out, err := cmd.Output()
	key := strings.TrimSpace(string(out))
	if err != nil || key == "" { // what a failing helper printed is no key
		return "", fmt.Errorf("apiKeyHelper %q gave no key (%v): %s", k.command, cmp.Or(err, errors.New("it printed nothing")), firstLine(stderr.String(), 200))
	}
	k.key, k.fetched = key, time.Now()
	return key, nil
}

// expire forgets the key, which the API refused.
func (k *KeyHelper) expire() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.key = ""
}

// toolsCache keeps the encoded tool list of the newest request.
type toolsCache struct {
	mu    sync.Mutex
	specs []ToolSpec
	json  []byte
}

// write writes the request's "tools" key unless specs is empty, encoding them only when they changed.
func (c *toolsCache) write(out *wireBody, specs []ToolSpec, encode func([]ToolSpec) ([]byte, error)) error {
	if len(specs) == 0 {
		return nil
	}
	out.WriteString(`,"tools":`)
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
	out.ref(c.json)
	return nil
}

// wireBody is a request body of copied bytes and referenced ones, the cached
// encodings of messages and tools, so building a request costs only its small parts.
type wireBody struct {
	bytes.Buffer // the copied bytes
	refs         []wireRef
	refBytes     int
	header       http.Header // sent with this request only, such as a beta header
}

// wireRef is referenced data that goes before the copied byte at.
type wireRef struct {
	at   int
	data []byte
}

// ref adds data to the body without copying it.
func (w *wireBody) ref(data []byte) {
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

// newWireBody returns a body with room for a request of msgs, begun with its model: {"model":"…".
func newWireBody(msgs []Message, model string) *wireBody {
	out := &wireBody{refs: make([]wireRef, 0, 2*len(msgs)+2)}
	out.Grow(256 + 48*len(msgs))
	out.WriteString(`{"model":`)
	out.writeJSONString(model)
	return out
}

// writeEncodings writes the cached encoding of each message, separated by commas (and from the
// one before them if sep); encode returns a message's, which may be empty.
func writeEncodings(out *wireBody, msgs []Message, encode func(Message) ([]byte, error), sep bool) error {
	for _, m := range msgs {
		data, err := encode(m)
		if err != nil {
			return err
		}
		if len(data) > 0 && sep {
			out.WriteByte(',')
		}
		out.ref(data)
		sep = sep || len(data) > 0
	}
	return nil
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
