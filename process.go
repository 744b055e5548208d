package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// shellEnv are the variables every command and hook gets: no pager waits for a
// terminal, no git credential prompt, no CDPATH surprise.
var shellEnv = []string{"PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "CDPATH="}

// killGroup sends sig to every process of the command's group.
func killGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	return syscall.Kill(-cmd.Process.Pid, sig)
}

// Process is a running command, sandboxed or plain, whose output is copied to the writers it was started with.
type Process struct {
	signal  func(syscall.Signal) error
	exited  chan struct{} // closed when the command ended and status is set
	status  syscall.WaitStatus
	err     error          // why the command's end is unknown
	copying sync.WaitGroup // the goroutines copying its output
	readers []*os.File     // the read ends of its output pipes
	finish  func() string  // run by Wait once the command ended: the sandbox's sweep
	Note    string         // what finish reported, for the command's result
}

// outputPipes makes the pipes for stdout and stderr (one when both go to the same writer) and copies them;
// the caller hands the write ends to the command, then closes them.
func (p *Process) outputPipes(stdout, stderr io.Writer) ([]*os.File, error) {
	var ends []*os.File
	for _, w := range slices.Compact([]io.Writer{stdout, stderr}) {
		r, wf, err := os.Pipe()
		if err != nil {
			closeFiles(append(ends, p.readers...))
			return nil, fmt.Errorf("making an output pipe: %w", err)
		}
		p.readers, ends = append(p.readers, r), append(ends, wf)
		p.copying.Go(func() { io.Copy(w, r) })
	}
	return append(ends, ends[len(ends)-1])[:2], nil
}

// closeFiles closes files; one listed twice is closed once, as an *os.File refuses a second Close.
func closeFiles(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// startPlain starts cmd outside any sandbox, in its own process group.
func startPlain(cmd *exec.Cmd, stdout, stderr io.Writer) (*Process, error) {
	p := &Process{exited: make(chan struct{})}
	ends, err := p.outputPipes(stdout, stderr)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr, cmd.SysProcAttr = ends[0], ends[1], commandProcAttr()
	err = cmd.Start()
	if closeFiles(ends); err != nil {
		closeFiles(p.readers)
		return nil, err
	}
	p.signal = func(sig syscall.Signal) error { return killGroup(cmd, sig) }
	go func() {
		p.err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
			p.status, p.err = ws, nil
		}
		close(p.exited)
	}()
	return p, nil
}

// Signal sends sig to the command's process group, unless it ended; SIGKILL ends every process it started.
func (p *Process) Signal(sig syscall.Signal) {
	select {
	case <-p.exited:
	default:
		p.signal(sig)
	}
}

// Wait waits until the command ended and its output is copied (at most grace longer: a process it left may
// hold the pipes), kills what is left of its group, and runs finish.
func (p *Process) Wait(grace time.Duration) {
	<-p.exited
	p.signal(syscall.SIGKILL)
	copied := make(chan struct{})
	go func() { p.copying.Wait(); close(copied) }()
	select {
	case <-copied:
	case <-time.After(grace):
	}
	if closeFiles(p.readers); p.finish != nil {
		p.Note = p.finish()
	}
}

// ExitStatus says how the command ended: its exit code, or the signal.
func (p *Process) ExitStatus() string {
	switch {
	case p.err != nil:
		return "unknown (" + p.err.Error() + ")"
	case p.status.Signaled():
		return fmt.Sprintf("none, killed by signal %s", p.status.Signal())
	}
	return fmt.Sprint(p.status.ExitStatus())
}

// BoundedOutput keeps the first headMax and newest tailMax bytes of a stream, safe for concurrent use.
type BoundedOutput struct {
	mu               sync.Mutex
	headMax, tailMax int
	head, tail       []byte
	dropped          int // bytes dropped between head and tail
}

// commandStreamBudget is how many characters of each output stream of a command or hook are kept, head and tail.
const commandStreamBudget = 16_000

// newBoundedOutput returns a collector keeping budget/2 bytes of each end.
func newBoundedOutput(budget int) *BoundedOutput {
	return &BoundedOutput{headMax: budget / 2, tailMax: budget / 2}
}

// Write keeps what fits in the head, then the newest bytes in the tail.
func (o *BoundedOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := min(o.headMax-len(o.head), len(p))
	o.head = append(o.head, p[:k]...)
	o.tail = append(o.tail, p[k:]...)
	if extra := len(o.tail) - o.tailMax; extra > 0 {
		o.dropped += extra
		o.tail = o.tail[extra:]
	}
	return len(p), nil
}

// take empties the collector, returning what it kept with a note where bytes were dropped.
func (o *BoundedOutput) take() string { return o.takeLetters(false) }

// takeLetters is take that, if more is to come, leaves an incomplete letter ending the tail for the next take.
func (o *BoundedOutput) takeLetters(moreToCome bool) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var rest []byte
	if moreToCome {
		rest = slices.Clone(o.tail[len(o.tail)-partialLetterBytes(o.tail):])
	}
	head, tail, dropped := string(o.head), string(o.tail[:len(o.tail)-len(rest)]), o.dropped
	o.head, o.tail, o.dropped = nil, rest, 0
	valid := func(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }
	switch {
	case dropped == 0:
		return valid(head + tail) // whole: a letter may straddle head and tail
	case o.headMax == 0:
		return fmt.Sprintf("[... %d older bytes of output dropped ...]\n%s", dropped, valid(tail))
	}
	return fmt.Sprintf("%s\n[... %d bytes of output omitted ...]\n%s", valid(head), dropped, valid(tail))
}

// partialLetterBytes is how many bytes at the end of b begin a UTF-8 letter without completing it.
func partialLetterBytes(b []byte) int {
	i := len(b) - 1 // goes back to the last letter's first byte, at most three bytes from the end
	for i > 0 && i > len(b)-utf8.UTFMax && !utf8.RuneStart(b[i]) {
		i--
	}
	if i < 0 || utf8.FullRune(b[i:]) {
		return 0
	}
	return len(b) - i
}
