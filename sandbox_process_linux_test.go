package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// daemonAttack starts processes that leave the command's session and
// process group (setsid, a double fork, nohup) and keep planting a hook.
const daemonAttack = `setsid bash -c 'while :; do date +%s%N > alive; echo x > .git/hooks/post-commit; sleep 0.05; done' </dev/null >/dev/null 2>&1 &
( setsid sleep 3007 </dev/null >/dev/null 2>&1 & )
nohup sleep 3008 >/dev/null 2>&1 &
until [ -s alive ]; do sleep 0.05; done; echo started`

// TestSandboxNoProcessOutlivesItsCommand runs detached daemons from a
// foreground command and from a background one that minicode stops at
// exit: when the command (or minicode) ends, every process it started is
// gone, whatever it did to its session or group.
func TestSandboxNoProcessOutlivesItsCommand(t *testing.T) {
	t.Parallel()
	for _, mode := range []struct {
		name  string
		extra map[string]any
	}{{"foreground", nil}, {"background", map[string]any{"run_in_background": true}}} {
		t.Run(mode.name, func(t *testing.T) {
			t.Parallel()
			forEachUser(t, func(t *testing.T, r *escapeRun) {
				r.minicode(t, mode.extra, daemonAttack)
				if left := processesIn(r.ws, 10*time.Second); len(left) > 0 {
					t.Errorf("processes outlived the command: %v", left)
				}
				if _, err := os.Stat(filepath.Join(r.ws, ".git", "hooks", "post-commit")); err == nil {
					t.Error("the daemon planted a hook")
				}
			})
		})
	}
}

// processesIn lists the command lines of the processes working in dir,
// waiting up to grace for them to end.
func processesIn(dir string, grace time.Duration) []string {
	var found []string
	for deadline := time.Now().Add(grace); ; time.Sleep(20 * time.Millisecond) {
		found = nil
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err == nil && cwd == dir && len(cmdline) > 0 {
				found = append(found, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
		if len(found) == 0 || time.Now().After(deadline) {
			return found
		}
	}
}

// TestSandboxStartsAtTheFirstCommand runs a session without commands
// (with text output: stream-json's init event reports the sandbox, so it
// starts it): it starts no supervisor (none laid the caches' overlay
// layers); one that runs a command does.
func TestSandboxStartsAtTheFirstCommand(t *testing.T) {
	t.Parallel()
	forEachUser(t, func(t *testing.T, r *escapeRun) {
		layers := func() []string {
			found, _ := filepath.Glob(filepath.Join(r.minicodeHome, "sandbox", "*", "*", "upper"))
			return found
		}
		r.args = []string{"--output-format", "text"}
		r.minicodeCalls(t)
		r.args = nil
		if found := layers(); found != nil {
			t.Fatalf("a session without commands started the supervisor: %q", found)
		}
		r.minicode(t, nil, "true")
		if layers() == nil {
			t.Errorf("a session with a command made no overlay layer: did its supervisor start?")
		}
	})
}
