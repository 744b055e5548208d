package main

import (
	"encoding/json"
	"strings"
)

// Role names who wrote a message: the user (tool results too) or the assistant.
type Role string

// The two roles of a conversation.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Block types, named as the Anthropic Messages API names them; the OpenAI provider translates.
const (
	BlockText             = "text"
	BlockImage            = "image"
	BlockThinking         = "thinking"
	BlockRedactedThinking = "redacted_thinking"
	BlockToolUse          = "tool_use"
	BlockToolResult       = "tool_result"
)

// Block is one piece of a message's content, kept exactly as received so a journal can replay it.
type Block struct {
	Type string `json:"type"`

	// text
	Text string `json:"text,omitempty"`

	// thinking and redacted_thinking
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Data      string `json:"data,omitempty"`

	// image
	Source *ImageSource `json:"source,omitempty"`

	// tool_use
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name,omitempty"`
	Input json.RawMessage `json:"input,omitempty"`

	// tool_result
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   string  `json:"content,omitempty"`
	IsError   bool    `json:"is_error,omitempty"`
	Media     []Block `json:"media,omitempty"` // images and documents the result shows the model
}

// ImageSource is an image or document block's content: base64 data with its media type, or a URL.
type ImageSource struct {
	Type      string `json:"type"` // "base64" or "url"
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
	Width     int    `json:"width,omitempty"` // pixels, when known; not sent to the API
	Height    int    `json:"height,omitempty"`
	File      string `json:"file,omitempty"` // in a journal: the file under the session's media folder
}

// Message is one entry of the conversation, never changed in place so its cached encodings stay true.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`

	// wire caches the encodings and token estimate, shared by every copy of the message.
	wire *WireCache
}

// Usage counts tokens as the provider reports them.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens,omitempty"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens,omitempty"`
}

// Add accumulates another step's usage into u.
func (u *Usage) Add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
	u.CacheCreationInputTokens += o.CacheCreationInputTokens
	u.CacheReadInputTokens += o.CacheReadInputTokens
}

// userText builds a user message holding one text block.
func userText(text string) Message {
	return Message{Role: RoleUser, Content: []Block{{Type: BlockText, Text: text}}}
}

// userPrompt builds the user's turn message: the text, then any images.
func userPrompt(text string, images []Block) Message {
	return Message{Role: RoleUser, Content: append([]Block{{Type: BlockText, Text: text}}, images...)}
}

// assistantText builds an assistant message holding one text block.
func assistantText(text string) Message {
	return Message{Role: RoleAssistant, Content: []Block{{Type: BlockText, Text: text}}}
}

// Text joins the text blocks of a message.
func (m Message) Text() string {
	var parts []string
	for _, b := range m.Content {
		if b.Type == BlockText && b.Text != "" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolUses returns the tool_use blocks of a message in order.
func (m Message) ToolUses() []Block { return m.blocksOf(BlockToolUse) }

// ToolResults returns the tool_result blocks of a message in order.
func (m Message) ToolResults() []Block { return m.blocksOf(BlockToolResult) }

// blocksOf returns the blocks of a message of one type, in order.
func (m Message) blocksOf(typ string) []Block {
	var out []Block
	for _, b := range m.Content {
		if b.Type == typ {
			out = append(out, b)
		}
	}
	return out
}
