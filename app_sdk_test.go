package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sdkArgs is the command line the Agent SDK starts its engine with.
var sdkArgs = []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}

// sdkProcess is minicode run as the Agent SDK runs it: flags as the SDK
// writes them, JSON lines on a pipe in both directions.
type sdkProcess struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan map[string]any
	ws    string
}

// startSDK starts minicode in a fresh workspace against the model at url.
func startSDK(t *testing.T, url string, args ...string) *sdkProcess {
	t.Helper()
	ws := t.TempDir()
	cmd := exec.Command(minicodeBinary(t), append(append([]string{}, sdkArgs...), args...)...)
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + t.TempDir(),
		"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + url, "CLAUDE_CODE_ENTRYPOINT=sdk-ts"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &sdkProcess{t: t, cmd: cmd, stdin: stdin, lines: make(chan map[string]any, 100), ws: ws}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"type": "not-json", "text": sc.Text()}
			}
			p.lines <- m
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return p
}

// send writes one JSON line to minicode.
func (p *sdkProcess) send(v any) {
	p.t.Helper()
	data, _ := json.Marshal(v)
	if _, err := p.stdin.Write(append(data, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// user sends a user message.
func (p *sdkProcess) user(text string) {
	p.send(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
}

// control sends a control request.
func (p *sdkProcess) control(id string, request map[string]any) {
	p.send(map[string]any{"type": "control_request", "request_id": id, "request": request})
}

// reply answers one of minicode's control requests.
func (p *sdkProcess) reply(id string, response any) {
	p.send(map[string]any{"type": "control_response", "response": map[string]any{"subtype": "success", "request_id": id, "response": response}})
}

// await returns the next line that want accepts, failing the test if
// none comes; lines it skips are passed to seen (which may be nil).
func (p *sdkProcess) await(what string, want func(map[string]any) bool, seen func(map[string]any)) map[string]any {
	p.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("minicode ended before %s", what)
			}
			if want(m) {
				return m
			}
			if seen != nil {
				seen(m)
			}
		case <-deadline:
			p.t.Fatalf("no %s within 20s", what)
		}
	}
}

// isType matches lines by type (and subtype, for control messages the
// request's subtype).
func isType(typ, subtype string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		if m["type"] != typ {
			return false
		}
		if subtype == "" {
			return true
		}
		if req, ok := m["request"].(map[string]any); ok {
			return req["subtype"] == subtype
		}
		if resp, ok := m["response"].(map[string]any); ok {
			return resp["subtype"] == subtype
		}
		return m["subtype"] == subtype
	}
}

// finish closes stdin and returns minicode's exit code.
func (p *sdkProcess) finish() int {
	p.t.Helper()
	p.stdin.Close()
	for range p.lines {
	}
	err := p.cmd.Wait()
	if exit, ok := err.(*exec.ExitError); ok {
		return exit.ExitCode()
	}
	if err != nil {
		p.t.Fatal(err)
	}
	return 0
}

// textReplies answers every request with the next of texts.
func textReplies(texts ...string) func(*http.Request, modelRequest) string {
	n := 0
	return func(*http.Request, modelRequest) string {
		text := "(no more replies)"
		if n < len(texts) {
			text = texts[n]
		}
		n++
		return anthropicTextStream(text, "end_turn")
	}
}

// toolThenText asks for one call, then answers with text.
func toolThenText(name, input, text string) func(*http.Request, modelRequest) string {
	return func(_ *http.Request, req modelRequest) string {
		if len(toolResultsOf(req)) == 0 {
			return anthropicToolStream(Block{ID: "toolu_1", Name: name, Input: json.RawMessage(input)})
		}
		return anthropicTextStream(text, "end_turn")
	}
}

