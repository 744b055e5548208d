package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestACPLoadReplaysASessionOfTheTerminal saves a session with -p, loads
// it over ACP (its history replayed before the answer), adds a turn, and
// resumes that turn with --resume.
func TestACPLoadReplaysASessionOfTheTerminal(t *testing.T) {
	script := writeScript(t, `[{"text":"Reading.","tool_calls":[{"id":"r1","name":"read_file","input":{"path":"a.txt"}}]}, {"text":"It says hi."}]`)
	c := startACP(t, nil, "--mock-script", writeScript(t, `[{"text":"Over ACP."}]`))
	os.WriteFile(filepath.Join(c.ws, "a.txt"), []byte("hi\n"), 0o644)
	headless := exec.Command(minicodeBinary(t), "-p", "what does a.txt say?", "--output-format", "json", "--mock-script", script)
	headless.Dir, headless.Env = c.ws, c.cmd.Env
	out, err := headless.Output()
	var result struct {
		SessionID string `json:"session_id"`
	}
	if err != nil || json.Unmarshal(out, &result) != nil {
		t.Fatalf("-p: %v %s", err, out)
	}
	c.call("initialize", map[string]any{"protocolVersion": 1})
	loaded, updates := c.call("session/load", map[string]any{"sessionId": result.SessionID, "cwd": c.ws, "mcpServers": []any{}})
	var got []string
	for _, u := range updates {
		id, _ := u["toolCallId"].(string)
		got = append(got, fmt.Sprint(u["sessionUpdate"], " ", id, jsonText(u["content"])))
	}
	if want := []string{
		`user_message_chunk {"text":"what does a.txt say?","type":"text"}`,
		`agent_message_chunk {"text":"Reading.","type":"text"}`,
		`tool_call r1null`,
		`tool_call_update r1[{"content":{"text":"` + "```" + `\na.txt: 1 line\n1\thi\n` + "```" + `","type":"text"},"type":"content"}]`,
		`agent_message_chunk {"text":"It says hi.","type":"text"}`,
	}; !slices.Equal(got, want) {
		t.Errorf("replay:\n got %q\nwant %q", got, want)
	}
	if loaded["modes"] == nil {
		t.Errorf("load answer %v: want the modes", loaded)
	}
	c.next() // available_commands_update
	if stop, _ := c.prompt(result.SessionID, "and over ACP?"); stop != "end_turn" {
		t.Fatalf("stop reason %q", stop)
	}
	c.stdin.Close()
	c.cmd.Wait()
	srv, requests := anthropicServer(t, textReplies("back in the terminal"))
	resume := exec.Command(minicodeBinary(t), "--resume", result.SessionID, "-p", "and now?")
	resume.Dir, resume.Env = c.ws, append(c.cmd.Env, "ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL="+srv.URL)
	if out, err := resume.CombinedOutput(); err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if sent := jsonText(requests()[0].Messages); !strings.Contains(sent, "and over ACP?") || !strings.Contains(sent, "Over ACP.") {
		t.Errorf("the terminal does not see the ACP turn: %s", sent)
	}
}

