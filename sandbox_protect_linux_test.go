package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestProtectedPathsKeepWhatFileToolsWrote edits AGENTS.md with a file tool while a (background)
// command runs, as the user approved: the sweep leaves it in place. What the tool did not write
// (a file planted in place, one not holding what the tool wrote, a change made to AGENTS.md after
// the tool's) is still moved out, and the file as it was put back.
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
	if data, err := os.ReadFile(claude); err != nil || string(data) != "old\n" || !strings.Contains(note, "CLAUDE.md") {
		t.Errorf("CLAUDE.md changed by no file tool: %q, %v; sweep %q; want it put back as it was", data, err, note)
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

// TestSandboxKeepsTheUsersOwnChanges changes protected files from outside while a sandboxed command runs,
// as the user does in another terminal: an edit in place of a file commands see read-only and a git config
// that only sets a branch's upstream stay. A change that cannot be told from a command's (a file saved
// anew, a config with a program to run, one written by a command once the user's git had replaced it, an
// edit through a second name) is moved out and the file put back as it was. What is there then, the
// user's or put back, is read-only to the commands still running.
func TestSandboxKeepsTheUsersOwnChanges(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	writeTree(t, tr.ws, map[string]string{"CLAUDE.md": "old\n", "AGENTS.md": "agents\n"})
	git := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("git", append([]string{"-C", tr.ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("remote", "add", "origin", "https://example.com/repo.git")
	if err := os.Link(filepath.Join(tr.ws, "AGENTS.md"), filepath.Join(tr.ws, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	sb := tr.sandbox(t, SandboxSettings{})
	p, err := sb.Start(context.Background(), CommandSpec{Dir: tr.ws, Command: "exec sleep 600", Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Wait(time.Second)
	defer p.Signal(syscall.SIGKILL)
	config, claude := filepath.Join(tr.ws, ".git", "config"), filepath.Join(tr.ws, "CLAUDE.md")
	said := "" // what the commands' results told
	run := func(command string) {
		t.Helper()
		out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: command}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		said += out.Text
	}
	sweep := func() string { note := said + sb.guard.sweep() + sb.guard.told(""); said = ""; return note }

	writeFile(t, claude, "the user's rules\n") // in place
	git("config", "branch.main.remote", "origin")
	git("config", "branch.main.merge", "refs/heads/main")
	upstream := readFileString(t, config)
	if note := sweep(); note != "" || readFileString(t, claude) != "the user's rules\n" || !strings.Contains(upstream, "merge = refs/heads/main") {
		t.Fatalf("the user's edit and upstream were not kept: sweep %q, CLAUDE.md %q", note, readFileString(t, claude))
	}

	run("printf '[core]\\n\\tfsmonitor = touch PWNED\\n' >> .git/config") // the file git made is read-only again
	if note := sweep(); !strings.Contains(note, "Read-only file system") || readFileString(t, config) != upstream {
		t.Errorf("a command changed the config the user's git wrote: %q; %s", readFileString(t, config), note)
	}
	for _, change := range []func(){
		func() { git("config", "core.fsmonitor", "touch PWNED") },               // the user's, or a command's in a gap
		func() { git("config", "branch.main.remote", "https://example.com/x") }, // an address of its own
	} {
		change()
		if note := sweep(); !strings.Contains(note, ".git/config") || readFileString(t, config) != upstream {
			t.Errorf("config now %q, want it put back as %q; sweep %q", readFileString(t, config), upstream, note)
		}
		run("git config core.fsmonitor 'touch PWNED'") // what was put back is read-only too
		if note := sweep(); readFileString(t, config) != upstream || strings.Contains(note, "removed") {
			t.Errorf("a command changed the config put back: %q; %s", readFileString(t, config), note)
		}
	}

	saved := filepath.Join(tr.ws, "CLAUDE.md.tmp")
	writeFile(t, saved, "saved anew\n")
	if err := os.Rename(saved, claude); err != nil {
		t.Fatal(err)
	}
	run("printf 'more rules\\n' >> notes.txt; rm notes.txt")
	note := sweep()
	if !strings.Contains(note, "CLAUDE.md") || readFileString(t, claude) != "the user's rules\n" {
		t.Errorf("CLAUDE.md saved anew: %q; sweep %q, want it put back", readFileString(t, claude), note)
	}
	if got := readFileString(t, filepath.Join(tr.ws, "AGENTS.md")); !strings.Contains(note, "AGENTS.md") || got != "agents\n" {
		t.Errorf("AGENTS.md changed through a second name: %q; sweep %q, want it put back", got, note)
	}
}

// TestFollowsBranches checks which changes of a git config count as only setting upstreams.
func TestFollowsBranches(t *testing.T) {
	before := "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/r.git\n[branch \"old\"]\n\tremote = origin\n\tmerge = refs/heads/old\n"
	for _, tc := range []struct {
		name, now string
		want      bool
	}{
		{"push -u", before + "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n", true},
		{"pushRemote and rebase", before + "[branch \"x.y\"]\n\tpushRemote = origin\n\trebase = true\n", true},
		{"a local upstream", before + "[branch \"main\"]\n\tremote = .\n", true},
		{"branch deleted", "[core]\n\tbare = false\n[remote \"origin\"]\n\turl = https://example.com/r.git\n", true},
		{"remote as an address", before + "[branch \"main\"]\n\tremote = https://evil.example/x\n", false},
		{"remote not configured", before + "[branch \"main\"]\n\tremote = evil\n", false},
		{"merge options", before + "[branch \"main\"]\n\tmergeOptions = --no-verify\n", false},
		{"fsmonitor", before + "[core]\n\tfsmonitor = touch PWNED\n", false},
		{"include", before + "[include]\n\tpath = ../x\n", false},
		{"a section without a branch", before + "[branch]\n\tremote = origin\n", false},
		{"remote url changed", strings.Replace(before, "example.com", "evil.example", 1), false},
		{"broken", before + "[branch \"main\"\n", false},
	} {
		if got := followsBranches([]byte(before), []byte(tc.now)); got != tc.want {
			t.Errorf("%s: followsBranches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestSandboxStopsCommandsThatPlantAgain runs a background command that makes .envrc (which a tool
// outside the sandbox would run) again as soon as the patrol removes it, so that it would be there
// between two patrols: the patrol that finds it made again stops the command, and .envrc is gone.
// A path made once and removed stops nothing.
func TestSandboxStopsCommandsThatPlantAgain(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	sb := tr.sandbox(t, SandboxSettings{})
	notices := make(chan string, 10)
	sb.Notice = func(note string) { notices <- note }
	once, err := sb.Start(context.Background(), CommandSpec{Dir: tr.ws, Command: "mkdir .vscode; exec sleep 600", Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer once.Wait(time.Second)
	defer once.Signal(syscall.SIGKILL)
	again, err := sb.Start(context.Background(), CommandSpec{Dir: tr.ws, Command: "while :; do echo 'touch PWNED' > .envrc; sleep 0.05; done", Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Signal(syscall.SIGKILL)
	select {
	case <-again.exited:
	case <-time.After(10 * patrolEvery):
		t.Fatal("the command that makes .envrc again and again still runs")
	}
	again.Wait(time.Second)
	var said []string
	for len(notices) > 0 {
		said = append(said, <-notices)
	}
	if len(said) < 2 || !strings.Contains(said[0], ".vscode") || !strings.Contains(said[0], ".envrc") || strings.Contains(said[0], "stopped") {
		t.Fatalf("the first patrol said %q, want .vscode and .envrc removed and nothing stopped", said)
	}
	mustContain(t, said[len(said)-1], "every sandboxed command running was stopped: .envrc came back")
	if _, err := os.Lstat(filepath.Join(tr.ws, ".envrc")); err == nil {
		t.Errorf(".envrc is there after the command was stopped: %q", said)
	}
	select {
	case <-once.exited:
	case <-time.After(5 * time.Second):
		t.Error("the other sandboxed command still runs after one made .envrc again")
	}
}
