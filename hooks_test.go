package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// modelRequest is a Messages API request as a fake server decodes it.
type modelRequest struct {
	Model     string    `json:"model"`
	MaxTokens int       `json:"max_tokens"`
	System    []Block   `json:"system"`
	Messages  []Message `json:"messages"`
	Tools     []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// anthropicServer is a Messages API server that streams what reply returns
// for each request (a whole SSE body) and records every request. The
// server is closed when the test ends.
func anthropicServer(t *testing.T, reply func(r *http.Request, req modelRequest) string) (*httptest.Server, func() []modelRequest) {
	t.Helper()
	var mu sync.Mutex
	var seen []modelRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req modelRequest
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		mu.Lock()
		seen = append(seen, req)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, reply(r, req))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []modelRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]modelRequest(nil), seen...)
	}
}

// anthropicToolStream is a complete stream of one reply asking for calls.
func anthropicToolStream(calls ...Block) string {
	events := []string{`{"type":"message_start","message":{"id":"msg_t","usage":{"input_tokens":10,"output_tokens":1}}}`}
	for i, c := range calls {
		input, _ := json.Marshal(string(c.Input))
		events = append(events,
			fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, i, c.ID, c.Name),
			fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, i, input),
			fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i))
	}
	events = append(events, `{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}`, `{"type":"message_stop"}`)
	return anthropicEvents(events...)
}

// toolResultsOf returns the tool_result blocks of a request's last message.
func toolResultsOf(req modelRequest) []Block {
	if len(req.Messages) == 0 {
		return nil
	}
	return req.Messages[len(req.Messages)-1].ToolResults()
}

// hookWorkspace makes a workspace whose .minicode/settings.json holds the
// given hooks and whose .minicode/hooks holds the given executable scripts.
func hookWorkspace(t *testing.T, hooks string, scripts map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, ".minicode", "settings.json"), `{"hooks": `+hooks+`}`)
	for name, body := range scripts {
		path := filepath.Join(ws, ".minicode", "hooks", name)
		writeFile(t, path, "#!/bin/bash\n"+body+"\n")
		if err := os.Chmod(path, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// runWithModel runs minicode -p against srv in ws with extra arguments.
func runWithModel(t *testing.T, srv *httptest.Server, ws string, args ...string) runResult {
	t.Helper()
	return runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + trustingHome(t, ws)}, "",
		append([]string{"-p", "touch the file", "--workspace", ws}, args...)...)
}

// touchThenAnswer is a model that asks once for `touch ran.txt` and then
// answers "done".
func touchThenAnswer(_ *http.Request, req modelRequest) string {
	if len(toolResultsOf(req)) == 0 {
		return anthropicToolStream(Block{ID: "toolu_1", Name: "run_command", Input: json.RawMessage(`{"command":"touch ran.txt"}`)})
	}
	return anthropicTextStream("done", StopEndTurn)
}

