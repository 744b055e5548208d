package main

import (
	"testing"
)

// TestGitHistoryOfDeniedFilesAsks judges git commands that print what the repository holds of a file
// while Read rules deny files in the workspace: the sandbox hides the files, not their history, so
// they ask in every mode (with -p, denied), whatever allows commands; those that print no content run.
func TestGitHistoryOfDeniedFilesAsks(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	lines := map[string]verdict{"git show HEAD:.env": verdictAsk, "git --no-pager log -p": verdictAsk, "git grep -e KEY HEAD": verdictAsk,
		"git diff --cached": verdictAsk, "git status -v": verdictAsk, "env git cat-file -p HEAD:.env": verdictAsk, "git -P show": verdictAsk,
		"git status": verdictAllow, "git ls-files": verdictAllow, "git rev-parse HEAD": verdictAllow}
	for _, mode := range []PermissionMode{ModeDefault, ModeBypass} {
		p, err := newPermissions(PermissionConfig{Workspace: tr.ws, Mode: mode, AllowedTools: []string{"Bash(git:*)", "Bash(env:*)"},
			DisallowedTools: []string{"Read(.env)"}})
		if err != nil {
			t.Fatal(err)
		}
		p.autoAllow = true
		for line, want := range lines {
			if d := p.decide(runReq(line)); d.Verdict != want || want == verdictAsk && !d.Strict {
				t.Errorf("%s mode: %q = %s (%s), want %s", mode, line, verdictNames[d.Verdict], d.Reason, verdictNames[want])
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
