package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// noneBroken is a skip function for loading configuration that fails the test: no file may be broken.
func noneBroken(t *testing.T) func(error) {
	return func(err error) { t.Errorf("a file was skipped as broken: %v", err) }
}

// ruleLayer reads a permissions.json as minicode does at start; a missing one holds no rules.
func ruleLayer(path string, project bool) (Settings, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{source: path, project: project}, nil
	}
	return parseRuleFile(data, path, project)
}

// brokenSettings loads the settings, returning what was skipped as broken.
func brokenSettings(home, userHome, workspace string) error {
	var broken []error
	_, err := loadSettings(home, userHome, workspace, nil, nil, func(err error) { broken = append(broken, err) })
	return errors.Join(append(broken, err)...)
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSettingsMergesProjectOverUser(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), `{"provider":"openai","model":"gpt-4.1","maxTurns":7,
		"permissions":{"allow":["read_file"],"defaultMode":"plan"}}`)
	writeFile(t, filepath.Join(ws, ".minicode", "settings.json"), `{"model":"local-model",
		"permissions":{"allow":["run_command(go test:*)"],"deny":["web_fetch"]}}`)
	layers, err := loadSettings(home, t.TempDir(), ws, nil, nil, noneBroken(t))
	if err != nil {
		t.Fatal(err)
	}
	got := mergeSettings(layers, ws, true)
	if got.Provider != "openai" || got.Model != "local-model" || got.MaxTurns != 7 || got.Permissions.DefaultMode != "plan" {
		t.Errorf("loadSettings = %+v, want provider openai, model local-model, 7 turns, plan mode", got)
	}
	want := []RuleSet{
		{Source: filepath.Join(home, "settings.json"), Allow: []string{"read_file"}},
		{Source: filepath.Join(ws, ".minicode", "settings.json"), Project: ws, Allow: []string{"run_command(go test:*)"}, Deny: []string{"web_fetch"}},
	}
	if !reflect.DeepEqual(got.ruleSets, want) {
		t.Errorf("rule sets = %+v, want one per file, named by path: %+v", got.ruleSets, want)
	}
}

func TestLoadSettingsErrorsNameFileLineAndField(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"syntax", "{\n  \"model\": \"x\",\n  \"provider\": \n}", "line 4: not valid JSON (invalid character '}' looking for beginning of value)"},
		{"wrong type", "{\n\"maxTurns\": \"many\"\n}", `line 2: field "maxTurns" must be an integer, got string`},
		{"nested wrong type", "{\"permissions\": {\n\"allow\": \"read_file\"}}", `line 2: field "permissions.allow" must be an array, got string`},
		{"empty", "", "the file is empty or ends too soon"},
		{"trailing data", "{}\n{}", "line 2: unexpected data after the JSON object"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			path := filepath.Join(home, "settings.json")
			writeFile(t, path, tc.content)
			err := brokenSettings(home, t.TempDir(), t.TempDir())
			want := "settings file " + path + ": " + tc.want
			if err == nil || err.Error() != want {
				t.Errorf("error = %v, want %q", err, want)
			}
		})
	}
}

func TestLimitsForPrefersLongestPrefixAndOverrides(t *testing.T) {
	if got := limitsFor("claude-sonnet-4-5", nil); got.MaxOutput != 64_000 {
		t.Errorf("claude-sonnet-4-5 max output = %d, want 64000", got.MaxOutput)
	}
	over := map[string]ModelLimits{"claude-sonnet-4": {ContextWindow: 1_000_000, MaxOutput: 64_000}}
	if got := limitsFor("claude-sonnet-4-5", over); got.ContextWindow != 1_000_000 {
		t.Errorf("override ignored: %+v", got)
	}
	if got := limitsFor("unknown-model", nil); got.ContextWindow != 128_000 {
		t.Errorf("default limits = %+v", got)
	}
}

// TestSettingSourcesPickTheFiles checks that --setting-sources reads only
// the settings files of the kinds it names, and --settings always.
func TestSettingSourcesPickTheFiles(t *testing.T) {
	home, user, ws := t.TempDir(), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(user, ".claude", "settings.json"), `{"model":"user"}`)
	writeFile(t, filepath.Join(ws, ".claude", "settings.json"), `{"model":"project"}`)
	writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"), `{"model":"local"}`)
	for _, tc := range []struct {
		kinds []string
		want  string
	}{{nil, "user project local flag"}, {[]string{}, "flag"}, {[]string{"user"}, "user flag"}, {[]string{"project", "local"}, "project local flag"}} {
		layers, err := loadSettings(home, user, ws, []string{`{"model":"flag"}`}, tc.kinds, noneBroken(t))
		var got []string
		for _, l := range layers {
			got = append(got, l.Model)
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("kinds %q: layers %q (%v), want %q", tc.kinds, got, err, tc.want)
		}
	}
}

