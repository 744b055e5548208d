package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cliHomes are the folders one CLI test works in.
type cliHomes struct {
	home, userHome, workspace string
}

// run calls `minicode skills args...` and returns stdout and the error.
func (h cliHomes) run(args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	err := runSkillsCommand(args, &stdout, &stderr, h.home, h.userHome, h.workspace)
	return stdout.String(), err
}

// newCLIHomes makes empty homes and a workspace in a temporary folder.
func newCLIHomes(t *testing.T) cliHomes {
	base := t.TempDir()
	h := cliHomes{home: filepath.Join(base, "mhome"), userHome: filepath.Join(base, "user"), workspace: filepath.Join(base, "ws")}
	if err := os.MkdirAll(h.workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSkillsCLIAddListRemove walks a skill through add, list and remove,
// in the user's home and in the project.
func TestSkillsCLIAddListRemove(t *testing.T) {
	t.Parallel()
	fixture := filepath.Join("testdata", "skills", "pdf-forms")
	tests := []struct {
		name  string
		flags []string
		dest  func(h cliHomes) string
	}{
		{name: "user", dest: func(h cliHomes) string { return filepath.Join(h.home, "skills", "pdf-forms") }},
		{name: "project", flags: []string{"--project"}, dest: func(h cliHomes) string {
			return filepath.Join(h.workspace, ".minicode", "skills", "pdf-forms")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newCLIHomes(t)
			dest := tt.dest(h)
			out, err := h.run(append([]string{"add", fixture}, tt.flags...)...)
			if err != nil {
				t.Fatalf("add: %v", err)
			}
			if want := `Added skill "pdf-forms" to ` + dest; !strings.Contains(out, want) {
				t.Errorf("add printed %q, want %q", out, want)
			}
			info, err := os.Stat(filepath.Join(dest, "scripts", "fill.py"))
			if err != nil || info.Mode()&0o100 == 0 {
				t.Fatalf("copied script: %v, mode %v; want an executable copy", err, info)
			}
			if _, err := os.Stat(filepath.Join(dest, "references", "fields.md")); err != nil {
				t.Errorf("references not copied: %v", err)
			}
			if leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".adding-*")); len(leftovers) > 0 {
				t.Errorf("staging folders left behind: %q", leftovers)
			}
			out, err = h.run("list")
			if err != nil || !strings.Contains(out, "pdf-forms") || !strings.Contains(out, dest) {
				t.Errorf("list = %q, %v; want it to show %q", out, err, dest)
			}
			if _, err := h.run(append([]string{"add", fixture}, tt.flags...)...); err == nil || !strings.Contains(err.Error(), "already installed") {
				t.Errorf("second add error = %v, want \"already installed\"", err)
			}
			out, err = h.run(append([]string{"remove", "pdf-forms"}, tt.flags...)...)
			if err != nil || !strings.Contains(out, `Removed skill "pdf-forms"`) {
				t.Fatalf("remove = %q, %v", out, err)
			}
			if _, err := os.Stat(dest); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("after remove, stat %s = %v, want not found", dest, err)
			}
			if out, _ := h.run("list"); !strings.HasPrefix(out, "No skills found.") {
				t.Errorf("list after remove = %q", out)
			}
		})
	}
}

// TestSkillsCLIRemoveByFrontMatterName removes a skill whose folder name
// differs from the name in its SKILL.md.
func TestSkillsCLIRemoveByFrontMatterName(t *testing.T) {
	t.Parallel()
	h := newCLIHomes(t)
	dir := writeSkill(t, filepath.Join(h.home, "skills"), "folder", skillMD("named", "d"))
	if _, err := h.run("remove", "named", "--force"); err != nil {
		t.Fatalf("remove: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat %s = %v, want not found", dir, err)
	}
}

