package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommandCheckHostileLines holds the lines a hostile model ran under a
// narrow prefix rule: patterns the shell expands after the check judged
// them literally, and flags or scripts that run other programs.
func TestCommandCheckHostileLines(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	if err := os.WriteFile(filepath.Join(tr.ws, "CLAUDE.md"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(cmd string) PermissionRequest {
		return PermissionRequest{Tool: "run_command", Access: AccessExecute, Command: cmd}
	}
	allow := func(prefix string) []string { return []string{"run_command(" + prefix + ":*)"} }
	runDecideCases(t, tr, []decideCase{
		{name: "a pattern matching .git", allow: allow("cp"), req: run("cp b.go .gi?/config"), want: verdictAsk, reason: "pattern", strict: true},
		{name: "a pattern matching CLAUDE.md", allow: allow("cp"), req: run("cp b.go CLAUDE.m?"), want: verdictAsk, reason: "pattern", strict: true},
		{name: "a pattern through a link that leaves", allow: allow("cat"), req: run("cat esc*/secret.txt"), want: verdictAsk, strict: true},
		{name: "a pattern matching a hard link", allow: allow("cat"), req: run("cat har[d].txt"), want: verdictAsk, strict: true},
		{name: "a pattern matching a flag", allow: allow("find"), req: run(`find . -exe? touch x \;`), want: verdictAsk, strict: true},
		{name: "awk system()", allow: allow("awk"), req: run(`awk 'BEGIN{system("touch x")}'`), want: verdictAsk},
		{name: "gawk pipes", allow: allow("gawk"), req: run(`gawk 'BEGIN{print | "sh"}'`), want: verdictAsk},
		{name: "git grep -O", allow: allow("git grep"), req: run("git grep -Otouch x"), want: verdictAsk},
		{name: "git grep --open-files-in-pager", allow: allow("git grep"), req: run("git grep --open-files-in-pager=touch x"), want: verdictAsk},
		{name: "git rebase -x glued", allow: allow("git rebase"), req: run("git rebase -x'touch y' HEAD~1"), want: verdictAsk},
		{name: "git rebase -x in a cluster", allow: allow("git rebase"), req: run("git rebase -ix'touch y' HEAD~1"), want: verdictAsk},
		{name: "git difftool --extcmd", allow: allow("git difftool"), req: run("git difftool --extcmd=./evil"), want: verdictAsk},
		{name: "git clone -u", allow: allow("git clone"), req: run("git clone -u 'touch y;git-upload-pack' file:///r c"), want: verdictAsk},
		{name: "git ls-remote -u", allow: allow("git ls-remote"), req: run("git ls-remote -u./evil origin"), want: verdictAsk},
		{name: "go vet -vettool", allow: allow("go vet"), req: run("go vet -vettool=evil ."), want: verdictAsk},
		{name: "go build -ldflags -extld", allow: allow("go build"), req: run("go build -ldflags='-linkmode=external -extld=./evil' ."), want: verdictAsk},
		{name: "go build -compiler", allow: allow("go build"), req: run("go build -compiler=gccgo -gccgoflags=-wrapper,./evil ."), want: verdictAsk},
		{name: "rg --pre", allow: allow("rg"), req: run("rg --pre ./evil x"), want: verdictAsk},

		{name: "printf -v sets CDPATH", allow: []string{"run_command(printf:*)", "run_command(cd:*)", "run_command(cat:*)"},
			req: run(`printf -v CDPATH '\x2e\x2e'; cd outside; cat secret.txt`), want: verdictAsk, reason: "printf -v", strict: true},
		{name: "printf -v glued", allow: allow("printf"), req: run("printf -vPATH %s ."), want: verdictAsk, strict: true},
		{name: "printf -v fills the command table", allow: []string{"run_command(printf:*)", "run_command(ls:*)"},
			req: run("printf -v 'BASH_CMDS[ls]' %s ./evil; ls"), want: verdictAsk, strict: true},
		{name: "read sets a variable", allow: []string{"run_command(read:*)", "run_command(cd:*)"}, req: run("read CDPATH < notes.txt; cd src"), want: verdictAsk, strict: true},
		{name: "mapfile sets a variable", allow: allow("mapfile"), req: run("mapfile -t PATH < notes.txt"), want: verdictAsk, strict: true},
		{name: "printf without -v", allow: allow("printf"), req: run(`printf '%s\n' x`), want: verdictAllow},
		{name: "git switch --discard-changes", allow: allow("git switch"), req: run("git switch --discard-changes main"), want: verdictAsk, reason: "discards", strict: true},
		{name: "git switch -f", allow: allow("git switch"), req: run("git switch -f main"), want: verdictAsk, reason: "discards", strict: true},
		{name: "git branch --delete --force", allow: allow("git branch"), req: run("git branch --delete --force topic"), want: verdictAsk, reason: "discards", strict: true},
		{name: "git branch -d -f", allow: allow("git branch"), req: run("git branch -d -f topic"), want: verdictAsk, reason: "discards", strict: true},
		{name: "git branch -d", allow: allow("git branch"), req: run("git branch -d topic"), want: verdictAllow},
		{name: "rm -rf inside bash -c", allow: []string{"run_command"}, req: run("bash -c 'rm -rf build'"), want: verdictAsk, reason: "rm -r", strict: true},
		{name: "git reset --hard inside sh -c", allow: []string{"run_command"}, req: run(`sh -c "cd src && git reset --hard"`), want: verdictAsk, reason: "git reset", strict: true},
		{name: "find -delete inside a wrapper's script", allow: []string{"run_command"}, req: run("timeout 9 bash -c 'find . -delete'"), want: verdictAsk, reason: "find -delete", strict: true},
		{name: "a harmless bash -c", allow: []string{"run_command"}, req: run("bash -c 'ls -la src'"), want: verdictAllow},
		{name: "a quoted pattern is a plain word", allow: allow("grep"), req: run("grep -rn 'a*b' src"), want: verdictAllow},
		{name: "git push -u", allow: allow("git push"), req: run("git push -u origin main"), want: verdictAllow},
		{name: "git add -u", allow: allow("git add"), req: run("git add -u"), want: verdictAllow},
		{name: "git status -uno", allow: allow("git status"), req: run("git status -uno"), want: verdictAllow},
		{name: "go build without risky flags", allow: allow("go build"), req: run("go build -v ./..."), want: verdictAllow},
		{name: "a glued option value naming .git", allow: allow("cp"), req: run("cp -t.git b.go"), want: verdictAsk, strict: true},
		{name: "a glued option value naming the folder above", allow: allow("cp"), req: run("cp -t.. b.go"), want: verdictAsk},
		{name: "a glued option value naming CLAUDE.md", allow: allow("sort"), req: run("sort -oCLAUDE.md notes.txt"), want: verdictAsk, strict: true},
		{name: "a file URL outside", allow: allow("curl"), req: run("curl file://" + tr.outside + "/secret.txt"), want: verdictAsk},
		{name: "short flags glued together", allow: allow("ls"), req: run("ls -la src"), want: verdictAllow},
		{name: "a protected name in other case (one file on macOS)", mode: ModeBypass,
			req: PermissionRequest{Tool: "write_file", Access: AccessWrite, Paths: []string{".GIT/config"}}, want: verdictAsk, strict: true},
		{name: "CLAUDE.md in other case", mode: ModeAcceptEdits,
			req: PermissionRequest{Tool: "write_file", Access: AccessWrite, Paths: []string{"Claude.md"}}, want: verdictAsk, strict: true},
	})
}

// TestSandboxCargoAndRustupBinaries checks that a sandboxed command can
// write the caches of Cargo and pnpm but not the programs and scripts
// beside them that later run outside the sandbox.
func TestSandboxCargoAndRustupBinaries(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	writeTree(t, tr.home, map[string]string{".cargo/bin/cargo": "BIN\n", ".cargo/env": "ENV\n", ".cargo/registry/cache/x": "C\n",
		".cargo/git/db/x": "G\n", ".rustup/toolchains/x/bin/rustc": "BIN\n", ".local/share/pnpm/pnpm": "BIN\n", ".local/share/pnpm/store/x": "S\n"})
	sb := tr.sandbox(t, SandboxSettings{})
	for rel, ok := range map[string]bool{".cargo/registry/cache/new": true, ".cargo/git/db/new": true, ".local/share/pnpm/store/new": true,
		".cargo/bin/evil": false, ".cargo/env": false, ".cargo/config.toml": false, ".rustup/toolchains/x/bin/rustc": false, ".local/share/pnpm/evil": false} {
		out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: fmt.Sprintf("echo x >> %s/%s", tr.home, rel)}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if out.IsError == ok {
			t.Errorf("writing ~/%s: IsError = %v, want %v; output %q", rel, out.IsError, !ok, out.Text)
		}
	}
}

// TestSandboxTokenFiles checks that sandboxed commands cannot read the
// files where git, GitHub's CLI, Docker, Kubernetes, PyPI and Cargo keep
// tokens, as they cannot read ~/.ssh.
func TestSandboxTokenFiles(t *testing.T) {
	t.Parallel()
	tr := newSandboxTree(t)
	files := []string{".git-credentials", ".config/gh/hosts.yml", ".docker/config.json", ".kube/config", ".pypirc", ".cargo/credentials.toml"}
	for _, f := range files {
		writeTree(t, tr.home, map[string]string{f: "TOKEN\n"})
	}
	sb := tr.sandbox(t, SandboxSettings{})
	for _, f := range files {
		out, err := runForeground(context.Background(), sb, CommandSpec{Dir: tr.ws, Command: "cat " + filepath.Join(tr.home, f)}, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if !out.IsError || strings.Contains(out.Text, "TOKEN") {
			t.Errorf("reading ~/%s in the sandbox: %q, want a refusal", f, out.Text)
		}
	}
}