// TestACPBadMessagesGetErrorsAndTheConnectionGoesOn sends malformed
// messages: each gets the protocol's error object, an unknown
// notification gets nothing, and a good request after them is answered.
func TestACPBadMessagesGetErrorsAndTheConnectionGoesOn(t *testing.T) {
	c := startACP(t, nil)
	for _, tc := range []struct {
		line string
		code float64
		says string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700, "not JSON"},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, -32600, "one JSON-RPC object"},
		{`{"jsonrpc":"1.0","id":2,"method":"initialize","params":{}}`, -32600, "jsonrpc"},
		{`{"jsonrpc":"2.0","id":3}`, -32600, "method"},
		{`{"jsonrpc":"2.0","id":4,"method":"session/fly","params":{}}`, -32601, "session/fly"},
		{`{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"one"}}`, -32602, "protocolVersion"},
		{`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"mcpServers":[]}}`, -32602, `"cwd"`},
		{`{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"relative/dir"}}`, -32602, "absolute"},
		{`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"prompt":[]}}`, -32602, `"sessionId"`},
		{`{"jsonrpc":"2.0","id":9,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}`, -32602, "nope"},
		{`{"jsonrpc":"2.0","id":10,"method":"session/load","params":{"sessionId":"nope","cwd":"/"}}`, -32602, "no session"},
	} {
		c.send(tc.line)
		m := c.next()
		e, _ := m["error"].(map[string]any)
		if e == nil || e["code"] != tc.code || !strings.Contains(fmt.Sprint(e["message"]), tc.says) {
			t.Errorf("%s\n got %v\nwant code %v saying %q", tc.line, m, tc.code, tc.says)
		}
	}
	c.send(`{"jsonrpc":"2.0","method":"_editor/hello","params":{}}`)
	c.send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}`)
	id := c.request("initialize", map[string]any{"protocolVersion": 1})
	if m := c.next(); m["id"] != id || m["result"] == nil {
		t.Errorf("after the notifications: %v, want the answer to initialize", m)
	}
}

// TestACPModes switches to plan mode, where an edit is refused without a question.
func TestACPModes(t *testing.T) {
	srv, _ := anthropicServer(t, toolThenText("write_file", `{"path":"new.txt","content":"x"}`, "planned"))
	c := startACP(t, []string{"ANTHROPIC_API_KEY=test", "ANTHROPIC_BASE_URL=" + srv.URL})
	session := c.open(false)
	if resp, _ := c.await(c.request("session/set_mode", map[string]any{"sessionId": session, "modeId": "sideways"})); !strings.Contains(jsonText(resp["error"]), "modeId") {
		t.Errorf("unknown mode answered %v", resp)
	}
	c.call("session/set_mode", map[string]any{"sessionId": session, "modeId": "plan"})
	stop, updates := c.prompt(session, "write new.txt")
	if done := updatesOf(updates, "tool_call_update", "toolu_1"); stop != "end_turn" || len(done) != 1 || done[0]["status"] != "failed" {
		t.Errorf("in plan mode: %q %v", stop, updates)
	}
	if _, err := os.Stat(filepath.Join(c.ws, "new.txt")); err == nil {
		t.Error("plan mode wrote the file")
	}
}

// TestACPSessionMCPServersAndCommands starts session/new's stdio MCP
// server as a configured one (its tool asks and runs) and offers the slash
// commands, running a built-in one as a prompt.
func TestACPSessionMCPServersAndCommands(t *testing.T) {
	exe, _ := os.Executable()
	script := writeScript(t, `[{"tool_calls":[{"id":"m1","name":"mcp__fake__echo","input":{"text":"ping"}}]}, {"text":"echoed"}]`)
	c := startACP(t, nil, "--mock-script", script)
	c.serve = (&permissionAnswers{picks: []string{"allow_once"}}).serve
	c.call("initialize", map[string]any{"protocolVersion": 1})
	server := map[string]any{"name": "fake", "command": exe, "args": []string{}, "env": []any{map[string]string{"name": fakeMCPEnv, "value": "ndjson"}}}
	result, _ := c.call("session/new", map[string]any{"cwd": c.ws, "mcpServers": []any{server}})
	session := result["sessionId"].(string)
	commands := jsonText(c.next())
	if !strings.Contains(commands, `"name":"compact"`) || strings.Contains(commands, `"name":"exit"`) {
		t.Errorf("available commands %s", commands)
	}
	if _, updates := c.prompt(session, "/status"); !strings.Contains(jsonText(updates), "permission mode: default") {
		t.Errorf("/status answered %v", updates)
	}
	stop, updates := c.prompt(session, "echo ping")
	done := updatesOf(updates, "tool_call_update", "m1")
	if call := updatesOf(updates, "tool_call", "m1"); stop != "end_turn" || len(call) != 1 || call[0]["kind"] != "other" ||
		len(done) != 1 || done[0]["status"] != "completed" || !strings.Contains(jsonText(done), "ping") {
		t.Errorf("MCP call of the session's server: %q %v", stop, updates)
	}
}

// BenchmarkACPFirstChunk measures, for a fresh `minicode acp` against the
// scripted model, the time from sending initialize to reading the first
// agent_message_chunk (ms/first-chunk), through session/new and session/prompt,
// and the CPU time of the whole process and its children, start and exit
// included (ms-cpu/run); with the command sandbox, and with it turned off in
// the user's settings, to show what starting it costs a session.
func BenchmarkACPFirstChunk(b *testing.B) {
	for _, settings := range []string{`{}`, `{"sandbox":{"enabled":false}}`} {
		b.Run(map[string]string{`{}`: "sandbox", `{"sandbox":{"enabled":false}}`: "no-sandbox"}[settings], func(b *testing.B) {
			home := b.TempDir()
			os.WriteFile(filepath.Join(home, "settings.json"), []byte(settings), 0o644)
			acpFirstChunk(b, home)
		})
	}
}

// acpFirstChunk runs BenchmarkACPFirstChunk's loop with MINICODE_HOME home, in an empty workspace.
func acpFirstChunk(b *testing.B, home string) {
	bin, ws := minicodeBinary(b), b.TempDir()
	script := filepath.Join(home, "script.json")
	os.WriteFile(script, []byte(`[{"text":"Hello from the scripted model."}]`), 0o644)
	var total, cpu time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "acp", "--mock-script", script)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "MINICODE_HOME=" + home}
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n"+
			`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", ws)
		lines := bufio.NewScanner(stdout)
		for lines.Scan() {
			line := lines.Text()
			if id := `"sessionId":"`; strings.Contains(line, `"id":2,`) {
				session, _, _ := strings.Cut(line[strings.Index(line, id)+len(id):], `"`)
				fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":%q,"prompt":[{"type":"text","text":"hi"}]}}`+"\n", session)
			}
			if strings.Contains(line, "agent_message_chunk") {
				break
			}
		}
		total += time.Since(start)
		stdin.Close()
		cmd.Wait()
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/first-chunk")
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "ms-cpu/run")
}