func TestSDKInitializeAndTwoMessages(t *testing.T) {
	srv, requests := anthropicServer(t, textReplies("one", "two"))
	p := startSDK(t, srv.URL, "--max-turns=3", "--setting-sources=", "--no-session-persistence")
	p.control("init_1", map[string]any{"subtype": "initialize", "appendSystemPrompt": "Always be brief."})
	p.user("first")
	p.user("second")
	resp := p.await("the initialize response", isType("control_response", "success"), nil)["response"].(map[string]any)
	init, _ := resp["response"].(map[string]any)
	if resp["request_id"] != "init_1" || init["commands"] == nil || init["pid"] == nil || init["models"] == nil {
		t.Fatalf("initialize response = %v", resp)
	}
	var results []string
	for range 2 {
		r := p.await("a result", isType("result", ""), nil)
		results = append(results, r["result"].(string))
	}
	if strings.Join(results, ",") != "one,two" {
		t.Errorf("results = %q, want one,two", results)
	}
	if code := p.finish(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	reqs := requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1].System[0].Text, "Always be brief.") || lastUserText(reqs[1].Messages) != "second" {
		t.Errorf("the second request did not carry the appended prompt and the second message: %+v", reqs)
	}
}

// TestSDKUnknownControlRequestIsAnError checks that an unknown or malformed
// control request gets an error response in JSON's words and the session goes on.
func TestSDKUnknownControlRequestIsAnError(t *testing.T) {
	srv, requests := anthropicServer(t, textReplies("unused"))
	p := startSDK(t, srv.URL)
	p.control("x1", map[string]any{"subtype": "frobnicate"})
	resp := p.await("the error response", isType("control_response", "error"), nil)["response"].(map[string]any)
	if resp["request_id"] != "x1" || !strings.Contains(resp["error"].(string), "frobnicate") {
		t.Errorf("response = %v", resp)
	}
	p.control("x2", map[string]any{"subtype": 5})
	resp = p.await("the error response", isType("control_response", "error"), nil)["response"].(map[string]any)
	if want := `malformed request: field "subtype" must be a string, got number`; resp["request_id"] != "x2" || resp["error"] != want {
		t.Errorf("malformed request: response = %v; want the error %q", resp, want)
	}
	if code := p.finish(); code != 0 || len(requests()) != 0 {
		t.Errorf("exit %d after %d model requests; want 0 and none", code, len(requests()))
	}
}

func TestSDKCanUseTool(t *testing.T) {
	tests := []struct {
		name     string
		answer   map[string]any
		want     string // in the tool result the model sees
		notWant  string
		denials  int
		resultOK bool
	}{
		{"allow with a changed input", map[string]any{"behavior": "allow", "updatedInput": map[string]any{"command": "echo replaced"}}, "replaced", "original", 0, true},
		{"deny with a message", map[string]any{"behavior": "deny", "message": "not today"}, "not today", "original\n", 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, requests := anthropicServer(t, toolThenText("run_command", `{"command":"echo original >/dev/stderr"}`, "done"))
			p := startSDK(t, srv.URL, "--permission-prompt-tool=stdio", "--max-turns=4")
			p.user("run it")
			ask := p.await("can_use_tool", isType("control_request", "can_use_tool"), nil)
			req := ask["request"].(map[string]any)
			if req["tool_name"] != "Bash" || req["input"].(map[string]any)["command"] != "echo original >/dev/stderr" || req["tool_use_id"] != "toolu_1" {
				t.Fatalf("can_use_tool = %v", req)
			}
			p.reply(ask["request_id"].(string), tt.answer)
			res := p.await("the result", isType("result", ""), nil)
			if res["subtype"] != "success" || res["is_error"] != false || len(res["permission_denials"].([]any)) != tt.denials {
				t.Errorf("result = %v", res)
			}
			reqs := requests()
			out := toolResultsOf(reqs[len(reqs)-1])[0].Content
			if !strings.Contains(out, tt.want) || strings.Contains(out, tt.notWant) {
				t.Errorf("tool result = %q, want %q and not %q", out, tt.want, tt.notWant)
			}
			if code := p.finish(); code != 0 {
				t.Errorf("exit code %d", code)
			}
		})
	}
}

