package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Framings a stdio server may speak. The MCP standard is one JSON message
// per line; some older servers use LSP-style Content-Length headers.
const (
	framingNDJSON = "ndjson"
	framingLSP    = "lsp"
)

// How long shutdown waits after closing stdin and after each signal.
const (
	mcpStdinGrace = 500 * time.Millisecond
	mcpExitGrace  = time.Second
	mcpStderrKeep = 20 // stderr lines kept for error messages
	maxMCPMessage = 64 << 20
)

// mcpStdio runs an MCP server as a child process and speaks JSON-RPC over
// its stdin and stdout. It starts with newline-delimited JSON; if the server
// answers with Content-Length headers it switches both directions to that
// framing and sends the initialize request again, framed.
type mcpStdio struct {
	command string
	args    []string
	env     []string // added to this process's environment
	dir     string
	// framing is what worked before ("" when unknown); remember is told
	// what the server turned out to speak.
	framing  string
	remember func(framing string)

	cmd     *exec.Cmd
	stdin   io.WriteCloser
	stderr  *lineTail
	writeMu sync.Mutex
	mu      sync.Mutex
	lsp     bool        // current framing is Content-Length
	settled bool        // framing is known (first valid message seen)
	initMsg *rpcMessage // initialize sent while the framing was unknown
	closing bool
	exited  chan struct{}
}

// newMCPStdio describes a server process; open starts it.
func newMCPStdio(command string, args, env []string, dir, framing string, remember func(string)) *mcpStdio {
	return &mcpStdio{command: command, args: args, env: env, dir: dir, framing: framing, remember: remember,
		stderr: &lineTail{max: mcpStderrKeep}, exited: make(chan struct{})}
}

// open starts the process and the goroutine reading its stdout.
func (t *mcpStdio) open(ctx context.Context, deliver func(rpcMessage), lost func(error)) error {
	cmd := exec.Command(t.command, t.args...)
	cmd.Env = append(os.Environ(), t.env...)
	cmd.Dir = t.dir
	// Its own process group, so that stopping it also stops what a
	// wrapper (npx, uvx, a shell script) started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stderr = t.stderr
	cmd.WaitDelay = mcpExitGrace
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running %s: %w", t.command, err)
	}
	t.cmd, t.stdin = cmd, stdin
	if t.framing != "" {
		t.lsp, t.settled = t.framing == framingLSP, true
	}
	go t.readLoop(bufio.NewReaderSize(stdout, 64*1024), deliver, lost)
	return nil
}

// send writes one message in the current framing.
func (t *mcpStdio) send(ctx context.Context, msg rpcMessage) error {
	body, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	t.mu.Lock()
	lsp := t.lsp
	if !t.settled && msg.Method == "initialize" {
		t.initMsg = &msg
	}
	t.mu.Unlock()
	return t.write(ctx, body, lsp)
}

