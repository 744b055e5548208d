package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The tests in this file talk to the reference MCP servers from npm,
// installed by scripts/install-mcp-peers.sh into $MCP_TOOLS_DIR (default
// /tmp/minicode-mcp-peers). In CI (CI=true) they must run; elsewhere they
// skip when the peers are missing.

// mcpPeersDir returns the peers' install prefix, or skips (fails in CI).
func mcpPeersDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("MCP_TOOLS_DIR")
	if dir == "" {
		dir = "/tmp/minicode-mcp-peers"
	}
	_, errNode := exec.LookPath("node")
	_, errPkg := os.Stat(filepath.Join(dir, "node_modules/@modelcontextprotocol/server-everything/package.json"))
	if errNode != nil || errPkg != nil {
		msg := fmt.Sprintf("MCP peers not found in %s; install them with: bash scripts/install-mcp-peers.sh", dir)
		if errNode != nil {
			msg = "node is not installed, so the MCP peers cannot run: " + errNode.Error()
		}
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return dir
}

// everythingStdio configures server-everything over stdio.
func everythingStdio(t testing.TB) MCPServerConfig {
	dir := mcpPeersDir(t)
	return MCPServerConfig{Name: "everything", Command: "node",
		Args: []string{filepath.Join(dir, "node_modules/.bin/mcp-server-everything"), "stdio"}}
}

// startEverythingHTTP runs server-everything in an HTTP mode
// (streamableHttp or sse) on a free port and returns its base URL. It
// waits for the server to say it listens on that port: something else
// may take the port between its choice and the server's bind, and a
// server that fails to bind is started again on another port.
func startEverythingHTTP(t *testing.T, mode string) string {
	dir := mcpPeersDir(t)
	var logs []string
	for range 5 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		cmd := exec.Command("node", filepath.Join(dir, "node_modules/.bin/mcp-server-everything"), mode)
		cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = w, w
		err = cmd.Start()
		w.Close()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		listening, lines := make(chan bool, 1), make(chan []string, 1)
		go func() { // reads until the server ends, so that it never blocks on output
			var seen []string
			sc := bufio.NewScanner(r)
			for sc.Scan() {
				seen = append(seen, sc.Text())
				if strings.HasSuffix(sc.Text(), fmt.Sprintf(" on port %d", port)) {
					listening <- true
				}
			}
			r.Close()
			lines <- seen
			listening <- false
		}()
		select {
		case ok := <-listening:
			if ok {
				return fmt.Sprintf("http://127.0.0.1:%d", port)
			}
			logs = <-lines
		case <-time.After(30 * time.Second):
			t.Fatalf("server-everything %s did not say it listens on port %d", mode, port)
		}
	}
	t.Fatalf("server-everything %s never started; its last output:\n%s", mode, strings.Join(logs, "\n"))
	return ""
}

// allowAll is an Authorizer that allows every call.
type allowAll struct{}

// Authorize allows.
func (allowAll) Authorize(context.Context, PermissionRequest) error { return nil }

// eventLog collects the manager's notices and progress reports for assertions.
type eventLog struct {
	mu     sync.Mutex
	events []string // "notice: TEXT" or "progress: MESSAGE"
}

// notice records a notice.
func (l *eventLog) notice(text string) { l.add("notice", text) }

// progress records a progress report.
func (l *eventLog) progress(p MCPProgress) { l.add("progress", p.Message) }

// add records one event of kind.
func (l *eventLog) add(kind, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, kind+": "+text)
}

// count returns how many events of kind were seen.
func (l *eventLog) count(kind string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if strings.HasPrefix(e, kind+": ") {
			n++
		}
	}
	return n
}

// startManager runs a manager over configs and waits until all settle.
func startManager(t *testing.T, configs []MCPServerConfig, opts MCPOptions) (*MCPManager, *Registry) {
	t.Helper()
	reg := newRegistry()
	m := newMCPManager(configs, reg, opts)
	t.Cleanup(m.Close)
	m.Start(context.Background())
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	m.Wait(ctx)
	return m, reg
}

