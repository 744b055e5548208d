package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Limits on tool names, pages and calls that report progress (mcpHardMaxFactor call timeouts).
const (
	maxToolNameLen   = 64
	maxListPages     = 1000
	mcpHardMaxFactor = 10
)

// mcpToolInfo is one tool as a server declares it in tools/list.
type mcpToolInfo struct {
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// mcpContent is one item of a tool result, a prompt message or a resource.
type mcpContent struct {
	Type     string      `json:"type"`
	Text     string      `json:"text"`
	Data     string      `json:"data"`
	MimeType string      `json:"mimeType"`
	URI      string      `json:"uri"`
	Name     string      `json:"name"`
	Blob     string      `json:"blob"`
	Resource *mcpContent `json:"resource"` // the embedded resource of a "resource" item
}

// mcpToolResult is the result of tools/call.
type mcpToolResult struct {
	Content           []mcpContent    `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// listAll runs a paginated list method and returns the items under key.
func (s *mcpSession) listAll(ctx context.Context, method, key string, timeout time.Duration) ([]json.RawMessage, error) {
	var items []json.RawMessage
	var params map[string]any
	seen := map[string]bool{}
	for range maxListPages {
		raw, err := s.call(ctx, method, params, timeout, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, fmt.Errorf("%s: bad result: %w", method, err)
		}
		var list []json.RawMessage
		if err := json.Unmarshal(res[key], &list); err != nil && res[key] != nil {
			return nil, fmt.Errorf("%s: bad %s: %w", method, key, err)
		}
		items = append(items, list...)
		var next string
		_ = json.Unmarshal(res["nextCursor"], &next)
		switch {
		case next == "":
			return items, nil
		case seen[next]:
			return nil, fmt.Errorf("%s: the server repeated cursor %q", method, next)
		}
		seen[next], params = true, map[string]any{"cursor": next}
	}
	return nil, fmt.Errorf("%s: more than %d pages", method, maxListPages)
}

// listTools returns every tool the server offers.
func (s *mcpSession) listTools(ctx context.Context, timeout time.Duration) ([]mcpToolInfo, error) {
	items, err := s.listAll(ctx, "tools/list", "tools", timeout)
	if err != nil {
		return nil, err
	}
	tools := make([]mcpToolInfo, 0, len(items))
	for _, item := range items {
		var t mcpToolInfo
		if err := json.Unmarshal(item, &t); err != nil || t.Name == "" {
			return nil, fmt.Errorf("tools/list: bad tool %s", cutBytes(string(item), 200, "..."))
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// callTool runs one tool and returns its result as the model should read it.
func (s *mcpSession) callTool(ctx context.Context, tool string, args json.RawMessage, timeout time.Duration, onProgress func(MCPProgress)) (ToolOutput, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	ctx, cancel := context.WithTimeout(ctx, mcpHardMaxFactor*timeout)
	defer cancel()
	progress := func(p MCPProgress) {
		p.Tool = tool
		if onProgress != nil {
			onProgress(p)
		}
	}
	raw, err := s.call(ctx, "tools/call", map[string]any{"name": tool, "arguments": args}, timeout, progress)
	if err != nil {
		return ToolOutput{}, fmt.Errorf("MCP tool %s on %s: %w", tool, s.server, err)
	}
	var res mcpToolResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return ToolOutput{}, fmt.Errorf("MCP tool %s on %s: bad result: %w", tool, s.server, err)
	}
	return ToolOutput{Text: renderToolResult(res), IsError: res.IsError}, nil
}

// renderToolResult turns a tool result into text for the model, structured content when no text.
func renderToolResult(res mcpToolResult) string {
	var parts []string
	for _, c := range res.Content {
		parts = append(parts, renderContent(c))
	}
	hasText := slices.ContainsFunc(res.Content, func(c mcpContent) bool { return c.Type == "text" })
	if !hasText && len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		var out bytes.Buffer
		if json.Indent(&out, res.StructuredContent, "", "  ") == nil {
			parts = append(parts, out.String())
		}
	}
	if len(parts) == 0 {
		return "(the tool returned no content)"
	}
	return strings.Join(parts, "\n")
}

// renderContent describes one content item.
func renderContent(c mcpContent) string {
	switch c.Type {
	case "text":
		return c.Text
	case "image", "audio":
		return fmt.Sprintf("[%s %s, %d bytes]", c.Type, c.MimeType, base64Len(c.Data))
	case "resource_link":
		return fmt.Sprintf("[resource link: %s %s]", c.Name, c.URI)
	case "resource":
		if c.Resource == nil {
			return "[resource without contents]"
		}
		return renderResource(*c.Resource)
	}
	return fmt.Sprintf("[%s content]", c.Type)
}

// renderResource shows a resource's text with its URI, or describes a blob.
func renderResource(r mcpContent) string {
	if r.Blob != "" || r.Text == "" && r.MimeType != "" && !strings.HasPrefix(r.MimeType, "text/") {
		return fmt.Sprintf("[resource %s %s, %d bytes]", r.URI, r.MimeType, base64Len(r.Blob))
	}
	return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
}

// base64Len is the decoded size of base64 data.
func base64Len(data string) int {
	return base64.RawStdEncoding.DecodedLen(len(strings.TrimRight(data, "=")))
}

// nonNameChars matches what a tool name may not contain.
var nonNameChars = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// mcpToolName is a tool's registry name: mcp__<server>__<tool>, sanitised, at most 64 characters.
func mcpToolName(server, tool string) string {
	name := "mcp__" + nonNameChars.ReplaceAllString(server, "_") + "__" + nonNameChars.ReplaceAllString(tool, "_")
	return name[:min(len(name), maxToolNameLen)]
}

// uniqueToolName returns name, or name with a numeric suffix if taken.
func uniqueToolName(name string, taken func(string) bool) string {
	candidate := name
	for i := 2; taken(candidate); i++ {
		suffix := fmt.Sprintf("_%d", i)
		candidate = name[:min(len(name), maxToolNameLen-len(suffix))] + suffix
	}
	return candidate
}

// newMCPTool builds a server tool's registry entry, whose calls ask for external access.
func newMCPTool(srv *MCPServer, name string, info mcpToolInfo) *Tool {
	schema := info.InputSchema
	if len(bytes.TrimSpace(schema)) == 0 || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return &Tool{
		Name:        name,
		Description: cutBytes(fmt.Sprintf("[MCP server %s] %s", srv.name, cmp.Or(info.Description, info.Title)), 4000, "..."),
		Schema:      schema,
		Timeout:     mcpHardMaxFactor * srv.cfg.callTimeout(),
		Decode:      decodeMCPInput,
		Permission: func(_ *ToolEnv, input any) (PermissionRequest, error) {
			args, _ := input.(json.RawMessage)
			return PermissionRequest{Access: AccessExternal,
				Summary: fmt.Sprintf("call %s on MCP server %s with %s", info.Name, srv.name, cutBytes(string(args), 200, "..."))}, nil
		},
		Run: func(ctx context.Context, _ *ToolEnv, input any) (ToolOutput, error) {
			sess, err := srv.session()
			if err != nil {
				return ToolOutput{}, err
			}
			return sess.callTool(ctx, info.Name, input.(json.RawMessage), srv.cfg.callTimeout(), srv.m.opts.OnProgress)
		},
	}
}

// decodeMCPInput checks that the arguments are a JSON object (none: {}); the server checks the rest.
func decodeMCPInput(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal(raw, &args); err != nil || args == nil {
		return nil, errors.New("invalid input: the arguments must be a JSON object")
	}
	return raw, nil
}

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
			Run: m.readResource,
		}.Tool(),
		list("prompts", "List the prompt templates that connected MCP servers offer.", formatPrompt),
		ToolDef[getMCPPromptInput]{
			Name:        "get_mcp_prompt",
			Description: "Fetch a prompt template from an MCP server, filled in with the given arguments.",
			Permission: func(_ *ToolEnv, in getMCPPromptInput) (PermissionRequest, error) {
				return PermissionRequest{Access: AccessExternal, Summary: fmt.Sprintf("get prompt %s from MCP server %s", in.Name, in.Server)}, nil
			},
			Run: m.getPrompt,
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
	if _, err := m.server(server); server != "" && err != nil {
		return ToolOutput{}, err
	}
	return ToolOutput{Text: cmp.Or(strings.Join(lines, "\n"), "(none)")}, nil
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
		line += ": " + firstLine(r.Description, 200)
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
		if !a.Required {
			a.Name += "?"
		}
		args = append(args, a.Name)
	}
	line := fmt.Sprintf("%s: %s(%s)", server, p.Name, strings.Join(args, ", "))
	if p.Description != "" {
		line += " — " + firstLine(p.Description, 200)
	}
	return line
}

// readResource runs read_mcp_resource: it reads one resource and renders its contents.
func (m *MCPManager) readResource(ctx context.Context, _ *ToolEnv, in readMCPResourceInput) (ToolOutput, error) {
	var res struct {
		Contents []mcpContent `json:"contents"`
	}
	if err := m.callServer(ctx, in.Server, "resources/read", map[string]any{"uri": in.URI}, &res); err != nil {
		return ToolOutput{}, fmt.Errorf("reading %s from %s: %w", in.URI, in.Server, err)
	}
	var parts []string
	for _, c := range res.Contents {
		parts = append(parts, renderResource(c))
	}
	return ToolOutput{Text: strings.Join(parts, "\n")}, nil
}

// getPrompt runs get_mcp_prompt: it fetches a prompt and renders its messages.
func (m *MCPManager) getPrompt(ctx context.Context, _ *ToolEnv, in getMCPPromptInput) (ToolOutput, error) {
	params := map[string]any{"name": in.Name}
	if len(in.Arguments) > 0 {
		params["arguments"] = in.Arguments
	}
	var res struct {
		Description string `json:"description"`
		Messages    []struct {
			Role    string     `json:"role"`
			Content mcpContent `json:"content"`
		} `json:"messages"`
	}
	if err := m.callServer(ctx, in.Server, "prompts/get", params, &res); err != nil {
		return ToolOutput{}, fmt.Errorf("getting prompt %s from %s: %w", in.Name, in.Server, err)
	}
	parts := []string{res.Description}
	for _, msg := range res.Messages {
		parts = append(parts, msg.Role+": "+renderContent(msg.Content))
	}
	return ToolOutput{Text: strings.TrimSpace(strings.Join(parts, "\n\n"))}, nil
}

// callServer sends one request to the named ready server and decodes the result.
func (m *MCPManager) callServer(ctx context.Context, server, method string, params map[string]any, out any) error {
	srv, err := m.server(server)
	if err != nil {
		return err
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
