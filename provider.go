package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Stop reasons, normalised to the Anthropic names. The OpenAI provider maps
// "stop" to StopEndTurn, "tool_calls" to StopToolUse and "length" to
// StopMaxTokens.
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
}

// ModelResponse is the assembled reply of one model call.
type ModelResponse struct {
	Content    []Block
	StopReason string
	Usage      Usage
}

// Delta kinds streamed while a reply is produced.
const (
	DeltaText     = "text"
	DeltaThinking = "thinking"
)

// Delta is a piece of streamed output, shown to the user as it arrives.
type Delta struct {
	Kind string
	Text string
}

// Provider is a model behind an API. Stream sends the request, calls onDelta
// for each piece of text or thinking as it arrives, and returns the assembled
// reply. Cancelling ctx aborts the request at once.
type Provider interface {
	Name() string
	Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error)
}

// ModelLimits are a model family's context window and output ceiling.
type ModelLimits struct {
	ContextWindow int `json:"context_window"`
	MaxOutput     int `json:"max_output"`
}

// modelLimitTable maps a model-name prefix to its limits. The longest
// matching prefix wins; settings may override any entry.
var modelLimitTable = map[string]ModelLimits{
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
}

// limitsFor returns the limits of a model, preferring overrides from settings.
func limitsFor(model string, overrides map[string]ModelLimits) ModelLimits {
	best, bestLen := ModelLimits{ContextWindow: 128_000, MaxOutput: 8_192}, -1
	for _, table := range []map[string]ModelLimits{modelLimitTable, overrides} {
		for prefix, l := range table {
			if strings.HasPrefix(model, prefix) && len(prefix) >= bestLen {
				best, bestLen = l, len(prefix)
			}
		}
	}
	return best
}

// ProviderOptions configure an HTTP provider.
type ProviderOptions struct {
	BaseURL   string // e.g. https://api.anthropic.com; "" means the provider's default
	APIKey    string // sent as x-api-key (Anthropic) or Bearer (OpenAI)
	AuthToken string // Anthropic only: sent as a Bearer token instead of the key
	// HTTPClient is used for requests; nil means a client with the connect
	// timeout below (the other timeouts apply to any client).
	HTTPClient *http.Client
	// MaxRetries is how many times a retryable failure is retried: 0 means
	// the default (4), a negative number means never.
	MaxRetries int
	// Timeouts: connecting, the first byte of the reply, and the longest
	// silence between two streamed events. Zero means the default.
	ConnectTimeout   time.Duration
	FirstByteTimeout time.Duration
	IdleTimeout      time.Duration
	// Notify receives one-line notices: a retry and its wait, and whether
	// the partial reply the user saw is thrown away.
	Notify func(string)
	// ShowsText says that text deltas reach the user as they arrive (line
	// mode), so that a retry after some were shown must say so. With -p
	// nothing is shown before the reply is complete.
	ShowsText bool
}