// waitForTool polls until the registry has name (list_changed refreshes
// run in the background).
func waitForTool(t *testing.T, reg *Registry, name string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, ok := reg.Get(name); ok {
			return
		}
	}
	t.Fatalf("tool %q never appeared; have %q", name, reg.names())
}

// execTool runs one call through the registry, as the agent loop does.
func execTool(t *testing.T, reg *Registry, name, input string) ToolOutput {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	env := &ToolEnv{Workspace: t.TempDir(), Perms: allowAll{}}
	return reg.Execute(ctx, env, Block{Type: BlockToolUse, ID: "call_1", Name: name, Input: json.RawMessage(input)})
}

func TestMCPEverythingStdio(t *testing.T) {
	t.Parallel()
	var events eventLog
	workspace := t.TempDir()
	m, reg := startManager(t, []MCPServerConfig{everythingStdio(t)},
		MCPOptions{Workspace: workspace, OnNotice: events.notice, OnProgress: events.progress,
			// The form's first field, name, is required; the rest keep defaults.
			Elicitor: newLineElicitor(newLineReader(strings.NewReader("Alice\n"+strings.Repeat("\n", 20))).ReadLine, io.Discard).Elicit})
	if st := m.Status()[0]; st.State != MCPReady {
		t.Fatalf("state = %q (%s), want ready", st.State, st.Error)
	}
	// Tools added for our capabilities arrive with list_changed.
	waitForTool(t, reg, "mcp__everything__get-roots-list")
	waitForTool(t, reg, "mcp__everything__trigger-elicitation-request")
	for _, name := range []string{"list_mcp_resources", "read_mcp_resource", "list_mcp_prompts", "get_mcp_prompt"} {
		if _, ok := reg.Get(name); !ok {
			t.Errorf("helper tool %s missing though the server offers resources and prompts", name)
		}
	}
	cases := []struct {
		tool, input string
		want        []string
		isError     bool
	}{
		{"mcp__everything__echo", `{"message":"hello"}`, []string{"Echo: hello"}, false},
		{"mcp__everything__get-sum", `{"a":2,"b":40}`, []string{"42"}, false},
		{"mcp__everything__get-tiny-image", `{}`, []string{"[image image/png, ", " bytes]"}, false},
		{"mcp__everything__get-resource-links", `{"count":2}`, []string{"[resource link: ", "demo://resource/"}, false},
		{"mcp__everything__get-resource-reference", `{"resourceType":"Text","resourceId":1}`, []string{"[resource demo://resource/"}, false},
		{"mcp__everything__get-structured-content", `{"location":"New York"}`, []string{"temperature"}, false},
		{"mcp__everything__get-roots-list", `{}`, []string{"file://" + workspace}, false},
		{"mcp__everything__trigger-elicitation-request", `{}`, []string{`"action": "accept"`, "Alice", "It was a dark and stormy night."}, false},
		{"list_mcp_resources", `{}`, []string{"everything: demo://resource/"}, false},
		{"read_mcp_resource", `{"server":"everything","uri":"demo://resource/static/document/architecture.md"}`, []string{"[resource demo://resource/static/document/architecture.md]"}, false},
		{"list_mcp_prompts", `{}`, []string{"everything: simple-prompt"}, false},
		{"get_mcp_prompt", `{"server":"everything","name":"simple-prompt"}`, []string{"user: "}, false},
		// The server checks the arguments; the client only their shape.
		{"mcp__everything__get-sum", `{"a":"two","b":1}`, []string{"Invalid arguments for tool get-sum"}, true},
		{"mcp__everything__get-sum", `[2,40]`, []string{"must be a JSON object"}, true},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			out := execTool(t, reg, c.tool, c.input)
			for _, w := range c.want {
				if out.IsError != c.isError || !strings.Contains(out.Text, w) {
					t.Errorf("%s(%s) = %q (isError %v), want it to contain %q (isError %v)", c.tool, c.input, out.Text, out.IsError, w, c.isError)
				}
			}
		})
	}
	out := execTool(t, reg, "mcp__everything__trigger-long-running-operation", `{"duration":0.3,"steps":3}`)
	if out.IsError || !strings.Contains(out.Text, "completed") || events.count("progress") != 3 {
		t.Errorf("long operation = %q with %d progress events, want it completed after 3", out.Text, events.count("progress"))
	}
}

