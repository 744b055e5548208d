package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// MockProvider is the offline demo model, replying by patterns, or, with a script, the fixed replies that tests drive it with.
type MockProvider struct {
	mu      sync.Mutex
	script  []ScriptedReply
	next    int
	session func() *Session // the current session, for "demo resume"; nil: none
	delay   time.Duration   // a pause before each streamed word (MINICODE_DEMO_DELAY)
}

// ScriptedReply is one reply of a mock script file: a JSON list of these.
type ScriptedReply struct {
	Thinking   string             `json:"thinking,omitempty"`
	Text       string             `json:"text,omitempty"`
	ToolCalls  []scriptedToolCall `json:"tool_calls,omitempty"`
	StopReason string             `json:"stop_reason,omitempty"`
	Usage      *Usage             `json:"usage,omitempty"`
	Error      string             `json:"error,omitempty"` // makes this step fail with the given message
}

// scriptedToolCall is a tool call in a scripted reply.
type scriptedToolCall struct {
	ID    string          `json:"id,omitempty"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input,omitempty"`
}

// loadMockScript reads a script file for the mock provider.
func loadMockScript(path string) ([]ScriptedReply, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading mock script: %w", err)
	}
	var replies []ScriptedReply
	if err := json.Unmarshal(data, &replies); err != nil {
		return nil, fmt.Errorf("mock script %s: %w", path, err)
	}
	return replies, nil
}

// Name reports "mock".
func (m *MockProvider) Name() string { return "mock" }

// Media returns what the demo model takes: images (it describes them), no PDFs.
func (m *MockProvider) Media() MediaLimits { return mediaLimitsFor("mock", "mock") }

// Stream produces the next reply.
func (m *MockProvider) Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return ModelResponse{}, err
	}
	reply, err := m.reply(req)
	if err != nil {
		return ModelResponse{}, err
	}
	if m.delay > 0 && onDelta != nil {
		forward := onDelta
		onDelta = func(d Delta) {
			if sleepContext(ctx, m.delay) == nil { // once interrupted, the rest is not streamed
				forward(d)
			}
		}
	}
	return replyResponse(reply, req, onDelta), ctx.Err()
}

// reply picks the reply to req: a summary, the script's next reply, or the demo model's answer.
func (m *MockProvider) reply(req ModelRequest) (ScriptedReply, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case req.System == summarySystemPrompt:
		return demoCompactSummary(req.Messages[len(req.Messages)-1].Text()), nil
	case m.script == nil && m.session != nil:
		return demoReply(req, m.session()), nil
	case m.script == nil:
		return demoReply(req, nil), nil
	case m.next >= len(m.script):
		return ScriptedReply{}, fmt.Errorf("the mock script has no reply left (it holds %d)", len(m.script))
	}
	m.next++
	if r := m.script[m.next-1]; r.Error != "" {
		return r, errors.New(r.Error)
	}
	return m.script[m.next-1], nil
}

// replyResponse streams a reply's thinking and text word by word and returns it assembled.
func replyResponse(r ScriptedReply, req ModelRequest, onDelta func(Delta)) ModelResponse {
	var resp ModelResponse
	if r.Thinking != "" {
		streamWords(BlockThinking, r.Thinking, onDelta)
		resp.Content = append(resp.Content, Block{Type: BlockThinking, Thinking: r.Thinking, Signature: "mock"})
	}
	if r.Text != "" {
		streamWords(BlockText, r.Text, onDelta)
		resp.Content = append(resp.Content, Block{Type: BlockText, Text: r.Text})
	}
	for i, c := range r.ToolCalls {
		id := cmp.Or(c.ID, fmt.Sprintf("toolu_mock_%d_%d", len(req.Messages), i))
		resp.Content = append(resp.Content, Block{Type: BlockToolUse, ID: id, Name: c.Name, Input: toolInput(string(c.Input))})
	}
	resp.StopReason = cmp.Or(r.StopReason, map[bool]string{false: StopEndTurn, true: StopToolUse}[len(r.ToolCalls) > 0])
	// Without scripted usage, tokens are counted as minicode estimates them.
	resp.Usage = *cmp.Or(r.Usage, &Usage{InputTokens: requestTokenCount(req), OutputTokens: messageTokenCount(Message{Content: resp.Content})})
	return resp
}

