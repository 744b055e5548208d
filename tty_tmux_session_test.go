package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestResumedCallOfUnknownOutcomeIsNotShownAsDone resumes, in the terminal UI, a
// session whose journal ends in a tool call that began and never finished, as
// minicode killed during a command leaves it, after a call of the same reply that
// finished. The model is told the outcome of the second is unknown, so the screen
// must not mark it as done; the first is done.
func TestResumedCallOfUnknownOutcomeIsNotShownAsDone(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := tuiDir(t)
	s := newSession(projectDir(filepath.Join(dir, "home"), filepath.Join(dir, "ws")), newSessionID(), nil)
	s.AddUser(userText("start the server"))
	write := Block{Type: BlockToolUse, ID: "toolu_write", Name: "write_file", Input: []byte(`{"path":"a.txt","content":"x"}`)}
	call := Block{Type: BlockToolUse, ID: "toolu_slow", Name: "run_command", Input: []byte(`{"command":"sleep 300"}`)}
	s.Event(Event{Kind: EventAssistant, Message: &Message{Role: RoleAssistant, Content: []Block{{Type: BlockText, Text: "Starting the server."}, write, call}}})
	s.Event(Event{Kind: EventToolStart, Call: &write})
	s.Event(Event{Kind: EventToolEnd, Call: &write, Result: &Block{Type: BlockToolResult, ToolUseID: write.ID, Content: "Changed a.txt"}})
	s.Event(Event{Kind: EventToolStart, Call: &call})
	s.Close()

	tm := startTUIIn(t, dir, minicodeBinary(t), 100, 30, nil, "-c")
	screen := tm.waitFor("Resumed session")
	if !strings.Contains(screen, "✗ run_command sleep 300") {
		t.Errorf("the call whose outcome is unknown is not marked as failed:\n%s", screen)
	}
	if !strings.Contains(screen, "✓ write_file a.txt") {
		t.Errorf("the call that finished before minicode was killed is not marked as done:\n%s", screen)
	}
}

// TestEscStopsTheDemoReply interrupts the demo model while it streams a long
// reply with a pause before each word: the rest of the reply is not shown, as
// a network model's would not be.
func TestEscStopsTheDemoReply(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	tm := startTUI(t, "MINICODE_DEMO_DELAY=100ms "+minicodeBinary(t), 100, 30)
	tm.send("help", "Enter")
	tm.waitFor("I am minicode's")
	tm.send("Escape")
	screen := tm.waitFor("interrupted")
	if strings.Contains(screen, "this list") {
		t.Errorf("the whole reply was shown after Esc:\n%s", screen)
	}
}
