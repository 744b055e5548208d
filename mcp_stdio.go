package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Shutdown closes stdin, waits mcpStdinGrace, sends SIGTERM, waits mcpExitGrace, sends SIGKILL.
const (
	mcpStdinGrace = 500 * time.Millisecond
	mcpExitGrace  = time.Second
	mcpStderrKeep = 20 // stderr lines kept for error messages
	maxMCPMessage = 64 << 20
)

// mcpStdio speaks JSON-RPC over a child process's stdin and stdout.
type mcpStdio struct {
	cmd      *exec.Cmd          // prepared; open starts it
	stop     context.CancelFunc // the command's: SIGTERM to the group, SIGKILL after mcpExitGrace
	remember func(lsp bool)     // told whether the server turned out to speak Content-Length framing

	stdin   io.WriteCloser // set once the process runs
	stderr  *lineTail
	exited  chan struct{} // closed once the process is reaped
	ended   error         // why the connection ended, set before exited closes
	closing atomic.Bool
	writeMu sync.Mutex

	mu      sync.Mutex
	lsp     bool   // current framing is Content-Length rather than JSON lines
	settled bool   // framing is known (first valid message seen)
	initMsg []byte // initialize, sent while the framing was unknown
	initID  string
}

// newMCPStdio prepares the process of server c, its command, arguments, environment and folder (relative to
// workspace) filled in by expand, in the framing framings remembers it spoke (server name → Content-Length).
func newMCPStdio(c MCPServerConfig, workspace string, expand func(string) string, framings *sync.Map) *mcpStdio {
	ctx, stop := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, expand(c.Command))
	for _, a := range c.Args {
		cmd.Args = append(cmd.Args, expand(a))
	}
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		cmd.Env = append(cmd.Env, k+"="+expand(c.Env[k]))
	}
	if cmd.Dir = expand(c.Cwd); cmd.Dir != "" && !filepath.IsAbs(cmd.Dir) {
		cmd.Dir = filepath.Join(workspace, cmd.Dir)
	}
	t := &mcpStdio{cmd: cmd, stop: stop, stderr: &lineTail{}, exited: make(chan struct{}),
		remember: func(lsp bool) { framings.Store(c.Name, lsp) }}
	if lsp, known := framings.Load(c.Name); known {
		t.lsp, t.settled = lsp.(bool), true
	}
	return t
}

// open starts the process; stopping it sends SIGTERM to its group, SIGKILL a moment later.
func (t *mcpStdio) open(_ context.Context, deliver func(RPCMessage), lost func(error)) error {
	cmd := t.cmd
	cmd.Stderr, cmd.SysProcAttr, cmd.WaitDelay = t.stderr, commandProcAttr(), 2*mcpExitGrace
	stdin, errIn := cmd.StdinPipe()
	stdout, errOut := cmd.StdoutPipe()
	if err := errors.Join(errIn, errOut); err != nil {
		return err
	}
	cmd.Cancel = func() error {
		time.AfterFunc(mcpExitGrace, func() {
			select {
			case <-t.exited:
			default:
				_ = killGroup(cmd, syscall.SIGKILL)
				stdout.Close() // in case something outside the group holds it
			}
		})
		return killGroup(cmd, syscall.SIGTERM)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", cmd.Args[0], err)
	}
	t.stdin = stdin
	go t.readLoop(stdout, deliver, lost)
	return nil
}

// send writes one message in the current framing.
func (t *mcpStdio) send(ctx context.Context, msg RPCMessage) error {
	body, _ := json.Marshal(msg) // its raw parts are valid JSON
	t.mu.Lock()
	lsp := t.lsp
	if !t.settled && msg.Method == "initialize" {
		t.initMsg, t.initID = body, idKey(msg.ID)
	}
	t.mu.Unlock()
	return t.write(ctx, body, lsp)
}

