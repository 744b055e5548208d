package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// writeSkill creates <root>/<folder>/SKILL.md with the given content and
// returns the folder.
func writeSkill(t *testing.T, root, folder, content string) string {
	t.Helper()
	dir := filepath.Join(root, folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// skillMD builds a SKILL.md with a name and description.
func skillMD(name, desc string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\nInstructions of %s.\n", name, desc, name)
}

// TestReadSkill checks the front matter rules of SKILL.md: the name and
// description limits, allowed-tools, kept keys, and the bad cases, which
// come back as a Problem rather than an error.
func TestReadSkill(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("d", 1025)
	tests := []struct {
		name, folder, content string
		wantName, wantDesc    string
		wantTools             []string
		wantBody              string
		wantProblem           string
		wantWarning           string
	}{
		{name: "plain", folder: "git-log", content: skillMD("git-log", "Read history."), wantName: "git-log", wantDesc: "Read history.", wantBody: "Instructions of git-log.\n"},
		{name: "windows line endings and bom", folder: "crlf", content: "\uFEFF---\r\nname: crlf\r\ndescription: >-\r\n  Two\r\n  lines\r\n---\r\nBody\r\n", wantName: "crlf", wantDesc: "Two lines", wantBody: "Body\n"},
		{name: "tools as string", folder: "t", content: "---\nname: t\ndescription: d\nallowed-tools: read_file, run_command(git log:*) grep\n---\n", wantName: "t", wantDesc: "d", wantTools: []string{"read_file", "run_command(git log:*)", "grep"}},
		{name: "tools as list", folder: "t", content: "---\nname: t\ndescription: d\nallowed-tools:\n  - read_file\n  - grep\n---\n", wantName: "t", wantDesc: "d", wantTools: []string{"read_file", "grep"}},
		{name: "name differs from folder", folder: "other", content: skillMD("mine", "d"), wantName: "mine", wantDesc: "d", wantBody: "Instructions of mine.\n", wantWarning: `the name "mine" does not match the folder name "other"`},
		{name: "duplicate key", folder: "x", content: "---\nname: x\ndescription: d\nname: y\n---\n", wantName: "x", wantDesc: "d", wantWarning: "front matter line 4: name appears twice; the first value is kept"},
		{name: "unreadable key left out", folder: "x", content: "---\nname: x\ndescription: d\nallowed-tools: {a: b}\n---\n", wantName: "x", wantDesc: "d", wantWarning: `front matter line 4: "allowed-tools: {a: b}" is not in the YAML minicode reads (key: value, quoted text, | and > blocks, lists, one level of maps); it is left out`},
		{name: "64 character name", folder: strings.Repeat("a", 64), content: skillMD(strings.Repeat("a", 64), "d"), wantName: strings.Repeat("a", 64), wantDesc: "d", wantBody: "Instructions of " + strings.Repeat("a", 64) + ".\n"},

		{name: "no front matter", folder: "x", content: "# Just markdown\n", wantProblem: "no front matter"},
		{name: "unclosed", folder: "x", content: "---\nname: x\n", wantProblem: "not closed"},
		{name: "missing description", folder: "x", content: "---\nname: x\n---\n", wantProblem: "has no description"},
		{name: "blank description", folder: "x", content: "---\nname: x\ndescription: \"  \"\n---\n", wantProblem: "has no description"},

		// What Claude Code lists loads, with a warning where the format's rules are not kept.
		{name: "missing name", folder: "x", content: "---\ndescription: d\n---\n", wantName: "x", wantDesc: "d"},
		{name: "name is a list", folder: "x", content: "---\nname: [a]\ndescription: d\n---\n", wantName: "x", wantDesc: "d"},
		{name: "uppercase name", folder: "Pdf", content: skillMD("Pdf", "d"), wantName: "Pdf", wantDesc: "d", wantWarning: `the name "Pdf" may use only lowercase letters, digits and hyphens`},
		{name: "underscore name", folder: "a_b", content: skillMD("a_b", "d"), wantName: "a_b", wantDesc: "d", wantWarning: `the name "a_b" may use only lowercase letters, digits and hyphens`},
		{name: "double hyphen", folder: "a--b", content: skillMD("a--b", "d"), wantName: "a--b", wantDesc: "d", wantWarning: `the name "a--b" must not start or end with a hyphen or contain two in a row`},
		{name: "65 character name", folder: strings.Repeat("a", 65), content: skillMD(strings.Repeat("a", 65), "d"), wantName: strings.Repeat("a", 65), wantDesc: "d", wantWarning: `the name "` + strings.Repeat("a", 65) + `" is 65 characters long; the limit is 64`},
		{name: "long description", folder: "x", content: skillMD("x", long), wantName: "x", wantDesc: long, wantWarning: "the description is 1025 characters long; the limit is 1024"},
		{name: "description from the body", folder: "x", content: "---\nname: x\n---\n# Tidy imports\nSteps.\n", wantName: "x", wantDesc: "Tidy imports", wantWarning: "the front matter has no description: add one saying what the skill does and when to use it"},
		{name: "when_to_use joins the description", folder: "x", content: "---\nname: x\ndescription: Tidy imports.\nwhen_to_use: After editing Go files.\n---\n", wantName: "x", wantDesc: "Tidy imports. When to use: After editing Go files."},
		{name: "anchored field skipped, skill kept", folder: "x", content: "---\nname: x\ndescription: d\nwhen_to_use: &w later\n---\n", wantName: "x", wantDesc: "d", wantWarning: `front matter line 4: "when_to_use: &w later" is not in the YAML minicode reads (key: value, quoted text, | and > blocks, lists, one level of maps); it is left out`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := writeSkill(t, t.TempDir(), tt.folder, tt.content)
			s := readSkill(dir, "test")
			if tt.wantProblem != "" {
				if !strings.Contains(s.Problem, tt.wantProblem) {
					t.Fatalf("Problem = %q, want one containing %q", s.Problem, tt.wantProblem)
				}
				return
			}
			if s.Problem != "" {
				t.Fatalf("Problem = %q, want none", s.Problem)
			}
			if s.Name != tt.wantName || s.Description != tt.wantDesc || !reflect.DeepEqual(s.AllowedTools, tt.wantTools) {
				t.Errorf("got name %q desc %q tools %q; want %q %q %q", s.Name, s.Description, s.AllowedTools, tt.wantName, tt.wantDesc, tt.wantTools)
			}
			if tt.wantBody != "" && s.Body != tt.wantBody {
				t.Errorf("Body = %q, want %q", s.Body, tt.wantBody)
			}
			if got := strings.Join(s.Warnings, "; "); got != tt.wantWarning {
				t.Errorf("Warnings = %q, want %q", got, tt.wantWarning)
			}
		})
	}
}

// TestReadSkillNotAFile lists a SKILL.md that is a folder or a named pipe
// as invalid, without waiting on the pipe for a writer.
func TestReadSkillNotAFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "folder", "SKILL.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "pipe"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe", "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan []*Skill, 1)
	go func() { done <- new(SkillSet).scanRoot(root, "") }()
	var skills []*Skill
	select {
	case skills = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("reading the skills did not return: a named pipe was opened")
	}
	if len(skills) != 2 {
		t.Fatalf("got %d skills, want 2", len(skills))
	}
	for _, s := range skills {
		if want := "reading SKILL.md: " + s.Path + " is not a regular file"; s.Problem != want {
			t.Errorf("%s: Problem = %q, want %q", s.Path, s.Problem, want)
		}
	}
}

