package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPStdioFakeServers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode string
		lsp  bool
	}{
		{"ndjson", false},
		{"lsp", true},
		{"garbage", false},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			cfg := fakeStdioConfig(t, "fake", c.mode)
			workspace := t.TempDir()
			if err := os.Mkdir(filepath.Join(workspace, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			cfg.Cwd, cfg.Env["FAKE_GREETING"], cfg.Args = "sub", "hi ${UNSET_FOR_FAKE}", []string{"arg-${UNSET_FOR_FAKE}"}
			m, reg := startManager(t, []MCPServerConfig{cfg}, MCPOptions{Workspace: workspace})
			st := m.Status()[0]
			// Six tools over three pages of tools/list.
			if st.State != MCPReady || st.Tools != 6 {
				t.Fatalf("status = %+v, want ready with 6 tools", st)
			}
			if d := m.list()[0].view.Load().session.tr.(*mcpStdio).stderr.String(); !strings.Contains(d, "in "+filepath.Join(workspace, "sub")+` with FAKE_GREETING="hi "`) {
				t.Errorf("server stderr %q: want it started in the cwd with the env", d)
			}
			if _, ok := reg.Get("list_mcp_resources"); ok {
				t.Error("resource helpers registered though no server offers resources")
			}
			out := execTool(t, reg, "mcp__fake__echo", `{"text":"hi"}`)
			if out.Text != "echo: hi" || out.IsError {
				t.Errorf("echo = %q (isError %v), want %q", out.Text, out.IsError, "echo: hi")
			}
			out = execTool(t, reg, "mcp__fake__fail", `{}`)
			if out.Text != "it went wrong" || !out.IsError {
				t.Errorf("fail = %q (isError %v), want the tool's error passed through", out.Text, out.IsError)
			}
			if lsp, _ := m.framings.Load("fake"); lsp != c.lsp {
				t.Errorf("remembered Content-Length framing %v, want %v", lsp, c.lsp)
			}
			checkToolRefresh(t, reg)
			// The first start probed with an unframed initialize; a restart
			// speaks the remembered framing from the first byte.
			probed := strings.Contains(m.list()[0].view.Load().session.tr.(*mcpStdio).stderr.String(), "without Content-Length")
			if probed != (c.mode == "lsp") {
				t.Errorf("unframed probe seen by the server: %v, want %v", probed, c.mode == "lsp")
			}
			if err := m.restart(t.Context(), "fake"); err != nil {
				t.Fatal(err)
			}
			if d := m.list()[0].view.Load().session.tr.(*mcpStdio).stderr.String(); strings.Contains(d, "without Content-Length") {
				t.Errorf("after the restart the server still got unframed lines: %q", d)
			}
		})
	}
}

// checkToolRefresh calls the fake server's grow tool: its list_changed
// notification makes the tool "extra" appear, and the tools that stay
// never go missing while the list is replaced.
func checkToolRefresh(t *testing.T, reg *Registry) {
	t.Helper()
	missing := make(chan bool, 1)
	go func() {
		gone := false
		for _, ok := reg.Get("mcp__fake__extra"); !ok; _, ok = reg.Get("mcp__fake__extra") {
			_, have := reg.Get("mcp__fake__echo")
			gone = gone || !have
		}
		missing <- gone
	}()
	if out := execTool(t, reg, "mcp__fake__grow", `{}`); out.Text != "grown" {
		t.Errorf("grow = %q", out.Text)
	}
	waitForTool(t, reg, "mcp__fake__extra")
	if <-missing {
		t.Error("mcp__fake__echo was missing from the registry while the tools were refreshed")
	}
}

func TestMCPStdioStartupFailures(t *testing.T) {
	t.Parallel()
	cases := []struct {
		mode    string
		want    []string
		summary string // the line /mcp shows
	}{
		{"hang", []string{"did not answer initialize within 2s", "fake server starting in mode hang"}, "failed        0 tools  MCP server fake did not answer initialize within 2s — fake server starting"},
		{"exit", []string{"the server exited", "exit status 3", "fatal: missing configuration file"}, "exit status 3 — fatal: missing configuration file\n"},
		{"oldver", []string{`protocol version "2024-01-01"`, "2025-11-25"}, `protocol version "2024-01-01"`},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			t.Parallel()
			cfg := fakeStdioConfig(t, "fake", c.mode)
			cfg.StartupTimeoutMs = 20000 // time enough to start on a busy machine
			if c.mode == "hang" {
				cfg.StartupTimeoutMs = 2000 // time enough for the server to start and say so, on a busy machine
			}
			m, reg := startManager(t, []MCPServerConfig{cfg}, MCPOptions{})
			st := m.Status()[0]
			if st.State != MCPFailed {
				t.Fatalf("state = %q, want failed", st.State)
			}
			for _, w := range c.want {
				if !strings.Contains(st.Error, w) {
					t.Errorf("error = %q, want it to contain %q", st.Error, w)
				}
			}
			if len(reg.Tools()) != 0 {
				t.Errorf("a failed server registered tools: %q", reg.names())
			}
			if got := m.SlashCommand(t.Context(), ""); !strings.Contains(got, c.summary) {
				t.Errorf("/mcp = %q, want it to contain %q", got, c.summary)
			}
		})
	}
}

