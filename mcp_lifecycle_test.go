package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// markEnv names the variable that marks the fake servers one test starts,
// so that the test can find its processes in /proc.
const markEnv = "MINICODE_TEST_MARK"

// markedConfig is a fake server of mode whose processes carry mark, and
// which records the methods it receives in seen (if not "").
func markedConfig(t *testing.T, name, mode, mark, seen string) MCPServerConfig {
	c := fakeStdioConfig(t, name, mode)
	c.Env[markEnv] = mark
	if seen != "" {
		c.Env["FAKE_SEEN_DIR"] = seen
	}
	return c
}

// newMark returns a mark unique to this test and run.
func newMark(t *testing.T) string {
	return fmt.Sprintf("%s-%d-%d", strings.ReplaceAll(t.Name(), "/", "-"), os.Getpid(), time.Now().UnixNano())
}

// markedProcesses lists the live processes whose environment holds
// markEnv=mark. It needs Linux's /proc; elsewhere the test is skipped.
func markedProcesses(t *testing.T, mark string) []int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("finding processes needs /proc")
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	want := []byte(markEnv + "=" + mark + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// noProcessLeft fails the test if a process marked with mark still lives
// after grace (the time the kernel may take to end the children of a
// process that died).
func noProcessLeft(t *testing.T, mark, when string, grace time.Duration) {
	t.Helper()
	pids := markedProcesses(t, mark)
	for deadline := time.Now().Add(grace); len(pids) > 0 && time.Now().Before(deadline); pids = markedProcesses(t, mark) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(pids) > 0 {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("%s: server processes %v still run", when, pids)
	}
}

func TestMCPCloseWhileStarting(t *testing.T) {
	t.Parallel()
	// Closing the manager at any moment of a start ends the server process
	// before Close returns, and the start it cut short is not reported.
	cases := []struct {
		name, mode, waitFor string
	}{
		{"before the process exists", "hang", ""},
		{"during initialize", "hang", "initialize"},
		{"during tools/list", "hanglist", "tools_list"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mark, seen := newMark(t), t.TempDir()
			var events eventLog
			m := newMCPManager([]MCPServerConfig{markedConfig(t, "fake", c.mode, mark, seen)}, newRegistry(), MCPOptions{OnNotice: events.notice, OnProgress: events.progress})
			m.Start(t.Context())
			if c.waitFor != "" {
				waitFor(t, "the server to receive "+c.waitFor, func() bool {
					_, err := os.Stat(filepath.Join(seen, c.waitFor))
					return err == nil
				})
			}
			m.Close()
			noProcessLeft(t, mark, "after Close", 0)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			m.Wait(ctx)
			if ctx.Err() != nil {
				t.Fatal("Wait did not return after Close")
			}
			if n := events.count("notice"); n != 0 {
				t.Errorf("%d notices after Close, want none: %+v", n, events.events)
			}
			if st := m.Status()[0]; st.State == MCPFailed {
				t.Errorf("state = %q (%s), want the closed start not recorded as a failure", st.State, st.Error)
			}
		})
	}
}

func TestMCPCloseBeforeStart(t *testing.T) {
	t.Parallel()
	// A manager closed before it started starts nothing.
	mark := newMark(t)
	m := newMCPManager([]MCPServerConfig{markedConfig(t, "fake", "ndjson", mark, "")}, newRegistry(), MCPOptions{})
	m.Close()
	m.Start(t.Context())
	m.Wait(t.Context())
	noProcessLeft(t, mark, "after Start", 0)
	if st := m.Status()[0]; st.State != MCPStarting {
		t.Errorf("state = %q, want a server that never started", st.State)
	}
	if err := m.restart(t.Context(), "fake"); err == nil {
		t.Error("Restart after Close succeeded")
	}
}

func TestMCPStartCloseCycles(t *testing.T) {
	t.Parallel()
	// Quick start/close cycles with two servers that never finish starting,
	// closed at varying moments: Close never leaves a process behind.
	cycles := 150
	if testing.Short() {
		cycles = 30
	}
	mark := newMark(t)
	configs := []MCPServerConfig{markedConfig(t, "a", "hang", mark, ""), markedConfig(t, "b", "hanglist", mark, "")}
	for i := range cycles {
		m := newMCPManager(configs, newRegistry(), MCPOptions{})
		m.Start(t.Context())
		time.Sleep(time.Duration(i%8) * time.Millisecond) // vary the moment of Close
		m.Close()
		noProcessLeft(t, mark, fmt.Sprintf("cycle %d", i), 0)
	}
}

func TestMCPRestartWhileStarting(t *testing.T) {
	t.Parallel()
	// A restart during a start ends the first process; the outcome of the
	// new start is returned.
	mark, seen := newMark(t), t.TempDir()
	cfg := markedConfig(t, "fake", "hanglist", mark, seen)
	cfg.TimeoutMs = 300
	m := newMCPManager([]MCPServerConfig{cfg}, newRegistry(), MCPOptions{})
	m.Start(t.Context())
	defer m.Close()
	waitFor(t, "tools/list", func() bool {
		_, err := os.Stat(filepath.Join(seen, "tools_list"))
		return err == nil
	})
	first := markedProcesses(t, mark)
	err := m.restart(t.Context(), "fake")
	if err == nil || !strings.Contains(err.Error(), "did not answer tools/list within 300ms") {
		t.Errorf("restart = %v, want the new start's timeout", err)
	}
	if now := markedProcesses(t, mark); len(first) != 1 || len(now) != 0 {
		t.Errorf("processes before the restart %v, after the failed restart %v; want one, then none", first, now)
	}
}