// TestReadSkillFixture reads the full-featured fixture: a folded
// description, allowed-tools, and keys beyond the required ones.
func TestReadSkillFixture(t *testing.T) {
	t.Parallel()
	s := readSkill(filepath.Join("testdata", "skills", "pdf-forms"), "test")
	if s.Problem != "" {
		t.Fatalf("Problem = %q", s.Problem)
	}
	wantDesc := `Fill in PDF forms from data the user gives. Use when the user mentions a PDF form, fields or "fillable" documents.`
	if s.Description != wantDesc {
		t.Errorf("Description = %q, want %q", s.Description, wantDesc)
	}
	if want := []string{"read_file", "run_command(python3 scripts/fill.py:*)"}; !reflect.DeepEqual(s.AllowedTools, want) {
		t.Errorf("AllowedTools = %q, want %q", s.AllowedTools, want)
	}
	wantMeta := map[string]any{"version": "1.2", "author": "docs-team"}
	if !reflect.DeepEqual(s.Meta["metadata"], wantMeta) || s.Meta["license"] != "MIT" {
		t.Errorf("Meta = %q, want metadata %q and license MIT", fmt.Sprint(s.Meta), fmt.Sprint(wantMeta))
	}
	if !strings.HasPrefix(s.Body, "# Filling PDF forms\n") {
		t.Errorf("Body = %q, want it to start with the heading", s.Body)
	}
}