func TestMCPEverythingCancellation(t *testing.T) {
	t.Parallel()
	c := everythingStdio(t)
	c.TimeoutMs = 400
	sess := connectTestSession(t, c)
	start := time.Now()
	// Progress every 0.5 s would reset the clock, so ask for few steps.
	_, err := sess.callTool(context.Background(), "trigger-long-running-operation", json.RawMessage(`{"duration":20,"steps":2}`), c.callTimeout(), nil)
	if err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("the timeout took %s", elapsed)
	}
	// The server never answers the cancelled request; the session must
	// have dropped it and still work.
	pending := 0
	sess.pending.Range(func(any, any) bool { pending++; return true })
	if pending != 0 {
		t.Errorf("%d requests still pending after the cancel", pending)
	}
	out, err := sess.callTool(context.Background(), "echo", json.RawMessage(`{"message":"still here"}`), 10*time.Second, nil)
	if err != nil || !strings.Contains(out.Text, "still here") {
		t.Errorf("echo after cancel = %q, %v", out.Text, err)
	}
}

// connectTestSession opens a session to c and closes it when the test ends.
func connectTestSession(t *testing.T, c MCPServerConfig) *mcpSession {
	t.Helper()
	m := newMCPManager(nil, nil, MCPOptions{Workspace: t.TempDir()})
	sess := newMCPSession(c.Name, m.transport(c), m.opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := sess.connect(ctx, c.startupTimeout()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.close() })
	return sess
}

func TestMCPEverythingHTTP(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode, kind, path string
	}{
		{"streamableHttp", "http", "/mcp"},
		{"sse", "sse", "/sse"},
		{"sse", "http", "/sse"}, // the initialize POST is refused: fall back to HTTP+SSE
	}
	for _, c := range cases {
		t.Run(c.mode+"/"+c.kind, func(t *testing.T) {
			t.Parallel()
			base := startEverythingHTTP(t, c.mode)
			var events eventLog
			m, reg := startManager(t, []MCPServerConfig{{Name: "ev", Type: c.kind, URL: base + c.path}},
				MCPOptions{Workspace: t.TempDir(), OnNotice: events.notice, OnProgress: events.progress})
			if st := m.Status()[0]; st.State != MCPReady || st.Tools < 10 {
				t.Fatalf("status = %+v", st)
			}
			waitForTool(t, reg, "mcp__ev__get-roots-list")
			if out := execTool(t, reg, "mcp__ev__echo", `{"message":"over http"}`); out.Text != "Echo: over http" {
				t.Errorf("echo = %q", out.Text)
			}
			out := execTool(t, reg, "mcp__ev__trigger-long-running-operation", `{"duration":0.2,"steps":2}`)
			if out.IsError || events.count("progress") != 2 {
				t.Errorf("long operation = %q with %d progress events, want 2", out.Text, events.count("progress"))
			}
		})
	}
}

// filesystemServer configures server-filesystem allowing dirs.
func filesystemServer(t *testing.T, dirs ...string) MCPServerConfig {
	dir := mcpPeersDir(t)
	return MCPServerConfig{Name: "fs", Command: "node",
		Args: append([]string{filepath.Join(dir, "node_modules/.bin/mcp-server-filesystem")}, dirs...)}
}

