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

// TestSweepFollowsNoLinkOut sweeps, again and again, a new .claude in a
// folder that a running command keeps swapping with a link to a folder
// outside the workspace that holds a .claude: the one outside is never
// moved, whichever state the sweep meets.
func TestSweepFollowsNoLinkOut(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	writeTree(t, outside, map[string]string{".claude/settings.json": "{}\n"})
	g := watchProtected(ws, t.TempDir(), nil)
	g.commandStarted()
	stop, stopped := make(chan struct{}), make(chan struct{})
	folder, aside := filepath.Join(ws, "a"), filepath.Join(ws, "a.aside")
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.MkdirAll(filepath.Join(aside, ".claude"), 0o755)
			os.Rename(aside, folder)
			for range 20 { // a while as a folder, then as a link
				os.Lstat(folder)
			}
			os.Rename(folder, aside)
			os.Symlink(outside, folder)
			for range 20 {
				os.Lstat(folder)
			}
			os.Remove(folder)
		}
	}()
	defer func() { close(stop); <-stopped }()
	for i := range 3000 {
		g.sweep()
		if _, err := os.Lstat(filepath.Join(outside, ".claude")); err != nil {
			t.Fatalf("sweep %d moved the .claude outside the workspace: %v", i, err)
		}
	}
}