// TestACPTodoListAndPlanMode sends todo_write's list as the plan (and no
// tool call), and in plan mode puts exit_plan_mode's plan to the client,
// whose approval switches the mode, which the client hears of.
func TestACPTodoListAndPlanMode(t *testing.T) {
	script := writeScript(t, `[
		{"tool_calls":[{"id":"t1","name":"todo_write","input":{"todos":[{"content":"Read the code","status":"completed","activeForm":"Reading the code"},{"content":"Fix the bug","status":"in_progress","activeForm":"Fixing the bug"}]}}]},
		{"tool_calls":[{"id":"p1","name":"exit_plan_mode","input":{"plan":"1. Fix the bug in main.go"}}]},
		{"text":"Carrying it out."}]`)
	c := startACP(t, nil, "--mock-script", script)
	answers := &permissionAnswers{picks: []string{"approve_accept_edits"}}
	c.serve = answers.serve
	session := c.open(false)
	c.call("session/set_mode", map[string]any{"sessionId": session, "modeId": "plan"})
	stop, updates := c.prompt(session, "plan the fix")
	plan := updatesOf(updates, "plan", "")
	want := `[{"entries":[{"content":"Read the code","priority":"medium","status":"completed"},{"content":"Fix the bug","priority":"medium","status":"in_progress"}],"sessionUpdate":"plan"}]`
	if stop != "end_turn" || jsonText(plan) != want || len(updatesOf(updates, "tool_call", "t1")) != 0 {
		t.Errorf("todo list: %q %s\nwant the plan %s and no tool call", stop, jsonText(updates), want)
	}
	if call := updatesOf(updates, "tool_call", "p1"); len(call) != 1 || call[0]["kind"] != "switch_mode" {
		t.Errorf("exit_plan_mode call %v", call)
	}
	question := jsonText(answers.asked)
	if !strings.Contains(question, "1. Fix the bug in main.go") || !strings.Contains(question, `"optionId":"approve_accept_edits"`) || !strings.Contains(question, `"kind":"reject_once","name":"Keep planning","optionId":"deny_guidance"`) {
		t.Errorf("the plan's question: %s", question)
	}
	if mode := updatesOf(updates, "current_mode_update", ""); len(mode) != 1 || mode[0]["currentModeId"] != "acceptEdits" {
		t.Errorf("mode updates %v, want acceptEdits after the approval", mode)
	}
}

// TestACPClientFilesAreJudgedAsTheDisk reads a file outside the workspace
// while the editor offers its files: the read asks first, and once refused
// the editor is never asked for the file.
func TestACPClientFilesAreJudgedAsTheDisk(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("on disk\n"), 0o644)
	script := writeScript(t, fmt.Sprintf(`[{"tool_calls":[{"id":"r1","name":"read_file","input":{"path":%q}}]}, {"text":"done"}]`, outside))
	c := startACP(t, nil, "--mock-script", script)
	answers := &permissionAnswers{picks: []string{"deny_once"}, buffers: map[string]string{outside: "the editor's buffer\n"}}
	c.serve = answers.serve
	_, updates := c.prompt(c.open(true), "read it")
	if done := updatesOf(updates, "tool_call_update", "r1"); len(done) != 1 || done[0]["status"] != "failed" || slices.Contains(answers.requests, "fs/read_text_file") {
		t.Errorf("a refused read: %v, requests %v; want it failed and the editor not asked", done, answers.requests)
	}
	if got := strings.Join(answers.requests, " "); got != "session/request_permission" {
		t.Errorf("requests %q, want only the question", got)
	}
}

// TestACPStopReasons ends turns each way the protocol names: the step
// limit, a refusal, and replies cut off by the output limit until minicode
// stops asking for more.
func TestACPStopReasons(t *testing.T) {
	cut := `{"text":"part","stop_reason":"max_tokens"}`
	for _, tc := range []struct{ script, flag, want string }{
		{`[{"tool_calls":[{"name":"list_files","input":{}}]}]`, "--max-turns=1", "max_turn_requests"},
		{`[{"text":"I will not help with that.","stop_reason":"refusal"}]`, "--max-turns=5", "refusal"},
		{"[" + strings.Repeat(cut+",", 3) + cut + "]", "--max-turns=5", "max_tokens"},
	} {
		c := startACP(t, nil, "--mock-script", writeScript(t, tc.script), tc.flag)
		if stop, updates := c.prompt(c.open(false), "go"); stop != tc.want {
			t.Errorf("%s: stop reason %q, want %q (%v)", tc.script, stop, tc.want, updates)
		}
	}
}