// streamWords hands text to onDelta a word at a time, as a network stream would.
func streamWords(kind, text string, onDelta func(Delta)) {
	for onDelta != nil && text != "" {
		n := len(text)
		if i := strings.IndexByte(text[1:], ' '); i >= 0 {
			n = i + 1 // up to the next word's space
		}
		onDelta(Delta{Kind: kind, Text: text[:n]})
		text = text[n:]
	}
}

// The demo model's request patterns, and those it finds stored results and transcript paths by.
var (
	demoFindFirst = regexp.MustCompile(`(?i)^(?:find|search for)\s+(.+?)\s+and\s+(?:show|read|open)\s+(?:me\s+)?the\s+first\s+file$`)
	demoStored    = regexp.MustCompile(`is stored in ([^\s;]*tool-results[^\s;]*)|storing it failed: [^\]]*`)
	demoPath      = regexp.MustCompile(`"path":\s*"([^"]+)"`)
	demoRead      = regexp.MustCompile(`(?i)^(?:read|show|cat|open)\s+(?:the\s+)?(?:file\s+)?(\S+)$`)
	demoSearch    = regexp.MustCompile(`(?i)^(?:search|grep|find)\s+(?:for\s+)?(.+?)$`)
	demoRun       = regexp.MustCompile(`(?i)^(?:run|execute)\s+(.+)$`)
	demoReplace   = regexp.MustCompile(`(?i)^replace\s+(.+?)\s+with\s+(.+?)\s+in\s+(\S+)$`)
	demoCreate    = regexp.MustCompile(`(?i)^(?:create|write)\s+(?:a\s+)?(?:file\s+)?(\S+)\s+with\s+(.+)$`)
)

// demoReply is the demo model's answer to the conversation so far, in session s.
func demoReply(req ModelRequest, s *Session) ScriptedReply {
	msgs := req.Messages
	last := msgs[len(msgs)-1]
	if results := last.ToolResults(); len(results) > 0 {
		return demoFollowUp(req, results)
	}
	request := normaliseRequest(last.Text())
	if _, calls := demoChain(msgs[:len(msgs)-1]); slices.ContainsFunc(calls, func(b Block) bool { return b.Name == "ask_user" }) {
		// The answer is a request the demo model understands, or else the word to search for.
		if r := demoStart(req, request); !strings.HasPrefix(r.Text, "I am the offline demo model and did not understand") {
			return r
		}
		return demoCall("The user answered my question with "+request+"; that is the text to search for.",
			fmt.Sprintf("You answered %q, so I'll search the workspace for it.", request), "grep_files", map[string]string{"pattern": regexp.QuoteMeta(request)})
	}
	if images := last.blocksOf(BlockImage); len(images) > 0 {
		return ScriptedReply{Text: "You attached an image. " + demoDescribe(images)}
	}
	if r, ok := demoMechanism(lowerRequest(request), s, msgs); ok {
		return r
	}
	return demoStart(req, request)
}

// demoStart answers a new request with its first tool call, or with text.
func demoStart(req ModelRequest, request string) ScriptedReply {
	r := demoFirstStep(request)
	if len(r.ToolCalls) == 1 && !slices.ContainsFunc(req.Tools, func(s ToolSpec) bool { return s.Name == r.ToolCalls[0].Name }) {
		return ScriptedReply{Text: fmt.Sprintf("I would use the %s tool for that, but it is not available in this session.", r.ToolCalls[0].Name)}
	}
	return r
}

