package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Inputs of the helper tools that reach MCP resources and prompts.
type (
	// listMCPInput selects whose resources or prompts to list.
	listMCPInput struct {
		Server string `json:"server,omitempty" desc:"Only this MCP server (default: all servers)"`
	}
	// readMCPResourceInput names one resource.
	readMCPResourceInput struct {
		Server string `json:"server" validate:"required" desc:"The MCP server that has the resource"`
		URI    string `json:"uri" validate:"required" desc:"The resource URI, as listed by list_mcp_resources"`
	}
	// getMCPPromptInput names one prompt and its arguments.
	getMCPPromptInput struct {
		Server    string            `json:"server" validate:"required" desc:"The MCP server that has the prompt"`
		Name      string            `json:"name" validate:"required" desc:"The prompt name, as listed by list_mcp_prompts"`
		Arguments map[string]string `json:"arguments,omitempty" desc:"The prompt's arguments"`
	}
)

// mcpHelperTools builds the tools that list and read resources and list and get prompts.
func mcpHelperTools(m *MCPManager) []*Tool {
	list := func(kind, description string, format func(server string, item json.RawMessage) string) *Tool {
		return ToolDef[listMCPInput]{Name: "list_mcp_" + kind, Description: description, ReadOnly: true,
			Run: func(ctx context.Context, _ *ToolEnv, in listMCPInput) (ToolOutput, error) {
				return m.listEach(ctx, in.Server, kind+"/list", kind, format)
			}}.Tool()
	}
	return []*Tool{
		list("resources", "List the resources (files, records, documents) that connected MCP servers offer.", formatResource),
		ToolDef[readMCPResourceInput]{
			Name:        "read_mcp_resource",
			Description: "Read one resource from an MCP server by its URI.",
			Permission: func(_ *ToolEnv, in readMCPResourceInput) (PermissionRequest, error) {
				return PermissionRequest{Access: AccessExternal, Summary: fmt.Sprintf("read %s from MCP server %s", in.URI, in.Server)}, nil
			},
			Run: func(ctx context.Context, _ *ToolEnv, in readMCPResourceInput) (ToolOutput, error) {
				return m.readResource(ctx, in.Server, in.URI)
			},
		}.Tool(),
		list("prompts", "List the prompt templates that connected MCP servers offer.", formatPrompt),
		ToolDef[getMCPPromptInput]{
			Name:        "get_mcp_prompt",
			Description: "Fetch a prompt template from an MCP server, filled in with the given arguments.",
			Permission: func(_ *ToolEnv, in getMCPPromptInput) (PermissionRequest, error) {
				return PermissionRequest{Access: AccessExternal, Summary: fmt.Sprintf("get prompt %s from MCP server %s", in.Name, in.Server)}, nil
			},
			Run: func(ctx context.Context, _ *ToolEnv, in getMCPPromptInput) (ToolOutput, error) {
				return m.getPrompt(ctx, in.Server, in.Name, in.Arguments)
			},
		}.Tool(),
	}
}

