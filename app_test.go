package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testApp builds an app for ws with the demo model and a fresh home.
func testApp(t *testing.T, ws string, opts Options) *App {
	t.Helper()
	home := t.TempDir()
	opts.Workspace = ws
	env := map[string]string{"MINICODE_HOME": home, "HOME": t.TempDir()}
	app, err := newApp(context.Background(), opts, strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	return app
}

func TestAppLoadsSkillsAndMemoryIntoThePrompt(t *testing.T) {
	ws := workspaceWith(t, map[string]string{
		"AGENTS.md": "Always run the tests with -race.\n",
		".minicode/skills/release-notes/SKILL.md": "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nSteps: read the log.\n",
	})
	app := testApp(t, ws, Options{Print: true})
	for _, want := range []string{"Always run the tests with -race.", "release-notes", "Write release notes from the git log."} {
		if !strings.Contains(app.Agent.System, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, app.Agent.System)
		}
	}
	if strings.Contains(app.Agent.System, "Steps: read the log.") {
		t.Errorf("the system prompt holds a skill's body; only names and descriptions belong there")
	}
	if _, ok := app.Registry.Get("load_skill"); !ok {
		t.Errorf("load_skill is not registered though a skill exists")
	}
	empty := testApp(t, t.TempDir(), Options{Print: true})
	if _, ok := empty.Registry.Get("load_skill"); ok {
		t.Errorf("load_skill is offered with no skills")
	}
}

func TestLineModeSlashCommands(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"go.mod": "module example.com/demo\n\ngo 1.22\n", "main.go": "package main\n"})
	r := runMinicode(t, nil, "/permissions\n/memory\n/skills\n/init\ny\n/bogus\n/permissions plan\n/permissions yolo\n", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"default", "Permission needed", "+- Test: `go test ./...`", "Wrote AGENTS.md", "unknown command /bogus",
		"Permission mode: plan", `unknown permission mode "yolo"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	data, err := os.ReadFile(filepath.Join(ws, "AGENTS.md"))
	if err != nil || !strings.Contains(string(data), "go test ./...") {
		t.Errorf("AGENTS.md = %q, %v; want a starter file naming the test command", data, err)
	}
}

// A rule that does not parse is named with its file and left out; the file's other rules hold,
// so a typo in one rule does not take the file's deny rules with it.
func TestBadRuleInSettingsIsLeftOutAlone(t *testing.T) {
	ws := workspaceWith(t, map[string]string{"secret.txt": "s\n",
		".minicode/settings.json": `{"permissions": {"deny": ["run_command(go test", "read_file(secret.txt)"], "allow": ["edit_file((x"]}}`})
	var stderr strings.Builder
	app, err := newApp(context.Background(), Options{Workspace: ws, Print: true}, strings.NewReader(""), io.Discard, &stderr,
		func(k string) string { return map[string]string{"MINICODE_HOME": t.TempDir()}[k] })
	if err != nil {
		t.Fatalf("newApp: %v, want the bad rules left out", err)
	}
	defer app.Close()
	path := filepath.Join(ws, ".minicode", "settings.json")
	for _, rule := range []string{"run_command(go test", "edit_file((x"} {
		if !strings.Contains(stderr.String(), path+": line 1: rule \""+rule) || strings.Count(stderr.String(), "running without it") != 2 {
			t.Errorf("stderr %q, want it to name %s and the rule %s, each on its own line", stderr.String(), path, rule)
		}
	}
	read := PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{filepath.Join(ws, "secret.txt")}}
	if err := app.Perms.Authorize(context.Background(), read); err == nil {
		t.Errorf("reading secret.txt was allowed; want the file's good deny rule to hold")
	}
}

func TestSkillFoldersAreReadableWithoutAsking(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "skills", "deploy", "SKILL.md"), "---\nname: deploy\ndescription: Deploy the app.\n---\nRun scripts/go.sh.\n")
	script := filepath.Join(home, "skills", "deploy", "scripts", "go.sh")
	writeFile(t, script, "echo deploying\n")
	replies := writeScript(t, fmt.Sprintf(`[
		{"tool_calls":[{"name":"read_file","input":{"path":%q}}, {"name":"write_file","input":{"path":%q,"content":"x"}}]},
		{"text":"done"}
	]`, script, script))
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "deploy", "--output-format", "json",
		"--mock-script", replies, "--workspace", t.TempDir())
	var res struct {
		Denials []Denial `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if len(res.Denials) != 1 || res.Denials[0].Tool != "Write" {
		t.Errorf("denials = %+v, want only the write into the skill's folder denied (the read allowed)", res.Denials)
	}
}

// TestHooksFollowTheSession checks that after /new the hooks are told the
// new session's id and journal, the same id /new reports.
func TestHooksFollowTheSession(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >> prompts.jsonl; echo >> prompts.jsonl"}]}]}`, nil)
	res := runMinicode(t, []string{"MINICODE_HOME=" + trustingHome(t, ws)}, "list files\n/new\nlist files\n", "--workspace", ws)
	data, err := os.ReadFile(filepath.Join(ws, "prompts.jsonl"))
	if err != nil {
		t.Fatalf("the hook did not run: %v; stdout %q, stderr %q", err, res.stdout, res.stderr)
	}
	var inputs []HookInput
	for line := range strings.Lines(strings.TrimSpace(string(data))) {
		var in HookInput
		if err := json.Unmarshal([]byte(line), &in); err != nil {
			t.Fatalf("hook input %q: %v", line, err)
		}
		inputs = append(inputs, in)
	}
	if len(inputs) != 2 || inputs[0].SessionID == inputs[1].SessionID {
		t.Fatalf("hook inputs %+v, want two of different sessions", inputs)
	}
	for _, in := range inputs {
		if filepath.Base(in.TranscriptPath) != in.SessionID+".jsonl" {
			t.Errorf("transcript_path %q, want the journal of session %q", in.TranscriptPath, in.SessionID)
		}
	}
	if want := "Started session " + inputs[1].SessionID + "."; !strings.Contains(res.stdout, want) {
		t.Errorf("stdout %q, want it to hold %q", res.stdout, want)
	}
}

// TestLineModeShowsControlsVisibly: in line mode too, escapes in a file's name and
// in the model's own text reach the output in caret notation, never raw to a terminal.
func TestLineModeShowsControlsVisibly(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "t\x1b]0;pwned\x07.txt"), "title\n") // a cloned repository may name a file so
	replies := writeScript(t, `[
		{"text":"reading\u009b2J","tool_calls":[{"name":"read_file","input":{"path":"t\u001b]0;pwned\u0007.txt"}}]},
		{"text":"\u001b[2Jcleared\r\nline two"}
	]`)
	r := runMinicode(t, nil, "go\n", "--mock-script", replies, "--workspace", ws)
	if strings.ContainsAny(r.stdout, "\x1b\x07\r") || strings.Contains(r.stdout, "\u009b") {
		t.Errorf("stdout holds raw controls: %q", r.stdout)
	}
	for _, want := range []string{"reading^[[2J", "ok: t^[]0;pwned^G.txt", "^[[2Jcleared\nline two"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q lacks %q", r.stdout, want)
		}
	}
}