// TestSkillsCLIRemoveStaysInside checks that remove deletes nothing
// outside the skills folder: a symlinked skill loses its link, not the
// folder it points to, and names that are paths leading out are refused.
func TestSkillsCLIRemoveStaysInside(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		remove  string
		wantErr string
		gone    func(h cliHomes) string // "" when nothing may go
	}{
		{name: "symlinked skill", remove: "linked", gone: func(h cliHomes) string { return filepath.Join(h.home, "skills", "linked") }},
		{name: "parent", remove: "..", wantErr: `no skill named ".."`},
		{name: "path out", remove: "../../ws", wantErr: `no skill named "../../ws"`},
		{name: "path through a symlinked skill", remove: "linked/..", wantErr: `no skill named "linked/.."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newCLIHomes(t)
			kept := []string{
				writeSkill(t, filepath.Dir(h.home), filepath.Base(h.home), skillMD("mhome", "d")),
				writeSkill(t, filepath.Dir(h.workspace), filepath.Base(h.workspace), skillMD("ws", "d")),
				writeSkill(t, h.userHome, "victim", skillMD("linked", "d")),
			}
			if err := os.MkdirAll(filepath.Join(h.home, "skills"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(kept[2], filepath.Join(h.home, "skills", "linked")); err != nil {
				t.Fatal(err)
			}
			_, err := h.run("remove", tt.remove, "--force")
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
			for _, dir := range kept {
				if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
					t.Errorf("%s was touched: %v", dir, err)
				}
			}
			if tt.gone != nil {
				if _, err := os.Lstat(tt.gone(h)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("stat %s = %v, want it removed", tt.gone(h), err)
				}
			}
		})
	}
}

// TestSkillsCLIErrors checks that mistakes give clear sentences, that
// usage mistakes are usageErrors, and that a refused add leaves nothing.
func TestSkillsCLIErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		noHome    bool
		setup     func(t *testing.T, h cliHomes)
		wantErr   string
		wantUsage bool
	}{
		{name: "no subcommand", args: nil, wantErr: "needs a subcommand", wantUsage: true},
		{name: "unknown subcommand", args: []string{"frob"}, wantErr: `unknown skills subcommand "frob"`, wantUsage: true},
		{name: "unknown flag", args: []string{"add", "x", "--force"}, wantErr: "unknown flag --force", wantUsage: true},
		{name: "add without path", args: []string{"add"}, wantErr: "needs exactly one argument, got 0", wantUsage: true},
		{name: "list with argument", args: []string{"list", "x"}, wantErr: "takes no arguments", wantUsage: true},
		{name: "add missing folder", args: []string{"add", "testdata/skills/nope"}, wantErr: "cannot add"},
		{name: "add invalid skill", args: []string{"add", "testdata/skills/no-description"}, wantErr: `is not a valid skill: the front matter has no description`},
		{name: "remove unknown", args: []string{"remove", "ghost"}, wantErr: `no skill named "ghost" is installed in `},
		{name: "remove dot", args: []string{"remove", "."}, wantErr: `no skill named "." is installed`, setup: func(t *testing.T, h cliHomes) {
			writeSkill(t, h.home, "skills", skillMD("skills", "A SKILL.md right in the skills folder."))
		}},
		{name: "no home", args: []string{"add", "testdata/skills/pdf-forms"}, noHome: true, wantErr: "set MINICODE_HOME or use --project"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newCLIHomes(t)
			if tt.noHome {
				h.home = ""
			}
			if tt.setup != nil {
				tt.setup(t, h)
			}
			before, _ := os.ReadDir(filepath.Join(h.home, "skills"))
			_, err := h.run(tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
			}
			var usage UsageError
			if errors.As(err, &usage) != tt.wantUsage {
				t.Errorf("error %q: usage error = %v, want %v", err, !tt.wantUsage, tt.wantUsage)
			}
			if after, _ := os.ReadDir(filepath.Join(h.home, "skills")); len(after) != len(before) {
				t.Errorf("the failed command changed the skills folder: %d entries before, %d after", len(before), len(after))
			}
		})
	}
}

// TestSkillsCLIAddFolderHoldingSkills refuses to add a folder that holds
// the skills folder it would be copied into, also through a symlink,
// rather than copying it into itself without end.
func TestSkillsCLIAddFolderHoldingSkills(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    func(h cliHomes) []string
		created func(h cliHomes) string
	}{
		{name: "home", args: func(h cliHomes) []string { return []string{"add", h.home} }, created: func(h cliHomes) string { return filepath.Join(h.home, "skills") }},
		{name: "workspace", args: func(h cliHomes) []string { return []string{"add", h.workspace, "--project"} }, created: func(h cliHomes) string { return filepath.Join(h.workspace, ".minicode") }},
		{name: "symlink to workspace", args: func(h cliHomes) []string {
			return []string{"add", filepath.Join(h.userHome, "link"), "--project"}
		}, created: func(h cliHomes) string { return filepath.Join(h.workspace, ".minicode") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h := newCLIHomes(t)
			writeSkill(t, filepath.Dir(h.home), filepath.Base(h.home), skillMD("home", "d"))
			writeSkill(t, filepath.Dir(h.workspace), filepath.Base(h.workspace), skillMD("ws", "d"))
			if err := os.MkdirAll(h.userHome, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(h.workspace, filepath.Join(h.userHome, "link")); err != nil {
				t.Fatal(err)
			}
			_, err := h.run(tt.args(h)...)
			if err == nil || !strings.Contains(err.Error(), "is inside it") {
				t.Fatalf("error = %v, want one saying the skills folder is inside the source", err)
			}
			if _, err := os.Lstat(tt.created(h)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("stat %s = %v, want nothing created", tt.created(h), err)
			}
		})
	}
}

// TestSkillsCLIHelp prints the usage on request, without an error.
func TestSkillsCLIHelp(t *testing.T) {
	t.Parallel()
	out, err := newCLIHomes(t).run("help")
	if err != nil || !strings.Contains(out, "minicode skills add <path> [--project]") {
		t.Errorf("help = %q, %v", out, err)
	}
}

// TestSkillsRemoveThroughTheBinary: remove names where a skill it did not find really is, and a
// skill that skills add did not install (someone's own) goes only with --force.
func TestSkillsRemoveThroughTheBinary(t *testing.T) {
	t.Parallel()
	n := newNewcomer(t)
	fixture, _ := filepath.Abs(filepath.Join("testdata", "skills", "pdf-forms"))
	n.mustRun(0, "skills", "add", fixture, "--project")
	r := n.mustRun(1, "skills", "remove", "pdf-forms")
	if want := "the project skill pdf-forms is at " + filepath.Join(n.ws, ".minicode", "skills", "pdf-forms"); !strings.Contains(r.stderr, want) {
		t.Errorf("remove in the wrong scope: stderr %q, want %q", r.stderr, want)
	}
	own := filepath.Join(n.home, ".minicode", "skills", "mine")
	writeFile(t, filepath.Join(own, "SKILL.md"), "---\nname: mine\ndescription: My own work.\n---\nSteps.\n")
	r = n.mustRun(1, "skills", "remove", "mine")
	if !strings.Contains(r.stderr, "was not installed by `minicode skills add`") || !strings.Contains(r.stderr, "--force") {
		t.Errorf("removing a hand-made skill: stderr %q, want a refusal naming --force", r.stderr)
	}
	if _, err := os.Stat(own); err != nil {
		t.Fatalf("the refused remove deleted the skill: %v", err)
	}
	n.mustRun(0, "skills", "remove", "mine", "--force")
	n.mustRun(0, "skills", "remove", "pdf-forms", "--project")
	for _, dir := range []string{own, filepath.Join(n.ws, ".minicode", "skills", "pdf-forms")} {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after skills remove (%v)", dir, err)
		}
	}
}

// TestSkillsCLIListBlockAndListDescriptions lists skills whose description is a | or > block, which give their
// text, and one whose description is a YAML list, which is not text: a warning names its file.
func TestSkillsCLIListBlockAndListDescriptions(t *testing.T) {
	t.Parallel()
	h := newCLIHomes(t)
	root := filepath.Join(h.workspace, ".minicode", "skills")
	writeSkill(t, root, "literal", "---\nname: literal\ndescription: |\n  Fill PDF forms.\n  Use for any form.\n---\nBody.\n")
	writeSkill(t, root, "folded", "---\nname: folded\ndescription: >\n  Read git\n  history.\n---\nBody.\n")
	listed := writeSkill(t, root, "listed", "---\nname: listed\ndescription:\n  - Tidy imports\n  - in Go\n---\n# Imports\n")
	out, err := h.run("list")
	for _, want := range []string{"Fill PDF forms. Use for any form.", "Read git history.",
		"warning: the description in " + filepath.Join(listed, "SKILL.md") + " is a list, not text: write it on one line, or as a | or > block"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("list = %q, %v; want it to contain %q", out, err, want)
		}
	}
}

// TestSkillsCLIAddWarnsOfTheInstalledSkill adds a skill from a folder named
// otherwise: it is installed under its name, so add warns of no mismatch, while
// a warning the installed skill still has is printed.
func TestSkillsCLIAddWarnsOfTheInstalledSkill(t *testing.T) {
	t.Parallel()
	h := newCLIHomes(t)
	src := writeSkill(t, t.TempDir(), "download", "---\nname: notes\ndescription: [Take notes.]\n---\nWrite them down.\n")
	out, err := h.run("add", src)
	if err != nil || strings.Contains(out, "does not match the folder name") || !strings.Contains(out, "warning: the description") {
		t.Errorf("add: %v, printed %q; want the description's warning alone", err, out)
	}
}

// TestSkillsCLIListPassesOverWhatRulesHide lists a project whose skills the agent passes over: a SKILL.md
// that links to the .env the project's rules deny, and a skill the user's ask rule covers. The list shows
// only the skill the agent would use, and how many it passed over and why.
func TestSkillsCLIListPassesOverWhatRulesHide(t *testing.T) {
	t.Parallel()
	h := newCLIHomes(t)
	writeFiles(t, h.workspace, map[string]string{".env": skillMD("envlink", "ENV-DESCRIPTION"), ".claude/skills/envlink/": "",
		".claude/skills/wip/SKILL.md": skillMD("wip", "Work in progress."), ".claude/skills/deploy/SKILL.md": skillMD("deploy", "Deploy the app."),
		".claude/settings.json": `{"permissions": {"deny": ["Read(./.env)"]}}`})
	writeFiles(t, h.userHome, map[string]string{".claude/settings.json": `{"permissions": {"ask": ["Read(./.claude/skills/wip/**)"]}}`})
	if err := os.Symlink("../../../.env", filepath.Join(h.workspace, ".claude", "skills", "envlink", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	out, err := h.run("list")
	if err != nil || !strings.HasPrefix(out, "Skills (1):\n  deploy (project)") || strings.Contains(out, "ENV-DESCRIPTION") ||
		!strings.Contains(out, "Passed over (2), as the model may not see them:\n") || strings.Count(out, ": the permission rules deny or ask before reading it\n") != 2 {
		t.Errorf("list = %q, %v; want deploy alone in use, and envlink and wip passed over for the permission rules", out, err)
	}
}
