package main

import (
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// The OpenAI Responses API (POST {base}/responses) is the openai provider's other protocol
// (--api responses): minicode sends the whole conversation with store:false, so a reasoning
// model's reasoning comes back as an item with encrypted content, kept as a thinking block
// (ID the item's, Signature the encrypted content) and sent back with the turns after it.

// newOpenAIResponses returns an openai provider speaking the Responses API.
func newOpenAIResponses(opts ProviderOptions) *openAI {
	o := newOpenAI(opts)
	o.url = strings.TrimSuffix(o.url, "/chat/completions") + "/responses"
	o.build, o.parse, o.media = o.encodeResponses, parseResponsesStream, mediaLimitsFor(o.provider, "responses")
	o.rebuild = o.refusesSummaries
	o.cacheKey = "minicode-" + rand.Text() // requests of one conversation share the cache
	return o
}

// encodeResponses encodes a model request: instructions, the conversation as input items, the
// tools, and for a reasoning model its effort and the request for encrypted reasoning.
func (o *openAI) encodeResponses(req ModelRequest) (*wireBody, error) {
	out := newWireBody(req.Messages, req.Model)
	if req.System != "" {
		out.WriteString(`,"instructions":`)
		out.writeJSONString(req.System)
	}
	out.WriteString(`,"input":[`)
	if err := writeEncodings(out, req.Messages, responsesItemsOf, false); err != nil {
		return nil, err
	}
	out.WriteByte(']')
	if err := o.tools.write(out, req.Tools, encodeResponsesTools); err != nil {
		return nil, err
	}
	if req.MaxTokens > 0 {
		fmt.Fprintf(out, `,"max_output_tokens":%d`, req.MaxTokens)
	}
	if o.Effort != "" || reasoningModel(req.Model) { // Claude Code's highest effort, max, is the Responses API's xhigh
		effort := cmp.Or(map[string]string{"max": "xhigh"}[o.Effort], o.Effort, "medium")
		summary := map[bool]string{false: `,"summary":"auto"`}[o.noSummary.Load()]
		fmt.Fprintf(out, `,"reasoning":{"effort":%q%s},"include":["reasoning.encrypted_content"]`, effort, summary)
	}
	fmt.Fprintf(out, `,"store":false,"stream":true,"prompt_cache_key":%q}`, o.cacheKey)
	return out, nil
}

// refusesSummaries reports whether err is the API refusing reasoning summaries, as it does to an
// organization it has not verified: the requests from then on go without them, and the user is told.
func (o *openAI) refusesSummaries(err error) bool {
	apiErr, ok := errors.AsType[*APIError](err)
	if !ok || apiErr.Status != http.StatusBadRequest || !strings.Contains(apiErr.Message, "reasoning summar") {
		return false
	}
	if !o.noSummary.Swap(true) && o.Notify != nil {
		o.Notify("the API gives this organization no reasoning summaries until it is verified (platform.openai.com/settings/organization/general); asking without them, so the model's thinking is not shown")
	}
	return true
}

// encodeResponsesTools declares the tools as functions, flat as the Responses API has them, and
// not strict: the API makes a function without "strict" strict, so every optional parameter
// of a tool (read_file's offset, an MCP tool's options) would become one the model must pass.
func encodeResponsesTools(specs []ToolSpec) ([]byte, error) {
	type tool struct {
		Type string `json:"type"`
		openAIFunction
		Strict bool `json:"strict"`
	}
	tools := make([]tool, len(specs))
	for i, t := range specs {
		tools[i] = tool{"function", openAIFunction{t.Name, t.Description, t.InputSchema}, false}
	}
	return encodeJSON(tools, 0)
}

// reasoningModel reports whether a model reasons, so that it takes reasoning settings.
func reasoningModel(model string) bool {
	name := model[strings.IndexByte(model, '/')+1:] // after a vendor/ prefix
	return strings.HasPrefix(name, "gpt-5") || strings.HasPrefix(name, "o1") || strings.HasPrefix(name, "o3") || strings.HasPrefix(name, "o4")
}

// responsesItem is one input item: a message, a function call or its output, or reasoning.
type responsesItem struct {
	Type      string `json:"type"`
	Role      string `json:"role,omitempty"`
	Content   any    `json:"content,omitempty"` // a string, or input parts
	CallID    string `json:"call_id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Output    any    `json:"output,omitempty"`  // a string, or input parts
	Summary   any    `json:"summary,omitempty"` // reasoning's: a list of summary_text parts, maybe empty
	Encrypted string `json:"encrypted_content,omitempty"`
}

// responsesSummary is a part of a reasoning item's summary.
type responsesSummary struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// responsesPart is a part of a user message or of a function call's output.
type responsesPart struct {
	Type     string `json:"type"` // input_text, input_image or input_file
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
	Filename string `json:"filename,omitempty"`
	FileData string `json:"file_data,omitempty"`
}

// responsesItemsOf returns the input items one message becomes, joined by commas and cached in the message.
func responsesItemsOf(m Message) ([]byte, error) {
	if m.wire != nil && m.wire.responses != nil {
		return m.wire.responses, nil
	}
	items, parts := []responsesItem{}, []responsesPart{}
	for _, b := range m.Content {
		switch b.Type {
		case BlockThinking:
			if strings.HasPrefix(b.ID, "rs_") && b.Signature != "" { // only the Responses API's own reasoning
				summary := []responsesSummary{}
				if b.Thinking != "" {
					summary = append(summary, responsesSummary{"summary_text", b.Thinking})
				}
				items = append(items, responsesItem{Type: "reasoning", Summary: summary, Encrypted: b.Signature})
			}
		case BlockToolUse:
			items = append(items, responsesItem{Type: "function_call", CallID: b.ID, Name: b.Name, Arguments: openAIArguments(b.Input)})
		case BlockToolResult:
			var output any = cmp.Or(b.Content, "(no output)")
			if b.IsError {
				output = "Error: " + b.Content
			}
			if len(b.Media) > 0 {
				output = append([]responsesPart{{Type: "input_text", Text: output.(string)}}, responsesParts(b.Media)...)
			}
			items = append(items, responsesItem{Type: "function_call_output", CallID: b.ToolUseID, Output: output})
		case BlockText:
			if m.Role == RoleAssistant && strings.TrimSpace(b.Text) != "" {
				items = append(items, responsesItem{Type: "message", Role: "assistant", Content: b.Text})
				continue
			}
			fallthrough
		default:
			parts = append(parts, responsesParts([]Block{b})...)
		}
	}
	if len(parts) > 0 { // the user's text and images, after the outputs of the calls
		items = append(items, responsesItem{Type: "message", Role: "user", Content: parts})
	}
	data, err := encodeJSON(items, 0)
	if err != nil {
		return nil, fmt.Errorf("encoding a %s message: %w", m.Role, err)
	}
	data = data[1 : len(data)-1]
	if m.wire != nil {
		m.wire.responses = data
	}
	return data, nil
}

// responsesParts turns text, image and document blocks into input parts.
func responsesParts(blocks []Block) []responsesPart {
	var parts []responsesPart
	for _, b := range blocks {
		switch {
		case b.Type == BlockText && strings.TrimSpace(b.Text) != "":
			parts = append(parts, responsesPart{Type: "input_text", Text: b.Text})
		case b.Type == BlockImage && b.Source != nil:
			parts = append(parts, responsesPart{Type: "input_image", ImageURL: dataURL(b.Source)})
		case b.Type == BlockDocument && b.Source != nil:
			parts = append(parts, responsesPart{Type: "input_file", Filename: "document.pdf", FileData: dataURL(b.Source)})
		}
	}
	return parts
}

// responsesEvent is the data of one stream event; which fields are set depends on its type.
type responsesEvent struct {
	Type        string `json:"type"`
	OutputIndex int    `json:"output_index"`
	Delta       string `json:"delta"`
	Arguments   string `json:"arguments"`
	Item        struct {
		Type             string `json:"type"`
		ID               string `json:"id"`
		CallID           string `json:"call_id"`
		Name             string `json:"name"`
		EncryptedContent string `json:"encrypted_content"`
	} `json:"item"`
	SummaryIndex int             `json:"summary_index"`
	Code         string          `json:"code"` // an error event's, which is the error object
	Message      string          `json:"message"`
	Error        json.RawMessage `json:"error"` // an error event's from servers that nest the object
	Response     struct {
		Usage struct {
			InputTokens        int `json:"input_tokens"`
			OutputTokens       int `json:"output_tokens"`
			InputTokensDetails struct {
				CachedTokens int `json:"cached_tokens"`
			} `json:"input_tokens_details"`
		} `json:"usage"`
		IncompleteDetails struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
		Error json.RawMessage `json:"error"`
	} `json:"response"`
}

// responsesStream reads a Responses API stream into the reply it builds, blocks keyed by output index.
type responsesStream struct {
	replyBuilder
	refused bool // a message held a refusal part, whose text is the reply's
}

// parseResponsesStream reads a Responses API stream up to response.completed or response.incomplete;
// an error event or response.failed is an error, an unknown event is skipped, and a stream that
// ends before the response does is truncated (and retried).
func parseResponsesStream(events *SSEReader, emit func(Delta)) (ModelResponse, error) {
	s := &responsesStream{replyBuilder: newReplyBuilder(emit)}
	for {
		ev, err := events.Next()
		if err != nil {
			return ModelResponse{}, readError(err)
		}
		var data responsesEvent
		if err := json.Unmarshal([]byte(ev.Data), &data); err != nil {
			return ModelResponse{}, &streamError{error: fmt.Errorf("the stream sent a responses %s event that is not valid JSON: %w", ev.Event, err)}
		}
		switch data.Type {
		case "error":
			flat, _ := json.Marshal(map[string]string{"code": data.Code, "message": data.Message})
			return ModelResponse{}, streamErrorEvent("openai", `{"error":`+cmp.Or(string(data.Error), string(flat))+`}`)
		case "response.failed":
			return ModelResponse{}, streamErrorEvent("openai", `{"error":`+cmp.Or(string(data.Response.Error), `{}`)+`}`)
		case "response.completed", "response.incomplete":
			return s.response(data), nil
		}
		s.apply(data)
	}
}

// apply takes one event into the reply.
func (s *responsesStream) apply(ev responsesEvent) {
	key := ev.OutputIndex
	switch ev.Type {
	case "response.output_item.added":
		switch it := ev.Item; it.Type {
		case "message":
			s.open(key, Block{Type: BlockText})
		case "reasoning":
			s.open(key, Block{Type: BlockThinking, ID: it.ID})
		case "function_call":
			s.open(key, Block{Type: BlockToolUse, ID: it.CallID, Name: it.Name})
		}
	case "response.output_text.delta", "response.refusal.delta":
		s.refused = s.refused || ev.Type == "response.refusal.delta"
		s.add(key, BlockText, ev.Delta)
	case "response.reasoning_summary_part.added":
		if ev.SummaryIndex > 0 {
			s.add(key, BlockThinking, "\n\n")
		}
	case "response.reasoning_summary_text.delta":
		s.add(key, BlockThinking, ev.Delta)
	case "response.function_call_arguments.delta":
		s.add(key, BlockToolUse, ev.Delta)
	case "response.function_call_arguments.done":
		if i, ok := s.at[key]; ok && s.resp.Content[i].Type == BlockToolUse {
			s.parts[i].Reset()
			s.parts[i].WriteString(ev.Arguments)
		}
	case "response.output_item.done":
		if i, ok := s.at[key]; ok && ev.Item.Type == "reasoning" {
			s.resp.Content[i].Signature = ev.Item.EncryptedContent
		}
	}
}

// response assembles the reply, its stop reason and usage from the final event.
func (s *responsesStream) response(final responsesEvent) ModelResponse {
	resp := s.finish()
	u := final.Response.Usage
	cached := u.InputTokensDetails.CachedTokens
	resp.Usage = Usage{InputTokens: u.InputTokens - cached, OutputTokens: u.OutputTokens, CacheReadInputTokens: cached}
	unnamed := map[bool]string{false: StopEndTurn, true: StopToolUse}[len((Message{Content: resp.Content}).ToolUses()) > 0]
	if s.refused {
		unnamed = StopRefusal
	}
	resp.StopReason = cmp.Or(map[string]string{"max_output_tokens": StopMaxTokens, "content_filter": StopRefusal}[final.Response.IncompleteDetails.Reason], unnamed)
	return resp
}