// refreshHelpers registers the resource and prompt tools while some ready server offers them.
func (m *MCPManager) refreshHelpers() {
	var resources, prompts bool
	for _, srv := range m.list() {
		if sess := srv.view.Load().session; sess != nil {
			caps := sess.info.Load().Capabilities
			resources = resources || caps.Resources != nil
			prompts = prompts || caps.Prompts != nil
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range mcpHelperTools(m) {
		if resources && strings.Contains(t.Name, "resource") || prompts && strings.Contains(t.Name, "prompt") {
			m.reg.Add(t) // in the place of the same tool if it is there
		} else {
			m.reg.Remove(func(name string) bool { return name == t.Name })
		}
	}
}

// listEach runs a list method on the ready servers, or the named one, an item a line.
func (m *MCPManager) listEach(ctx context.Context, server, method, key string, format func(server string, item json.RawMessage) string) (ToolOutput, error) {
	var lines []string
	for _, srv := range m.list() {
		sess, err := srv.session()
		switch {
		case server != "" && srv.name != server, server == "" && err != nil:
			continue
		case err != nil:
			return ToolOutput{}, err
		}
		items, err := sess.listAll(ctx, method, key, srv.cfg.callTimeout())
		if err != nil {
			lines = append(lines, fmt.Sprintf("%s: %v", srv.name, err))
		}
		for _, item := range items {
			lines = append(lines, format(srv.name, item))
		}
	}
	if server != "" && m.server(server) == nil {
		return ToolOutput{}, m.unknownServer(server)
	}
	if len(lines) == 0 {
		return ToolOutput{Text: "(none)"}, nil
	}
	return ToolOutput{Text: strings.Join(lines, "\n")}, nil
}

// formatResource is one line of list_mcp_resources.
func formatResource(server string, item json.RawMessage) string {
	var r struct {
		URI, Name, MimeType, Description string
	}
	_ = json.Unmarshal(item, &r)
	line := fmt.Sprintf("%s: %s — %s", server, r.URI, r.Name)
	if r.MimeType != "" {
		line += " (" + r.MimeType + ")"
	}
	if r.Description != "" {
		line += ": " + firstLineOf(r.Description)
	}
	return line
}

// formatPrompt is one line of list_mcp_prompts.
func formatPrompt(server string, item json.RawMessage) string {
	var p struct {
		Name, Description string
		Arguments         []struct {
			Name     string
			Required bool
		}
	}
	_ = json.Unmarshal(item, &p)
	var args []string
	for _, a := range p.Arguments {
		if a.Required {
			args = append(args, a.Name)
		} else {
			args = append(args, a.Name+"?")
		}
	}
	line := fmt.Sprintf("%s: %s(%s)", server, p.Name, strings.Join(args, ", "))
	if p.Description != "" {
		line += " — " + firstLineOf(p.Description)
	}
	return line
}

// readResource reads one resource and renders its contents.
func (m *MCPManager) readResource(ctx context.Context, server, uri string) (ToolOutput, error) {
	var res struct {
		Contents []mcpContent `json:"contents"`
	}
	if err := m.callServer(ctx, server, "resources/read", map[string]any{"uri": uri}, &res); err != nil {
		return ToolOutput{}, fmt.Errorf("reading %s from %s: %w", uri, server, err)
	}
	var parts []string
	for _, c := range res.Contents {
		parts = append(parts, renderResource(c))
	}
	return ToolOutput{Text: strings.Join(parts, "\n")}, nil
}

// getPrompt fetches a prompt and renders its messages.
func (m *MCPManager) getPrompt(ctx context.Context, server, name string, args map[string]string) (ToolOutput, error) {
	params := map[string]any{"name": name}
	if len(args) > 0 {
		params["arguments"] = args
	}
	var res struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string     `json:"role"`
			Content mcpContent `json:"content"`
		} `json:"messages"`
	}
	if err := m.callServer(ctx, server, "prompts/get", params, &res); err != nil {
		return ToolOutput{}, fmt.Errorf("getting prompt %s from %s: %w", name, server, err)
	}
	parts := []string{res.Description}
	for _, msg := range res.Messages {
		parts = append(parts, msg.Role+": "+renderContent(msg.Content))
	}
	return ToolOutput{Text: strings.TrimSpace(strings.Join(parts, "\n\n"))}, nil
}

// callServer sends one request to the named ready server and decodes the result.
func (m *MCPManager) callServer(ctx context.Context, server, method string, params map[string]any, out any) error {
	srv := m.server(server)
	if srv == nil {
		return m.unknownServer(server)
	}
	sess, err := srv.session()
	if err != nil {
		return err
	}
	raw, err := sess.call(ctx, method, params, srv.cfg.callTimeout(), nil)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("bad result: %w", err)
	}
	return nil
}
