package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tmuxRewindScript is the model of TestRewindTodoPlanInTmux: a turn that keeps a todo list and
// edits a.txt, its answer streamed slowly so the list shows while it runs; then a plan.
const tmuxRewindScript = `[
	{"tool_calls": [{"name": "todo_write", "input": {"todos": [{"content": "Change a.txt", "activeForm": "Changing a.txt", "status": "in_progress"}, {"content": "Report", "activeForm": "Reporting", "status": "pending"}]}},
		{"name": "write_file", "input": {"path": "a.txt", "content": "changed\n"}}]},
	{"text": "I changed a.txt as you asked and I am now writing a long answer word by word so that the todo list stays on the screen for a while above the input box, which shows the step in progress."},
	{"tool_calls": [{"name": "exit_plan_mode", "input": {"plan": "## Steps\n1. **Edit** a.txt"}}]},
	{"text": "carrying it out"}
]`

func TestRewindTodoPlanInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	script := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(script, []byte(tmuxRewindScript), 0o644); err != nil {
		t.Fatal(err)
	}
	// The command line of startTUI takes variables before the binary and flags after it.
	tm := startTUI(t, "MINICODE_DEMO_DELAY=60ms "+minicodeBinary(t)+" --mock-script "+script, 100, 30)
	status := func() string {
		for _, line := range strings.Split(tm.screen(false, false), "\n") {
			if strings.Contains(line, "· ctx ") {
				return line
			}
		}
		return ""
	}
	waitMode := func(mode string) {
		t.Helper()
		tm.waitUntil("the status line to show "+mode, func(string) bool { return strings.Contains(status(), " · "+mode+" · ") })
	}

	waitMode("default")
	tm.send("BTab") // Shift-Tab
	waitMode("acceptEdits")
	tm.send("change a.txt", "Enter")
	tm.waitUntil("the todo list above the input", func(string) bool {
		s := tm.screen(false, false)
		return strings.Contains(s, "▸ Changing a.txt") && strings.Contains(s, "☐ Report")
	})
	for _, line := range strings.Split(tm.screen(false, true), "\n") {
		if strings.Contains(line, "▸ Changing a.txt") && !strings.Contains(line, "36m") {
			t.Errorf("the step in progress is not highlighted: %q", line)
		}
	}
	tm.waitIdle()
	if s := tm.screen(false, false); strings.Contains(s, "☐ Report\n"+status()) { // the scrollback keeps it, under the call
		t.Errorf("the todo list stays above the input after the turn:\n%s", s)
	}
	if data, _ := os.ReadFile(filepath.Join(tm.dir, "ws", "a.txt")); string(data) != "changed\n" {
		t.Fatalf("a.txt = %q after the turn", data)
	}

	tm.send("Escape", "Escape") // at the empty prompt: the rewind menu
	tm.waitFor("Pick a checkpoint")
	tm.waitUntil("the checkpoint in the menu", func(s string) bool { return strings.Contains(s, "files changed: 1 · change a.txt") })
	tm.send("Enter") // picks the checkpoint: /rewind 1 runs
	tm.waitFor("? Rewind: #1")
	tm.send("f")
	tm.waitFor("a.txt changed (+1 -1)")
	tm.waitFor("restore 1 files to how they were at #1?")
	tm.send("y")
	tm.waitFor("Restored 1 files. /rewind 2 undoes this.")
	if data, _ := os.ReadFile(filepath.Join(tm.dir, "ws", "a.txt")); string(data) != "hello world\n" {
		t.Errorf("a.txt = %q after the rewind", data)
	}

	tm.send("BTab")
	waitMode("plan")
	tm.send("plan it", "Enter")
	tm.waitFor("? Plan: carry out this plan?")
	if s := tm.screen(true, false); !strings.Contains(s, "\nSteps\n1. Edit a.txt\n? Plan") {
		t.Errorf("the plan is not rendered:\n%s", s)
	}
	tm.send("a")
	tm.waitFor("carrying it out")
	waitMode("acceptEdits")
	tm.send("BTab", "BTab")
	waitMode("default")
}

// TestResumeAfterRewindInTmux rewinds the conversation of three turns to before the second,
// then resumes: the screen shows where the conversation went back, and the model's view holds
// the first turn alone.
func TestResumeAfterRewindInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := tuiDir(t)
	script := filepath.Join(dir, "script.json")
	if err := os.WriteFile(script, []byte(`[{"text": "answer one"}, {"text": "answer two"}, {"text": "answer three"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := startTUIIn(t, dir, minicodeBinary(t), 100, 30, nil, "--mock-script", script)
	for _, prompt := range []string{"one", "two", "three"} {
		tm.send(prompt, "Enter")
		tm.waitFor("answer " + prompt)
		tm.waitIdle()
	}
	tm.send("/rewind 2", "Enter")
	tm.waitFor("? Rewind: #2")
	tm.send("c")
	tm.waitFor("the conversation is back to before #2")
	tm.waitIdle() // Ctrl-D ends minicode at an idle prompt
	tm.send("C-d")
	tm.waitFor("MINICODE-EXITED")
	tm.tmux("kill-server")

	tm = startTUIIn(t, dir, minicodeBinary(t), 100, 30, nil, "-c")
	s := tm.waitFor("Resumed session")
	if !strings.Contains(s, "(2 messages)") || !strings.Contains(s, "answer three\n· /rewind: the conversation went back to before “two”\n") {
		t.Errorf("the resumed screen does not show the rewind:\n%s", s)
	}
}