// TestBrokenFilesAreReportedAndSkipped breaks every file minicode reads at
// start, as a clone or a slip of the hand would: every run goes on with
// the rest and names each broken file once, with its line and what is
// wrong; only a broken file named on the command line stops it.
func TestBrokenFilesAreReportedAndSkipped(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{
		".mcp.json": "{\"mcpServers\": {\n\"a\": {\"command\": \"x\"},\n}}", ".claude/settings.json": "{\n  \"model\": \"x\",\n}",
		".minicode/settings.json": "", ".claude/settings.local.json": "{\"permissions\": {\"deny\": [\n\"Bash(\"]}}",
		".minicode/permissions.json": "{\"allow\": [}", ".claude/agents/bad.md": "---\nname: [\n---\n",
		".claude/commands/bad.md": "---\nallowed-tools: Bash(\n---\nhi", ".minicode/skills/bad/SKILL.md": "---\n---\n",
	})
	mhome := t.TempDir()
	for name, text := range map[string]string{"mcp.json": "{\"mcpServers\": {\"good\": {\"command\": \"true\"},\n\"nourl\": {\"type\": \"http\"}}}",
		"trust.json": `{"workspaces": `, "history.jsonl": "garbage\n{", "permissions.json": `{"allow": ["Bash("]}`, "settings.json": "{\n\"maxTurns\": \"ten\"}"} {
		writeFile(t, filepath.Join(mhome, name), text)
	}
	reports := map[string]string{ // each broken file and what its report says
		filepath.Join(ws, ".mcp.json"): "line 3: not valid JSON", filepath.Join(ws, ".claude", "settings.json"): "line 3: not valid JSON",
		filepath.Join(ws, ".minicode", "settings.json"): "the file is empty", filepath.Join(ws, ".claude", "settings.local.json"): `line 2: rule "Bash("`,
		filepath.Join(ws, ".minicode", "permissions.json"): "line 1: not valid JSON", filepath.Join(mhome, "mcp.json"): `line 2: MCP server "nourl": type "http" needs a url`,
		filepath.Join(mhome, "trust.json"): "the file is empty or ends too soon", filepath.Join(mhome, "permissions.json"): `line 1: rule "Bash("`,
		filepath.Join(mhome, "settings.json"): `line 2: field "maxTurns" must be an integer`,
	}
	env := []string{"MINICODE_HOME=" + mhome}
	for _, stdin := range []string{"", "help\n"} {
		args := []string{"--workspace", ws}
		if stdin == "" {
			args = append(args, "-p", "help")
		}
		r := runMinicode(t, env, stdin, args...)
		if r.code != 0 || !strings.Contains(r.stdout, "I understand these requests") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want the task answered", args, r.code, r.stdout, r.stderr)
		}
		for file, want := range reports {
			if strings.Count(r.stderr, file+": ") != 1 || !strings.Contains(r.stderr, file+": "+want) {
				t.Errorf("%q: stderr %q should report %s once, saying %q", args, r.stderr, file, want)
			}
		}
	}
	list := exec.Command(minicodeBinary(t), "mcp", "list")
	var stdout, stderr strings.Builder
	list.Dir, list.Env, list.Stdout, list.Stderr = ws, append(env, "HOME="+t.TempDir()), &stdout, &stderr
	if err := list.Run(); err != nil || !strings.Contains(stdout.String(), "good\tstdio\ttrue") || !strings.Contains(stderr.String(), `"nourl"`) {
		t.Errorf("mcp list: %v, stdout %q, stderr %q; want the good server listed and the broken ones reported", err, stdout.String(), stderr.String())
	}
	for _, flag := range []string{"--settings", "--mcp-config"} {
		if r := runMinicode(t, env, "", "-p", "help", "--workspace", ws, flag, filepath.Join(ws, ".mcp.json")); r.code != 2 || !strings.Contains(r.stderr, "line 3") {
			t.Errorf("a broken %s file: exit %d, stderr %q; want 2 and its line", flag, r.code, r.stderr)
		}
	}
}

// TestSaveAutoAllowKeepsTheFile runs what /sandbox auto saves over a local settings file holding null or other
// settings, which stay as written and in their order; one that cannot be read is an error, and is left as it was.
func TestSaveAutoAllowKeepsTheFile(t *testing.T) {
	ws := t.TempDir()
	path := filepath.Join(ws, ".claude", "settings.local.json")
	settings := "{\n  \"permissions\": {\n    \"deny\": [],\n    \"allow\": [\n      \"Read\"\n    ]\n  },\n" +
		"  \"sandbox\": {\n    \"passEnv\": [\n      \"B\",\n      \"A\"\n    ],\n    \"allowWrite\": [\n      \"/tmp/x\"\n    ]%s\n  },\n" +
		"  \"feedbackSurveyState\": {\n    \"lastShownTime\": 12345678901234567890\n  }\n}\n"
	writeFile(t, path, fmt.Sprintf(settings, ""))
	runMinicode(t, nil, "/sandbox auto\n", "--provider", "mock", "--workspace", ws)
	if got, want := readFileString(t, path), fmt.Sprintf(settings, ",\n    \"autoAllowBashIfSandboxed\": true"); got != want {
		t.Errorf("after /sandbox auto the settings are\n%s\nwant\n%s", got, want)
	}
	for content, want := range map[string]string{"null": "{}", `{"model": "local"}`: `"model": "local"`} {
		path := filepath.Join(t.TempDir(), "settings.local.json")
		writeFile(t, path, content)
		if err := saveAutoAllow(path, true); err != nil {
			t.Fatalf("%s: %v", content, err)
		}
		if got := readFileString(t, path); !strings.Contains(got, `"autoAllowBashIfSandboxed": true`) || want != "{}" && !strings.Contains(got, want) {
			t.Errorf("%s became %s", content, got)
		}
	}
	if os.Geteuid() == 0 {
		return // root reads every file
	}
	path = filepath.Join(t.TempDir(), "settings.local.json")
	writeFile(t, path, `{"model": "local"}`)
	os.Chmod(path, 0)
	if err := saveAutoAllow(path, true); err == nil {
		t.Error("an unreadable file was replaced")
	}
}
