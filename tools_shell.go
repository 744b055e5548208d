package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Limits of run_command.
const (
	commandDefaultTimeout = 2 * time.Minute
	commandMaxTimeout     = 10 * time.Minute
	commandStreamBudget   = 16_000          // characters kept of each output stream, head and tail
	pipeGrace             = 2 * time.Second // how long output may lag behind a finished command
)

// RunCommandInput is the input of run_command.
type RunCommandInput struct {
	Command         string `json:"command" validate:"required" desc:"Shell command, run with bash -c in the workspace folder."`
	TimeoutMs       *int   `json:"timeout_ms,omitempty" validate:"omitempty,min=1,max=600000" desc:"Time limit in milliseconds. Default 120000 (2 minutes), at most 600000 (10 minutes)."`
	RunInBackground bool   `json:"run_in_background,omitempty" desc:"Start the command and return at once with an id; read its output with command_output and stop it with command_kill. Use for servers and watchers."`
}

// runCommandTool runs shell commands, in the foreground or background.
func runCommandTool(procs *processManager) *Tool {
	return ToolDef[RunCommandInput]{
		Name: "run_command",
		Description: "Run a shell command (bash -c) in the workspace folder, without a terminal or input. Returns the exit code, stdout and stderr, " +
			"each cut to about 16000 characters keeping head and tail. Time limit 2 minutes by default (timeout_ms, at most 10 minutes); " +
			"on timeout the command and everything it started is killed. Processes it leaves behind are stopped when it exits: " +
			"use run_in_background for servers.",
		Timeout: commandMaxTimeout + time.Minute,
		Permission: func(env *ToolEnv, in RunCommandInput) (PermissionRequest, error) {
			summary := "run " + in.Command
			if in.RunInBackground {
				summary = "run in the background: " + in.Command
			}
			return PermissionRequest{Access: AccessExecute, Command: in.Command, Summary: summary}, nil
		},
		Run: func(ctx context.Context, env *ToolEnv, in RunCommandInput) (ToolOutput, error) {
			if in.RunInBackground {
				return procs.start(env.Workspace, in.Command)
			}
			timeout := commandDefaultTimeout
			if in.TimeoutMs != nil {
				timeout = time.Duration(*in.TimeoutMs) * time.Millisecond
			}
			return runForeground(ctx, env.Workspace, in.Command, timeout)
		},
	}.Tool()
}