func TestMCPStdioServerDiesMidCall(t *testing.T) {
	t.Parallel()
	var events eventLog
	m, reg := startManager(t, []MCPServerConfig{fakeStdioConfig(t, "fake", "ndjson")}, MCPOptions{OnNotice: events.notice, OnProgress: events.progress})
	out := execTool(t, reg, "mcp__fake__crash", `{}`)
	if !out.IsError || !strings.Contains(out.Text, "exit status 2") || !strings.Contains(out.Text, "crashed on purpose") {
		t.Errorf("crash = %q, want the exit and the server's last words", out.Text)
	}
	if st := m.Status()[0]; st.State != MCPFailed {
		t.Errorf("state = %q, want failed", st.State)
	}
	if got := m.StatusLine(); got != "MCP 1 failed" {
		t.Errorf("status line = %q", got)
	}
	out = execTool(t, reg, "mcp__fake__echo", `{"text":"x"}`)
	if !out.IsError || !strings.Contains(out.Text, "/mcp restart fake") {
		t.Errorf("echo on a dead server = %q, want a clear error naming the restart command", out.Text)
	}
	if got := m.SlashCommand(context.Background(), "restart fake"); !strings.Contains(got, "restarted: 6 tools") {
		t.Errorf("/mcp restart = %q", got)
	}
	if out := execTool(t, reg, "mcp__fake__echo", `{"text":"back"}`); out.Text != "echo: back" {
		t.Errorf("echo after restart = %q", out.Text)
	}
	if got := m.StatusLine(); got != "MCP 1 ready" {
		t.Errorf("status line = %q", got)
	}
	if got := m.SlashCommand(context.Background(), ""); !strings.Contains(got, "fake") || !strings.Contains(got, "ready") {
		t.Errorf("/mcp = %q", got)
	}
	if events.count("notice") == 0 {
		t.Error("the crash was not reported as a notice")
	}
}

func TestMCPStdioTimeoutCancels(t *testing.T) {
	t.Parallel()
	cfg := fakeStdioConfig(t, "fake", "ndjson")
	cfg.TimeoutMs = 1000 // 30 ms between progress reports leaves room on a busy machine
	sess := connectTestSession(t, cfg)
	_, err := sess.callTool(context.Background(), "hang", nil, cfg.callTimeout(), nil)
	if err == nil || !strings.Contains(err.Error(), "did not answer tools/call within 1s") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	// The server is told: it logs the cancellation on stderr.
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(sess.tr.(*mcpStdio).stderr.String(), "cancelled request"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no notifications/cancelled reached the server; stderr: %q", sess.tr.(*mcpStdio).stderr.String())
		}
	}
	var reports []MCPProgress
	out, err := sess.callTool(context.Background(), "slow", nil, cfg.callTimeout(), func(p MCPProgress) { reports = append(reports, p) })
	if err != nil || out.Text != "done" {
		t.Fatalf("slow = %q, %v", out.Text, err)
	}
	if len(reports) != 3 || reports[2].Message != "step 3" || reports[2].Total != 3 || reports[0].Tool != "slow" {
		t.Errorf("progress = %+v, want 3 reports ending with step 3 of 3", reports)
	}
}

// stdioFixture is a stream holding each framing the reader must handle.
const stdioFixture = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" +
	"not json at all\n" +
	"\n" +
	"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\r\n" +
	"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}\n"

// lspFixture is the same kind of stream in Content-Length framing.
const lspFixture = "Content-Length: 36\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}" +
	"Content-Length: 37\r\nContent-Type: application/json\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"x\"}"

