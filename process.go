package main

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
)

// killGroup sends sig to every process of the command's group.
func killGroup(cmd *exec.Cmd, sig syscall.Signal) error {
	return syscall.Kill(-cmd.Process.Pid, sig)
}

// exitStatus is the shell's exit code, or the signal that killed it.
func exitStatus(cmd *exec.Cmd) string {
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("none, killed by signal %s", ws.Signal())
	}
	return fmt.Sprint(cmd.ProcessState.ExitCode())
}

// boundedOutput keeps the first headMax and newest tailMax bytes of a stream, safe for concurrent use.
type boundedOutput struct {
	mu               sync.Mutex
	headMax, tailMax int
	head, tail       []byte
	dropped          int // bytes dropped between head and tail
}

// newBoundedOutput returns a collector keeping budget/2 bytes of each end.
func newBoundedOutput(budget int) *boundedOutput {
	return &boundedOutput{headMax: budget / 2, tailMax: budget / 2}
}

// Write keeps what fits in the head, then the newest bytes in the tail.
func (o *boundedOutput) Write(p []byte) (int, error) {
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
func (o *boundedOutput) take() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	head, tail, dropped := strings.ToValidUTF8(string(o.head), "\uFFFD"), strings.ToValidUTF8(string(o.tail), "\uFFFD"), o.dropped
	o.head, o.tail, o.dropped = nil, nil, 0
	switch {
	case dropped == 0:
		return head + tail
	case o.headMax == 0:
		return fmt.Sprintf("[... %d older bytes of output dropped ...]\n%s", dropped, tail)
	}
	return fmt.Sprintf("%s\n[... %d bytes of output omitted ...]\n%s", head, dropped, tail)
}