func TestPreToolUseHooks(t *testing.T) {
	t.Parallel()
	matcher := func(m, cmd string, timeout int) string {
		return fmt.Sprintf(`{"PreToolUse":[{"matcher":%q,"hooks":[{"type":"command","command":%q,"timeout":%d}]}]}`, m, cmd, timeout)
	}
	check := `.minicode/hooks/check.sh`
	tests := []struct {
		name, hooks, script string
		args                []string
		ran                 bool
		result, stderr      string // substrings of the tool result and of stderr
	}{
		{"exit 2 blocks Bash by Claude Code's name", matcher("Bash", check, 10),
			`in=$(cat); case "$in" in *'"tool_name":"Bash"'*'"command":"touch ran.txt"'*) echo "no shell today" >&2; exit 2;; esac`,
			[]string{"--permission-mode", "bypassPermissions"}, false, "no shell today", ""},
		{"regex matcher", matcher("Read|Bash", check, 10), `echo "regex" >&2; exit 2`,
			[]string{"--permission-mode", "bypassPermissions"}, false, "regex", ""},
		{"other tools' matcher does not fire", matcher("Edit|Write", check, 10), `exit 2`,
			[]string{"--permission-mode", "bypassPermissions"}, true, "Exit code: 0", ""},
		{"JSON deny", matcher("run_command", check, 10),
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"policy says no"}}'`,
			[]string{"--permission-mode", "bypassPermissions"}, false, "policy says no", ""},
		{"JSON allow settles the question nobody could answer", matcher("Bash", check, 10),
			`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`, nil, true, "Exit code: 0", ""},
		{"JSON allow cannot bypass a deny rule", matcher("Bash", check, 10),
			`echo '{"decision":"approve"}'`, []string{"--disallowedTools", "run_command"}, false, "denied by the rule", ""},
		{"JSON ask makes an allowed call ask", matcher("*", check, 10),
			`echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`, []string{"--permission-mode", "bypassPermissions"}, false, "a PreToolUse hook asks", ""},
		{"exit 1 is an error that blocks nothing", matcher("", check, 10), `echo "lint broke" >&2; exit 1`,
			[]string{"--permission-mode", "bypassPermissions"}, true, "Exit code: 0", "lint broke"},
		{"missing command is a visible error", matcher("Bash", ".minicode/hooks/nope.sh", 10), ``,
			[]string{"--permission-mode", "bypassPermissions"}, true, "Exit code: 0", "could not run (exit 127"},
		{"hanging hook is killed at its timeout", matcher("Bash", check, 1), `sleep 30`,
			[]string{"--permission-mode", "bypassPermissions"}, true, "Exit code: 0", "timed out after 1s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := hookWorkspace(t, tc.hooks, map[string]string{"check.sh": tc.script})
			srv, requests := anthropicServer(t, touchThenAnswer)
			res := runWithModel(t, srv, ws, tc.args...)
			_, err := os.Stat(filepath.Join(ws, "ran.txt"))
			if ran := err == nil; ran != tc.ran {
				t.Errorf("command ran = %v, want %v; stderr %q", ran, tc.ran, res.stderr)
			}
			reqs := requests()
			if len(reqs) != 2 {
				t.Fatalf("got %d model requests, want 2; stderr %q", len(reqs), res.stderr)
			}
			results := toolResultsOf(reqs[1])
			if len(results) != 1 || !strings.Contains(results[0].Content, tc.result) {
				t.Errorf("tool results %+v, want one containing %q", results, tc.result)
			}
			if !strings.Contains(res.stderr, tc.stderr) {
				t.Errorf("stderr %q, want it to contain %q", res.stderr, tc.stderr)
			}
		})
	}
}

func TestToolHookContinueFalseEndsTheTurn(t *testing.T) {
	t.Parallel()
	for _, event := range []string{"PreToolUse", "PostToolUse"} {
		ws := hookWorkspace(t, fmt.Sprintf(`{%q: [{"matcher": "Bash", "hooks": [{"type": "command", "command": %q}]}]}`,
			event, `echo '{"continue": false, "stopReason": "maintenance window"}'`), nil)
		srv, requests := anthropicServer(t, touchThenAnswer)
		res := runWithModel(t, srv, ws, "--permission-mode", "bypassPermissions")
		_, err := os.Stat(filepath.Join(ws, "ran.txt"))
		if n := len(requests()); n != 1 || res.code != 0 || !strings.Contains(res.stderr, "A hook stopped the turn: maintenance window") || (err == nil) != (event == "PostToolUse") {
			t.Errorf("%s: %d requests, exit %d, stderr %q, ran %v; want the turn ended after the call", event, n, res.code, res.stderr, err == nil)
		}
	}
}

// answerOnce is a model that answers every request with "answer N".
func answerOnce() func(*http.Request, modelRequest) string {
	var mu sync.Mutex
	n := 0
	return func(*http.Request, modelRequest) string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return anthropicTextStream(fmt.Sprintf("answer %d", n), StopEndTurn)
	}
}