func TestMCPFilesystem(t *testing.T) {
	t.Parallel()
	workspace, other := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(workspace, "hello.txt"), []byte("hello from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server is started on another folder; it asks for our roots
	// (request id 0) and our answer, the workspace, replaces it.
	m, reg := startManager(t, []MCPServerConfig{filesystemServer(t, other)}, MCPOptions{Workspace: workspace})
	if st := m.Status()[0]; st.State != MCPReady {
		t.Fatalf("status = %+v", st)
	}
	waitFor(t, "the roots to be applied", func() bool {
		out := execTool(t, reg, "mcp__fs__list_allowed_directories", `{}`)
		return strings.Contains(out.Text, workspace) && !strings.Contains(out.Text, other)
	})
	out := execTool(t, reg, "mcp__fs__read_text_file", `{"path":"`+filepath.Join(workspace, "hello.txt")+`"}`)
	if out.IsError || out.Text != "hello from the workspace\n" {
		t.Errorf("read_text_file = %q (isError %v)", out.Text, out.IsError)
	}
	out = execTool(t, reg, "mcp__fs__read_text_file", `{"path":"`+filepath.Join(other, "x")+`"}`)
	if !out.IsError || !strings.Contains(out.Text, "Access denied") {
		t.Errorf("reading outside the roots = %q (isError %v), want the tool's error", out.Text, out.IsError)
	}
}

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// mcpScriptedModel replays model replies, one per Stream call, and keeps
// the requests it was sent.
type mcpScriptedModel struct {
	replies  []ModelResponse
	requests []ModelRequest
}

// Name names the provider.
func (p *mcpScriptedModel) Name() string { return "scripted" }

// Stream returns the next scripted reply.
func (p *mcpScriptedModel) Stream(_ context.Context, req ModelRequest, _ func(Delta)) (ModelResponse, error) {
	p.requests = append(p.requests, req)
	if len(p.requests) > len(p.replies) {
		return ModelResponse{}, fmt.Errorf("no scripted reply %d", len(p.requests))
	}
	return p.replies[len(p.requests)-1], nil
}

func TestMCPAgentTurn(t *testing.T) {
	t.Parallel()
	workspace := t.TempDir()
	if err := os.WriteFile(filepath.Join(workspace, "notes.md"), []byte("the answer is 42\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, reg := startManager(t, []MCPServerConfig{filesystemServer(t, workspace)}, MCPOptions{Workspace: workspace})
	input, _ := json.Marshal(map[string]string{"path": filepath.Join(workspace, "notes.md")})
	provider := &mcpScriptedModel{replies: []ModelResponse{
		{StopReason: StopToolUse, Content: []Block{{Type: BlockToolUse, ID: "tu_1", Name: "mcp__fs__read_text_file", Input: input}}},
		{StopReason: StopEndTurn, Content: []Block{{Type: BlockText, Text: "The notes say the answer is 42."}}},
	}}
	agent := &Agent{Provider: provider, Tools: reg, Env: &ToolEnv{Workspace: workspace, Perms: allowAll{}}, Model: "scripted"}
	res := agent.RunTurn(t.Context(), nil, TurnInput{Text: "what do my notes say?"})
	if res.End != EndFinal || res.Text != "The notes say the answer is 42." {
		t.Fatalf("turn ended %q with %q (%v)", res.End, res.Text, res.Err)
	}
	offered := false
	for _, spec := range provider.requests[0].Tools {
		offered = offered || spec.Name == "mcp__fs__read_text_file" && strings.Contains(string(spec.InputSchema), `"path"`)
	}
	if !offered {
		t.Error("the model was not offered the MCP tool with its schema")
	}
	results := res.Messages[2].Content
	if len(results) != 1 || results[0].ToolUseID != "tu_1" || results[0].Content != "the answer is 42\n" || results[0].IsError {
		t.Errorf("tool result = %+v", results)
	}
}

// WalkFilter hides nothing.
func (allowAll) WalkFilter(string) func(string) bool { return nil }
