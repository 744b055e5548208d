package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// claudeMemoryProject writes memory files as Claude Code users keep them
// and returns the user's home and the workspace.
func claudeMemoryProject(t *testing.T) (userHome, ws string) {
	base := realTempDir(t)
	writeFiles(t, base, map[string]string{
		"home/.claude/CLAUDE.md":    "user claude @~/extra.md",
		"home/extra.md":             "extra from home",
		"home/shared.md":            "shared by absolute path",
		"repo/.git/":                "",
		"repo/.claude/CLAUDE.md":    "dot claude @" + filepath.Join(base, "home", "shared.md"),
		"repo/CLAUDE.md":            "root claude; see `@secret.md` and\n```\n@fenced.md\n```\n",
		"repo/secret.md":            "must not be imported",
		"repo/fenced.md":            "must not be imported either",
		"repo/.claude/rules/all.md": "rule for everything",
		"repo/.claude/rules/go.md":  "---\npaths:\n  - \"**/*.go\"\n---\nrule for Go files",
		"repo/sub/deeper/CLAUDE.md": "deeper instructions",
		"repo/sub/deeper/notes.txt": "notes",
		"repo/sub/deeper/other.txt": "other",
		"repo/cmd/main.go":          "package main",
		"repo/cmd/README.md":        "readme",
	})
	return filepath.Join(base, "home"), filepath.Join(base, "repo")
}

func TestClaudeMemoryFiles(t *testing.T) {
	t.Parallel()
	userHome, ws := claudeMemoryProject(t)
	for _, trusted := range []bool{true, false} {
		m := loadMemory("", userHome, ws, trusted, nil)
		prompt := m.PromptSection()
		for _, want := range []string{"user claude", "extra from home", "dot claude", "root claude", "rule for everything"} {
			if !strings.Contains(prompt, want) {
				t.Errorf("trusted %v: prompt lacks %q:\n%s", trusted, want, prompt)
			}
		}
		for _, never := range []string{"must not be imported", "rule for Go files", "deeper instructions"} {
			if strings.Contains(prompt, never) {
				t.Errorf("trusted %v: prompt holds %q", trusted, never)
			}
		}
		if got := strings.Contains(prompt, "shared by absolute path"); got != trusted {
			t.Errorf("trusted %v: the project's absolute import followed = %v", trusted, got)
		}
		if desc := m.Describe(); !strings.Contains(desc, filepath.Join(userHome, "extra.md")) {
			t.Errorf("/memory does not show the @~/ import: %q", desc)
		}
	}
}

func TestMemoryForReadAddsFolderAndRuleMemoryOnce(t *testing.T) {
	t.Parallel()
	userHome, ws := claudeMemoryProject(t)
	m := loadMemory("", userHome, ws, false, nil)
	steps := []struct{ file, want string }{
		{"cmd/README.md", ""},
		{"sub/deeper/notes.txt", "deeper instructions"},
		{"sub/deeper/other.txt", ""},
		{"cmd/main.go", "rule for Go files"},
		{"cmd/main.go", ""},
		{"../outside.go", ""},
	}
	for _, s := range steps {
		got := m.ForRead(filepath.Join(ws, s.file))
		if s.want == "" && got != "" || s.want != "" && !strings.Contains(got, s.want) {
			t.Errorf("ForRead(%s) = %q, want %q", s.file, got, s.want)
		}
	}
}

func TestReadFileBringsTheFolderMemory(t *testing.T) {
	t.Parallel()
	_, ws := claudeMemoryProject(t)
	srv, requests := fakeClaudeAPI(t, apiStep{tool: "read_file", args: `{"path":"sub/deeper/notes.txt"}`}, apiStep{text: "done"})
	r := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "", "-p", "read the notes", "--workspace", ws)
	reqs := requests()
	if r.code != 0 || len(reqs) != 2 {
		t.Fatalf("exit %d, %d requests; stderr %q", r.code, len(reqs), r.stderr)
	}
	if strings.Contains(reqs[0].body, "deeper instructions") || !strings.Contains(reqs[1].body, "deeper instructions") {
		t.Errorf("the folder's CLAUDE.md should reach the model with the read, not before:\nfirst %q\nsecond %q", reqs[0].body, reqs[1].body)
	}
}

func TestSkillsAddKeepsAClaudeCodeSkillWithAWarning(t *testing.T) {
	t.Parallel()
	h := newCLIHomes(t)
	out, err := h.run("add", "testdata/skills/bad-name")
	if err != nil || !strings.Contains(out, `warning: the name "Bad_Name" may use only lowercase letters`) {
		t.Errorf("skills add: %v, output %q; want it added with a warning", err, out)
	}
}
