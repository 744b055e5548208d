package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// sdkMCPApp plays a program that runs MCP servers in its own process and
// answers minicode's mcp_message requests for them.
type sdkMCPApp struct {
	p     *sdkProcess
	tools map[string][]string // tool names by server
	calls []string            // "server tool arguments" of each tools/call
	lists []string            // the server of each tools/list
}

// serve answers mcp_message requests until stop accepts a line (asked
// after answering, for those), which it returns.
func (a *sdkMCPApp) serve(what string, stop func(map[string]any) bool) map[string]any {
	a.p.t.Helper()
	return a.p.await(what, func(m map[string]any) bool {
		if !isType("control_request", "mcp_message")(m) {
			return stop(m)
		}
		req := m["request"].(map[string]any)
		server, _ := req["server_name"].(string)
		var msg RPCMessage
		data, _ := json.Marshal(req["message"])
		json.Unmarshal(data, &msg)
		reply := map[string]any{"jsonrpc": "2.0", "id": msg.ID}
		switch msg.Method {
		case "initialize":
			reply["result"] = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": server, "version": "1"}}
		case "tools/list":
			a.lists = append(a.lists, server)
			var tools []any
			for _, name := range a.tools[server] {
				tools = append(tools, map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}})
			}
			reply["result"] = map[string]any{"tools": tools}
		case "tools/call":
			var call struct {
				Name      string
				Arguments json.RawMessage
			}
			json.Unmarshal(msg.Params, &call)
			a.calls = append(a.calls, server+" "+call.Name+" "+string(call.Arguments))
			reply["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": "the sum is 5"}}}
		default:
			reply = map[string]any{"jsonrpc": "2.0", "result": map[string]any{}, "id": 0}
		}
		a.p.reply(m["request_id"].(string), map[string]any{"mcp_response": reply})
		return stop(m)
	}, nil)
}

