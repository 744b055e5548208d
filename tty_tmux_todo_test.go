package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// todoScript is a turn that writes a todo list of three steps, one in progress, and stops.
const todoScript = `[
	{"tool_calls": [{"name": "todo_write", "input": {"todos": [{"content": "Read", "activeForm": "Reading", "status": "completed"},
		{"content": "Test", "activeForm": "Testing", "status": "in_progress"}, {"content": "Ship", "activeForm": "Shipping", "status": "pending"}]}}]},
	{"text": "Paused after reading."}
]`

// slowTurnsScript is two turns whose answers stream slowly, so that what shows while a turn runs can be seen.
const slowTurnsScript = `[
	{"text": "Going on with the tests now, word by word, so that the screen can be read while this turn runs for a while."},
	{"text": "Starting over from the beginning, word by word, so that the screen can be read while this turn runs for a while."}
]`

// TestTodoListInTmux keeps a todo list across the scrollback, a resume and a rewind: each
// update prints the list under the call (not its JSON); a resumed session shows it and shows
// it again above the input while the next turn runs; a rewind to before the list drops it.
func TestTodoListInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir, bin := tuiDir(t), minicodeBinary(t)
	script := func(name, replies string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(replies), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	list := "✓ todo_write 3 steps\n  ☒ Read\n  ▸ Testing\n  ☐ Ship\n"
	showsList := func(screen string) bool { // the call's line with its time (live) or without (resumed)
		var lines []string
		for _, line := range strings.Split(strings.ReplaceAll(screen, " (0.0s)", ""), "\n") {
			lines = append(lines, strings.TrimRight(line, " "))
		}
		return strings.Contains(strings.Join(lines, "\n"), list)
	}
	tm := startTUIIn(t, dir, bin, 100, 30, nil, "--mock-script", script("todo.json", todoScript))
	tm.send("start", "Enter")
	tm.waitFor("Paused after reading.")
	tm.waitIdle() // Ctrl-D ends minicode at an idle prompt
	if s := tm.screen(true, false); !showsList(s) || strings.Contains(s, `{"todos"`) {
		t.Errorf("the scrollback does not show the list under the call:\n%s", s)
	}
	tm.send("C-d")
	tm.waitFor("MINICODE-EXITED")
	tm.tmux("kill-server")

	tm = startTUIIn(t, dir, bin, 100, 30, []string{"MINICODE_DEMO_DELAY=60ms"}, "-c", "--mock-script", script("slow.json", slowTurnsScript))
	if s := tm.waitFor("Resumed session"); !showsList(s) {
		t.Errorf("the resumed session does not show the list:\n%s", s)
	}
	aboveStatus := func() string {
		lines := strings.Split(tm.screen(false, false), "\n")
		for i := 1; i < len(lines); i++ {
			if strings.Contains(lines[i], "· ctx ") {
				return strings.TrimRight(lines[i-1], " ")
			}
		}
		return ""
	}
	tm.send("go on", "Enter")
	tm.waitUntil("the resumed list above the input", func(string) bool { return aboveStatus() == "  ☐ Ship" })
	tm.waitIdle()

	tm.send("/rewind 1", "Enter")
	tm.waitFor("? Rewind: #1")
	tm.send("c")
	tm.waitFor("the conversation is back to before #1")
	tm.send("again", "Enter")
	tm.waitUntil("the next answer to stream", func(s string) bool { return strings.Contains(aboveStatus(), "Starting over") })
	if above := aboveStatus(); strings.Contains(above, "Ship") {
		t.Errorf("the list of the rewound conversation shows while the next turn runs: %q", above)
	}
}