func TestSessionAndPromptHooks(t *testing.T) {
	t.Parallel()
	hooks := func(event, cmd string) string {
		return fmt.Sprintf(`{%q:[{"hooks":[{"type":"command","command":%q}]}]}`, event, cmd)
	}
	tests := []struct {
		name, hooks, script string
		requests            int    // model requests made
		lastHas             string // in the last request's messages or system prompt
		stdout, stderr      string
	}{
		{"UserPromptSubmit exit 0 adds context", hooks("UserPromptSubmit", ".minicode/hooks/h.sh"),
			`grep -q '"prompt":"touch the file"' && echo "the build is broken since Tuesday"`, 1, "the build is broken since Tuesday", "answer 1", ""},
		{"UserPromptSubmit exit 2 drops the prompt", hooks("UserPromptSubmit", ".minicode/hooks/h.sh"),
			`echo "prompts about files are not allowed" >&2; exit 2`, 0, "", "", "prompts about files are not allowed"},
		{"UserPromptSubmit JSON block", hooks("UserPromptSubmit", ".minicode/hooks/h.sh"),
			`echo '{"decision":"block","reason":"quiet hours"}'`, 0, "", "", "quiet hours"},
		{"SessionStart stdout joins the system prompt", hooks("SessionStart", ".minicode/hooks/h.sh"),
			`grep -q '"source":"startup"' && echo "today is release day"`, 1, "today is release day", "answer 1", ""},
		{"Stop exit 2 makes the model go on", hooks("Stop", ".minicode/hooks/h.sh"),
			`grep -q '"stop_hook_active":true' && exit 0; echo "run the tests first" >&2; exit 2`, 2, "run the tests first", "answer 2", ""},
		{"Stop JSON continue false ends as answered", hooks("Stop", ".minicode/hooks/h.sh"),
			`echo '{"continue":false,"stopReason":"enough"}'`, 1, "", "answer 1", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := hookWorkspace(t, tc.hooks, map[string]string{"h.sh": tc.script})
			srv, requests := anthropicServer(t, answerOnce())
			res := runWithModel(t, srv, ws)
			reqs := requests()
			if len(reqs) != tc.requests {
				t.Fatalf("got %d model requests, want %d; stderr %q", len(reqs), tc.requests, res.stderr)
			}
			if tc.lastHas != "" {
				last, _ := json.Marshal(reqs[len(reqs)-1])
				if !strings.Contains(string(last), tc.lastHas) {
					t.Errorf("last request %s, want it to hold %q", last, tc.lastHas)
				}
			}
			if res.code != 0 || strings.TrimSpace(res.stdout) != tc.stdout || !strings.Contains(res.stderr, tc.stderr) {
				t.Errorf("stdout %q, stderr %q; want stdout %q and stderr holding %q", res.stdout, res.stderr, tc.stdout, tc.stderr)
			}
		})
	}
}

