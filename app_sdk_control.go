package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
)

// initializeRequest is what a program sends first: how the session should be set up.
type initializeRequest struct {
	SystemPrompt       []string                 `json:"systemPrompt"`
	AppendSystemPrompt string                   `json:"appendSystemPrompt"`
	JSONSchema         json.RawMessage          `json:"jsonSchema"`
	Hooks              map[HookEvent][]struct { // the program's hook functions, by event
		Matcher         string   `json:"matcher"`
		HookCallbackIDs []string `json:"hookCallbackIds"`
		Timeout         float64  `json:"timeout"`
	} `json:"hooks"`
	SDKMCPServers []string            `json:"sdkMcpServers"`
	MCPServers    map[string]any      `json:"mcpServers"` // mcpServersDelivery "initialize": --mcp-config's servers, off the command line
	Agents        map[string]struct { // the subagents the program defines
		Description, Prompt, Model string
		Tools                      []string
	} `json:"agents"`
}

// control answers one control request of the program.
func (c *sdkConn) control(ctx context.Context, raw json.RawMessage) (any, error) {
	var head struct {
		Subtype       string      `json:"subtype"`
		Mode          string      `json:"mode"`
		Model         string      `json:"model"`
		Server        string      `json:"server_name"`
		Message       *RPCMessage `json:"message"`
		UserMessageID string      `json:"user_message_id"`
		DryRun        bool        `json:"dry_run"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("malformed request: %s", jsonError(err, nil, 0))
	}
	if !c.started && head.Subtype != "initialize" {
		// A session starts with initialize, or with a user message for a script that pipes
		// those alone (the session then is as the command line set it up): either comes first.
		return nil, fmt.Errorf("%s before initialize: send initialize first", head.Subtype)
	}
	app := c.app
	switch head.Subtype {
	case "initialize":
		return c.initialize(ctx, raw)
	case "interrupt":
		c.turn.interrupt()
		return map[string]any{}, nil
	case "set_permission_mode":
		m := PermissionMode(head.Mode) // SetMode checks the name
		if m == ModeBypass && !app.Opts.AllowSkipPermissions && app.Perms.Mode() != ModeBypass {
			return nil, errors.New("bypassPermissions needs --allow-dangerously-skip-permissions")
		}
		return map[string]any{}, app.Perms.SetMode(m)
	case "set_model":
		model := c.model
		if head.Model != "" && head.Model != "default" {
			model = resolveModelAlias(head.Model)
		}
		return map[string]any{}, app.useModel(model)
	case "mcp_status":
		return map[string]any{"mcpServers": c.mcpStatus()}, nil
	case "get_context_usage":
		u := app.Agent.ContextUsage()
		return map[string]any{"totalTokens": u.Tokens, "maxTokens": u.Window, "rawMaxTokens": u.Window, "percentage": u.Percent, "model": u.Model}, nil
	case "mcp_message":
		return map[string]any{}, c.mcpMessage(head.Server, head.Message)
	case "rewind_files":
		return app.rewindFiles(ctx, head.UserMessageID, head.DryRun), nil
	}
	return nil, fmt.Errorf("unsupported control request %q", head.Subtype)
}

// mcpStatus describes every MCP server for mcp_status: its state, why it failed, and its tools.
func (c *sdkConn) mcpStatus() []map[string]any {
	tools := c.app.Registry.Tools()
	return mapped(c.app.MCP.Status(), func(s ServerStatus) map[string]any {
		own := []map[string]string{}
		for _, t := range tools {
			if name, ok := strings.CutPrefix(t.Name, "mcp__"+s.Name+"__"); ok {
				own = append(own, map[string]string{"name": name})
			}
		}
		st := map[string]any{"name": s.Name, "status": sdkServerStatus(s.State), "tools": own}
		if s.Error != "" {
			st["error"] = s.Error
		}
		return st
	})
}

// initialize applies the program's setup and describes the session.
func (c *sdkConn) initialize(ctx context.Context, raw json.RawMessage) (any, error) {
	if c.started {
		return nil, errors.New("initialize comes first, before any user message, and once")
	}
	c.started = true
	var in initializeRequest
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("malformed initialize: %s", jsonError(err, nil, 0))
	}
	app := c.app
	if len(in.SystemPrompt) > 0 {
		app.Opts.SystemPrompt = strings.Join(in.SystemPrompt, "\n")
	}
	if in.AppendSystemPrompt != "" {
		app.Opts.AppendSystemPrompt = strings.TrimSpace(app.Opts.AppendSystemPrompt + "\n" + in.AppendSystemPrompt)
	}
	if len(in.JSONSchema) > 0 && !bytes.Equal(in.JSONSchema, []byte("null")) {
		if err := app.useJSONSchema(in.JSONSchema); err != nil {
			return nil, err
		}
	}
	app.Agent.System = app.systemPrompt()
	for name, a := range in.Agents {
		def := &AgentDef{Name: name, Description: a.Description, Prompt: a.Prompt, Model: resolveModelAlias(a.Model)}
		for _, t := range a.Tools {
			def.Tools = append(def.Tools, minicodeToolNames(t)...)
		}
		app.Subagents.Agents = slices.DeleteFunc(app.Subagents.Agents, func(a *AgentDef) bool { return a.Name == name })
		app.Subagents.Agents = append(app.Subagents.Agents, def)
	}
	c.registerHooks(in)
	c.serveMCP(ctx, in.SDKMCPServers)
	if err := c.addMCPServers(ctx, in.MCPServers); err != nil {
		return nil, err
	}
	return c.describe(in.MCPServers != nil), nil
}

// addMCPServers starts the servers of a program's initialize request as --mcp-config would (MCP_TIMEOUT applies alike).
func (c *sdkConn) addMCPServers(ctx context.Context, servers map[string]any) error {
	doc, _ := json.Marshal(map[string]any{"mcpServers": servers}) // decoded JSON always encodes
	configs, broken := parseMCPServers(doc, "the initialize request")
	for _, cfg := range configs {
		broken = append(broken, c.app.MCP.AddServer(ctx, cfg, nil))
	}
	return errors.Join(broken...)
}

// describe is the answer to initialize: what the session offers, and whether the request's MCP servers were applied.
func (c *sdkConn) describe(serversApplied bool) map[string]any {
	app := c.app
	commands := mapped(app.slashCommandList(), func(s SlashCommand) map[string]any {
		return map[string]any{"name": strings.TrimPrefix(s.name, "/"), "description": s.help, "argumentHint": ""}
	})
	agents := mapped(app.Subagents.Agents, func(a *AgentDef) map[string]any {
		return map[string]any{"name": a.Name, "description": a.Description, "model": a.Model}
	})
	models := mapped([]string{"sonnet", "opus", "haiku"}, func(alias string) map[string]any {
		return map[string]any{"value": alias, "resolvedModel": resolveModelAlias(alias), "displayName": alias, "description": resolveModelAlias(alias)}
	})
	return map[string]any{
		"commands": commands, "agents": agents, "models": models,
		"output_style": "default", "available_output_styles": []string{"default"},
		"account": map[string]any{"apiKeySource": app.apiKeySource()},
		"pid":     os.Getpid(), "mcp_servers_applied": serversApplied,
	}
}

// registerHooks adds the program's hook functions after the settings' hooks,
// called back with hook_callback and answered as a command hook's JSON output.
func (c *sdkConn) registerHooks(in initializeRequest) {
	config := HookSettings{}
	maps.Copy(config, c.app.Env.Hooks.Config)
	for event, matchers := range in.Hooks {
		for _, m := range matchers {
			hm := HookMatcher{Matcher: m.Matcher, source: "the program's initialize request"}
			for _, id := range m.HookCallbackIDs {
				call := func(ctx context.Context, input []byte) (string, error) {
					var in struct {
						ToolUseID string `json:"tool_use_id"`
					}
					json.Unmarshal(input, &in) // a missing id is fine
					resp, err := c.request(ctx, map[string]any{"subtype": "hook_callback", "callback_id": id,
						"input": json.RawMessage(input), "tool_use_id": in.ToolUseID})
					return string(resp), err
				}
				hm.Hooks = append(hm.Hooks, HookCommand{Type: "callback", Command: "callback " + id, Timeout: m.Timeout, call: call})
			}
			if err := hm.compile(); err != nil {
				c.app.notice(fmt.Sprintf("%s hook from the program: %v", event, err))
				continue
			}
			config[event] = append(slices.Clip(config[event]), hm)
		}
	}
	c.app.Env.Hooks.Config = config
}

// Ask puts a permission question to the program as can_use_tool, in Claude
// Code's tool names and keys, which allows (maybe changing the input) or denies.
func (c *sdkConn) Ask(ctx context.Context, p Prompt) (Answer, error) {
	tool, input := claudeCall(p.Request.Tool, json.RawMessage(cmp.Or(string(p.Request.Input), "{}")), c.app.Workspace)
	req := map[string]any{"subtype": "can_use_tool", "tool_name": tool, "input": input,
		"tool_use_id": p.Request.ToolUseID, "decision_reason": p.Reason, "title": p.Title,
		"permission_suggestions": []map[string]any{{"type": "addRules", "behavior": "allow", "destination": "session",
			"rules": []map[string]any{{"toolName": tool}}}}}
	if p.Request.Access == AccessRead && len(p.Request.Paths) > 0 {
		req["blocked_path"] = p.Request.Paths[0]
	}
	raw, err := c.request(ctx, req)
	if err != nil {
		return Answer{}, err
	}
	return permissionAnswer(raw, input, p.Request.Tool, "can_use_tool", c.turn.interrupt)
}

// permissionAnswer reads a program's answer to a permission question about a call of tool (minicode's name) with input
// (Claude Code's keys), as can_use_tool and a permission prompt tool give it; a denial that interrupts calls interrupt.
func permissionAnswer(raw, input json.RawMessage, tool, asked string, interrupt func()) (Answer, error) {
	var r struct {
		Behavior     string          `json:"behavior"`
		UpdatedInput json.RawMessage `json:"updatedInput"`
		Message      string          `json:"message"`
		Interrupt    bool            `json:"interrupt"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Answer{}, fmt.Errorf("malformed %s answer: %s", asked, jsonError(err, nil, 0))
	}
	switch r.Behavior {
	case "allow":
		a := Answer{Choice: ChoiceAllowOnce}
		if len(r.UpdatedInput) > 0 && !jsonEqual(r.UpdatedInput, input) {
			a.Input = string(minicodeInput(tool, r.UpdatedInput))
		}
		return a, nil
	case "deny":
		if r.Interrupt {
			interrupt()
		}
		return Answer{Choice: ChoiceDenyGuidance, Guidance: cmp.Or(r.Message, asked+" refused this call")}, nil
	}
	return Answer{}, fmt.Errorf("%s answer %q is neither allow nor deny", asked, r.Behavior)
}

