package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestProtectedPathsKeepWhatFileToolsWrote edits AGENTS.md with a file tool while a (background)
// command runs, as the user approved: the sweep leaves it in place. What the tool did not write
// (a file planted in place, one not holding what the tool wrote, a change made to AGENTS.md after
// the tool's) is still moved out.
func TestProtectedPathsKeepWhatFileToolsWrote(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"AGENTS.md": "old\n", "CLAUDE.md": "old\n"})
	g := watchProtected(ws, t.TempDir(), nil)
	g.commandStarted()
	agents, claude := filepath.Join(ws, "AGENTS.md"), filepath.Join(ws, "CLAUDE.md")
	if err := writeText(&ToolEnv{Workspace: ws, Wrote: g.accept}, agents, "old\n", "new rules\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(claude, []byte("planted\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g.accept(claude, []byte("what the tool wrote\n"))
	note := g.sweep()
	if data, err := os.ReadFile(agents); err != nil || string(data) != "new rules\n" || strings.Contains(note, "AGENTS.md") {
		t.Errorf("AGENTS.md as the file tool wrote it: %q, %v; sweep %q; want it left in place", data, err, note)
	}
	if _, err := os.Lstat(claude); err == nil || !strings.Contains(note, "CLAUDE.md") {
		t.Errorf("CLAUDE.md changed by no file tool is still there; sweep %q", note)
	}
	if err := os.WriteFile(agents, []byte("changed after\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if note := g.sweep(); !strings.Contains(note, "AGENTS.md") {
		t.Errorf("AGENTS.md changed after the file tool's write was not moved out; sweep %q", note)
	}
	g.commandEnded()
}

// TestAppFileToolsTellTheSandbox checks the wiring: the app's file tools tell its sandbox what they
// wrote, so an approved edit of a protected file while a command runs stays.
func TestAppFileToolsTellTheSandbox(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"AGENTS.md": "old\n"})
	app, err := newApp(context.Background(), Options{Workspace: ws, Print: true}, strings.NewReader(""), io.Discard, io.Discard,
		func(k string) string { return map[string]string{"MINICODE_HOME": t.TempDir()}[k] })
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	if app.Sandbox.guard == nil {
		t.Fatalf("no sandbox here: %s", app.Sandbox.Status())
	}
	app.Sandbox.guard.commandStarted()
	defer app.Sandbox.guard.commandEnded()
	if err := writeText(app.Env, filepath.Join(ws, "AGENTS.md"), "old\n", "new\n"); err != nil {
		t.Fatal(err)
	}
	if note := app.Sandbox.guard.sweep(); note != "" {
		t.Errorf("the sweep moved what the app's file tool wrote: %s", note)
	}
}

// TestProtectedPathsFollowTheConfig sets core.hooksPath after the first command, as the user may
// between commands: the next command that starts while none runs has the hooks folder read-only.
func TestProtectedPathsFollowTheConfig(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{".git/config": "[core]\n", ".githooks/pre-commit": "#!/bin/sh\n"})
	g := watchProtected(ws, t.TempDir(), nil)
	g.commandStarted()
	g.commandEnded()
	writeTree(t, ws, map[string]string{".git/config": "[core]\n\thooksPath = .githooks\n"})
	g.commandStarted()
	defer g.commandEnded()
	if readOnly, _ := g.mounts(); !slices.Contains(readOnly, filepath.Join(ws, ".githooks")) {
		t.Errorf("read-only: %q, want the hooks folder the config now names", readOnly)
	}
}
