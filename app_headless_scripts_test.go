package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The first things a script written for `claude -p` meets: piped input,
// MCP tools in the first request, and settings Claude Code reads.

// firstUserText returns the text of the first user message of a request.
func firstUserText(req modelRequest) string {
	var texts []string
	for _, b := range req.Messages[0].Content {
		texts = append(texts, b.Text)
	}
	return strings.Join(texts, "\n")
}

func TestPipedStdinFollowsThePrompt(t *testing.T) {
	t.Parallel()
	srv, seen := anthropicServer(t, textReplies("looks fine", "looks fine"))
	r := runMinicode(t, anthropicEnv(srv.URL), "diff --git a/x b/x\n+a new line\n", "-p", "review this", "--workspace", t.TempDir())
	if r.code != 0 || r.stdout != "looks fine\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got := firstUserText(seen()[0]); !strings.Contains(got, "review this\ndiff --git a/x b/x\n+a new line") {
		t.Errorf("the prompt sent = %q, want the argument followed by stdin", got)
	}

	// A program that leaves stdin open and sends nothing does not hold the run.
	read, write, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer write.Close()
	cmd := minicodeCommand(t, anthropicEnv(srv.URL), "-p", "just this")
	cmd.Stdin = read
	if out, err := cmd.Output(); err != nil || string(out) != "looks fine\n" {
		t.Fatalf("with stdin open: %v, stdout %q", err, out)
	}
	read.Close()
	if got := firstUserText(seen()[1]); !strings.Contains(got, "just this") || strings.Contains(got, "diff") {
		t.Errorf("the prompt sent = %q, want the argument alone", got)
	}

	r = runMinicode(t, anthropicEnv(srv.URL), strings.Repeat("x", maxPipedBytes+1), "-p", "review this", "--workspace", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.stderr, "stdin holds more than 4 MiB") || len(seen()) != 2 {
		t.Errorf("over the bound: exit %d, stderr %q, %d requests; want a usage error and no request", r.code, r.stderr, len(seen()))
	}
}

// mcpConfigFlag is --mcp-config with fake stdio servers named after their
// modes, each with its startupTimeoutMs (0: none).
func mcpConfigFlag(t *testing.T, startupMs map[string]int) string {
	servers := map[string]any{}
	for mode, ms := range startupMs {
		c := fakeStdioConfig(t, mode, mode)
		servers[mode] = map[string]any{"command": c.Command, "env": c.Env, "startupTimeoutMs": ms}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": servers})
	return "--mcp-config=" + string(data)
}

// initLine returns the system/init line of stream-json output.
func initLine(t *testing.T, stdout string) map[string]any {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["subtype"] == "init" {
			return m
		}
	}
	t.Fatalf("no init line in %q", stdout)
	return nil
}

// TestFirstRequestOffersTheToolsOfServersThatStartInTime checks that a stdio
// server taking a second to start has its tools in the first request, and
// that one answering initialize but never tools/list holds the run only for
// its startup timeout, showing as pending in init.
func TestFirstRequestOffersTheToolsOfServersThatStartInTime(t *testing.T) {
	t.Parallel()
	srv, seen := anthropicServer(t, textReplies("done"))
	flag := mcpConfigFlag(t, map[string]int{"late": 30_000, "hanglist": 2000})
	r := runMinicode(t, anthropicEnv(srv.URL), "", "-p", "hi", flag, "--output-format", "stream-json",
		"--verbose", "--strict-mcp-config", "--workspace", t.TempDir())
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var tools []string
	for _, tool := range seen()[0].Tools {
		tools = append(tools, tool.Name)
	}
	if !slices.Contains(tools, "mcp__late__echo") {
		t.Errorf("first request tools = %q, want mcp__late__echo", tools)
	}
	servers, _ := json.Marshal(initLine(t, r.stdout)["mcp_servers"])
	for _, want := range []string{`{"name":"late","status":"connected"}`, `{"name":"hanglist","status":"pending"}`} {
		if !strings.Contains(string(servers), want) {
			t.Errorf("init mcp_servers = %s, want %s", servers, want)
		}
	}
}

