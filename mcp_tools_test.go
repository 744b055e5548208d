package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRenderToolResult(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, result, want string
	}{
		{"text as is", `{"content":[{"type":"text","text":"hello\nworld"}]}`, "hello\nworld"},
		{"image", `{"content":[{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}]}`, "[image image/png, 5 bytes]"},
		{"audio", `{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"}]}`, "[audio audio/wav, 3 bytes]"},
		{"resource link", `{"content":[{"type":"resource_link","uri":"file:///a.txt","name":"a.txt"}]}`, "[resource link: a.txt file:///a.txt]"},
		{"embedded text resource", `{"content":[{"type":"resource","resource":{"uri":"mem://x","mimeType":"text/plain","text":"body"}}]}`, "[resource mem://x]\nbody"},
		{"embedded blob", `{"content":[{"type":"resource","resource":{"uri":"mem://b","mimeType":"application/zip","blob":"AAAA"}}]}`, "[resource mem://b application/zip, 3 bytes]"},
		{"structured only", `{"content":[],"structuredContent":{"t":21}}`, "{\n  \"t\": 21\n}"},
		{"structured beside text", `{"content":[{"type":"text","text":"21 degrees"}],"structuredContent":{"t":21}}`, "21 degrees"},
		{"structured beside an image", `{"content":[{"type":"image","data":"","mimeType":"image/gif"}],"structuredContent":[1]}`, "[image image/gif, 0 bytes]\n[\n  1\n]"},
		{"mixed", `{"content":[{"type":"text","text":"a"},{"type":"image","data":"AA==","mimeType":"image/png"},{"type":"text","text":"b"}]}`, "a\n[image image/png, 1 bytes]\nb"},
		{"unknown type", `{"content":[{"type":"hologram"}]}`, "[hologram content]"},
		{"empty", `{"content":[]}`, "(the tool returned no content)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var res mcpToolResult
			if err := json.Unmarshal([]byte(c.result), &res); err != nil {
				t.Fatal(err)
			}
			if got := renderToolResult(res); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestDecodeMCPInput(t *testing.T) {
	t.Parallel()
	// Only the shape is checked: the server validates the fields.
	cases := []struct {
		input, want, wantErr string
	}{
		{`{"path":"a","count":2}`, `{"path":"a","count":2}`, ""},
		{` {"path":1,"extra":[true]} `, `{"path":1,"extra":[true]}`, ""},
		{``, `{}`, ""},
		{`[1]`, "", "the arguments must be a JSON object"},
		{`null`, "", "the arguments must be a JSON object"},
		{`"text"`, "", "the arguments must be a JSON object"},
		{`{"path":`, "", "the arguments must be a JSON object"},
	}
	for _, c := range cases {
		got, err := decodeMCPInput(json.RawMessage(c.input))
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if c.wantErr != "" && !strings.Contains(gotErr, c.wantErr) || c.wantErr == "" && (err != nil || string(got.(json.RawMessage)) != c.want) {
			t.Errorf("decode(%q) = %q, %q; want %q, %q", c.input, got, gotErr, c.want, c.wantErr)
		}
	}
}

func TestMCPToolName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		server, tool, want string
	}{
		{"github", "create_issue", "mcp__github__create_issue"},
		{"my server", "do.thing/now", "mcp__my_server__do_thing_now"},
		{"s", strings.Repeat("x", 80), "mcp__s__" + strings.Repeat("x", 56)},
	}
	for _, c := range cases {
		if got := mcpToolName(c.server, c.tool); got != c.want {
			t.Errorf("mcpToolName(%q, %q) = %q, want %q", c.server, c.tool, got, c.want)
		}
	}
	taken := map[string]bool{"a": true, "a_2": true, strings.Repeat("y", 64): true}
	for name, want := range map[string]string{"b": "b", "a": "a_3", strings.Repeat("y", 64): strings.Repeat("y", 62) + "_2"} {
		if got := uniqueToolName(name, func(n string) bool { return taken[n] }); got != want {
			t.Errorf("uniqueToolName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestMCPToolNameCollisions(t *testing.T) {
	t.Parallel()
	// "a.b" and "a_b" both sanitise to mcp__a_b__...; the second server to
	// register gets suffixed names and a warning. A built-in is never replaced.
	builtin := &Tool{Name: "mcp__a_b__echo"}
	reg := newRegistry(builtin)
	m := newMCPManager([]MCPServerConfig{fakeStdioConfig(t, "a.b", "ndjson")}, reg, MCPOptions{})
	m.Start(t.Context())
	m.Wait(t.Context())
	t.Cleanup(m.Close)
	if got, _ := reg.Get("mcp__a_b__echo"); got != builtin {
		t.Error("an MCP tool replaced a tool of the same name")
	}
	if _, ok := reg.Get("mcp__a_b__echo_2"); !ok {
		t.Errorf("no suffixed tool; have %q", reg.names())
	}
	st := m.Status()[0]
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], `"echo" is registered as mcp__a_b__echo_2`) {
		t.Errorf("warnings = %q", st.Warnings)
	}
	if !strings.Contains(m.SlashCommand(t.Context(), ""), "warning: tool \"echo\"") {
		t.Error("/mcp does not show the collision")
	}
}

func TestMCPToolPermission(t *testing.T) {
	t.Parallel()
	srv := &MCPServer{name: "gh"}
	tool := newMCPTool(srv, "mcp__gh__create", mcpToolInfo{Name: "create", Description: "Create it"})
	in, err := tool.Decode(json.RawMessage(`{"title":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	req, err := tool.Permission(nil, in)
	if err != nil || req.Access != AccessExternal || req.Summary != `call create on MCP server gh with {"title":"x"}` {
		t.Errorf("permission = %+v, %v", req, err)
	}
	if tool.ReadOnly {
		t.Error("an MCP tool is read-only; annotations must not be trusted")
	}
	if !strings.Contains(string(tool.Schema), `"type":"object"`) || tool.Description != "[MCP server gh] Create it" {
		t.Errorf("schema %s, description %q", tool.Schema, tool.Description)
	}
}
