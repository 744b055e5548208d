package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeMCPEnv names the environment variable that turns the test binary
// into a fake stdio MCP server (see TestMain); its value is the mode.
const fakeMCPEnv = "MINICODE_FAKE_MCP"

// cliMainEnv turns the test binary into `minicode mcp ...` for the
// conformance run, which needs a command to start.
const cliMainEnv = "MINICODE_TEST_MCP_CLI"

// TestMain lets the test binary play other programs: a fake MCP server
// speaking the real wire format over stdio, or the `mcp` subcommand.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == supervisorArg {
		os.Exit(runSupervisor()) // a Sandbox the tests made re-executes the test binary
	}
	if mode := os.Getenv(fakeMCPEnv); mode != "" {
		os.Exit(runFakeMCPServer(mode, os.Stdin, os.Stdout))
	}
	if os.Getenv(cliMainEnv) != "" {
		os.Exit(runMCPCLIForTest(os.Args[1:]))
	}
	code := m.Run()
	removeMinicodeBinary()
	os.Exit(code)
}

// runMCPCLIForTest runs `minicode mcp ARGS` and maps the error the way
// main does for this subcommand, in $MINICODE_HOME or a fresh home.
func runMCPCLIForTest(args []string) int {
	if len(args) > 0 && args[0] == "mcp" {
		args = args[1:]
	}
	home := os.Getenv("MINICODE_HOME")
	if home == "" {
		home, _ = os.MkdirTemp("", "minicode-home")
		defer os.RemoveAll(home)
	}
	wd, _ := os.Getwd()
	err := runMCPCommand(context.Background(), args, os.Stdin, os.Stdout, os.Stderr, home, wd)
	if err != nil {
		if !errors.Is(err, errMCPToolFailed) {
			fmt.Fprintln(os.Stderr, "minicode:", err)
		}
		return 1
	}
	return 0
}

// fakeServer is a small MCP server for tests. Modes:
//
//	ndjson   the standard framing; tools paginated over three pages
//	lsp      Content-Length framing only; other lines get a framed parse error
//	garbage  like ndjson, with junk lines on stdout before every reply
//	hang     reads everything, answers nothing
//	hanglist answers initialize, then nothing
//	exit     exits at once with a message on stderr
//	oldver   answers initialize with an unsupported protocol version
//	noeof    like ndjson, but stays up when stdin ends
//	stubborn like noeof, and ignores SIGTERM too
//	late     like ndjson, after taking a second to start
//	approver lists only the tool approve, a permission prompt tool
type fakeServer struct {
	mode  string
	in    *bufio.Reader
	out   io.Writer
	grown bool // the grow tool has added the tool "extra"
}

// runFakeMCPServer serves one client until stdin ends.
func runFakeMCPServer(mode string, in io.Reader, out io.Writer) int {
	wd, _ := os.Getwd()
	fmt.Fprintf(os.Stderr, "fake server starting in mode %s in %s with FAKE_GREETING=%q and args %q\n", mode, wd, os.Getenv("FAKE_GREETING"), os.Args[1:])
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "fatal: missing configuration file")
		return 3
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	if mode == "late" {
		time.Sleep(time.Second) // a server that loads something first
	}
	s := &fakeServer{mode: mode, in: bufio.NewReader(in), out: out}
	for {
		body, err := s.read()
		if err != nil && (mode == "noeof" || mode == "stubborn") {
			select {}
		}
		if err != nil {
			return 0
		}
		if body == nil {
			continue
		}
		var m RPCMessage
		if err := json.Unmarshal(body, &m); err != nil {
			s.write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "parse error"}})
			continue
		}
		if dir := os.Getenv("FAKE_SEEN_DIR"); dir != "" && m.Method != "" {
			_ = os.WriteFile(filepath.Join(dir, strings.ReplaceAll(m.Method, "/", "_")), nil, 0o644)
		}
		if mode == "hang" || mode == "hanglist" && m.Method != "initialize" {
			continue
		}
		s.handle(m)
	}
}

// read returns the next message body, or nil for a line it answered itself.
func (s *fakeServer) read() ([]byte, error) {
	line, err := s.in.ReadString('\n')
	if err != nil && line == "" {
		return nil, err
	}
	line = strings.TrimRight(line, "\r\n")
	if s.mode != "lsp" {
		return []byte(line), nil
	}
	if !strings.HasPrefix(strings.ToLower(line), "content-length:") {
		if strings.TrimSpace(line) != "" {
			fmt.Fprintln(os.Stderr, "got a line without Content-Length")
			s.write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "expected Content-Length header"}})
		}
		return nil, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[len("Content-Length:"):]))
	for err == nil && line != "" {
		line, err = s.in.ReadString('\n')
		line = strings.TrimSpace(line)
	}
	body := make([]byte, n)
	if err == nil {
		_, err = io.ReadFull(s.in, body)
	}
	return body, err
}

// write sends one message in the server's framing.
func (s *fakeServer) write(msg any) {
	body, _ := json.Marshal(msg)
	switch s.mode {
	case "lsp":
		fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n%s", len(body), body)
	case "garbage":
		fmt.Fprintf(s.out, "Starting up... not JSON\n{\"half\": \n%s\n", body)
	default:
		fmt.Fprintf(s.out, "%s\n", body)
	}
}