// TestAHangingServerHoldsTheRunOnlyForItsStartupTimeout checks the bound with
// a server that never answers at all: MCP_TIMEOUT's 1.5 s, not the default
// 30 s, which the 20 s this test allows the run would not cover.
func TestAHangingServerHoldsTheRunOnlyForItsStartupTimeout(t *testing.T) {
	t.Parallel()
	srv, _ := anthropicServer(t, textReplies("done"))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, minicodeBinary(t), "-p", "hi", "--strict-mcp-config", "--workspace", t.TempDir(),
		mcpConfigFlag(t, map[string]int{"hang": 0}), "--output-format", "stream-json", "--verbose")
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "MINICODE_HOME=" + t.TempDir(), "MCP_TIMEOUT=1500"}, anthropicEnv(srv.URL)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if servers, _ := json.Marshal(initLine(t, string(out))["mcp_servers"]); !strings.Contains(string(servers), `{"name":"hang","status":"failed"}`) {
		t.Errorf("init mcp_servers = %s, want hang failed", servers)
	}
	r := runMinicode(t, []string{"MCP_TIMEOUT=soon"}, "", "-p", "hi", "--workspace", t.TempDir())
	if r.code != exitUsage || !strings.Contains(r.stderr, `MCP_TIMEOUT must be a positive number of milliseconds, not "soon"`) {
		t.Errorf("a bad MCP_TIMEOUT: exit %d, stderr %q", r.code, r.stderr)
	}
}

