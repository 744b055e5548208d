package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// acpSession is one session of an ACP connection: an App in the client's folder, whose journal is the session's, and
// its running turn. It answers the App's permission questions and gives the file tools the editor's buffers (acp_tools.go).
type acpSession struct {
	conn    *acpConn
	app     *App
	id      string
	meter   *MeteredProvider // the model calls, for the stop reason
	servers []string         // the client's MCP servers, which a prompt waits for
	turn    turnControl      // the running prompt, which session/cancel cancels
	mode    atomic.Value     // the PermissionMode the client last heard of

	mu      sync.Mutex
	changes map[string]acpDiff // what running edits wrote, by path, for their tool_call_update

	streamed bool // the reply's text went out as chunks (the turn's goroutine only)
}

// acpModes are the permission modes a client can switch to, with their names.
var acpModes = []struct {
	id   PermissionMode
	name string
}{{ModeDefault, "Default"}, {ModeAcceptEdits, "Accept edits"}, {ModePlan, "Plan"}, {ModeBypass, "Bypass permissions"}, {ModeDontAsk, "Don't ask"}}

// acpMCPServer is an MCP server as a client names it: a command (stdio) or a URL (http, sse).
type acpMCPServer struct {
	Type, Name, Command, URL string
	Args                     []string
	Env, Headers             []struct{ Name, Value string }
}

// openSession starts a session in the client's folder, or with session/load the saved session named, whose history
// it replays; the client's MCP servers start as those of --mcp-config do, under the same rules.
func (c *acpConn) openSession(load bool, params json.RawMessage) (*acpSession, error) {
	var p struct {
		CWD        string         `json:"cwd"`
		SessionID  string         `json:"sessionId"`
		MCPServers []acpMCPServer `json:"mcpServers"`
	}
	if err := acpParams(params, &p, append([]string{"cwd"}, map[bool][]string{true: {"sessionId"}}[load]...)...); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p.CWD) || c.sessions[p.SessionID] != nil {
		return nil, invalidParams("cwd %q must be an absolute path, and session %q not open already", p.CWD, p.SessionID)
	}
	opts := c.opts
	opts.Workspace, opts.Resume, opts.SessionID, opts.Continue, opts.ResumePick, opts.ForkSession = p.CWD, p.SessionID, "", false, false, false
	var names []string
	if len(p.MCPServers) > 0 {
		opts.MCPConfig = append(slices.Clone(opts.MCPConfig), acpMCPConfig(p.MCPServers, &names))
	}
	app, err := newApp(c.life, opts, strings.NewReader(""), c.stderr, c.stderr, c.getenv)
	if err != nil { // the folder, the saved session or the settings there
		return nil, invalidParams("%v", err)
	}
	s := &acpSession{conn: c, app: app, id: app.Session.ID, servers: names, changes: map[string]acpDiff{}}
	s.mode.Store(app.Perms.Mode())
	s.meter = &MeteredProvider{Provider: app.Agent.Provider, usage: map[string]Usage{}, budget: app.Opts.MaxBudgetUSD}
	app.Agent.Provider, app.Agent.Emit, app.asker, app.Env.Files = s.meter, s.event, s, s
	if load {
		s.replay(app.Session.View())
	}
	c.sessions[s.id] = s
	return s, nil
}

// acpMCPConfig writes a client's MCP servers as a --mcp-config value, adding their names to names.
func acpMCPConfig(list []acpMCPServer, names *[]string) string {
	pairs := func(list []struct{ Name, Value string }) map[string]string {
		m := map[string]string{}
		for _, kv := range list {
			m[kv.Name] = kv.Value
		}
		return m
	}
	servers := map[string]MCPServerConfig{}
	for _, s := range list {
		servers[s.Name] = MCPServerConfig{Type: s.Type, Command: s.Command, Args: s.Args, Env: pairs(s.Env), URL: s.URL, Headers: pairs(s.Headers)}
		*names = append(*names, s.Name)
	}
	config, _ := json.Marshal(map[string]any{"mcpServers": servers}) // strings only
	return string(config)
}

// MarshalJSON is the answer to session/new and session/load: the session's id and its modes.
func (s *acpSession) MarshalJSON() ([]byte, error) {
	var modes []map[string]string
	for _, m := range acpModes {
		modes = append(modes, map[string]string{"id": string(m.id), "name": m.name, "description": modeMeanings[m.id]})
	}
	mode := s.app.Perms.Mode() // the client hears of it only now, before any turn
	return json.Marshal(map[string]any{"sessionId": s.id, "modes": map[string]any{"currentModeId": mode, "availableModes": modes}})
}

// setMode switches the permission mode (session/set_mode), as /permissions MODE does.
func (s *acpSession) setMode(params json.RawMessage) (any, error) {
	var p struct {
		ModeID PermissionMode `json:"modeId"`
	}
	if err := acpParams(params, &p, "modeId"); err != nil {
		return nil, err
	} else if p.ModeID == "" || s.app.Perms.SetMode(p.ModeID) != nil {
		return nil, invalidParams("modeId %q is not a mode of minicode (default, acceptEdits, plan, bypassPermissions, dontAsk)", p.ModeID)
	}
	s.mode.Store(p.ModeID)
	return map[string]any{}, nil
}

// commands are the slash commands offered: all but those that leave or switch sessions, which the client does.
func (s *acpSession) commands() []SlashCommand {
	return slices.DeleteFunc(s.app.slashCommandList(), func(c SlashCommand) bool { return slices.Contains([]string{"exit", "resume", "new", "fork"}, c.name) })
}

