package main

import (
	"strings"
	"testing"
)

// TestGitHistoryOfDeniedFilesAsks judges git commands that print what the repository holds of a file
// while Read rules deny files in the workspace: the sandbox (here, as it runs them) hides the files, not
// their history, so those that may print their contents or names ask in every mode (with -p, denied),
// whatever allows commands; those that print no file run. git log prints only commit messages unless an
// option adds diffs or file names; git show always prints the commit's diff.
func TestGitHistoryOfDeniedFilesAsks(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	asks := []string{"git show HEAD:.env", "git --no-pager log -p", "git grep -e KEY HEAD", "git diff --cached", "git status -v",
		"env git cat-file -p HEAD:.env", "git -P show", "git show --stat", "git show -s HEAD:.env", "git log --patch", "git log -u",
		"git log -L 1,2:.env", "git log --stat", "git log --numstat", "git log --name-only", "git log --name-status", "git log --raw",
		"git log --oneline -p", "git log -S KEY", "git log -G KEY", "git log --follow -p -- src/a.go", "git log -pn1", "git log --format=%H --stat",
		"git ls-files", "git ls-files secrets", "git ls-tree -r HEAD", "git grep -l KEY", "git rev-list --objects --all",
		"git reflog -p", "git reflog show --stat HEAD"}
	runs := []string{"git status", "git rev-parse HEAD", "git log", "git log --oneline", "git --no-pager log --oneline -5",
		"git log -n 3 --graph --decorate --all", "git log --format=%H%n%s --author=ann --since=2.weeks", "git log -n5 -- src",
		"git log --grep=fix -i --no-merges --first-parent", "git log --no-patch --pretty=oneline main..HEAD", "git reflog", "git reflog show -n 5 main"}
	for _, mode := range []PermissionMode{ModeDefault, ModeBypass} {
		p, err := newPermissions(PermissionConfig{Workspace: tr.ws, Mode: mode, AllowedTools: []string{"Bash(git:*)", "Bash(env:*)"},
			DisallowedTools: []string{"Read(.env)"}, HidesDenied: func() bool { return true }})
		if err != nil {
			t.Fatal(err)
		}
		p.autoAllow = true
		for _, line := range asks {
			if d := p.decide(runReq(line)); d.Verdict != verdictAsk || !d.Strict {
				t.Errorf("%s mode: %q = %s (%s), want a strict ask", mode, line, verdictNames[d.Verdict], d.Reason)
			}
		}
		for _, line := range runs {
			if d := p.decide(runReq(line)); d.Verdict != verdictAllow {
				t.Errorf("%s mode: %q = %s (%s), want allow", mode, line, verdictNames[d.Verdict], d.Reason)
			}
		}
	}
	p, err := newPermissions(PermissionConfig{Workspace: tr.ws, DisallowedTools: []string{"Read(~/.ssh/**)"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := p.decide(runReq("git log -p")); d.Verdict != verdictAllow {
		t.Errorf("git log -p with a rule for a folder outside the workspace = %s (%s), want allow", verdictNames[d.Verdict], d.Reason)
	}
}

// TestFoldersHoldingDeniedFilesAskOutsideTheSandbox judges read-only commands that read a folder where
// Read deny rules match files: in the sandbox, which hides those files from commands, they run as any other;
// without it, or run outside it, they ask in every mode, as they could read them. A file the rule names
// is denied either way.
func TestFoldersHoldingDeniedFilesAskOutsideTheSandbox(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	lines := []string{"grep -r KEY .", "rg KEY .", "grep -rl KEY src", "find . -name '*.txt'", "ls -R " + tr.ws,
		"rg KEY", "rg -g '*.env' -i KEY", "grep -rn KEY", "grep -r -e KEY", "find -name '*.env'", "cd src && rg KEY", "ls -R", "rg --files", "du -a"}
	for _, rule := range []string{"Read(.env)", "Read(**/.env)"} {
		for _, sandbox := range []bool{true, false} {
			for _, mode := range []PermissionMode{ModeDefault, ModeBypass} {
				p, err := newPermissions(PermissionConfig{Workspace: tr.ws, Mode: mode, DisallowedTools: []string{rule},
					HidesDenied: func() bool { return sandbox }})
				if err != nil {
					t.Fatal(err)
				}
				for _, line := range lines {
					for _, req := range []PermissionRequest{runReq(line), {Tool: "run_command", Access: AccessExecute, Command: line, Unsandboxed: "the user's tools"}} {
						want, d := verdictAllow, p.decide(req)
						if !sandbox || req.Unsandboxed != "" {
							want = verdictAsk
						}
						if d.Verdict != want || want == verdictAsk && !strings.Contains(d.Reason, "denies, which the command may read") {
							t.Errorf("%s, sandbox %v, %s mode, unsandboxed %v: %q = %s (%s), want %s",
								rule, sandbox, mode, req.Unsandboxed != "", line, verdictNames[d.Verdict], d.Reason, verdictNames[want])
						}
					}
				}
				if d := p.decide(runReq("cd /etc && rg KEY")); mode == ModeDefault && d.Verdict != verdictAsk {
					t.Errorf("%s: rg in a folder outside the workspace = %s (%s), want ask", rule, verdictNames[d.Verdict], d.Reason)
				}
				if d := p.decide(runReq("grep KEY .env")); d.Verdict != verdictDeny {
					t.Errorf("%s, sandbox %v: grep KEY .env = %s (%s), want deny", rule, sandbox, verdictNames[d.Verdict], d.Reason)
				}
			}
		}
	}
}