// reply answers request m with result.
func (s *fakeServer) reply(m RPCMessage, result any) {
	s.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
}

// handle answers one message.
func (s *fakeServer) handle(m RPCMessage) {
	var p struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Cursor          string          `json:"cursor"`
		Name            string          `json:"name"`
		Arguments       json.RawMessage `json:"arguments"`
		RequestID       json.RawMessage `json:"requestId"`
		Meta            struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch m.Method {
	case "initialize":
		version := p.ProtocolVersion
		if s.mode == "oldver" {
			version = "2024-01-01"
		}
		s.reply(m, map[string]any{"protocolVersion": version, "serverInfo": map[string]any{"name": "fake", "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}}})
	case "tools/list":
		s.listTools(m, p.Cursor)
	case "tools/call":
		s.callTool(m, p.Name, p.Arguments, p.Meta.ProgressToken)
	case "notifications/cancelled":
		fmt.Fprintf(os.Stderr, "cancelled request %s\n", p.RequestID)
	case "ping":
		s.reply(m, map[string]any{})
	default:
		if len(m.ID) > 0 {
			s.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "no " + m.Method}})
		}
	}
}

// fakeTools are the fake server's tools, in three pages.
var fakeTools = [][]map[string]any{
	{
		{"name": "echo", "description": "Echo the text", "inputSchema": map[string]any{"type": "object",
			"properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}}},
		{"name": "fail", "description": "Always fails", "inputSchema": map[string]any{"type": "object"}},
	},
	{
		{"name": "hang", "description": "Never answers", "inputSchema": map[string]any{"type": "object"}},
		{"name": "crash", "description": "Exits mid-call", "inputSchema": map[string]any{"type": "object"}},
	},
	{
		{"name": "slow", "description": "Answers after progress", "inputSchema": map[string]any{"type": "object"}},
		{"name": "grow", "description": "Adds a tool and says so", "inputSchema": map[string]any{"type": "object"}},
	},
}

// listTools serves one page; the cursor is the page number.
func (s *fakeServer) listTools(m RPCMessage, cursor string) {
	page, _ := strconv.Atoi(cursor)
	tools := fakeTools[page]
	if s.grown && page == len(fakeTools)-1 {
		tools = append(tools, map[string]any{"name": "extra", "inputSchema": map[string]any{"type": "object"}})
	}
	result := map[string]any{"tools": tools}
	if s.mode == "approver" {
		result["tools"] = []map[string]any{{"name": "approve", "inputSchema": map[string]any{"type": "object"}}}
	} else if page+1 < len(fakeTools) {
		result["nextCursor"] = strconv.Itoa(page + 1)
	}
	s.reply(m, result)
}

// callTool runs one of the fake tools.
func (s *fakeServer) callTool(m RPCMessage, name string, args, token json.RawMessage) {
	text := func(t string) map[string]any {
		return map[string]any{"content": []map[string]any{{"type": "text", "text": t}}}
	}
	switch name {
	case "echo":
		var a struct{ Text string }
		_ = json.Unmarshal(args, &a)
		s.reply(m, text("echo: "+a.Text))
	case "approve":
		// A permission prompt tool (mode approver): it allows a Read with
		// its input and refuses anything else.
		var a struct {
			ToolName string          `json:"tool_name"`
			Input    json.RawMessage `json:"input"`
		}
		_ = json.Unmarshal(args, &a)
		decision, _ := json.Marshal(map[string]any{"behavior": "deny", "message": "the approver refuses " + a.ToolName})
		if a.ToolName == "Read" {
			decision, _ = json.Marshal(map[string]any{"behavior": "allow", "updatedInput": a.Input})
		}
		s.reply(m, text(string(decision)))
	case "fail":
		r := text("it went wrong")
		r["isError"] = true
		s.reply(m, r)
	case "grow":
		s.grown = true
		s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
		s.reply(m, text("grown"))
	case "hang":
	case "deafen":
		// Not listed: answers, then stops reading stdin, so the client's
		// writes back up once the pipe is full.
		s.reply(m, text("deaf"))
		time.Sleep(time.Hour)
	case "closeout":
		// Not listed: closes stdout but keeps running.
		os.Stdout.Close()
		time.Sleep(time.Hour)
	case "garble":
		// Not listed: writes a frame header that cannot be read, then
		// keeps running.
		fmt.Fprint(s.out, "Content-Length: many\r\n\r\n")
		time.Sleep(time.Hour)
	case "crash":
		fmt.Fprintln(os.Stderr, "panic: the fake server crashed on purpose")
		os.Exit(2)
	case "slow":
		for i := 1; i <= 3; i++ {
			time.Sleep(30 * time.Millisecond)
			s.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
				"params": map[string]any{"progressToken": token, "progress": i, "total": 3, "message": fmt.Sprintf("step %d", i)}})
		}
		s.reply(m, text("done"))
	default:
		s.write(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32602, "message": "unknown tool " + name}})
	}
}

// fakeStdioConfig configures the test binary as a fake server in mode.
func fakeStdioConfig(t *testing.T, name, mode string) MCPServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Under the race detector a process sleeps a second at exit unless told not to.
	return MCPServerConfig{Name: name, Command: exe, Env: map[string]string{fakeMCPEnv: mode, "GORACE": "atexit_sleep_ms=0"}}
}