// announceCommands sends the slash commands and skills as an available_commands_update.
func (s *acpSession) announceCommands() {
	list := mapped(s.commands(), func(c SlashCommand) map[string]string {
		return map[string]string{"name": c.name, "description": c.help}
	})
	s.update(map[string]any{"sessionUpdate": "available_commands_update", "availableCommands": list})
}

// replay sends a loaded session's history as the updates it was made of.
func (s *acpSession) replay(history []Message) {
	calls := map[string]Block{}
	for _, m := range history {
		for _, b := range m.Content {
			switch {
			case m.Role == RoleUser && b.Type == BlockText:
				s.chunk("user_message_chunk", b.Text)
			case b.Type == BlockText, b.Type == BlockThinking:
				s.chunk(map[string]string{BlockText: "agent_message_chunk", BlockThinking: "agent_thought_chunk"}[b.Type], b.Text+b.Thinking)
			case b.Type == BlockToolUse:
				calls[b.ID] = b
				s.event(Event{Kind: EventToolStart, Call: &b})
			case b.Type == BlockToolResult:
				call := calls[b.ToolUseID]
				s.event(Event{Kind: EventToolEnd, Call: &call, Result: &b})
			}
		}
	}
}

// update sends one session/update notification.
func (s *acpSession) update(u map[string]any) {
	s.conn.notify("session/update", map[string]any{"sessionId": s.id, "update": u})
}

// prompt runs one prompt turn as -p runs its task (a slash command, or a turn for the prompt, a custom
// command's or skill's or the text with its @files attached) and answers with how the turn ended.
func (s *acpSession) prompt(params json.RawMessage) (any, error) {
	var p struct {
		Prompt []PromptBlock `json:"prompt"`
	}
	if err := acpParams(params, &p, "prompt"); err != nil {
		return nil, err
	}
	ctx, done, ok := s.turn.start(s.conn.life)
	if !ok {
		return nil, &RPCError{Code: rpcInvalidRequest, Message: "a prompt is running in this session already; cancel it first (session/cancel)"}
	}
	defer done()
	app := s.app
	if len(s.servers) > 0 {
		app.MCP.Wait(ctx, s.servers...) // ready or failed: the client's servers are part of the session
	}
	history := app.Session.View()
	sp, out, err := app.taskPrompt(ctx, promptOf(p.Prompt), s.commands(), &history)
	s.chunk("agent_message_chunk", out)
	if err != nil {
		s.chunk("agent_message_chunk", "error: "+err.Error())
	}
	if err != nil || sp == nil {
		return map[string]string{"stopReason": "end_turn"}, nil
	}
	s.meter.reset()
	res := app.runPrompt(ctx, history, *sp)
	_, _, last := s.meter.totals()
	reason := "end_turn"
	switch {
	case ctx.Err() != nil || res.End == EndCancelled:
		reason = "cancelled"
	case res.End == EndError:
		return nil, &RPCError{Code: rpcInternalError, Message: res.Text}
	case res.End == EndMaxSteps:
		reason = "max_turn_requests"
	case last.StopReason == StopRefusal, last.StopReason == StopMaxTokens:
		reason = last.StopReason
	}
	if res.End == EndMaxSteps || res.End == EndProgressCap || res.End == EndBlocked {
		s.chunk("agent_message_chunk", res.Text) // why the turn stopped, which no reply says
	}
	return map[string]string{"stopReason": reason}, nil
}

// event turns an event of the loop into session updates: streamed text and thinking (the main agent's),
// each tool call with its outcome (a subagent's too, as the client may be asked about it), the todo list
// as the plan, and a mode minicode switched to itself; notices go to stderr.
func (s *acpSession) event(e Event) {
	sub := e.ParentToolUseID != ""
	switch {
	case e.Kind == EventTextDelta && !sub:
		s.streamed = true
		s.chunk("agent_message_chunk", e.Text)
	case e.Kind == EventThinkingDelta && !sub:
		s.chunk("agent_thought_chunk", e.Text)
	case e.Kind == EventAssistant && !sub:
		if !s.streamed { // an answer that was not streamed, such as ask_user's question
			s.chunk("agent_message_chunk", e.Message.Text())
		}
		s.streamed = false
	case e.Kind == EventToolStart && e.Call.Name != "todo_write":
		s.update(s.toolCall(*e.Call))
	case e.Kind == EventToolEnd && e.Call.Name == "todo_write":
		if !e.Result.IsError {
			s.update(acpPlan(e.Call.Input))
		}
	case e.Kind == EventToolEnd:
		s.update(s.toolDone(*e.Call, *e.Result))
		if mode := s.app.Perms.Mode(); s.mode.Swap(mode) != mode {
			s.update(map[string]any{"sessionUpdate": "current_mode_update", "currentModeId": mode})
		}
	case e.Kind == EventNotice, e.Kind == EventCompact:
		fmt.Fprintln(s.conn.stderr, e.Text)
	}
}

// chunk sends text, if any, as a chunk of kind: agent_message_chunk, agent_thought_chunk or user_message_chunk.
func (s *acpSession) chunk(kind, text string) {
	if text != "" {
		s.update(map[string]any{"sessionUpdate": kind, "content": map[string]string{"type": "text", "text": text}})
	}
}

// textContent is text as the content of a tool call.
func textContent(text string) map[string]any {
	return map[string]any{"type": "content", "content": map[string]string{"type": "text", "text": text}}
}
