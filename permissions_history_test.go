package main

import (
	"fmt"
	"strings"
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

// TestDenyRulesHoldInAnyLetterCase reads denied files by names in other letter cases, as a case-insensitive
// file system (macOS's, Windows') opens them: the rules deny each, and walks pass over them.
func TestDenyRulesHoldInAnyLetterCase(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{".ENV": "DBPASS=1\n", "Secrets/api.txt": "TOKEN=2\n", "sub/KEY.PEM": "PEM=3\n", "a.txt": "A=4\n"})
	perms, err := newPermissions(PermissionConfig{Workspace: env.Workspace, DisallowedTools: []string{"Read(.env)", "Read(secrets/**)", "Read(**/*.pem)"}})
	if err != nil {
		t.Fatal(err)
	}
	env.Perms = perms
	for _, path := range []string{".ENV", "Secrets/api.txt", "sub/KEY.PEM"} {
		if out := callTool(t, env, readFileTool(), fmt.Sprintf(`{"path":%q}`, path)); !out.IsError || !strings.Contains(out.Text, "denied") {
			t.Errorf("read_file %s = %q, want a denial", path, out.Text)
		}
	}
	checkWalkPassesOver(t, env, grepFilesTool(), `{"pattern":"="}`, "DBPASS", "TOKEN", "PEM")
}