// readStdioStream feeds data to the stdio reader in chunks of size n
// (0 = whole) and returns the messages it decoded.
func readStdioStream(t *testing.T, data string, n int) []string {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		for i := 0; i < len(data); {
			end := len(data)
			if n > 0 && i+n < end {
				end = i + n
			}
			pw.Write([]byte(data[i:end]))
			i = end
		}
		pw.Close()
	}()
	tr := &mcpStdio{stderr: &lineTail{}}
	messages := bufio.NewScanner(pr)
	messages.Split(tr.splitMessage)
	var got []string
	for messages.Scan() {
		tr.decode(bytes.TrimSpace(messages.Bytes()), func(m RPCMessage) {
			b, _ := json.Marshal(m)
			got = append(got, string(b))
		})
	}
	if err := messages.Err(); err != nil {
		t.Errorf("read error = %v, want none", err)
	}
	return got
}

func TestMCPStdioReaderChunking(t *testing.T) {
	t.Parallel()
	fixtures := []struct {
		data     string
		messages int
	}{{stdioFixture, 3}, {lspFixture, 2}}
	for _, f := range fixtures {
		fixture := f.data
		whole := readStdioStream(t, fixture, 0)
		if len(whole) != f.messages {
			t.Fatalf("decoded %q, want %d messages", whole, f.messages)
		}
		for _, n := range []int{1, 2, 3, 7, 16} {
			if got := readStdioStream(t, fixture, n); strings.Join(got, "\n") != strings.Join(whole, "\n") {
				t.Errorf("chunks of %d: got %q, want %q", n, got, whole)
			}
		}
	}
}

func FuzzReadStdioMessage(f *testing.F) {
	f.Add(lspFixture)
	f.Add("Content-Length: 5\r\n\r\nhello")
	f.Add("Content-Length: -1\r\n\r\n")
	f.Fuzz(func(t *testing.T, data string) {
		messages := bufio.NewScanner(strings.NewReader(data))
		messages.Split((&mcpStdio{}).splitMessage)
		for messages.Scan() {
			if !strings.Contains(data, messages.Text()) {
				t.Errorf("body %q is not in the input %q", messages.Text(), data)
			}
		}
	})
}

func TestMCPStdioCancelAndLateReply(t *testing.T) {
	t.Parallel()
	cfg := fakeStdioConfig(t, "fake", "ndjson")
	sess := connectTestSession(t, cfg)
	// The user interrupts: the request ends at once and the server is told.
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := sess.callTool(ctx, "hang", nil, time.Minute, nil); err == nil || ctx.Err() == nil {
		t.Fatalf("err = %v, want the call to end with its context", err)
	}
	waitFor(t, "notifications/cancelled", func() bool { return strings.Contains(sess.tr.(*mcpStdio).stderr.String(), "cancelled request 2") })
	// A reply that comes after its request gave up is dropped, and the
	// next request gets its own reply.
	if _, err := sess.callTool(t.Context(), "slow", nil, 5*time.Millisecond, nil); err == nil {
		t.Fatal("slow answered within 5ms")
	}
	for i := 0; i < 3; i++ {
		out, err := sess.callTool(t.Context(), "echo", json.RawMessage(`{"text":"mine"}`), 5*time.Second, nil)
		if err != nil || out.Text != "echo: mine" {
			t.Fatalf("echo after a late reply = %q, %v", out.Text, err)
		}
	}
}

func TestMCPStdioShutdown(t *testing.T) {
	t.Parallel()
	// Closing stdin is enough for a well-behaved server; SIGTERM comes next,
	// and SIGKILL last.
	cases := map[string]string{"ndjson": "exit status 0", "noeof": "signal: terminated", "stubborn": "signal: killed"}
	for mode, want := range cases {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			sess := connectTestSession(t, fakeStdioConfig(t, "fake", mode))
			tr := sess.tr.(*mcpStdio)
			sess.close()
			if got := tr.cmd.ProcessState.String(); got != want {
				t.Errorf("the server ended with %q, want %q", got, want)
			}
		})
	}
}