func TestPostToolUseAndSessionEndHooks(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{
		"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ".minicode/hooks/post.sh"}]}],
		"SessionEnd": [{"hooks": [{"type": "command", "command": "cat > ended.json"}]}]
	}`, map[string]string{"post.sh": `grep -q '"tool_response":{"content":"Exit code: 0' && echo "formatting changed ran.txt" >&2 && exit 2`})
	srv, requests := anthropicServer(t, touchThenAnswer)
	res := runWithModel(t, srv, ws, "--permission-mode", "bypassPermissions")
	reqs := requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests, want 2; stderr %q", len(reqs), res.stderr)
	}
	if results := toolResultsOf(reqs[1]); len(results) != 1 || !strings.Contains(results[0].Content, "PostToolUse hook: formatting changed ran.txt") {
		t.Errorf("tool results %+v, want the PostToolUse hook's reason", results)
	}
	data, err := os.ReadFile(filepath.Join(ws, "ended.json"))
	var in HookInput
	if err != nil || json.Unmarshal(data, &in) != nil || in.HookEventName != HookSessionEnd || in.CWD != ws || in.SessionID == "" {
		t.Fatalf("SessionEnd hook input %q (%v), want the event as JSON", data, err)
	}
	if _, err := os.Stat(in.TranscriptPath); err != nil || !strings.HasSuffix(in.TranscriptPath, in.SessionID+".jsonl") {
		t.Errorf("transcript_path %q (%v), want the session's journal", in.TranscriptPath, err)
	}
}

func TestHooksOfOneEventRunInParallel(t *testing.T) {
	t.Parallel()
	// Each hook marks that it started and waits for the other's mark: run
	// one after the other, the first would wait out its timeout.
	wait := `touch %s; for i in $(seq 100); do [ -e %s ] && echo "%s saw the other" && exit 0; sleep 0.05; done; exit 1`
	ws := hookWorkspace(t, fmt.Sprintf(`{"UserPromptSubmit": [
		{"hooks": [{"type": "command", "command": %q, "timeout": 10}]},
		{"hooks": [{"type": "command", "command": %q, "timeout": 10}]}]}`,
		fmt.Sprintf(wait, "a", "b", "A"), fmt.Sprintf(wait, "b", "a", "B")), nil)
	srv, requests := anthropicServer(t, answerOnce())
	res := runWithModel(t, srv, ws)
	reqs := requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1; stderr %q", len(reqs), res.stderr)
	}
	first, _ := json.Marshal(reqs[0].Messages)
	for _, want := range []string{"A saw the other", "B saw the other"} {
		if !strings.Contains(string(first), want) {
			t.Errorf("first request %s, want it to hold %q", first, want)
		}
	}
}

func TestNotificationHookWhenPermissionIsAsked(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{"Notification": [{"hooks": [{"type": "command", "command": "cat > notified.json"}]}]}`, nil)
	srv, _ := anthropicServer(t, touchThenAnswer)
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + trustingHome(t, ws)}, "touch the file\nn\n", "--workspace", ws)
	data, err := os.ReadFile(filepath.Join(ws, "notified.json"))
	if err != nil || !strings.Contains(string(data), `"message":"minicode needs your permission`) || !strings.Contains(string(data), `"notification_type":"permission_prompt"`) {
		t.Errorf("Notification hook input %q (%v), want a permission message; stdout %q", data, err, res.stdout)
	}
}

