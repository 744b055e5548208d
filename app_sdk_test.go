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
	go p.readLines(stdout)
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return p
}

// readLines passes minicode's stdout to lines, a line at a time, and closes it at the end.
func (p *sdkProcess) readLines(stdout io.Reader) {
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
	p.control("init", map[string]any{"subtype": "initialize"})
	p.answerTo("init")
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