// write puts one message on stdin; ctx releases the caller from a write the server does not read.
func (t *mcpStdio) write(ctx context.Context, body []byte, lsp bool) error {
	frame := append(body[:len(body):len(body)], '\n') // a copy: body may be sent again
	if lsp {
		frame = fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	written := make(chan error, 1)
	go func() {
		t.writeMu.Lock()
		defer t.writeMu.Unlock()
		_, err := t.stdin.Write(frame)
		written <- err
	}()
	select {
	case err := <-written:
		if err == nil {
			return nil
		}
		select { // a server that exited closed its stdin: say how it exited, not that the pipe broke
		case <-t.exited:
			return t.ended
		case <-time.After(mcpExitGrace):
		case <-ctx.Done():
		}
		return fmt.Errorf("writing to the server: %w", err)
	case <-ctx.Done():
		return fmt.Errorf("writing to the server: %w", ctx.Err())
	}
}

// readLoop reads messages until stdout ends, then reports the exit; garbled output stops the server.
func (t *mcpStdio) readLoop(stdout io.Reader, deliver func(RPCMessage), lost func(error)) {
	messages := bufio.NewScanner(stdout)
	messages.Buffer(make([]byte, 0, 64<<10), maxMCPMessage+4096)
	messages.Split(t.splitMessage)
	for messages.Scan() {
		if body := bytes.TrimSpace(messages.Bytes()); len(body) > 0 {
			t.decode(body, deliver)
		}
	}
	err := messages.Err() // nil at the end of stdout
	kill := time.AfterFunc(mcpExitGrace, t.stop)
	if err != nil {
		t.stop()
	}
	waitErr := t.cmd.Wait()
	killed := !kill.Stop()
	t.stop()
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		t.ended = fmt.Errorf("the server sent a message larger than %d MB", maxMCPMessage>>20)
	case err != nil:
		t.ended = fmt.Errorf("reading from the server: %w", err)
	case killed:
		t.ended = errors.New("the server closed its output but did not exit")
	case waitErr != nil:
		t.ended = fmt.Errorf("the server exited: %w", waitErr)
	default:
		t.ended = errors.New("the server exited")
	}
	close(t.exited)
	if !t.closing.Load() {
		lost(t.ended)
	}
}

// splitMessage is stdout's bufio.SplitFunc: a JSON line, or a Content-Length frame, which settles an unknown framing.
func (t *mcpStdio) splitMessage(data []byte, atEOF bool) (int, []byte, error) {
	advance, line, err := bufio.ScanLines(data, atEOF)
	if advance == 0 || len(line) < 15 || !strings.EqualFold(string(line[:15]), "Content-Length:") {
		return advance, line, err
	}
	value := strings.TrimSpace(string(line[15:]))
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 || n > maxMCPMessage {
		return 0, nil, fmt.Errorf("bad Content-Length %q", value)
	}
	for len(line) > 0 {
		more := 0
		if more, line, _ = bufio.ScanLines(data[advance:], false); more == 0 {
			return 0, nil, nil
		}
		advance += more
	}
	if len(data) < advance+n {
		return 0, nil, nil
	}
	t.mu.Lock()
	t.lsp = t.lsp || !t.settled
	t.mu.Unlock()
	return advance + n, data[advance : advance+n], nil
}

// decode passes on one message; the first settles the framing and may resend initialize framed.
func (t *mcpStdio) decode(body []byte, deliver func(RPCMessage)) {
	var m RPCMessage
	if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" {
		fmt.Fprintf(t.stderr, "\n[minicode] ignored a line on stdout that is not JSON-RPC: %s\n", cutBytes(string(body), 200, "..."))
		return
	}
	t.mu.Lock()
	first, lsp, init, initID := !t.settled, t.lsp, t.initMsg, t.initID
	t.settled, t.initMsg = true, nil
	t.mu.Unlock()
	if first && t.remember != nil {
		t.remember(lsp)
	}
	if first && lsp && init != nil && !(m.isResponse() && idKey(m.ID) == initID) {
		_ = t.write(context.Background(), init, true)
	}
	deliver(m)
}

// close closes stdin and stops the process group if the server has not exited after mcpStdinGrace.
func (t *mcpStdio) close() {
	t.closing.Store(true)
	if t.stdin == nil {
		t.stop()
		return
	}
	t.stdin.Close()
	select {
	case <-t.exited:
	case <-time.After(mcpStdinGrace):
		t.stop()
		<-t.exited
	}
}

// lineTail is an io.Writer keeping the last lines a server wrote to stderr.
type lineTail struct {
	mu  sync.Mutex
	buf []byte
}

// Write keeps the newest 16 KB.
func (l *lineTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	l.buf = l.buf[max(0, len(l.buf)-16<<10):]
	return len(p), nil
}

// String returns the last mcpStderrKeep non-blank lines, oldest first, each cut to 500 bytes.
func (l *lineTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var lines []string
	for line := range strings.Lines(string(l.buf)) {
		if line = strings.TrimRight(line, "\r\n"); strings.TrimSpace(line) != "" {
			lines = append(lines, cutBytes(line, 500, "..."))
		}
	}
	return strings.Join(lines[max(0, len(lines)-mcpStderrKeep):], "\n")
}