// runForeground runs command and waits for it, killing its whole process
// group when the timeout passes or ctx is cancelled.
func runForeground(ctx context.Context, dir, command string, timeout time.Duration) (ToolOutput, error) {
	stdout, stderr := newBoundedOutput(commandStreamBudget), newBoundedOutput(commandStreamBudget)
	p, err := startGroup(dir, command, stdout, stderr)
	if err != nil {
		return ToolOutput{}, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	stopped := ""
	select {
	case <-p.exited:
	case <-timer.C:
		stopped = fmt.Sprintf("Command timed out after %s; it and every process it started were killed.", timeout)
	case <-ctx.Done():
		stopped = "Command cancelled; it and every process it started were killed."
	}
	if stopped != "" {
		p.signal(syscall.SIGKILL)
		<-p.exited
	}
	p.finish()
	var b strings.Builder
	if stopped != "" {
		b.WriteString(stopped + "\n")
	}
	fmt.Fprintf(&b, "Exit code: %s\n\nstdout:\n%s\n\nstderr:\n%s\n", p.status(), stdout.String(), stderr.String())
	return ToolOutput{Text: b.String(), IsError: stopped != "" || p.exitCode() != 0}, nil
}

// groupProcess is a shell command running in its own process group, so
// that it and everything it starts can be stopped together. It reads the
// command's output pipes itself, so that a process holding them open
// cannot make waiting hang.
type groupProcess struct {
	cmd     *exec.Cmd
	pipes   []*os.File     // the read ends of the output pipes
	readers sync.WaitGroup // one per pipe, copying it to its writer
	exited  chan struct{}  // closed when the shell has exited
}

// startGroup starts command under bash in dir, in a new process group,
// copying its stdout and stderr to the given writers; when both are the
// same writer the streams share one pipe and stay in order.
func startGroup(dir, command string, stdout, stderr io.Writer) (*groupProcess, error) {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &groupProcess{cmd: cmd, exited: make(chan struct{})}
	writers := []io.Writer{stdout}
	if stderr != stdout {
		writers = append(writers, stderr)
	}
	var ends []*os.File
	for range writers {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(p.pipes, ends)
			return nil, fmt.Errorf("creating pipe: %w", err)
		}
		p.pipes, ends = append(p.pipes, r), append(ends, w)
	}
	cmd.Stdout, cmd.Stderr = ends[0], ends[len(ends)-1]
	err := cmd.Start()
	closeAll(ends)
	if err != nil {
		closeAll(p.pipes)
		return nil, fmt.Errorf("starting bash: %w", err)
	}
	for i, r := range p.pipes {
		p.readers.Add(1)
		go func() {
			defer p.readers.Done()
			_, _ = io.Copy(writers[i], r)
		}()
	}
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// closeAll closes every file of every list.
func closeAll(lists ...[]*os.File) {
	for _, files := range lists {
		for _, f := range files {
			f.Close()
		}
	}
}

// signal sends sig to every process of the group.
func (p *groupProcess) signal(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// finish is called once the shell has exited: it kills what the command
// left running and collects the rest of the output, giving up after
// pipeGrace on pipes held open by processes that left the group.
func (p *groupProcess) finish() {
	p.signal(syscall.SIGKILL)
	drained := make(chan struct{})
	go func() {
		p.readers.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(pipeGrace):
	}
	closeAll(p.pipes)
	<-drained
}

// exitCode is the shell's exit status, or -1 when a signal ended it.
func (p *groupProcess) exitCode() int {
	return p.cmd.ProcessState.ExitCode()
}

// status describes how the shell ended: its exit code, or the signal that
// killed it.
func (p *groupProcess) status() string {
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("none, killed by signal %s", ws.Signal())
	}
	return fmt.Sprint(p.exitCode())
}

// boundedOutput collects a stream in bounded memory: the first half of its
// budget and the most recent half, with a count of what was dropped in
// between. It is safe for concurrent use.
type boundedOutput struct {
	mu      sync.Mutex
	half    int
	head    []byte
	tail    []byte
	dropped int
}

// newBoundedOutput returns an empty collector that keeps about budget bytes.
func newBoundedOutput(budget int) *boundedOutput {
	return &boundedOutput{half: budget / 2}
}

// Write keeps what fits in the head, then the newest bytes in the tail.
func (o *boundedOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(p)
	if room := o.half - len(o.head); room > 0 {
		k := min(room, len(p))
		o.head = append(o.head, p[:k]...)
		p = p[k:]
	}
	o.tail = append(o.tail, p...)
	if extra := len(o.tail) - o.half; extra > o.half {
		o.dropped += extra
		o.tail = append(o.tail[:0], o.tail[extra:]...)
	}
	return n, nil
}

// String is the kept output, with a note where the middle was dropped,
// and invalid UTF-8 replaced. It is "(empty)" when nothing was written.
func (o *boundedOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	tail, dropped := o.tail, o.dropped
	if extra := len(tail) - o.half; extra > 0 {
		tail, dropped = tail[extra:], dropped+extra
	}
	if len(o.head) == 0 {
		return "(empty)"
	}
	if dropped == 0 {
		return strings.ToValidUTF8(string(o.head)+string(tail), "\uFFFD")
	}
	return fmt.Sprintf("%s\n[... %d bytes of output omitted ...]\n%s", strings.ToValidUTF8(string(o.head), "\uFFFD"), dropped, strings.ToValidUTF8(string(tail), "\uFFFD"))
}

// Limits of background processes.
const (
	maxUnreadOutput = 1 << 20         // unread output kept per process; older output is dropped
	killGrace       = 2 * time.Second // between SIGTERM and SIGKILL
)

// processManager keeps the commands run_command started in the
// background, so that command_output and command_kill can find them and
// Close can stop them all when the app exits.
type processManager struct {
	mu     sync.Mutex
	procs  map[string]*backgroundProcess
	next   int
	closed bool
}

// newProcessManager returns a manager with no processes.
func newProcessManager() *processManager {
	return &processManager{procs: map[string]*backgroundProcess{}}
}

// backgroundProcess is one command running in the background.
type backgroundProcess struct {
	id      string
	started time.Time
	group   *groupProcess
	log     *unreadLog
	done    chan struct{} // closed when the command ended and its output is collected
	mu      sync.Mutex
	killed  bool // stopped by command_kill or Close
}

// start runs command in dir in the background and reports its id.
func (m *processManager) start(dir, command string) (ToolOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ToolOutput{}, fmt.Errorf("cannot start background processes: shutting down")
	}
	log := &unreadLog{}
	group, err := startGroup(dir, command, log, log)
	if err != nil {
		return ToolOutput{}, err
	}
	m.next++
	p := &backgroundProcess{id: fmt.Sprintf("bg%d", m.next), started: time.Now(), group: group, log: log, done: make(chan struct{})}
	m.procs[p.id] = p
	go func() {
		<-group.exited
		group.finish()
		close(p.done)
	}()
	return ToolOutput{Text: fmt.Sprintf("Started background process %s (pid %d). Read its output with command_output {\"id\":%q}; stop it with command_kill.",
		p.id, group.cmd.Process.Pid, p.id)}, nil
}