func TestMCPBinaryExitLeavesNoServer(t *testing.T) {
	t.Parallel()
	// The real binary in line mode with two hanging stdio servers, ended by
	// the end of its input or by SIGTERM at varying moments: no server
	// process outlives it.
	cycles := 150
	if testing.Short() {
		cycles = 30
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mark := newMark(t)
	servers := map[string]any{}
	for name, mode := range map[string]string{"a": "hang", "b": "hanglist"} {
		servers[name] = map[string]any{"command": exe, "env": map[string]string{fakeMCPEnv: mode, markEnv: mark, "GORACE": "atexit_sleep_ms=0"}}
	}
	config, _ := json.Marshal(map[string]any{"mcpServers": servers})
	ws, home := t.TempDir(), t.TempDir()
	for i := range cycles {
		cmd := exec.Command(minicodeBinary(t), "--provider", "mock", "--workspace", ws, "--mcp-config", string(config))
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "MINICODE_HOME=" + home}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			waitFor(t, "both servers to run", func() bool { return len(markedProcesses(t, mark)) == 2 })
		}
		time.Sleep(time.Duration(i%10) * 3 * time.Millisecond) // vary the moment of the end
		if i%2 == 0 {
			stdin.Close()
		} else {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatalf("cycle %d: minicode did not exit", i)
		}
		stdin.Close()
		noProcessLeft(t, mark, fmt.Sprintf("cycle %d", i), 2*time.Second)
	}
}

// readyWaitingModel is a scripted model for a -p run: its first reply
// waits until the fast MCP server's tool is registered and calls it; its
// second ends the turn. It keeps the requests and what the slow server's
// state was when the first one came.
type readyWaitingModel struct {
	reg       *Registry
	m         **MCPManager
	requests  []ModelRequest
	slowState MCPState
}

// Name names the provider.
func (p *readyWaitingModel) Name() string { return "scripted" }

// Stream answers one request.
func (p *readyWaitingModel) Stream(ctx context.Context, req ModelRequest, _ func(Delta)) (ModelResponse, error) {
	p.requests = append(p.requests, req)
	if len(p.requests) > 1 {
		return ModelResponse{StopReason: StopEndTurn, Content: []Block{{Type: BlockText, Text: "done"}}}, nil
	}
	p.slowState = (*p.m).Status()[1].State
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, ok := p.reg.Get("mcp__fake__echo"); ok {
			break
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return ModelResponse{}, fmt.Errorf("the fast server's tool never appeared")
		}
	}
	return ModelResponse{StopReason: StopToolUse, Content: []Block{{Type: BlockToolUse, ID: "tu_1", Name: "mcp__fake__echo", Input: json.RawMessage(`{"text":"hi"}`)}}}, nil
}

func TestHeadlessWaitsForMCPOnlyWithinTheBound(t *testing.T) {
	t.Parallel()
	// With -p the first model request offers the tools of the servers ready
	// by then, and goes out while a server still hangs on tools/list once its
	// startup timeout has passed.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	servers := map[string]any{}
	for name, mode := range map[string]string{"fake": "ndjson", "slow": "hanglist"} {
		servers[name] = map[string]any{"command": exe, "env": map[string]string{fakeMCPEnv: mode, "GORACE": "atexit_sleep_ms=0"},
			"startupTimeoutMs": map[string]int{"fake": 30_000, "slow": 1000}[name]}
	}
	config, _ := json.Marshal(map[string]any{"mcpServers": servers})
	app := testApp(t, t.TempDir(), Options{Print: true, MCPConfig: []string{string(config)}, AllowedTools: []string{"mcp__fake__echo"}})
	model := &readyWaitingModel{reg: app.Registry, m: &app.MCP}
	app.Agent.Provider = model
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := app.runHeadless(ctx, "echo hi"); err != nil {
		t.Fatalf("runHeadless = %v, want success without waiting for the slow server", err)
	}
	if !slices.ContainsFunc(model.requests[0].Tools, func(s ToolSpec) bool { return s.Name == "mcp__fake__echo" }) {
		t.Error("the first request did not offer the ready server's tool")
	}
	if model.slowState != MCPStarting {
		t.Errorf("the slow server was %q at the first request, want it still starting", model.slowState)
	}
	if len(model.requests) != 2 {
		t.Fatalf("%d model requests, want 2", len(model.requests))
	}
	offered := slices.ContainsFunc(model.requests[1].Tools, func(s ToolSpec) bool { return s.Name == "mcp__fake__echo" })
	results := model.requests[1].Messages[len(model.requests[1].Messages)-1].Content
	if !offered || len(results) != 1 || results[0].Content != "echo: hi" {
		t.Errorf("second request: echo offered %v, tool results %+v; want the tool offered and its result", offered, results)
	}
}