func TestMCPStdioServerStopsReading(t *testing.T) {
	t.Parallel()
	sess := connectTestSession(t, fakeStdioConfig(t, "fake", "ndjson"))
	if out, err := sess.callTool(t.Context(), "deafen", nil, 5*time.Second, nil); err != nil || out.Text != "deaf" {
		t.Fatalf("deafen = %q, %v", out.Text, err)
	}
	// A megabyte does not fit in the pipe: the write blocks, and the call
	// must still time out; closing must still end the server.
	finished := make(chan error, 1)
	go func() {
		big, _ := json.Marshal(map[string]string{"text": strings.Repeat("x", 1<<20)})
		_, err := sess.callTool(context.Background(), "echo", big, 300*time.Millisecond, nil)
		if err == nil || !strings.Contains(err.Error(), "did not answer tools/call within 300ms") {
			finished <- fmt.Errorf("the blocked call ended with %v, want the call timeout", err)
			return
		}
		sess.close()
		finished <- nil
	}()
	select {
	case err := <-finished:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a server that stopped reading stdin hung the call or the shutdown")
	}
}

func TestMCPStdioUnreadableOutput(t *testing.T) {
	t.Parallel()
	// A server whose stdout is closed or garbled but which keeps running is
	// stopped and reported at once, instead of leaving calls to time out.
	cases := []struct {
		mode, tool, want string
	}{
		{"ndjson", "closeout", "the server closed its output but did not exit"},
		{"lsp", "garble", `reading from the server: bad Content-Length "many"`},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			t.Parallel()
			sess := connectTestSession(t, fakeStdioConfig(t, "fake", c.mode))
			_, err := sess.callTool(t.Context(), c.tool, nil, 20*time.Second, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestMCPStdioLineLimit(t *testing.T) {
	t.Parallel()
	// A line longer than the limit stops the reading; a last line without
	// a newline still counts.
	cases := []struct {
		input   string
		want    []string
		wantErr error
	}{
		{"short\nnext", []string{"short", "next"}, nil},
		{strings.Repeat("x", 40) + "\n", []string{strings.Repeat("x", 40)}, nil},
		{strings.Repeat("x", 41) + "\n", nil, bufio.ErrTooLong},
		{strings.Repeat("x", 100), nil, bufio.ErrTooLong},
		{"no newline", []string{"no newline"}, nil},
	}
	for _, c := range cases {
		messages := bufio.NewScanner(strings.NewReader(c.input))
		messages.Buffer(nil, 41)
		messages.Split((&mcpStdio{}).splitMessage)
		var got []string
		for messages.Scan() {
			got = append(got, messages.Text())
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || messages.Err() != c.wantErr {
			t.Errorf("lines of %q = %q, %v; want %q, %v", c.input, got, messages.Err(), c.want, c.wantErr)
		}
	}
}

func TestMCPStdioShutdownReachesWhatAWrapperStarted(t *testing.T) {
	t.Parallel()
	// The wrapper shell dies at SIGTERM, but the stubborn server it started
	// holds stdout and ignores SIGTERM: only a signal to the whole process
	// group ends it, and with it the session.
	mark := newMark(t)
	cfg := markedConfig(t, "fake", "stubborn", mark, "")
	cfg.Args = []string{"-c", `"$0"; exit $?`, cfg.Command}
	cfg.Command = "sh"
	sess := connectTestSession(t, cfg)
	sess.close()
	noProcessLeft(t, mark, "after close", 2*time.Second)
}

// TestMCPStdioMessageIsBounded checks that a server whose output never ends
// a message is dropped with the limit named, not read into memory forever.
func TestMCPStdioMessageIsBounded(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tr := &mcpStdio{cmd: cmd, stop: func() {}, exited: make(chan struct{})}
	var got error
	tr.readLoop(endlessSpaces{}, func(RPCMessage) { t.Error("an oversized message was delivered") }, func(err error) { got = err })
	if got == nil || got.Error() != "the server sent a message larger than 64 MB" {
		t.Errorf("lost with %v, want the size named", got)
	}
}

// TestMCPStdioServerThatExitsAtOnce starts servers that exit before reading a byte: the write of
// initialize fails, and the error must say the server exited, with its status and stderr, not
// that a pipe broke.
func TestMCPStdioServerThatExitsAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"false"}, []string{"the server exited: exit status 1"}},
		{[]string{"sh", "-c", "echo oops >&2; exit 3"}, []string{"the server exited: exit status 3", "oops"}},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			t.Parallel()
			m, _ := startManager(t, []MCPServerConfig{{Name: "quick", Command: tc.args[0], Args: tc.args[1:], StartupTimeoutMs: 20000}}, MCPOptions{})
			st := m.Status()[0]
			for _, w := range tc.want {
				if st.State != MCPFailed || !strings.Contains(st.Error, w) || strings.Contains(st.Error, "broken pipe") {
					t.Errorf("state %q, error %q; want failed, saying %q", st.State, st.Error, w)
				}
			}
		})
	}
}