// write puts one encoded message on the server's stdin. A server that
// stops reading leaves the write blocked once the pipe is full: the caller
// is released when ctx ends, and the write finishes in the background or
// fails when close shuts stdin, so messages are never cut in half.
func (t *mcpStdio) write(ctx context.Context, body []byte, lsp bool) error {
	var frame []byte
	if lsp {
		frame = append([]byte("Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"), body...)
	} else {
		frame = append(body, '\n')
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
		if err != nil {
			return fmt.Errorf("writing to the server: %w", err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("writing to the server: %w", ctx.Err())
	}
}

// negotiated needs nothing on stdio.
func (t *mcpStdio) negotiated(string) {}

// established needs nothing on stdio.
func (t *mcpStdio) established(context.Context) error { return nil }

// readLoop reads messages until stdout ends, then reports the exit. A
// server is of no use without its stdout: one that garbled it is killed at
// once, one that closed it gets mcpExitGrace to exit by itself (unless
// close is already ending it).
func (t *mcpStdio) readLoop(r *bufio.Reader, deliver func(rpcMessage), lost func(error)) {
	err := t.readMessages(r, deliver)
	grace := mcpExitGrace
	if !errors.Is(err, io.EOF) {
		grace = 0
	}
	kill := time.AfterFunc(grace, func() {
		t.mu.Lock()
		closing := t.closing
		t.mu.Unlock()
		if !closing {
			t.signal(syscall.SIGKILL)
		}
	})
	waitErr := t.cmd.Wait()
	killed := !kill.Stop()
	t.mu.Lock()
	closing := t.closing
	t.mu.Unlock()
	close(t.exited)
	if closing {
		return
	}
	switch {
	case !errors.Is(err, io.EOF):
		lost(fmt.Errorf("reading from the server: %w", err))
	case killed:
		lost(errors.New("the server closed its output but did not exit"))
	case waitErr != nil:
		lost(fmt.Errorf("the server exited: %w", waitErr))
	default:
		lost(errors.New("the server exited"))
	}
}

// readMessages decodes stdout in whichever framing the server speaks.
// Lines that are not JSON are noted with the server's stderr and skipped.
func (t *mcpStdio) readMessages(r *bufio.Reader, deliver func(rpcMessage)) error {
	for {
		t.mu.Lock()
		lsp, settled := t.lsp, t.settled
		t.mu.Unlock()
		var body []byte
		var err error
		if lsp {
			body, err = readLSPFrame(r, "")
		} else {
			var line []byte
			line, err = readLine(r, maxMCPMessage)
			line = bytes.TrimSpace(line)
			if !settled && isContentLengthHeader(line) {
				t.switchToLSP()
				body, err = readLSPFrame(r, string(line))
			} else if len(line) > 0 {
				body = line
			}
		}
		if len(body) > 0 {
			t.decode(body, deliver)
		}
		if err != nil {
			return err
		}
	}
}

// decode parses one message and passes it on; the first valid message
// settles the framing, and a Content-Length server that did not answer our
// unframed initialize gets it again, framed.
func (t *mcpStdio) decode(body []byte, deliver func(rpcMessage)) {
	var m rpcMessage
	if err := json.Unmarshal(body, &m); err != nil || m.JSONRPC != "2.0" {
		t.stderr.note("ignored a line on stdout that is not JSON-RPC: " + clip(string(body), 200))
		return
	}
	t.mu.Lock()
	first := !t.settled
	t.settled = true
	lsp, init := t.lsp, t.initMsg
	t.initMsg = nil
	t.mu.Unlock()
	if first {
		if t.remember != nil {
			t.remember(map[bool]string{true: framingLSP, false: framingNDJSON}[lsp])
		}
		if lsp && init != nil && !(m.isResponse() && idKey(m.ID) == idKey(init.ID)) {
			if body, err := json.Marshal(init); err == nil {
				_ = t.write(context.Background(), body, true)
			}
		}
	}
	deliver(m)
}

// readLine reads up to and including the next newline, failing on a line
// longer than max bytes rather than holding all of it in memory.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, fmt.Errorf("a line longer than %d bytes", max)
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// switchToLSP makes both directions use Content-Length framing.
func (t *mcpStdio) switchToLSP() {
	t.mu.Lock()
	t.lsp = true
	t.mu.Unlock()
}

// isContentLengthHeader reports whether a line is a Content-Length header.
func isContentLengthHeader(line []byte) bool {
	return len(line) >= 15 && strings.EqualFold(string(line[:15]), "Content-Length:")
}

// readLSPFrame reads one Content-Length framed body. first is a header line
// already read, or "". Blank lines before the headers are skipped.
func readLSPFrame(r *bufio.Reader, first string) ([]byte, error) {
	var headers []string
	if first != "" {
		headers = append(headers, first)
	}
	for {
		raw, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line := strings.TrimRight(raw, "\r\n")
		if line == "" && len(headers) > 0 {
			break
		}
		if line != "" {
			headers = append(headers, line)
		}
	}
	length := -1
	for _, h := range headers {
		if name, value, ok := strings.Cut(h, ":"); ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			value = strings.TrimSpace(value)
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 || n > maxMCPMessage {
				return nil, fmt.Errorf("bad Content-Length %q", value)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, fmt.Errorf("a framed message without Content-Length: %q", headers)
	}
	body := make([]byte, length)
	_, err := io.ReadFull(r, body)
	return body, err
}

// close ends the server: close its stdin, then SIGTERM, then SIGKILL, each
// after a short wait for it to exit. Closing stdin does not wait for a
// write in progress: it makes a blocked one fail.
func (t *mcpStdio) close() error {
	t.mu.Lock()
	t.closing = true
	t.mu.Unlock()
	if t.cmd == nil {
		return nil
	}
	t.stdin.Close()
	grace := mcpStdinGrace
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			t.signal(sig)
		}
		select {
		case <-t.exited:
			return nil
		case <-time.After(grace):
		}
		grace = mcpExitGrace
	}
	return fmt.Errorf("MCP server %s did not exit", t.command)
}

// signal sends sig to the server's process group.
func (t *mcpStdio) signal(sig syscall.Signal) {
	_ = syscall.Kill(-t.cmd.Process.Pid, sig)
}

// diagnostics returns the last lines the server wrote to stderr.
func (t *mcpStdio) diagnostics() string { return t.stderr.String() }

// lineTail is an io.Writer that keeps the last max lines written to it.
type lineTail struct {
	mu      sync.Mutex
	max     int
	lines   []string
	partial string
}

// Write splits p into lines and keeps the newest ones.
func (l *lineTail) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	text := l.partial + string(p)
	parts := strings.Split(text, "\n")
	l.partial = clip(parts[len(parts)-1], 1000)
	for _, line := range parts[:len(parts)-1] {
		l.add(line)
	}
	return len(p), nil
}

// note adds a line of our own.
func (l *lineTail) note(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add("[minicode] " + line)
}

// add keeps one line, dropping the oldest beyond max. Callers hold mu.
func (l *lineTail) add(line string) {
	line = strings.TrimRight(line, "\r")
	if line == "" {
		return
	}
	l.lines = append(l.lines, clip(line, 500))
	if len(l.lines) > l.max {
		l.lines = l.lines[len(l.lines)-l.max:]
	}
}

// String returns the kept lines, oldest first.
func (l *lineTail) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := l.lines
	if l.partial != "" {
		lines = append(append([]string(nil), lines...), l.partial)
	}
	return strings.Join(lines, "\n")
}