// requestTools names the tools a request offers.
func requestTools(req modelRequest) []string {
	var names []string
	for _, tool := range req.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestCompactGivenToPrintRunsAsTheCommand(t *testing.T) {
	t.Parallel()
	srv, seen := anthropicServer(t, textReplies("hello", "hello again", "<summary>The user greeted the agent twice.</summary>"))
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".claude", "settings.json"),
		`{"hooks":{"PreCompact":[{"hooks":[{"type":"command","command":"cat > precompact.json"}]}]}}`)
	env := append(anthropicEnv(srv.URL), "HOME="+home, "MINICODE_HOME="+filepath.Join(home, ".minicode"))
	for _, args := range [][]string{{"-p", "hi"}, {"-p", "hi again", "--continue"}} {
		if r := runMinicode(t, env, "", append(args, "--workspace", ws)...); r.code != 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	r := runMinicode(t, env, "", "-p", "/compact", "--continue", "--workspace", ws, "--output-format", "json")
	var res resultRecord
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || r.code != 0 || res.Subtype != "success" {
		t.Fatalf("/compact: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	hook, err := os.ReadFile(filepath.Join(ws, "precompact.json"))
	if err != nil || !strings.Contains(string(hook), `"trigger":"manual"`) {
		t.Errorf("PreCompact hook input = %q (%v), want a manual compaction", hook, err)
	}
	if reqs := seen(); len(reqs) != 3 || strings.Contains(firstUserText(reqs[2]), "/compact") {
		t.Errorf("%d requests, the second's first message %q; want the summary request, not /compact as text", len(reqs), firstUserText(reqs[len(reqs)-1]))
	}
}

func TestBareDisallowedToolIsNotOffered(t *testing.T) {
	t.Parallel()
	srv, seen := anthropicServer(t, textReplies("ok"))
	r := runMinicode(t, anthropicEnv(srv.URL), "", "-p", "hi", "--disallowedTools", "Bash", "--disallowedTools", "web_fetch,Grep(TODO)",
		"--workspace", t.TempDir(), "--output-format", "stream-json", "--verbose")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	offered := requestTools(seen()[0])
	for _, tool := range []string{"run_command", "command_output", "command_kill", "web_fetch"} {
		if slices.Contains(offered, tool) {
			t.Errorf("%s is offered although denied whole: %q", tool, offered)
		}
	}
	if !slices.Contains(offered, "grep_files") || !slices.Contains(offered, "read_file") {
		t.Errorf("offered %q, want grep_files (denied only for one pattern) and read_file", offered)
	}
	if tools, _ := json.Marshal(initLine(t, r.stdout)["tools"]); strings.Contains(string(tools), "run_command") {
		t.Errorf("init tools = %s, want no run_command", tools)
	}
}

func TestMaxTurnsMessageGoesToStdout(t *testing.T) {
	t.Parallel()
	srv, _ := anthropicServer(t, func(*http.Request, modelRequest) string {
		return anthropicToolStream(Block{ID: "toolu_1", Name: "list_files", Input: json.RawMessage(`{}`)})
	})
	r := runMinicode(t, anthropicEnv(srv.URL), "", "-p", "loop", "--max-turns", "2", "--workspace", t.TempDir())
	if r.code != exitFailed || r.stdout != "Error: Reached max turns (2)\n" {
		t.Errorf("exit %d, stdout %q; want 1 and Claude Code's line", r.code, r.stdout)
	}
	r = runMinicode(t, anthropicEnv(srv.URL), "", "-p", "loop", "--max-turns", "2", "--workspace", t.TempDir(), "--output-format", "json")
	if !strings.Contains(r.stdout, `"errors":["Reached maximum number of turns (2)"]`) || !strings.Contains(r.stdout, `"terminal_reason":"max_turns"`) {
		t.Errorf("json result = %s, want Claude Code's errors", r.stdout)
	}
	r = runMinicode(t, anthropicEnv(srv.URL), "", "-p", "loop", "--max-turns", "1", "--workspace", t.TempDir())
	if !strings.Contains(r.stderr, "Stopped after 1 model step (the --max-turns limit)") {
		t.Errorf("stderr with --max-turns 1 = %q, want one model step", r.stderr)
	}
}

// keyCheckingServer is a Messages API that answers only requests with the
// API key want in both x-api-key and Authorization, and 401 to others,
// recording the keys it saw.
func keyCheckingServer(t *testing.T, want string, reply func(*http.Request, modelRequest) string) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var keys []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("x-api-key")
		mu.Lock()
		keys = append(keys, key)
		mu.Unlock()
		if (want != "" && key != want) || r.Header.Get("Authorization") != "Bearer "+key {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`)
			return
		}
		var req modelRequest
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &req)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, reply(r, req))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(keys)
	}
}

// keyHelperHome is a home whose user settings run an apiKeyHelper printing key-1, key-2, ... one more each run.
func keyHelperHome(t *testing.T) string {
	home := t.TempDir()
	helper := filepath.Join(home, "helper.sh")
	writeFile(t, helper, "n=$(( $(cat \"$HOME/count\" 2>/dev/null || echo 0) + 1 ))\necho $n > \"$HOME/count\"\necho key-$n\n")
	settings, _ := json.Marshal(map[string]any{"apiKeyHelper": "sh " + helper})
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), string(settings))
	return home
}

func TestAPIKeyHelperRunsAgainAfterA401(t *testing.T) {
	t.Parallel()
	srv, keys := keyCheckingServer(t, "key-2", func(*http.Request, modelRequest) string { return anthropicTextStream("in", "end_turn") })
	home := keyHelperHome(t)
	r := runMinicode(t, []string{"HOME=" + home, "ANTHROPIC_BASE_URL=" + srv.URL}, "", "-p", "hi", "--workspace", t.TempDir(),
		"--output-format", "stream-json", "--verbose")
	if r.code != 0 || !slices.Equal(keys(), []string{"key-1", "key-2"}) {
		t.Fatalf("exit %d, keys sent %q, stderr %q; want key-1 refused, then key-2", r.code, keys(), r.stderr)
	}
	if source := initLine(t, r.stdout)["apiKeySource"]; source != "apiKeyHelper" {
		t.Errorf("apiKeySource = %v, want apiKeyHelper", source)
	}
}

func TestAPIKeyHelperKeyIsKeptForItsTTL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		env  []string
		want []string
	}{
		{nil, []string{"key-1", "key-1"}}, // five minutes by default
		{[]string{"CLAUDE_CODE_API_KEY_HELPER_TTL_MS=1"}, []string{"key-1", "key-2"}},
	} {
		reply := toolThenText("list_files", `{}`, "done")
		srv, keys := keyCheckingServer(t, "", func(r *http.Request, req modelRequest) string {
			time.Sleep(5 * time.Millisecond) // the 1 ms TTL has passed by the next request, on any machine
			return reply(r, req)
		})
		env := append([]string{"HOME=" + keyHelperHome(t), "ANTHROPIC_BASE_URL=" + srv.URL}, tc.env...)
		if r := runMinicode(t, env, "", "-p", "list", "--workspace", t.TempDir()); r.code != 0 || !slices.Equal(keys(), tc.want) {
			t.Errorf("%q: exit %d, keys sent %q, stderr %q; want %q", tc.env, r.code, keys(), r.stderr, tc.want)
		}
	}
}

// A helper that fails after its key was refused gives no key, however soon
// it is asked again: what it printed while failing is never sent as a key.
func TestAPIKeyHelperThatFailsGivesNoKey(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	k := &KeyHelper{command: "if [ -e ran ]; then echo 'cannot reach the vault'; exit 1; fi; touch ran; echo key-1", dir: dir, ttl: time.Hour}
	if key, err := k.Key(t.Context()); key != "key-1" || err != nil {
		t.Fatalf("first key %q, %v; want key-1", key, err)
	}
	k.expire()
	for range 2 {
		if key, err := k.Key(t.Context()); key != "" || err == nil || !strings.Contains(err.Error(), "exit status 1") {
			t.Errorf("after the helper failed: key %q, error %v; want no key and the helper's failure", key, err)
		}
	}
}

func TestAPIKeyHelperOfAnUntrustedProjectDoesNotRun(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(ws, ".claude", "settings.json"), `{"apiKeyHelper": "touch `+marker+`; echo key"}`)
	r := runMinicode(t, nil, "", "-p", "hi", "--workspace", ws)
	if _, err := os.Stat(marker); err == nil || !strings.Contains(r.stderr, "apiKeyHelper") {
		t.Errorf("the untrusted project's helper ran (%v), or stderr %q does not name it", err, r.stderr)
	}
}

// systemText joins the system prompt of a request.
func systemText(req modelRequest) string {
	var texts []string
	for _, b := range req.System {
		texts = append(texts, b.Text)
	}
	return strings.Join(texts, "\n")
}

func TestOutputStyles(t *testing.T) {
	t.Parallel()
	cases := []struct {
		style, file, want, wantGone string
	}{
		{"Learning", "", "TODO(human)", ""},
		{"Explanatory", "", "★ Insight", ""},
		{"Pirate", ".claude/output-styles/pirate.md", "Talk like a pirate.", "How to work:"},
		{"Terse", "HOME/.claude/output-styles/terse.md", "One line per answer.", ""},
	}
	for _, tc := range cases {
		t.Run(tc.style, func(t *testing.T) {
			t.Parallel()
			srv, seen := anthropicServer(t, textReplies("ok"))
			home, ws := t.TempDir(), t.TempDir()
			switch {
			case strings.HasPrefix(tc.file, "HOME/"):
				writeFile(t, filepath.Join(home, strings.TrimPrefix(tc.file, "HOME/")), "---\nname: Terse\nkeep-coding-instructions: true\n---\nOne line per answer.\n")
			case tc.file != "":
				writeFile(t, filepath.Join(ws, tc.file), "---\nname: Pirate\ndescription: Arr\n---\nTalk like a pirate.\n")
			}
			writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"), `{"outputStyle": "`+tc.style+`"}`)
			r := runMinicode(t, append(anthropicEnv(srv.URL), "HOME="+home), "", "-p", "hi", "--workspace", ws, "--output-format", "stream-json", "--verbose")
			system := systemText(seen()[0])
			if r.code != 0 || !strings.Contains(system, tc.want) || tc.wantGone != "" && strings.Contains(system, tc.wantGone) {
				t.Errorf("exit %d, stderr %q, system prompt:\n%s\nwant %q in it and %q not", r.code, r.stderr, system, tc.want, tc.wantGone)
			}
			if style := initLine(t, r.stdout)["output_style"]; style != tc.style {
				t.Errorf("init output_style = %v, want %s", style, tc.style)
			}
		})
	}
}

func TestPermissionPromptToolIsAnMCPTool(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"notes.txt": "alpha\n"})
	srv, seen := anthropicServer(t, func(_ *http.Request, req modelRequest) string {
		switch len(toolResultsOf(req)) {
		case 0:
			return anthropicToolStream(Block{ID: "toolu_1", Name: "write_file", Input: json.RawMessage(`{"path":"new.txt","content":"x"}`)},
				Block{ID: "toolu_2", Name: "read_file", Input: json.RawMessage(`{"path":"/etc/hostname"}`)})
		}
		return anthropicTextStream("done", "end_turn")
	})
	r := runMinicode(t, anthropicEnv(srv.URL), "", "-p", "go", "--workspace", ws, "--strict-mcp-config",
		mcpConfigFlag(t, map[string]int{"approver": 30_000}), "--permission-prompt-tool", "mcp__approver__approve", "--output-format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	results := toolResultsOf(seen()[1])
	if len(results) != 2 || !results[0].IsError || !strings.Contains(results[0].Content, "the approver refuses") || results[1].IsError {
		t.Errorf("tool results = %+v; want the write refused with the approver's message and the read run", results)
	}
	if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
		t.Error("the refused write happened")
	}
}

// TestPartialMessagesGolden checks the stream_event lines of a reply that
// calls a tool (named as Claude Code names it) and of one that answers,
// against Claude Code's shapes; the message id and model vary, and are checked to be the assistant line's.
func TestPartialMessagesGolden(t *testing.T) {
	t.Parallel()
	srv, _ := anthropicServer(t, toolThenText("list_files", `{"path":"."}`, "done"))
	r := runMinicode(t, anthropicEnv(srv.URL), "", "-p", "list", "--workspace", t.TempDir(),
		"--output-format", "stream-json", "--verbose", "--include-partial-messages")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	golden := []string{
		`{"type":"message_start","message":{"id":"ID","type":"message","role":"assistant","model":"MODEL","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"LS","input":{}}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\".\"}"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":10,"output_tokens":9}}`,
		`{"type":"message_stop"}`,
		`{"type":"message_start","message":{"id":"ID","type":"message","role":"assistant","model":"MODEL","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`,
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}`,
		`{"type":"content_block_stop","index":0}`,
		`{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":10,"output_tokens":7}}`,
		`{"type":"message_stop"}`,
	}
	var events, ids []string
	var userLine map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		switch v["type"] {
		case "stream_event":
			event := v["event"].(map[string]any)
			if msg, ok := event["message"].(map[string]any); ok {
				ids = append(ids, msg["id"].(string))
				msg["id"], msg["model"] = "ID", "MODEL"
			}
			canonical, _ := json.Marshal(event)
			events = append(events, string(canonical))
		case "assistant":
			ids = append(ids, v["message"].(map[string]any)["id"].(string))
		case "user":
			userLine = v
		}
	}
	for i := range golden {
		var v any
		json.Unmarshal([]byte(golden[i]), &v)
		canonical, _ := json.Marshal(v)
		golden[i] = string(canonical)
	}
	if !slices.Equal(events, golden) {
		t.Errorf("stream events:\n%s\nwant\n%s", strings.Join(events, "\n"), strings.Join(golden, "\n"))
	}
	if len(ids) != 4 || ids[0] != ids[1] || ids[2] != ids[3] || ids[0] == ids[2] || !strings.HasPrefix(ids[0], "msg_") {
		t.Errorf("message ids %q: want each reply's message_start id on its assistant line", ids)
	}
	if result, _ := userLine["tool_use_result"].(string); result == "" {
		t.Errorf("user line %v: want the tool's result in tool_use_result", userLine)
	}
}

func TestSessionStartHooksShowInStreamJSON(t *testing.T) {
	t.Parallel()
	srv, _ := anthropicServer(t, textReplies("ok"))
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".claude", "settings.json"), `{"hooks":{
		"SessionStart":[{"hooks":[{"type":"command","command":"echo context from the hook"}]}],
		"UserPromptSubmit":[{"hooks":[{"type":"command","command":"true"}]}]}}`)
	r := runMinicode(t, append(anthropicEnv(srv.URL), "HOME="+home), "", "-p", "hi", "--workspace", t.TempDir(), "--output-format", "stream-json", "--verbose")
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var v map[string]any
		json.Unmarshal([]byte(line), &v)
		if v["subtype"] == "hook_started" || v["subtype"] == "hook_response" {
			lines = append(lines, v)
		}
	}
	if len(lines) != 2 {
		t.Fatalf("hook lines %v, want hook_started and hook_response of SessionStart only", lines)
	}
	started, response := lines[0], lines[1]
	if started["hook_name"] != "SessionStart:startup" || started["hook_event"] != "SessionStart" || response["hook_id"] != started["hook_id"] ||
		response["outcome"] != "success" || response["exit_code"] != 0.0 || response["stdout"] != "context from the hook\n" || response["output"] != "context from the hook" {
		t.Errorf("hook_started %v\nhook_response %v", started, response)
	}
}

