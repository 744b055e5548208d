package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// initRecord is the system/init line of stream-json.
type initRecord struct {
	Type           string              `json:"type"`
	Subtype        string              `json:"subtype"`
	CWD            string              `json:"cwd"`
	SessionID      string              `json:"session_id"`
	Tools          []string            `json:"tools"`
	MCPServers     []map[string]string `json:"mcp_servers"` // name and status: connected, pending, needs-auth or failed
	Model          string              `json:"model"`
	PermissionMode string              `json:"permissionMode"`
	SlashCommands  []string            `json:"slash_commands"`
	APIKeySource   string              `json:"apiKeySource"`
	OutputStyle    string              `json:"output_style"`
	Skills         []string            `json:"skills"`
	Agents         []string            `json:"agents"`  // what the Task tool's subagent_type may name
	Sandbox        string              `json:"sandbox"` // what limits commands
	UUID           string              `json:"uuid"`
}

// messageRecord is an assistant, user or stream_event line of stream-json.
type messageRecord struct {
	Type            string         `json:"type"`
	Message         any            `json:"message,omitempty"`
	Event           map[string]any `json:"event,omitempty"`
	ParentToolUseID *string        `json:"parent_tool_use_id"`
	SessionID       string         `json:"session_id"`
	UUID            string         `json:"uuid"`
	Timestamp       string         `json:"timestamp,omitempty"`       // of a user line
	ToolUseResult   any            `json:"tool_use_result,omitempty"` // of a tool's result: its text ("Error: " and why, for a failure)
}