// demoFirstStep is the first step of a new request.
func demoFirstStep(request string) ScriptedReply {
	lower := lowerRequest(request)
	switch {
	case lower == "help" || lower == "/help" || lower == "what can you do":
		return ScriptedReply{Text: demoHelpText()}
	case lower == "list files" || lower == "ls" || lower == "list the files":
		return demoCall("The user wants to see the workspace; list_files shows it.", "I'll list the files in the workspace.", "list_files", map[string]any{})
	case demoRead.MatchString(request):
		path := demoRead.FindStringSubmatch(request)[1]
		return demoCall("Reading "+path+" answers this directly.", "I'll read "+path+".", "read_file", map[string]any{"path": path})
	case demoFindFirst.MatchString(request):
		pattern := strings.Trim(demoFindFirst.FindStringSubmatch(request)[1], "\"'")
		return demoCall("First a search, then the first file it finds.", "I'll search for "+pattern+" first.", "grep_files", map[string]any{"pattern": regexp.QuoteMeta(pattern)})
	case demoSearch.MatchString(request):
		pattern := strings.Trim(demoSearch.FindStringSubmatch(request)[1], "\"'")
		return demoCall("A search of the workspace finds where this appears.", "I'll search the workspace for "+pattern+".", "grep_files", map[string]any{"pattern": regexp.QuoteMeta(pattern)})
	case demoReplace.MatchString(request):
		m := demoReplace.FindStringSubmatch(request)
		return demoCall("An exact replacement with edit_file; the diff is shown before it is applied.", "I'll replace the text in "+m[3]+".", "edit_file", map[string]any{"path": m[3], "old_string": m[1], "new_string": m[2]})
	case demoCreate.MatchString(request):
		m := demoCreate.FindStringSubmatch(request)
		return demoCall("Creating the file with write_file.", "I'll create "+m[1]+".", "write_file", map[string]any{"path": m[1], "content": m[2] + "\n"})
	case demoRun.MatchString(request):
		command := demoRun.FindStringSubmatch(request)[1]
		return demoCall("Running the command in the workspace.", "<progress>Running `"+command+"`.</progress>", "run_command", map[string]any{"command": command})
	case strings.HasPrefix(lower, "ask me"):
		return demoCall("I need something from the user before I can go on.", "", "ask_user", map[string]any{"question": "Which word should I search the workspace for?"})
	case containsAny(lower, "explain yourself", "how do you work"):
		return ScriptedReply{Thinking: "Explaining the mechanism.", Text: "I am a deterministic demo model. Your message went through the same loop a real model uses: the loop sent the conversation to me, I streamed this reply (thinking first, then text), and because it has no tool calls it ended the turn as a final answer."}
	default:
		return demoSuggest(request)
	}
}

// demoCall is a reply that calls one tool with input.
func demoCall(thinking, text, tool string, input any) ScriptedReply {
	return ScriptedReply{Thinking: thinking, Text: text, ToolCalls: []scriptedToolCall{demoInput(tool, input)}}
}

// demoSummary answers after the tools ran: it reports the results.
func demoSummary(history []Message, results []Block) ScriptedReply {
	reports := mapped(results, func(r Block) string {
		format := map[bool]string{false: "Result of %s:\n%s", true: "%s failed: %s"}[r.IsError]
		return fmt.Sprintf(format, toolNameOf(history, r.ToolUseID), r.Content)
	})
	return ScriptedReply{Text: strings.Join(reports, "\n\n")}
}

// demoCompactSummary answers a summary request (scripted or not) with the
// transcript's requests, the files its calls named, its errors and its number of calls.
func demoCompactSummary(transcript string) ScriptedReply {
	var requests, files, errs []string
	calls, focus := 0, ""
	for _, line := range strings.Split(transcript, "\n") {
		switch {
		case strings.HasPrefix(line, "[user] "):
			requests = append(requests, cutBytes(strings.TrimPrefix(line, "[user] "), 300, "..."))
		case strings.HasPrefix(line, "[tool call "):
			calls++
			if m := demoPath.FindStringSubmatch(line); m != nil && !slices.Contains(files, m[1]) {
				files = append(files, m[1])
			}
		case strings.HasPrefix(line, "[tool error] "):
			errs = append(errs, cutBytes(strings.TrimPrefix(line, "[tool error] "), 200, "..."))
		case strings.HasPrefix(line, "Focus the summary on: "):
			focus = strings.TrimPrefix(line, "Focus the summary on: ")
		}
	}
	first, last := "none", "none"
	if len(requests) > 0 {
		first, last = requests[0], requests[len(requests)-1]
	}
	text := fmt.Sprintf("<summary>\nRequest: %s\nDecisions: the demo model keeps no reasoning; focus: %s\nFiles touched: %s\nErrors: %s\nCurrent state: %d tool calls were made; the last message was: %s\nPending work: continue with the latest request.\n</summary>",
		first, cmp.Or(focus, "none"), orNone(files, ", "), orNone(errs, "; "), calls, last)
	return ScriptedReply{Text: text}
}

// toolNameOf finds the name of the tool whose call had the given id.
func toolNameOf(history []Message, id string) string {
	for _, m := range history {
		for _, c := range m.ToolUses() {
			if c.ID == id {
				return c.Name
			}
		}
	}
	return "the tool"
}