// jsonEqual reports whether two JSON texts hold the same value.
func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// mcpApprover puts permission questions to an MCP tool, as Claude Code's --permission-prompt-tool
// mcp__server__tool does: the tool is given tool_name, input and tool_use_id, and answers as can_use_tool does, in text.
type mcpApprover struct {
	app  *App
	tool string
}

// Ask calls the tool directly (no permission check asks about it) and reads its answer.
func (m mcpApprover) Ask(ctx context.Context, p Prompt) (Answer, error) {
	tool, ok := m.app.Registry.Get(m.tool)
	if !ok {
		return Answer{}, fmt.Errorf("the permission prompt tool %s is not available (is its MCP server configured and running?)", m.tool)
	}
	name, input := claudeCall(p.Request.Tool, json.RawMessage(cmp.Or(string(p.Request.Input), "{}")), m.app.Workspace)
	args, _ := json.Marshal(map[string]any{"tool_name": name, "input": input, "tool_use_id": p.Request.ToolUseID})
	decoded, err := tool.Decode(args)
	var out ToolOutput
	if err == nil {
		out, err = tool.Run(ctx, m.app.Env, decoded)
	}
	if err == nil && out.IsError {
		err = errors.New(out.Text)
	}
	if err != nil {
		return Answer{}, fmt.Errorf("the permission prompt tool %s: %w", m.tool, err)
	}
	return permissionAnswer(json.RawMessage(out.Text), input, p.Request.Tool, m.tool, func() {})
}