func TestSDKInterruptStopsTheCommandAndTheSessionGoesOn(t *testing.T) {
	calls := 0
	srv, _ := anthropicServer(t, func(_ *http.Request, req modelRequest) string {
		calls++
		if calls == 1 {
			return anthropicToolStream(Block{ID: "toolu_1", Name: "run_command", Input: json.RawMessage(`{"command":"` + slowCommand + `"}`)})
		}
		return anthropicTextStream("still here", "end_turn")
	})
	p := startSDK(t, srv.URL, "--permission-mode=bypassPermissions", "--allow-dangerously-skip-permissions")
	p.user("start something slow")
	pid := readPid(t, filepath.Join(p.ws, "child.pid"))
	p.control("int_1", map[string]any{"subtype": "interrupt"})
	p.await("the interrupt's response", isType("control_response", "success"), nil)
	res := p.await("the interrupted turn's result", isType("result", ""), nil)
	if res["is_error"] != true || res["errors"] == nil {
		t.Errorf("interrupted result = %v", res)
	}
	for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command (pid %d) outlived the interrupt", pid)
		}
	}
	p.user("are you there?")
	if r := p.await("the next result", isType("result", ""), nil); r["result"] != "still here" {
		t.Errorf("next result = %v", r)
	}
	if code := p.finish(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

func TestSDKSetPermissionMode(t *testing.T) {
	srv, requests := anthropicServer(t, toolThenText("run_command", `{"command":"touch hi"}`, "ran"))
	p := startSDK(t, srv.URL, "--permission-prompt-tool=stdio")
	p.control("m1", map[string]any{"subtype": "set_permission_mode", "mode": "bypassPermissions"})
	if r := p.await("the refusal", isType("control_response", ""), nil)["response"].(map[string]any); r["subtype"] != "error" {
		t.Errorf("bypass without --allow-dangerously-skip-permissions: %v", r)
	}
	p.control("m2", map[string]any{"subtype": "set_permission_mode", "mode": "plan"})
	if r := p.await("the answer", isType("control_response", ""), nil)["response"].(map[string]any); r["subtype"] != "success" {
		t.Fatalf("set_permission_mode plan: %v", r)
	}
	p.user("run it")
	p.await("the result", isType("result", ""), func(m map[string]any) {
		if isType("control_request", "can_use_tool")(m) {
			t.Errorf("plan mode asked instead of refusing: %v", m)
		}
	})
	reqs := requests()
	if out := toolResultsOf(reqs[len(reqs)-1])[0]; !out.IsError {
		t.Errorf("a command ran in plan mode: %q", out.Content)
	}
	p.finish()
}

func TestSDKMaxTurnsResultCarriesErrors(t *testing.T) {
	srv, _ := anthropicServer(t, func(*http.Request, modelRequest) string {
		return anthropicToolStream(Block{ID: "toolu_1", Name: "list_files", Input: json.RawMessage(`{}`)})
	})
	p := startSDK(t, srv.URL, "--max-turns=2")
	p.user("loop")
	res := p.await("the result", isType("result", ""), nil)
	errs, _ := res["errors"].([]any)
	if res["subtype"] != "error_max_turns" || res["is_error"] != true || len(errs) == 0 {
		t.Errorf("result = %v", res)
	}
	if code := p.finish(); code != 0 {
		t.Errorf("exit code %d, want 0 once the stream ended", code)
	}
}

func TestSDKHookCallbackBlocksACall(t *testing.T) {
	srv, requests := anthropicServer(t, toolThenText("run_command", `{"command":"echo hi"}`, "ok"))
	p := startSDK(t, srv.URL, "--permission-mode=bypassPermissions")
	p.control("init", map[string]any{"subtype": "initialize", "hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": "Bash", "hookCallbackIds": []string{"hook_0"}}}}})
	p.user("run it")
	call := p.await("hook_callback", isType("control_request", "hook_callback"), nil)
	req := call["request"].(map[string]any)
	input := req["input"].(map[string]any)
	if req["callback_id"] != "hook_0" || input["tool_name"] != "Bash" || input["hook_event_name"] != "PreToolUse" || input["permission_mode"] != "bypassPermissions" {
		t.Fatalf("hook_callback = %v", req)
	}
	p.reply(call["request_id"].(string), map[string]any{"hookSpecificOutput": map[string]any{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no commands today"}})
	p.await("the result", isType("result", ""), nil)
	reqs := requests()
	if out := toolResultsOf(reqs[len(reqs)-1])[0]; !out.IsError || !strings.Contains(out.Content, "no commands today") {
		t.Errorf("tool result = %+v", out)
	}
	p.finish()
}

func TestSDKStructuredOutput(t *testing.T) {
	step := 0
	srv, _ := anthropicServer(t, func(*http.Request, modelRequest) string {
		step++
		switch step {
		case 1:
			return anthropicToolStream(Block{ID: "toolu_1", Name: "structured_output", Input: json.RawMessage(`{"n":"three"}`)})
		case 2:
			return anthropicToolStream(Block{ID: "toolu_2", Name: "structured_output", Input: json.RawMessage(`{"n":3}`)})
		}
		return anthropicTextStream("done", "end_turn")
	})
	p := startSDK(t, srv.URL, `--json-schema={"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	p.user("count")
	res := p.await("the result", isType("result", ""), nil)
	if got, _ := json.Marshal(res["structured_output"]); string(got) != `{"n":3}` || res["subtype"] != "success" {
		t.Errorf("result = %v, want structured_output {\"n\":3}", res)
	}
	p.finish()
}

func TestSDKBudgetStopsTheSession(t *testing.T) {
	srv, requests := anthropicServer(t, toolThenText("list_files", `{}`, "done"))
	p := startSDK(t, srv.URL, "--max-budget-usd=0.0000001", "--model=claude-sonnet-4-5")
	p.user("list")
	res := p.await("the result", isType("result", ""), nil)
	if res["subtype"] != "error_max_budget_usd" || res["errors"] == nil {
		t.Errorf("result = %v", res)
	}
	if n := len(requests()); n != 1 {
		t.Errorf("%d model requests, want 1 (the budget was spent by the first)", n)
	}
	p.finish()
}

// BenchmarkSDKInitialize measures the time from starting minicode as the
// Agent SDK does to the answer to its initialize request.
func BenchmarkSDKInitialize(b *testing.B) {
	bin := minicodeBinary(b)
	home := b.TempDir()
	for b.Loop() {
		cmd := exec.Command(bin, sdkArgs...)
		cmd.Dir = home
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "MINICODE_HOME=" + home, "ANTHROPIC_API_KEY=test"}
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		io.WriteString(stdin, `{"type":"control_request","request_id":"1","request":{"subtype":"initialize"}}`+"\n")
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || !strings.Contains(line, `"control_response"`) {
			b.Fatalf("first line %q, %v", line, err)
		}
		stdin.Close()
		cmd.Wait()
	}
}

// TestSDKImageBlocksReachTheModel sends a user message with an image: the
// Anthropic request carries it as an image block after the text, and a
// block minicode cannot pass on becomes a note in the text.
func TestSDKImageBlocksReachTheModel(t *testing.T) {
	srv, requests := anthropicServer(t, textReplies("a red dot"))
	p := startSDK(t, srv.URL, "--no-session-persistence")
	image := map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
	p.send(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil, "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "text", "text": "what is this?"}, image, map[string]any{"type": "document"}}}})
	if r := p.await("the result", isType("result", ""), nil); r["result"] != "a red dot" {
		t.Errorf("result = %v", r)
	}
	if code := p.finish(); code != 0 {
		t.Errorf("exit code %d", code)
	}
	reqs := requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	var kinds []string
	var source *ImageSource
	for _, b := range last.Content {
		kinds = append(kinds, b.Type)
		if b.Type == BlockImage {
			source = b.Source
		}
	}
	if !slices.Equal(kinds, []string{"text", "image"}) || source == nil || *source != (ImageSource{Type: "base64", MediaType: "image/png", Data: "iVBORw0KGgo="}) {
		t.Fatalf("the user message sent = %+v, want the text (with the note) and the image", last.Content)
	}
	if text := last.Content[0].Text; !strings.HasPrefix(text, "what is this?\n") || !strings.Contains(text, "document block was left out") {
		t.Errorf("text = %q, want the prompt and a note for the document block", text)
	}
}

// TestSDKDenialsPerResult lists in each result only the calls denied in
// its own turn.
func TestSDKDenialsPerResult(t *testing.T) {
	step := 0
	srv, _ := anthropicServer(t, func(*http.Request, modelRequest) string {
		step++
		if step == 1 {
			return anthropicToolStream(Block{ID: "toolu_1", Name: "write_file", Input: json.RawMessage(`{"path":"x.txt","content":"x"}`)})
		}
		return anthropicTextStream("answered", "end_turn")
	})
	p := startSDK(t, srv.URL, "--no-session-persistence")
	p.user("write x.txt")
	p.user("and now?")
	var counts []int
	for range 2 {
		r := p.await("a result", isType("result", ""), nil)
		counts = append(counts, len(r["permission_denials"].([]any)))
	}
	if !slices.Equal(counts, []int{1, 0}) {
		t.Errorf("permission_denials per result = %v, want [1 0]", counts)
	}
	if code := p.finish(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestStructuredOutputChecksTheSchema feeds structured_output inputs to
// the tool --json-schema adds: each answer that breaks the schema is
// refused with where and why, and a valid one is passed on.
func TestStructuredOutputChecksTheSchema(t *testing.T) {
	object := `{"type":"object","properties":{"n":{"type":"integer"},"tags":{"type":"array","items":{"enum":["a","b"]},"maxItems":2},` +
		`"o":{"type":"object","properties":{"k":{"type":["string","null"]}},"required":["k"],"additionalProperties":false},"c":{"const":1}},"required":["n"]}`
	tests := []struct{ schema, input, want string }{
		{object, `{"n":"three"}`, "output.n must be of type integer"},
		{object, `{"n":1.5}`, "output.n must be of type integer"},
		{object, `{}`, "output.n is required"},
		{object, `{"n":1,"tags":["a","b","a"]}`, "output.tags takes at most 2 items"},
		{object, `{"n":1,"tags":["z"]}`, "output.tags[0] must be one of [a b]"},
		{object, `{"n":1,"o":{}}`, "output.o.k is required"},
		{object, `{"n":1,"o":{"k":1}}`, "output.o.k must be of type [string null]"},
		{object, `{"n":1,"o":{"k":null,"x":1}}`, "output.o.x is not allowed"},
		{object, `{"n":1,"c":2}`, "output.c must be 1"},
		{object, `"str"`, "output must be of type object"},
		{object, `{"n":2,"tags":["b"],"o":{"k":"v"},"c":1,"extra":true}`, ""},
		{`{"type":"array","items":{"type":"integer"},"minItems":1}`, `{"output":[]}`, "output needs at least 1 items"},
		{`{"type":"array"}`, `"str"`, "output must be of type array"},
		{`{"type":"array","items":{"type":"integer"}}`, `{"output":[1,2]}`, ""},
	}
	for _, tt := range tests {
		app := &App{Registry: newRegistry()}
		if err := app.useJSONSchema(json.RawMessage(tt.schema)); err != nil {
			t.Fatal(err)
		}
		tool, _ := app.Registry.Get("structured_output")
		v, err := tool.Decode(json.RawMessage(tt.input))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v, want it accepted", tt.input, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want+";")):
			t.Errorf("%s: error %q, want %q", tt.input, fmt.Sprint(err), tt.want)
		case tt.want == "" && string(v.(json.RawMessage)) == "":
			t.Errorf("%s: no answer passed on", tt.input)
		}
	}
}

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