func TestNotificationHookWhenTheModelAsks(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{"Notification": [{"hooks": [{"type": "command", "command": "cat > notified.json"}]}]}`, nil)
	srv, _ := anthropicServer(t, func(*http.Request, modelRequest) string {
		return anthropicToolStream(Block{ID: "toolu_q", Name: "ask_user", Input: json.RawMessage(`{"question":"Which file?"}`)})
	})
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + trustingHome(t, ws)}, "fix it\n", "--workspace", ws)
	data, err := os.ReadFile(filepath.Join(ws, "notified.json"))
	if err != nil || !strings.Contains(string(data), `"message":"minicode is waiting for your answer: Which file?"`) || !strings.Contains(string(data), `"notification_type":"idle_prompt"`) {
		t.Errorf("Notification hook input %q (%v), want the question; stdout %q", data, err, res.stdout)
	}
}

func TestPreCompactHook(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	var settings Settings
	data := []byte(`{"hooks": {"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "cat > compact.json"}]}]}}`)
	if err := decodeJSON(data, &settings, true); err != nil {
		t.Fatal(err)
	}
	if _, err := settings.Hooks.check(data, "test"); err != nil {
		t.Fatal(err)
	}
	h := &Hooks{Config: settings.Hooks, SessionID: "s1", Workspace: ws}
	h.Run(t.Context(), HookInput{HookEventName: HookPreCompact, Trigger: "auto"})
	if _, err := os.Stat(filepath.Join(ws, "compact.json")); err == nil {
		t.Fatal("a PreCompact hook matching manual ran for an automatic compaction")
	}
	h.Run(t.Context(), HookInput{HookEventName: HookPreCompact, Trigger: "manual", CustomInstructions: "keep the test names"})
	got, _ := os.ReadFile(filepath.Join(ws, "compact.json"))
	for _, want := range []string{`"hook_event_name":"PreCompact"`, `"trigger":"manual"`, `"custom_instructions":"keep the test names"`, `"session_id":"s1"`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("PreCompact input %q, want it to hold %q", got, want)
		}
	}
}

func TestMalformedHookConfigNamesFileLineAndField(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, hooks, want string }{
		{"bad regex", "{\n\"PreToolUse\": [{\"matcher\": \"Bash(\", \"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]}", `line 2: field "hooks.PreToolUse[0].matcher"`},
		{"no command", `{"Stop": [{"hooks": [{"type": "command"}]}]}`, `field "hooks.Stop[0].hooks[0].command" is missing`},
		{"wrong type in an entry", "{\"Stop\": [{\"matcher\": 5,\n \"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]}", `field "hooks.matcher" must be a string`},
		{"wrong JSON type", `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}`, `line 1: field "hooks.hooks.timeout" must be a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := hookWorkspace(t, tc.hooks, nil)
			err := brokenSettings(t.TempDir(), t.TempDir(), ws)
			file := filepath.Join(ws, ".minicode", "settings.json")
			if err == nil || !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to name %q and hold %q", err, file, tc.want)
			}
		})
	}
}

func TestNewerHookFieldsAreListedNotFatal(t *testing.T) {
	t.Parallel()
	ws, mhome := t.TempDir(), t.TempDir()
	file := filepath.Join(mhome, "settings.json")
	writeFile(t, file, `{"hooks": {
		"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "touch started", "statusMessage": "Starting", "timout": 5}]}],
		"PreToolUse": [{"matcher": "Bash", "if": "Bash(git *)", "hooks": [{"type": "command", "command": "true", "if": "Bash(rm *)"}]}]}}`)
	r := runMinicode(t, []string{"MINICODE_HOME=" + mhome}, "", "-p", "help", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q; want newer hook fields not to stop minicode", r.code, r.stderr)
	}
	want := "ignoring settings minicode does not use: hooks.PreToolUse[0].if (" + file + "), hooks.PreToolUse[0].hooks[0].if (" + file +
		"), hooks.SessionStart[0].hooks[0].statusMessage (" + file + "), hooks.SessionStart[0].hooks[0].timout (" + file + ")\n"
	if strings.Count(r.stderr, "ignoring settings") != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q, want one notice %q", r.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(ws, "started")); err != nil {
		t.Errorf("the SessionStart hook with a newer field did not run: %v", err)
	}
}

func TestHooksCommandListsTheHooks(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0", "timeout": 5}]}]}`, nil)
	res := runMinicode(t, []string{"MINICODE_HOME=" + trustingHome(t, ws)}, "/hooks\n", "--workspace", ws)
	want := "PreToolUse       Bash           exit 0 (timeout 5s, from " + filepath.Join(ws, ".minicode", "settings.json") + ")"
	if !strings.Contains(res.stdout, want) {
		t.Errorf("/hooks printed %q, want it to hold %q", res.stdout, want)
	}
}

// TestHooksRunOutsideTheSandbox runs a hook that writes outside the
// workspace: hooks are the user's own commands, run as Claude Code runs
// them, outside the sandbox.
func TestHooksRunOutsideTheSandbox(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	ws := hookWorkspace(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": "touch inside; touch \"$HOME/outside\""}]}]}`, nil)
	srv, _ := anthropicServer(t, answerOnce())
	res := runMinicode(t, []string{"HOME=" + home, "MINICODE_HOME=" + trustingHome(t, ws), "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "", "-p", "hi", "--workspace", ws)
	for _, path := range []string{filepath.Join(ws, "inside"), filepath.Join(home, "outside")} {
		if _, err := os.Stat(path); err != nil {
			t.Errorf("the hook did not write %s: %v; stderr %q", path, err, res.stderr)
		}
	}
}

func TestHooksAreCancelledWithTheTurn(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo $$ > hook.pid; sleep 30"}]}]}`, nil)
	srv, _ := anthropicServer(t, answerOnce())
	cmd := exec.Command(minicodeBinary(t), "-p", "hi", "--workspace", ws)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + trustingHome(t, ws),
		"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := 0
	for deadline := time.Now().Add(20 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the hook never started")
		}
		data, _ := os.ReadFile(filepath.Join(ws, "hook.pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("minicode did not stop while a hook ran")
	}
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the hook (pid %d) still runs after the turn was cancelled", pid)
		}
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit code %d, want %d", code, exitInterrupted)
	}
}