// skillTree lays out a repository with skills at every level, plus homes.
type skillTree struct {
	repo, workspace, home, userHome string
}

// newSkillTree builds the tree used by the discovery tests.
func newSkillTree(t *testing.T) skillTree {
	t.Helper()
	base := t.TempDir()
	tr := skillTree{
		repo:      filepath.Join(base, "repo"),
		workspace: filepath.Join(base, "repo", "sub"),
		home:      filepath.Join(base, "minicode-home"),
		userHome:  filepath.Join(base, "user"),
	}
	if err := os.MkdirAll(filepath.Join(tr.repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeSkill(t, filepath.Join(base, ".minicode", "skills"), "above-repo", skillMD("above-repo", "Outside the repository."))
	writeSkill(t, filepath.Join(tr.workspace, ".minicode", "skills"), "alpha", skillMD("alpha", "Workspace alpha."))
	writeSkill(t, filepath.Join(tr.workspace, ".claude", "skills"), "alpha", skillMD("alpha", "Workspace .claude alpha."))
	writeSkill(t, filepath.Join(tr.repo, ".claude", "skills"), "beta", skillMD("beta", "Repository beta."))
	writeSkill(t, filepath.Join(tr.home, "skills"), "alpha", skillMD("alpha", "Home alpha."))
	writeSkill(t, filepath.Join(tr.home, "skills"), "delta", skillMD("delta", "Home delta."))
	writeSkill(t, filepath.Join(tr.home, "skills"), "broken", "---\nname: broken\n")
	writeSkill(t, filepath.Join(tr.userHome, ".claude", "skills"), "delta", skillMD("delta", "User delta."))
	writeSkill(t, filepath.Join(tr.userHome, ".claude", "skills"), "epsilon", skillMD("epsilon", "User epsilon."))
	if err := os.MkdirAll(filepath.Join(tr.home, "skills", "not-a-skill"), 0o755); err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestDiscoverSkillsPrecedence checks the search order (workspace, its
// parents up to the repository root, $MINICODE_HOME, ~/.claude), that the
// first skill of a name wins, and that /skills says what it shadows.
func TestDiscoverSkillsPrecedence(t *testing.T) {
	t.Parallel()
	tr := newSkillTree(t)
	set := discoverSkills(tr.home, tr.userHome, tr.workspace, nil)
	if got, want := set.Names(), []string{"alpha", "beta", "delta", "epsilon"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	wantDirs := map[string]string{
		"alpha":   filepath.Join(tr.workspace, ".minicode", "skills", "alpha"),
		"beta":    filepath.Join(tr.repo, ".claude", "skills", "beta"),
		"delta":   filepath.Join(tr.home, "skills", "delta"),
		"epsilon": filepath.Join(tr.userHome, ".claude", "skills", "epsilon"),
	}
	for name, dir := range wantDirs {
		if got := set.find(name).Dir; got != dir {
			t.Errorf("%s comes from %q, want %q", name, got, dir)
		}
	}
	var shadowed []string
	for _, s := range set.Shadowed["alpha"] {
		shadowed = append(shadowed, s.Dir)
	}
	wantShadowed := []string{filepath.Join(tr.workspace, ".claude", "skills", "alpha"), filepath.Join(tr.home, "skills", "alpha")}
	if !reflect.DeepEqual(shadowed, wantShadowed) {
		t.Errorf("alpha shadows %q, want %q", shadowed, wantShadowed)
	}
	if len(set.Invalid) != 1 || !strings.Contains(set.Invalid[0].Problem, "not closed") {
		t.Fatalf("Invalid = %v, want the broken skill", set.Invalid)
	}
	desc := set.Describe()
	for _, want := range []string{
		"alpha (project) " + wantDirs["alpha"],
		"shadows " + wantShadowed[1] + " (user)",
		"shadows " + filepath.Join(tr.userHome, ".claude", "skills", "delta") + " (user)",
		filepath.Join(tr.home, "skills", "broken", "SKILL.md") + ": the front matter is not closed",
	} {
		if !strings.Contains(desc, want) {
			t.Errorf("Describe() = %q, want it to contain %q", desc, want)
		}
	}
}

// TestDiscoverSkillsOutsideRepository checks that without a repository
// only the workspace's own skill folders are searched, not its parents.
func TestDiscoverSkillsOutsideRepository(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	writeSkill(t, filepath.Join(base, ".minicode", "skills"), "parent", skillMD("parent", "d"))
	writeSkill(t, filepath.Join(ws, ".claude", "skills"), "own", skillMD("own", "d"))
	set := discoverSkills("", "", ws, nil)
	if got, want := set.Names(), []string{"own"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	empty := discoverSkills("", "", t.TempDir(), nil)
	if got := empty.Describe(); !strings.HasPrefix(got, "No skills found.") || empty.PromptSection() != "" {
		t.Errorf("empty set: Describe() = %q, PromptSection() = %q", got, empty.PromptSection())
	}
}

// TestSkillPromptSection checks the prompt list: names and one-line
// descriptions, bounded in size, with a count of those left out.
func TestSkillPromptSection(t *testing.T) {
	t.Parallel()
	set := &SkillSet{}
	for i := range 100 {
		set.Skills = append(set.Skills, &Skill{Name: fmt.Sprintf("skill-%d", i), Description: "Line one\n  line two " + strings.Repeat("x", 200), Body: "SECRET BODY"})
	}
	got := set.PromptSection()
	if len(got) > maxSkillPromptBytes {
		t.Errorf("PromptSection is %d bytes, want at most %d", len(got), maxSkillPromptBytes)
	}
	listed := strings.Count(got, "\n- skill-")
	want := fmt.Sprintf("(%d more skills were left out", 100-listed)
	if listed == 0 || listed == 100 || !strings.Contains(got, want) {
		t.Errorf("listed %d skills; PromptSection = %q, want it to contain %q", listed, got, want)
	}
	if !strings.Contains(got, "- skill-0: Line one line two xxx") || strings.Contains(got, "SECRET BODY") {
		t.Errorf("PromptSection = %q, want one-line descriptions and no bodies", got[:200])
	}
	small := &SkillSet{Skills: set.Skills[:2]}
	if got := small.PromptSection(); strings.Contains(got, "left out") || strings.Count(got, "\n- skill-") != 2 {
		t.Errorf("PromptSection of two skills = %q", got)
	}
}

// TestLoadSkillTool runs load_skill through the registry: the body, the
// folder and its files for a known skill; clear errors otherwise.
func TestLoadSkillTool(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := writeSkill(t, filepath.Join(root, ".minicode", "skills"), "deploy", skillMD("deploy", "Deploy the app."))
	for _, f := range []string{"scripts/deploy.sh", "references/hosts.md", ".secret/key"} {
		path := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSkill(t, filepath.Join(root, ".minicode", "skills"), "broken", "---\nname: broken\ndescription: [unclosed\n---\n")
	shared := writeSkill(t, filepath.Join(root, "shared"), "linked", skillMD("linked", "A skill linked in from elsewhere."))
	writeFiles(t, shared, map[string]string{"scripts/run.sh": "x"})
	if err := os.Symlink(shared, filepath.Join(root, ".minicode", "skills", "linked")); err != nil {
		t.Fatal(err)
	}
	set := discoverSkills("", "", root, nil)
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skillMD("deploy", "Deploy the app.")+"Edited after discovery.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := newRegistry(set.Tool())
	env := &ToolEnv{Workspace: root}
	tests := []struct {
		name, input string
		wantErr     bool
		want        []string
		notWant     []string
	}{
		{name: "found", input: `{"name":"deploy"}`, want: []string{"Skill: deploy\n", "Folder: " + dir + "\n", "  SKILL.md\n", "  references/hosts.md\n", "  scripts/deploy.sh\n", "Instructions of deploy.", "Edited after discovery."}, notWant: []string{".secret", "description:"}},
		{name: "symlinked folder", input: `{"name":"linked"}`, want: []string{"Folder: " + filepath.Join(root, ".minicode", "skills", "linked") + "\n", "  SKILL.md\n", "  scripts/run.sh\n", "Instructions of linked."}, notWant: []string{"  .\n"}},
		{name: "unknown", input: `{"name":"nope"}`, wantErr: true, want: []string{`no skill named "nope"; the skills are: deploy, linked`}},
		{name: "invalid", input: `{"name":"broken"}`, wantErr: true, want: []string{`skill "broken" cannot be loaded: the front matter has no description`}},
		{name: "missing name", input: `{}`, wantErr: true, want: []string{`field "name" is required`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := reg.Execute(context.Background(), env, Block{Type: BlockToolUse, ID: "1", Name: "load_skill", Input: json.RawMessage(tt.input)})
			if out.IsError != tt.wantErr {
				t.Fatalf("IsError = %v, want %v (text %q)", out.IsError, tt.wantErr, out.Text)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.Text, w) {
					t.Errorf("result %q does not contain %q", out.Text, w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out.Text, w) {
					t.Errorf("result %q contains %q", out.Text, w)
				}
			}
		})
	}
	if tool, _ := reg.Get("load_skill"); !tool.ReadOnly {
		t.Error("load_skill is not read-only")
	}
}

// TestSkillsPassOverWhatRulesHide runs a session whose project has skills the deny rules reach: a skill
// folder linked into the denied secrets/, a SKILL.md that is a link to the denied .env and one that is a
// hard link to it, and an allowed skill holding a denied key.pem. The system prompt lists only the allowed
// skill, load_skill loads only it, and nothing of the denied files reaches the model, not even a name.
func TestSkillsPassOverWhatRulesHide(t *testing.T) {
	t.Parallel()
	ws := realTempDir(t)
	writeFiles(t, ws, map[string]string{".env": "---\ndescription: ENV-DESCRIPTION\n---\nENV-BODY\n",
		"secrets/vault/SKILL.md": skillMD("vault", "VAULT-DESCRIPTION"), "secrets/vault/creds.txt": "x",
		".claude/skills/deploy/SKILL.md": skillMD("deploy", "Deploy the app."), ".claude/skills/deploy/run.sh": "x", ".claude/skills/deploy/key.pem": "x",
		".claude/skills/envlink/": "", ".claude/skills/hardlink/": "",
		".claude/settings.json": `{"permissions": {"deny": ["Read(./.env)", "Read(secrets/**)", "Read(**/*.pem)"]}}`})
	skills := filepath.Join(ws, ".claude", "skills")
	for _, err := range []error{os.Symlink("../../secrets/vault", filepath.Join(skills, "vault")),
		os.Symlink("../../../.env", filepath.Join(skills, "envlink", "SKILL.md")), os.Link(filepath.Join(ws, ".env"), filepath.Join(skills, "hardlink", "SKILL.md"))} {
		if err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"vault", "envlink", "hardlink", "deploy"}
	srv, requests := anthropicServer(t, func(_ *http.Request, req modelRequest) string {
		if len(req.Messages) > 1 {
			return anthropicTextStream("done", StopEndTurn)
		}
		var calls []Block
		for _, name := range names {
			calls = append(calls, Block{ID: "toolu_" + name, Name: "load_skill", Input: json.RawMessage(`{"name":"` + name + `"}`)})
		}
		return anthropicToolStream(calls...)
	})
	if r := runMinicode(t, anthropicEnv(srv.URL), "", "-p", "deploy", "--workspace", ws); r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	system, results := systemAndResults(t, requests())
	for _, name := range names[:3] {
		if strings.Contains(string(system), "- "+name+":") || !strings.Contains(results[name], "cannot be loaded") {
			t.Errorf("skill %s: listed in the system prompt or loaded; load_skill said %q", name, results[name])
		}
	}
	for _, leak := range []string{"ENV-DESCRIPTION", "ENV-BODY", "VAULT-DESCRIPTION", "creds.txt", "key.pem"} {
		if inResults := strings.Contains(fmt.Sprint(results), leak); inResults || strings.Contains(string(system), leak) {
			t.Errorf("the model saw %q (in load_skill's results: %v, else in the system prompt)", leak, inResults)
		}
	}
	if !strings.Contains(string(system), "- deploy: Deploy the app.") || !strings.Contains(results["deploy"], "  run.sh\n") {
		t.Errorf("deploy: system prompt %s, load_skill said %q; want it listed and loaded with run.sh", system, results["deploy"])
	}
}

// TestProjectSkillsStayInTheProject runs a trusted project whose skills folder holds two links: notes, to a
// skill folder of the user's outside the project, and lint, to a folder of the project's own. notes is passed
// over, so the model sees nothing of it and may not read the folder it links to without asking; lint is used.
func TestProjectSkillsStayInTheProject(t *testing.T) {
	t.Parallel()
	outside, ws := realTempDir(t), realTempDir(t)
	writeFiles(t, outside, map[string]string{"notes/SKILL.md": skillMD("notes", "NOTES-DESCRIPTION"), "notes/private.txt": "USER-PRIVATE\n"})
	writeFiles(t, ws, map[string]string{"tools/lint/SKILL.md": skillMD("lint", "Lint the code."), "tools/lint/rules.txt": "x", ".claude/skills/": ""})
	for link, target := range map[string]string{"notes": filepath.Join(outside, "notes"), "lint": "../../tools/lint"} {
		if err := os.Symlink(target, filepath.Join(ws, ".claude", "skills", link)); err != nil {
			t.Fatal(err)
		}
	}
	srv, requests := anthropicServer(t, func(_ *http.Request, req modelRequest) string {
		if len(req.Messages) > 1 {
			return anthropicTextStream("done", StopEndTurn)
		}
		return anthropicToolStream(Block{ID: "toolu_notes", Name: "load_skill", Input: json.RawMessage(`{"name":"notes"}`)},
			Block{ID: "toolu_lint", Name: "load_skill", Input: json.RawMessage(`{"name":"lint"}`)},
			Block{ID: "toolu_read", Name: "read_file", Input: json.RawMessage(`{"path":"` + filepath.Join(outside, "notes", "private.txt") + `"}`)})
	})
	if r := runMinicode(t, append(anthropicEnv(srv.URL), "MINICODE_HOME="+trustingHome(t, ws)), "", "-p", "lint", "--workspace", ws); r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	system, results := systemAndResults(t, requests())
	if strings.Contains(string(system)+fmt.Sprint(results), "NOTES-DESCRIPTION") || strings.Contains(results["read"], "USER-PRIVATE") ||
		!strings.Contains(results["notes"], "links outside the project") {
		t.Errorf("the model saw the linked folder: system prompt %s, results %q", system, results)
	}
	if !strings.Contains(string(system), "- lint: Lint the code.") || !strings.Contains(results["lint"], "  rules.txt\n") {
		t.Errorf("lint: system prompt %s, load_skill said %q; want it listed and loaded with rules.txt", system, results["lint"])
	}
}

// systemAndResults returns, of a run that made two model requests, the first one's system prompt as JSON and
// the second one's tool results by call id (less its "toolu_").
func systemAndResults(t *testing.T, seen []modelRequest) ([]byte, map[string]string) {
	t.Helper()
	if len(seen) != 2 {
		t.Fatalf("got %d model requests, want 2", len(seen))
	}
	system, _ := json.Marshal(seen[0].System)
	results := map[string]string{}
	for _, b := range toolResultsOf(seen[1]) {
		results[strings.TrimPrefix(b.ToolUseID, "toolu_")] = b.Content
	}
	return system, results
}
