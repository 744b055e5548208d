package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Limits of run_command.
const (
	commandMaxTimeout = 10 * time.Minute
	pipeGrace         = 2 * time.Second // how long output may lag behind a finished command
)

// runCommandInput is the input of run_command.
type runCommandInput struct {
	Command         string `json:"command" validate:"required" desc:"Shell command, run with bash -c in the workspace folder."`
	TimeoutMs       int    `json:"timeout_ms,omitempty" default:"120000" validate:"min=1,max=600000" desc:"Time limit in milliseconds. Default 120000 (2 minutes), at most 600000 (10 minutes)."`
	RunInBackground bool   `json:"run_in_background,omitempty" desc:"Start the command and return at once with an id; read its output with command_output and stop it with command_kill. Use for servers and watchers."`
	Sandbox         bool   `json:"sandbox,omitempty" default:"true" desc:"Commands run in a sandbox (writes only in the workspace, TMPDIR and build caches; no network; no secrets). Set false, with a reason, only when the sandbox refused what the task needs: the user is always asked."`
	Reason          string `json:"reason,omitempty" desc:"Why the command must run outside the sandbox; required when sandbox is false."`
}

// runCommandTool runs shell commands, in the foreground or background.
func runCommandTool(procs *ProcessManager) *Tool {
	return ToolDef[runCommandInput]{
		Name: "run_command",
		Description: "Run a shell command (bash -c) in the workspace folder, without a terminal or input. Returns the exit code, stdout and stderr, " +
			"each cut to about 16000 characters keeping head and tail. Time limit 2 minutes by default (timeout_ms, at most 10 minutes); " +
			"on timeout the command and everything it started is killed. Processes it leaves behind are stopped when it exits: " +
			"use run_in_background for servers.",
		Timeout: commandMaxTimeout + time.Minute,
		// Registry.execute (tools.go) passes this request to Permissions.Authorize (permissions.go),
		// and calls Run only once the call is allowed.
		Permission: func(env *ToolEnv, in runCommandInput) (PermissionRequest, error) {
			summary := map[bool]string{false: "run ", true: "run in the background: "}[in.RunInBackground] + in.Command
			req := PermissionRequest{Access: AccessExecute, Command: in.Command, Summary: summary}
			if !in.Sandbox && procs.sandbox.Sandboxed() {
				if strings.TrimSpace(in.Reason) == "" {
					return req, errors.New(`invalid input: "reason" is required when "sandbox" is false`)
				}
				req.Unsandboxed = in.Reason
				req.Summary += " (outside the sandbox)"
			}
			return req, nil
		},
		Run: func(ctx context.Context, env *ToolEnv, in runCommandInput) (ToolOutput, error) {
			spec := CommandSpec{Dir: env.Workspace, Command: in.Command, Unsandboxed: !in.Sandbox, Readable: env.ResultsDir}
			if in.RunInBackground {
				return procs.start(spec)
			}
			return runForeground(ctx, procs.sandbox, spec, time.Duration(in.TimeoutMs)*time.Millisecond)
		},
	}.Tool()
}

// runForeground runs a command until it ends or times out; whatever it started ends with it.
func runForeground(ctx context.Context, sb *Sandbox, spec CommandSpec, timeout time.Duration) (ToolOutput, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stdout, stderr := newBoundedOutput(commandStreamBudget), newBoundedOutput(commandStreamBudget)
	spec.Stdout, spec.Stderr = stdout, stderr
	p, err := sb.Start(runCtx, spec)
	if err != nil {
		return ToolOutput{}, err
	}
	p.Wait(pipeGrace)
	stopped := ""
	switch {
	case ctx.Err() != nil:
		stopped = "Command cancelled; it and every process it started were killed.\n"
	case runCtx.Err() != nil:
		stopped = fmt.Sprintf("Command timed out after %s; it and every process it started were killed.\n", timeout)
	}
	out, errOut := cmp.Or(stdout.take(), "(empty)"), cmp.Or(stderr.take(), "(empty)")
	text := fmt.Sprintf("%sExit code: %s\n\nstdout:\n%s\n\nstderr:\n%s\n", stopped, p.ExitStatus(), out, errOut)
	failed := stopped != "" || p.ExitStatus() != "0"
	if note := sb.refusalNote(out + errOut); failed && !spec.Unsandboxed && note != "" {
		text += "\n" + note + "\n"
	}
	if p.Note != "" {
		text, failed = text+"\n"+p.Note+"\n", true
	}
	return ToolOutput{Text: text, IsError: failed}, nil
}

// Limits of background processes.
const (
	maxUnreadOutput = 1 << 20         // unread output kept per process; older output is dropped
	killGrace       = 2 * time.Second // between SIGTERM and SIGKILL
)