func TestPreCompactHookRunsOnCompact(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{"PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "cat > compact.json"}]}]}`, nil)
	srv, _ := anthropicServer(t, answerOnce())
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + trustingHome(t, ws)},
		"hello\n/compact keep the names\n", "--workspace", ws)
	data, err := os.ReadFile(filepath.Join(ws, "compact.json"))
	if err != nil || !strings.Contains(string(data), `"trigger":"manual","custom_instructions":"keep the names"`) {
		t.Errorf("PreCompact input %q (%v), want trigger manual and the focus; stdout %q", data, err, res.stdout)
	}
}

func TestClaudeCodeHooksMinicodeLacksAreListed(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{"TeammateIdle": [{"hooks": [{"type": "command", "command": "x"}]}],
		"Stop": [{"hooks": [{"type": "prompt", "command": "x"}, {"type": "command", "command": "true"}]}]}`, nil)
	layers, err := loadSettings(t.TempDir(), t.TempDir(), ws, nil, nil, noneBroken(t))
	s := mergeSettings(layers, ws, true)
	file := filepath.Join(ws, ".minicode", "settings.json")
	want := []string{`hooks.Stop[0].hooks[0] (type "prompt") (` + file + ")", "hooks.TeammateIdle (" + file + ")"}
	if err != nil || !slices.Equal(s.Unknown, want) || len(s.Hooks) != 1 || len(s.Hooks[HookStop][0].Hooks) != 1 {
		t.Errorf("settings %+v (%v): want unknown %q and the one command hook kept", s, err, want)
	}
}

func TestHookOutputIsCapped(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	h := &Hooks{Workspace: ws, Config: HookSettings{HookUserPromptSubmit: {{Hooks: []HookCommand{{Type: "command", Command: "yes | head -c 10000000"}}}}}}
	v := h.Run(t.Context(), HookInput{HookEventName: HookUserPromptSubmit, Prompt: "x"})
	if len(v.Context) > maxResultChars || !strings.HasPrefix(v.Context, "y\ny\n") {
		t.Errorf("context of %d bytes starting %q, want at most %d", len(v.Context), cutRunes(v.Context, 10), maxResultChars)
	}
}

// BenchmarkPreToolUseHook measures what one matching hook adds to a tool
// call: bash started in its process group, the event on stdin, the answer
// read back.
func BenchmarkPreToolUseHook(b *testing.B) {
	h := &Hooks{Workspace: b.TempDir(), Config: HookSettings{HookPreToolUse: {{Hooks: []HookCommand{{Type: "command", Command: "cat > /dev/null"}}}}}}
	call := Block{ID: "toolu_1", Name: "run_command", Input: json.RawMessage(`{"command":"ls"}`)}
	for b.Loop() {
		if v := h.Run(b.Context(), HookInput{HookEventName: HookPreToolUse, ToolName: call.Name, ToolUseID: call.ID, ToolInput: call.Input}); v.Block {
			b.Fatal("blocked")
		}
	}
}