// assistantMessage is a reply as the Messages API returns it.
type assistantMessage struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         Role    `json:"role"`
	Model        string  `json:"model"`
	Content      []Block `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        Usage   `json:"usage"`
}

// initRecord describes the session before the task runs.
func (app *App) initRecord() initRecord {
	r := initRecord{Type: "system", Subtype: "init", CWD: app.Workspace, SessionID: app.Session.ID, Model: app.Agent.ModelName(),
		PermissionMode: string(app.Perms.Mode()), APIKeySource: app.apiKeySource(), Sandbox: app.Sandbox.Status(), OutputStyle: cmp.Or(app.Settings.OutputStyle, "default"),
		Skills: app.Skills.Names(), UUID: newSessionID()}
	r.Tools = mapped(app.Registry.Specs(), func(t ToolSpec) string { return claudeName(t.Name) })
	r.MCPServers = mapped(app.MCP.Status(), func(s ServerStatus) map[string]string {
		return map[string]string{"name": s.Name, "status": sdkServerStatus(s.State)}
	})
	r.SlashCommands = mapped(app.slashCommandList(), func(c SlashCommand) string { return c.name })
	r.Agents = app.Subagents.usable()
	return r
}

// sdkServerStatus names a server's state as init and mcp_status do.
func sdkServerStatus(s MCPState) string {
	return cmp.Or(map[MCPState]string{MCPReady: "connected", MCPStarting: "pending", MCPNeedsLogin: "needs-auth"}[s], "failed")
}

// apiKeySource names where the credentials came from, "none" for none.
func (app *App) apiKeySource() string {
	if app.Settings.APIKeyHelper != "" && app.Agent.Provider.Name() == "anthropic" {
		return "apiKeyHelper"
	}
	for _, name := range []string{"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY"} {
		if app.getenv(name) != "" && strings.HasPrefix(strings.ToLower(name), app.Agent.Provider.Name()) {
			return name
		}
	}
	return "none"
}

// headlessEvents handles the loop's events for -p: notices go to stderr; with stream-json, replies, results and deltas are lines.
func (app *App) headlessEvents(meter *MeteredProvider) func(Event) {
	out := app.stdout
	stream := app.Opts.OutputFormat == "stream-json"
	if stream && app.Opts.IncludePartialMessages {
		meter.partial = func(event map[string]any) {
			out.json(messageRecord{Type: "stream_event", Event: event, SessionID: app.Session.ID, UUID: newSessionID()})
		}
	}
	message := func(typ string, e Event, msg any, result any) {
		r := messageRecord{Type: typ, Message: msg, SessionID: app.Session.ID, UUID: newSessionID(), ToolUseResult: result}
		if result != nil {
			r.Timestamp = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
		}
		if e.ParentToolUseID != "" { // a subagent's, started by this task call
			r.ParentToolUseID = &e.ParentToolUseID
		}
		out.json(r)
	}
	return func(e Event) {
		switch {
		case e.Kind == EventNotice:
			fmt.Fprintln(app.stderr, e.Text)
		case stream && e.Kind == EventAssistant:
			_, _, last := meter.totals()
			msg := assistantMessage{ID: last.ID, Type: "message", Role: RoleAssistant,
				Model: cmp.Or(last.Model, app.Agent.ModelName()), Content: append([]Block(nil), e.Message.Content...), Usage: last.Usage}
			for i, b := range msg.Content { // the calls as Claude Code names them
				msg.Content[i].Name, msg.Content[i].Input = claudeCall(b.Name, b.Input, app.Workspace)
			}
			if last.StopReason != "" {
				msg.StopReason = &last.StopReason
			}
			message("assistant", e, msg, nil)
		case stream && e.Kind == EventCompact && e.ParentToolUseID == "":
			out.json(map[string]any{"type": "system", "subtype": "compact_boundary", "session_id": app.Session.ID, "uuid": newSessionID(),
				"compact_metadata": map[string]any{"trigger": e.Compaction.Trigger, "pre_tokens": e.Compaction.PreTokens}}) // where the conversation was compacted
		case stream && e.Kind == EventToolResults:
			for _, b := range e.Message.Content { // a line for each result, as Claude Code writes them
				result := b.Content
				if b.IsError {
					result = "Error: " + b.Content
				}
				message("user", e, Message{Role: RoleUser, Content: []Block{b}}, result)
			}
		}
	}
}

// streamEvents starts the Messages API events of reply id from model, as Claude Code streams them,
// passing its deltas on to onDelta; end, given the reply, adds its tool calls (their input in one piece),
// the stop reason and usage (message_delta), and message_stop.
func streamEvents(emit func(map[string]any), id, model, workspace string, onDelta func(Delta)) (func(Delta), func(ModelResponse)) {
	index, kind := -1, ""
	open := func(name string, block map[string]any) {
		if kind != "" {
			emit(map[string]any{"type": "content_block_stop", "index": index})
		}
		if index, kind = index+1, name; block != nil {
			emit(map[string]any{"type": "content_block_start", "index": index, "content_block": block})
		}
	}
	end := func(resp ModelResponse) {
		for _, b := range resp.Content {
			if b.Type == BlockToolUse {
				name, input := claudeCall(b.Name, b.Input, workspace)
				open(BlockToolUse, map[string]any{"type": BlockToolUse, "id": b.ID, "name": name, "input": map[string]any{}})
				emit(map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
			}
		}
		open("", nil)
		delta := map[string]any{"stop_reason": nil, "stop_sequence": nil}
		if resp.StopReason != "" {
			delta["stop_reason"] = resp.StopReason
		}
		emit(map[string]any{"type": "message_delta", "delta": delta, "usage": resp.Usage})
		emit(map[string]any{"type": "message_stop"})
	}
	emit(map[string]any{"type": "message_start", "message": assistantMessage{ID: id, Type: "message", Role: RoleAssistant, Model: model, Content: []Block{}}})
	if onDelta == nil {
		return nil, end // nobody shows this reply (a summary)
	}
	return func(d Delta) {
		if d.Kind == deltaUsage {
			onDelta(d)
			return
		}
		name := "text"
		if d.Kind == BlockThinking {
			name = "thinking"
		}
		if name != kind {
			open(name, map[string]any{"type": name, name: ""})
		}
		emit(map[string]any{"type": "content_block_delta", "index": index, "delta": map[string]any{"type": name + "_delta", name: d.Text}})
		onDelta(d)
	}, end
}

// MeteredProvider wraps the model to learn each reply's model, stop reason, usage and API time.
type MeteredProvider struct {
	Provider
	partial   func(event map[string]any) // takes the replies' streamed events; may be nil
	workspace string                     // where the calls' paths are, for Claude Code's absolute ones

	mu      sync.Mutex
	apiTime time.Duration
	usage   map[string]Usage // by the model that answered
	last    ModelResponse    // the latest reply, with the model that answered
	budget  float64          // dollars the session may spend; 0 is no limit
	spent   float64          // dollars spent in the session
}

// errBudgetSpent stops a session that has cost more than --max-budget-usd.
var errBudgetSpent = errors.New("the session has used up its budget (--max-budget-usd)")

// Stream calls the model and records the reply.
func (m *MeteredProvider) Stream(ctx context.Context, req ModelRequest, onDelta func(Delta)) (ModelResponse, error) {
	m.mu.Lock()
	over := m.budget > 0 && m.spent >= m.budget
	m.mu.Unlock()
	if over {
		return ModelResponse{}, errBudgetSpent
	}
	id, endReply := "msg_"+strings.ReplaceAll(newSessionID(), "-", ""), func(ModelResponse) {}
	if m.partial != nil {
		onDelta, endReply = streamEvents(m.partial, id, req.Model, m.workspace, onDelta)
	}
	start := time.Now()
	resp, err := m.Provider.Stream(ctx, req, onDelta)
	resp.ID = id
	endReply(resp)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.apiTime += time.Since(start)
	if err == nil {
		model := cmp.Or(resp.Model, req.Model)
		u := m.usage[model]
		u.Add(resp.Usage)
		m.usage[model] = u
		m.spent += costUSD(model, resp.Usage)
		m.last = resp
		m.last.Model = model
	}
	return resp, err
}

// reset starts counting a new task.
func (m *MeteredProvider) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.apiTime, m.usage, m.last = 0, map[string]Usage{}, ModelResponse{}
}

// totals returns the API time, usage by model and latest reply since the last reset.
func (m *MeteredProvider) totals() (time.Duration, map[string]Usage, ModelResponse) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.apiTime, maps.Clone(m.usage), m.last
}

// streamInputPrompt returns the prompt of a user message: its text blocks and images.
func streamInputPrompt(message json.RawMessage) (SlashPrompt, error) {
	var msg struct {
		Content json.RawMessage `json:"content"` // a string or a list of blocks
	}
	json.Unmarshal(message, &msg) // a message that is not an object has no content
	var text string
	var blocks []PromptBlock
	if json.Unmarshal(msg.Content, &text) == nil {
		blocks = []PromptBlock{{Type: BlockText, Text: text}}
	} else if json.Unmarshal(msg.Content, &blocks) != nil {
		return SlashPrompt{}, errors.New("message content must be a string or a list of blocks")
	}
	return promptOf(blocks), nil
}

// PromptBlock is a block of a user's message as a program sends it (an image as Anthropic's source) or an
// editor over ACP (an image's data, a link to a resource, a resource with its text).
type PromptBlock struct {
	Type, Text, Data, MimeType, URI, Name string
	Source                                *ImageSource
	Resource                              *struct{ URI, Text string }
}

// promptOf turns a message's blocks into a prompt: its text and images. A link to a file becomes an
// @mention, attached as read_file reads it (so permissions apply); a resource an editor embedded, an
// unsaved buffer say, is attached as it came; any other block is named as left out.
func promptOf(blocks []PromptBlock) SlashPrompt {
	var p SlashPrompt
	var texts []string
	var attached strings.Builder
	for _, b := range blocks {
		switch {
		case b.Type == BlockText:
			texts = append(texts, b.Text)
		case b.Type == BlockImage && b.Source != nil && (b.Source.Data != "" || b.Source.URL != ""):
			p.Images = append(p.Images, Block{Type: BlockImage, Source: b.Source})
		case b.Type == BlockImage && b.Data != "":
			p.Images = append(p.Images, Block{Type: BlockImage, Source: &ImageSource{Type: "base64", MediaType: b.MimeType, Data: b.Data}})
		case b.Type == "resource_link":
			texts = append(texts, resourceMention(b.URI, b.Name))
		case b.Type == "resource" && b.Resource != nil && b.Resource.Text != "":
			name := strings.TrimPrefix(resourceMention(b.Resource.URI, ""), "@")
			texts = append(texts, name)
			fmt.Fprintf(&attached, "\n\nContents of %s:\n%s", name, b.Resource.Text)
		default:
			texts = append(texts, fmt.Sprintf("[a %s block was left out: minicode passes on text, images and text resources]", b.Type))
		}
	}
	p.Prompt = strings.Join(texts, "\n") + attached.String()
	return p
}

// resourceMention names a resource in a prompt: a file as @path, anything else as a Markdown link.
func resourceMention(uri, name string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" && !strings.ContainsAny(u.Path, " \t\n") {
		return "@" + u.Path
	}
	return fmt.Sprintf("[%s](%s)", cmp.Or(name, uri), uri)
}

// observeHook writes stream-json's hook_started and hook_response lines for
// the SessionStart hooks, the only ones Claude Code writes them for.
func (app *App) observeHook(event HookEvent, name string) func(stdout, stderr string, err error) {
	if event != HookSessionStart || app.Opts.OutputFormat != "stream-json" {
		return func(string, string, error) {}
	}
	line := map[string]any{"type": "system", "subtype": "hook_started", "hook_id": newSessionID(), "hook_name": name, "hook_event": event,
		"uuid": newSessionID(), "session_id": app.Session.ID}
	app.stdout.json(line)
	return func(stdout, stderr string, err error) {
		code, outcome := 0, "success"
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			code = exit.ExitCode()
		}
		if err != nil {
			code, outcome = cmp.Or(code, 1), "error"
		}
		line["subtype"], line["uuid"], line["exit_code"], line["outcome"] = "hook_response", newSessionID(), code, outcome
		line["output"], line["stdout"], line["stderr"] = strings.TrimSpace(stdout+"\n"+stderr), stdout, stderr
		app.stdout.json(line)
	}
}