func TestSDKMCPServersOverTheControlChannel(t *testing.T) {
	step := 0
	srv, requests := anthropicServer(t, func(*http.Request, modelRequest) string {
		step++
		if step == 1 {
			return anthropicToolStream(Block{ID: "toolu_1", Name: "mcp__calc__add", Input: json.RawMessage(`{"a":2,"b":3}`)})
		}
		return anthropicTextStream("five", "end_turn")
	})
	p := startSDK(t, srv.URL, "--allowedTools=mcp__calc__add", `--mcp-config={"mcpServers":{"notes":{"type":"sdk","name":"notes"}}}`)
	app := &sdkMCPApp{p: p, tools: map[string][]string{"calc": {"add"}, "notes": {"note"}}}
	p.control("init", map[string]any{"subtype": "initialize", "sdkMcpServers": []string{"calc"}})
	p.user("add 2 and 3")
	init := app.serve("system/init", isType("system", "init"))
	tools, _ := json.Marshal(init["tools"])
	servers, _ := json.Marshal(init["mcp_servers"])
	for _, want := range []string{`"mcp__calc__add"`, `"mcp__notes__note"`} {
		if !strings.Contains(string(tools), want) {
			t.Errorf("init tools = %s, want %s", tools, want)
		}
	}
	if !strings.Contains(string(servers), `{"name":"calc","status":"connected"}`) || !strings.Contains(string(servers), `{"name":"notes","status":"connected"}`) {
		t.Errorf("init mcp_servers = %s, want calc and notes connected", servers)
	}
	if res := app.serve("the result", isType("result", "")); res["result"] != "five" {
		t.Errorf("result = %v", res)
	}
	if want := []string{`calc add {"a":2,"b":3}`}; !slices.Equal(app.calls, want) {
		t.Errorf("tools/call requests = %q, want %q", app.calls, want)
	}
	if out := toolResultsOf(requests()[1]); len(out) != 1 || out[0].Content != "the sum is 5" {
		t.Errorf("the model got %+v, want the app's tool result", out)
	}

	// The program's server says its tools changed: minicode lists them again.
	// The new tools/list may come before the acknowledgement.
	app.tools["calc"] = []string{"add", "sub"}
	lists := len(app.lists)
	p.send(map[string]any{"type": "control_request", "request_id": "changed", "request": map[string]any{"subtype": "mcp_message",
		"server_name": "calc", "message": map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}}})
	app.serve("the acknowledgement", isType("control_response", "success"))
	p.control("unknown", map[string]any{"subtype": "mcp_message", "server_name": "nobody", "message": map[string]any{"jsonrpc": "2.0", "method": "ping", "id": 1}})
	if r := app.serve("the refusal", isType("control_response", "error"))["response"].(map[string]any); !strings.Contains(r["error"].(string), "nobody") {
		t.Errorf("mcp_message for an unknown server: %v", r)
	}
	if len(app.lists) == lists {
		app.serve("tools/list after list_changed", func(map[string]any) bool { return len(app.lists) > lists })
	}
	if app.lists[len(app.lists)-1] != "calc" {
		t.Errorf("tools/list went to %q, want calc", app.lists)
	}
	// The new list is registered once the reply is read: mcp_status shows it.
	for i, deadline := 0, time.Now().Add(10*time.Second); ; i++ {
		p.control(fmt.Sprint("status", i), map[string]any{"subtype": "mcp_status"})
		status, _ := json.Marshal(app.serve("mcp_status", isType("control_response", "success"))["response"])
		if strings.Contains(string(status), `{"name":"calc","status":"connected","tools":[{"name":"add"},{"name":"sub"}]}`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mcp_status = %s, want calc with add and sub", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.user("and now?")
	app.serve("the second result", isType("result", ""))
	reqs := requests()
	if !slices.ContainsFunc(reqs[len(reqs)-1].Tools, func(t struct {
		Name string `json:"name"`
	}) bool {
		return t.Name == "mcp__calc__sub"
	}) {
		t.Errorf("the next request did not offer mcp__calc__sub: %+v", reqs[len(reqs)-1].Tools)
	}
	if code := p.finish(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

func TestMCPSDKServerWithoutAProgram(t *testing.T) {
	m := newMCPManager([]MCPServerConfig{{Name: "calc", Type: "sdk"}}, newRegistry(), MCPOptions{})
	defer m.Close()
	m.Start(t.Context())
	m.Wait(t.Context())
	if st := m.Status(); len(st) != 1 || st[0].State != MCPFailed || !strings.Contains(st[0].Error, "program driving minicode") {
		t.Errorf("status = %+v, want calc failed for want of a program", st)
	}
	if err := m.AddServer(t.Context(), MCPServerConfig{Name: "calc", Type: "sdk"}, &MCPSDK{server: "calc"}); err == nil {
		t.Error("AddServer took the name of a server that already runs")
	}
}

// TestSDKFirstTurnDoesNotWaitForStdioServers checks that a stdio MCP server
// that never answers tools/list holds back the first turn only for its
// startup timeout: init shows it pending and the model is asked.
func TestSDKFirstTurnDoesNotWaitForStdioServers(t *testing.T) {
	srv, _ := anthropicServer(t, func(*http.Request, modelRequest) string { return anthropicTextStream("hello there", "end_turn") })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"slow": map[string]any{"command": exe, "startupTimeoutMs": 1000,
		"env": map[string]string{fakeMCPEnv: "hanglist", "GORACE": "atexit_sleep_ms=0"}}}})
	p := startSDK(t, srv.URL, "--mcp-config="+string(cfg))
	p.control("init", map[string]any{"subtype": "initialize"})
	p.user("hi")
	init := p.await("system/init", isType("system", "init"), nil)
	if servers, _ := json.Marshal(init["mcp_servers"]); !strings.Contains(string(servers), `{"name":"slow","status":"pending"}`) {
		t.Errorf("init mcp_servers = %s, want slow pending", servers)
	}
	if res := p.await("the result", isType("result", ""), nil); res["result"] != "hello there" {
		t.Errorf("result = %v, want the model's answer", res)
	}
	p.finish()
}