// get finds the process with the given id.
func (m *processManager) get(id string) (*backgroundProcess, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.procs[id]; ok {
		return p, nil
	}
	ids := make([]string, 0, len(m.procs))
	for i := 1; i <= m.next; i++ {
		ids = append(ids, fmt.Sprintf("bg%d", i))
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("no background process %q: none was started", id)
	}
	return nil, fmt.Errorf("no background process %q; known ids: %s", id, strings.Join(ids, ", "))
}

// Close stops every background process still running and waits until
// they are gone.
func (m *processManager) Close() {
	m.mu.Lock()
	m.closed = true
	procs := make([]*backgroundProcess, 0, len(m.procs))
	for _, p := range m.procs {
		procs = append(procs, p)
	}
	m.mu.Unlock()
	for _, p := range procs {
		p.stop(syscall.SIGKILL)
	}
	for _, p := range procs {
		<-p.done
	}
}

// stop sends sig to the process's group unless the shell already exited,
// and marks it as killed. A shell that exited by itself keeps its exit
// code even while its output is still being collected.
func (p *backgroundProcess) stop(sig syscall.Signal) {
	select {
	case <-p.group.exited:
		return
	default:
	}
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	p.group.signal(sig)
}

// status says whether the process runs, or how it ended.
func (p *backgroundProcess) status() string {
	select {
	case <-p.done:
	default:
		return fmt.Sprintf("running (pid %d, for %s)", p.group.cmd.Process.Pid, time.Since(p.started).Round(time.Second))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.killed {
		return "killed"
	}
	return "exited " + p.group.status()
}

// report is the process's status and the output it wrote since the last
// report.
func (p *backgroundProcess) report() string {
	out := p.log.take()
	if out == "" {
		out = "(no new output)"
	}
	return fmt.Sprintf("%s: %s\n%s\n", p.id, p.status(), cutMiddle(out, 2*commandStreamBudget))
}

// unreadLog holds a background process's combined output until it is
// read, dropping the oldest bytes past maxUnreadOutput.
type unreadLog struct {
	mu      sync.Mutex
	buf     []byte
	dropped int
}

// Write appends p, dropping old unread output when over the limit.
func (l *unreadLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	if extra := len(l.buf) - maxUnreadOutput; extra > 0 {
		l.dropped += extra
		l.buf = append(l.buf[:0], l.buf[extra:]...)
	}
	return len(p), nil
}

// take returns the unread output, with a note about dropped bytes, and
// marks it read.
func (l *unreadLog) take() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := strings.ToValidUTF8(string(l.buf), "\uFFFD")
	if l.dropped > 0 {
		out = fmt.Sprintf("[... %d older bytes of output dropped ...]\n%s", l.dropped, out)
	}
	l.buf, l.dropped = nil, 0
	return out
}

// CommandIDInput names a background process.
type CommandIDInput struct {
	ID string `json:"id" validate:"required" desc:"Id that run_command returned, such as bg1."`
}

// commandOutputTool reads what a background process printed.
func commandOutputTool(procs *processManager) *Tool {
	return ToolDef[CommandIDInput]{
		Name:        "command_output",
		Description: "Show a background process's status (running, exited N, killed) and the output (stdout and stderr together) it printed since the last call.",
		ReadOnly:    true,
		Run: func(ctx context.Context, env *ToolEnv, in CommandIDInput) (ToolOutput, error) {
			p, err := procs.get(in.ID)
			if err != nil {
				return ToolOutput{}, err
			}
			return ToolOutput{Text: p.report()}, nil
		},
	}.Tool()
}

// commandKillTool stops a background process and everything it started.
func commandKillTool(procs *processManager) *Tool {
	return ToolDef[CommandIDInput]{
		Name:        "command_kill",
		Description: "Stop a background process and every process it started (SIGTERM, then SIGKILL after 2 seconds). Returns its last output.",
		Run: func(ctx context.Context, env *ToolEnv, in CommandIDInput) (ToolOutput, error) {
			p, err := procs.get(in.ID)
			if err != nil {
				return ToolOutput{}, err
			}
			p.stop(syscall.SIGTERM)
			select {
			case <-p.done:
			case <-time.After(killGrace):
				p.stop(syscall.SIGKILL)
				<-p.done
			}
			return ToolOutput{Text: p.report()}, nil
		},
	}.Tool()
}
