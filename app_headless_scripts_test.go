package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
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
	if !strings.Contains(r.stdout, `"errors":["Reached maximum number of turns (2)"]`) {
		t.Errorf("json result = %s, want Claude Code's errors", r.stdout)
	}
}
