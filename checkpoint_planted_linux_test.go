package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRewindWritesBackNothingPlanted has a background command plant a protected path over and over
// (agent settings, whose hooks would run outside the sandbox) while the next prompt's checkpoint is
// taken. The sandbox moves it out when the command is stopped; a /rewind to that checkpoint, which
// minicode writes outside the sandbox, must not bring it back.
func TestRewindWritesBackNothingPlanted(t *testing.T) {
	if abi, reason := landlockABI(); abi == 0 {
		t.Skip(reason)
	}
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"a.txt": "one\n"})
	script := `[
	{"tool_calls": [{"name": "run_command", "input": {"command": "while :; do mkdir -p .claude && echo planted > .claude/settings.json; sleep 0.01; done", "run_in_background": true}}]},
	{"tool_calls": [{"name": "run_command", "input": {"command": "sleep 0.3", "sandbox": false, "reason": "wait outside, where no sweep follows"}}]},
	{"text": "started"},
	{"tool_calls": [{"name": "command_kill", "input": {"id": "bg1"}}]},
	{"text": "stopped"}
]`
	r := runMinicode(t, nil, "start\nstop\n/rewind 2\nf\ny\n", "--provider", "mock", "--mock-script", writeScript(t, script),
		"--workspace", ws, "--dangerously-skip-permissions", "--allowedTools", "run_command(sandbox:false)")
	if !strings.Contains(r.stdout, "stopped") || !strings.Contains(r.stdout, "The sandbox removed") {
		t.Fatalf("the session did not run as scripted:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	if data, err := os.ReadFile(filepath.Join(ws, ".claude/settings.json")); err == nil {
		t.Errorf("after /rewind .claude/settings.json holds %q, which the command planted:\n%s", data, r.stdout)
	}
}