// ProcessManager keeps the commands run_command started in the background.
type ProcessManager struct {
	sandbox *Sandbox // where commands run; nil runs them plainly
	mu      sync.Mutex
	procs   []*backgroundProcess
	closed  bool
}

// backgroundProcess is one command running in the background.
type backgroundProcess struct {
	id      string
	started time.Time
	proc    *Process
	log     *BoundedOutput // unread output
	done    chan struct{}  // closed when the command ended and its output is collected
	killed  atomic.Bool    // stopped by command_kill or Close
}

// start runs a command in the background and reports its id.
func (m *ProcessManager) start(spec CommandSpec) (ToolOutput, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ToolOutput{}, fmt.Errorf("cannot start background processes: shutting down")
	}
	log := &BoundedOutput{tailMax: maxUnreadOutput}
	spec.Stdout, spec.Stderr = log, log
	proc, err := m.sandbox.Start(context.Background(), spec)
	if err != nil {
		return ToolOutput{}, err
	}
	p := &backgroundProcess{id: fmt.Sprintf("bg%d", len(m.procs)+1), started: time.Now(), proc: proc, log: log, done: make(chan struct{})}
	m.procs = append(m.procs, p)
	go func() {
		proc.Wait(pipeGrace)
		close(p.done)
	}()
	return ToolOutput{Text: fmt.Sprintf("Started background process %s. Read its output with command_output {\"id\":%q}; stop it with command_kill.",
		p.id, p.id)}, nil
}

// get finds the process with the given id.
func (m *ProcessManager) get(id string) (*backgroundProcess, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ids []string
	for _, p := range m.procs {
		if p.id == id {
			return p, nil
		}
		ids = append(ids, p.id)
	}
	if ids == nil {
		return nil, fmt.Errorf("no background process %q: none was started", id)
	}
	return nil, fmt.Errorf("no background process %q; known ids: %s", id, strings.Join(ids, ", "))
}

// Close stops every background process and waits until they are gone.
func (m *ProcessManager) Close() {
	m.mu.Lock()
	m.closed = true
	procs := slices.Clone(m.procs)
	m.mu.Unlock()
	for _, p := range procs {
		p.stop(syscall.SIGKILL)
	}
	for _, p := range procs {
		<-p.done
	}
}

// stop sends sig to the process's group unless the command already ended.
func (p *backgroundProcess) stop(sig syscall.Signal) {
	select {
	case <-p.done:
	default:
		p.killed.Store(true)
		p.proc.Signal(sig)
	}
}

// status says whether the process runs, or how it ended.
func (p *backgroundProcess) status() string {
	select {
	case <-p.done:
	default:
		return fmt.Sprintf("running (for %s)", time.Since(p.started).Round(time.Second))
	}
	status := "exited " + p.proc.ExitStatus()
	if p.killed.Load() {
		status = "killed"
	}
	if p.proc.Note != "" {
		status += "\n" + p.proc.Note
	}
	return status
}

// report is the process's status and its output since the last report.
func (p *backgroundProcess) report() string {
	status := p.status() // first: once it says exited, done is closed and all the output is in the log
	out := cmp.Or(p.log.takeLetters(strings.HasPrefix(status, "running")), "(no new output)")
	return fmt.Sprintf("%s: %s\n%s\n", p.id, status, cutMiddleBytes(out, 2*commandStreamBudget))
}

// commandIDInput names a background process.
type commandIDInput struct {
	ID string `json:"id" validate:"required" desc:"Id that run_command returned, such as bg1."`
}

// commandOutputTool reads what a background process printed.
func commandOutputTool(procs *ProcessManager) *Tool {
	return ToolDef[commandIDInput]{
		Name:        "command_output",
		Description: "Show a background process's status (running, exited N, killed) and the output (stdout and stderr together) it printed since the last call.",
		ReadOnly:    true,
		Run: func(ctx context.Context, env *ToolEnv, in commandIDInput) (ToolOutput, error) {
			p, err := procs.get(in.ID)
			if err != nil {
				return ToolOutput{}, err
			}
			return ToolOutput{Text: p.report()}, nil
		},
	}.Tool()
}

// commandKillTool stops a background process and everything it started.
func commandKillTool(procs *ProcessManager) *Tool {
	return ToolDef[commandIDInput]{
		Name:        "command_kill",
		Description: "Stop a background process and every process it started (SIGTERM, then SIGKILL after 2 seconds). Returns its last output.",
		Run: func(ctx context.Context, env *ToolEnv, in commandIDInput) (ToolOutput, error) {
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