func TestJSONVerbosePrintsEveryMessage(t *testing.T) {
	t.Parallel()
	srv, _ := anthropicServer(t, toolThenText("list_files", `{}`, "done"))
	r := runMinicode(t, anthropicEnv(srv.URL), "", "-p", "list", "--workspace", t.TempDir(), "--output-format", "json", "--verbose")
	var messages []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &messages); err != nil || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("stdout %q (%v): want one line holding a JSON array", r.stdout, err)
	}
	var kinds []string
	for _, m := range messages {
		kinds = append(kinds, m["type"].(string))
	}
	if want := []string{"system", "assistant", "user", "assistant", "result"}; !slices.Equal(kinds, want) {
		t.Errorf("messages %q, want %q", kinds, want)
	}
}

func TestAcceptEditsRunsTouchAndMkdirInsideTheWorkspace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mode, command string
		ran           bool
	}{
		{"acceptEdits", "touch a.txt && mkdir -p b/c", true},
		{"acceptEdits", "touch ../outside.txt", false},
		{"acceptEdits", "mkdir .git/hooks/x", false},
		{"acceptEdits", "touch a.txt && rm -f a.txt", false},
		{"default", "touch a.txt", false},
	} {
		srv, seen := anthropicServer(t, toolThenText("run_command", `{"command":"`+tc.command+`"}`, "done"))
		ws := t.TempDir()
		r := runMinicode(t, anthropicEnv(srv.URL), "", "-p", "go", "--workspace", ws, "--permission-mode", tc.mode, "--output-format", "json")
		results := toolResultsOf(seen()[1])
		if r.code != 0 || len(results) != 1 || results[0].IsError == tc.ran {
			t.Errorf("%s %q: exit %d, results %+v; want it run: %v", tc.mode, tc.command, r.code, results, tc.ran)
		}
	}
}
