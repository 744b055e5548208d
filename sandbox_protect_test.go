package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProtectedPathsPatrolWhileCommandsRun plants a repository while a
// (background) command still runs: it is moved out within a patrol's
// period, not when the command ends, and the patrol stops when no command
// runs.
func TestProtectedPathsPatrolWhileCommandsRun(t *testing.T) {
	ws := t.TempDir()
	g := watchProtected(ws, t.TempDir(), nil)
	if !g.commandStarted() {
		t.Fatal("the first command is not reported as first")
	}
	if g.commandStarted() {
		t.Fatal("a second command is reported as first")
	}
	notes, stopped := make(chan string, 4), make(chan bool)
	go func() { g.patrol(func(note string) { notes <- note }); close(stopped) }()
	writeTree(t, ws, map[string]string{"a/b/evil/.git/config": "[core]\n\tfsmonitor = touch PWNED\n"})
	select {
	case note := <-notes:
		if !strings.Contains(note, filepath.Join("a", "b", "evil", ".git")) {
			t.Errorf("note = %q", note)
		}
	case <-time.After(10 * patrolEvery):
		t.Fatal("the planted repository was not swept while the command ran")
	}
	if _, err := os.Lstat(filepath.Join(ws, "a/b/evil/.git")); err == nil {
		t.Error("the planted repository is still there")
	}
	// The model hears of it in the next command's result, once.
	if told := g.told("second"); !strings.Contains(told, filepath.Join("a", "b", "evil", ".git")) || !strings.HasSuffix(told, "\nsecond") {
		t.Errorf("the next command's result says %q, want the patrol's removal, then its own note", told)
	}
	if told := g.told(""); told != "" {
		t.Errorf("a later command's result says %q again", told)
	}
	g.commandEnded()
	g.commandEnded()
	select {
	case <-stopped:
	case <-time.After(10 * patrolEvery):
		t.Fatal("the patrol goes on with no command running")
	}
}