// TestSDKSpeaksClaudeCodesToolNames checks the names an application sees:
// init lists Claude Code's tools, can_use_tool asks about Write with an
// absolute file_path (and suggests a Write rule), an updatedInput in those
// keys is translated back, and the assistant line shows the call as Write.
func TestSDKSpeaksClaudeCodesToolNames(t *testing.T) {
	srv, _ := anthropicServer(t, toolThenText("write_file", `{"path":"asked.txt","content":"model"}`, "written"))
	p := startSDK(t, srv.URL, "--permission-prompt-tool=stdio", "--max-turns=4")
	p.user("write it")
	var init, assistant map[string]any
	ask := p.await("can_use_tool", isType("control_request", "can_use_tool"), func(m map[string]any) {
		switch {
		case isType("system", "init")(m):
			init = m
		case m["type"] == "assistant":
			assistant = m
		}
	})
	var tools []string
	for _, name := range init["tools"].([]any) {
		tools = append(tools, name.(string))
	}
	for _, name := range []string{"Bash", "Read", "Write", "Edit", "MultiEdit", "Glob", "Grep", "WebFetch", "WebSearch", "TodoWrite"} {
		if !slices.Contains(tools, name) || slices.Contains(tools, "read_file") {
			t.Errorf("init tools %q, want %s and no minicode names", tools, name)
		}
	}
	content, _ := json.Marshal(assistant["message"].(map[string]any)["content"])
	if want := fmt.Sprintf(`"input":{"content":"model","file_path":%q},"name":"Write"`, filepath.Join(p.ws, "asked.txt")); !strings.Contains(string(content), want) {
		t.Errorf("assistant content %s, want %s", content, want)
	}
	req := ask["request"].(map[string]any)
	input, _ := json.Marshal(req["input"])
	suggested, _ := json.Marshal(req["permission_suggestions"])
	if req["tool_name"] != "Write" || string(input) != fmt.Sprintf(`{"content":"model","file_path":%q}`, filepath.Join(p.ws, "asked.txt")) ||
		!strings.Contains(string(suggested), `"toolName":"Write"`) {
		t.Fatalf("can_use_tool = %v", req)
	}
	p.reply(ask["request_id"].(string), map[string]any{"behavior": "allow", "updatedInput": map[string]any{"file_path": filepath.Join(p.ws, "chosen.txt"), "content": "app"}})
	res := p.await("the result", isType("result", ""), nil)
	if data, err := os.ReadFile(filepath.Join(p.ws, "chosen.txt")); err != nil || string(data) != "app" || res["subtype"] != "success" {
		t.Errorf("chosen.txt = %q (%v), result %v; want the app's input written", data, err, res)
	}
	if _, err := os.Stat(filepath.Join(p.ws, "asked.txt")); err == nil {
		t.Error("the model's file was written too")
	}
	p.finish()
}

// TestSDKMCPServersFromInitialize checks the Agent SDK's mcpServersDelivery
// "initialize": a stdio server given in the initialize request (after the
// --await-initialize flag), not on the command line, runs, its tools are in
// the first request, and the answer says the servers were applied.
func TestSDKMCPServersFromInitialize(t *testing.T) {
	srv, seen := anthropicServer(t, func(*http.Request, modelRequest) string { return anthropicTextStream("hello there", "end_turn") })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := startSDK(t, srv.URL, "--await-initialize")
	p.control("init", map[string]any{"subtype": "initialize", "mcpServers": map[string]any{"fake": map[string]any{"type": "stdio", "command": exe,
		"env": map[string]string{fakeMCPEnv: "ndjson", "GORACE": "atexit_sleep_ms=0"}}}})
	answer := p.await("the initialize answer", isType("control_response", "success"), nil)
	if applied := answer["response"].(map[string]any)["response"].(map[string]any)["mcp_servers_applied"]; applied != true {
		t.Errorf("initialize answer = %v, want mcp_servers_applied true", answer)
	}
	p.user("hi")
	init := p.await("system/init", isType("system", "init"), nil)
	if servers, _ := json.Marshal(init["mcp_servers"]); !strings.Contains(string(servers), `{"name":"fake","status":"connected"}`) {
		t.Errorf("init mcp_servers = %s, want fake connected", servers)
	}
	p.await("the result", isType("result", ""), nil)
	if tools := requestTools(seen()[0]); !slices.Contains(tools, "mcp__fake__echo") {
		t.Errorf("first request tools = %q, want mcp__fake__echo", tools)
	}
	p.finish()
}
