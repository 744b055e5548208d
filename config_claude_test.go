package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// claudeFixture copies testdata/claude (a project and a home as Claude
// Code writes them) into a temporary folder and returns the project, the
// user's home and minicode's home inside it.
func claudeFixture(t *testing.T) (ws, home, mhome string) {
	t.Helper()
	root := t.TempDir()
	if err := os.CopyFS(root, os.DirFS("testdata/claude")); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "project"), filepath.Join(root, "home"), filepath.Join(root, "minicode-home")
}

func TestClaudeSettingsFilesInPrecedence(t *testing.T) {
	ws, home, mhome := claudeFixture(t)
	writeFile(t, filepath.Join(mhome, "settings.json"), `{"maxTurns": 9, "permissions": {"deny": ["web_search"]}}`)
	writeFile(t, filepath.Join(ws, ".minicode", "settings.json"), `{"maxTurns": 12}`)
	layers, err := loadSettings(mhome, home, ws, []string{`{"permissions": {"deny": ["run_command(rm:*)"]}}`}, nil, noneBroken(t))
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, l := range layers {
		sources = append(sources, l.source)
	}
	wantSources := []string{
		filepath.Join(home, ".claude", "settings.json"), filepath.Join(mhome, "settings.json"),
		filepath.Join(ws, ".claude", "settings.json"), filepath.Join(ws, ".minicode", "settings.json"),
		filepath.Join(ws, ".claude", "settings.local.json"), "--settings",
	}
	if !slices.Equal(sources, wantSources) {
		t.Fatalf("files read = %q, want %q", sources, wantSources)
	}
	got := mergeSettings(layers, ws, true)
	if got.Model != "opus" || got.MaxTurns != 12 || got.Permissions.DefaultMode != "acceptEdits" {
		t.Errorf("model %q, turns %d, mode %q; want the project's opus, 12, acceptEdits", got.Model, got.MaxTurns, got.Permissions.DefaultMode)
	}
	wantEnv := map[string]string{"MINICODE_COMPAT_USER_VAR": "from-user", "MINICODE_COMPAT_PROJECT_VAR": "from-project"}
	if !reflect.DeepEqual(got.Env, wantEnv) {
		t.Errorf("env = %q, want %q", got.Env, wantEnv)
	}
	wantSets := []RuleSet{
		{Source: wantSources[0], Allow: []string{"Read"}, Deny: []string{"WebFetch"}},
		{Source: wantSources[1], Deny: []string{"web_search"}},
		{Source: wantSources[2], Project: ws, Allow: []string{"Bash(go test:*)", "Read(./docs/**)"}, Deny: []string{"Read(./.env)"}},
		{Source: wantSources[4], Project: ws, Allow: []string{"Bash(git status)"}, Ask: []string{"Bash(git push:*)"}},
		{Source: "--settings", Project: ws, Deny: []string{"run_command(rm:*)"}},
	}
	if !reflect.DeepEqual(got.ruleSets, wantSets) {
		t.Errorf("rule sets =\n%+v\nwant\n%+v", got.ruleSets, wantSets)
	}
	wantUnknown := []string{
		"alwaysThinkingEnabled (" + wantSources[0] + ")", "statusLine (" + wantSources[0] + ")",
		"includeCoAuthoredBy (" + wantSources[2] + ")",
	}
	if !slices.Equal(got.Unknown, wantUnknown) {
		t.Errorf("unknown keys = %q, want %q", got.Unknown, wantUnknown)
	}
	if want := []string{filepath.Join(ws, "../shared")}; !slices.Equal(got.Permissions.AdditionalDirectories, want) {
		t.Errorf("additional folders = %q, want %q", got.Permissions.AdditionalDirectories, want)
	}
}

func TestUntrustedProjectSettingsOnlyTighten(t *testing.T) {
	ws, home, mhome := claudeFixture(t)
	layers, err := loadSettings(mhome, home, ws, nil, nil, noneBroken(t))
	if err != nil {
		t.Fatal(err)
	}
	got := mergeSettings(layers, ws, false)
	project := filepath.Join(ws, ".claude", "settings.json")
	local := filepath.Join(ws, ".claude", "settings.local.json")
	wantIgnored := []string{
		"model (" + project + ")", "permissions.defaultMode (" + project + ")", "permissions.allow (" + project + ")",
		"permissions.additionalDirectories (" + project + ")", "hooks (" + project + ")", "env (" + project + ")",
		"enabledMcpjsonServers (" + project + ")", "permissions.allow (" + local + ")",
	}
	if !slices.Equal(got.Ignored, wantIgnored) {
		t.Errorf("ignored = %q, want %q", got.Ignored, wantIgnored)
	}
	wantSets := []RuleSet{
		{Source: filepath.Join(home, ".claude", "settings.json"), Allow: []string{"Read"}, Deny: []string{"WebFetch"}},
		{Source: project, Project: ws, Deny: []string{"Read(./.env)"}},
		{Source: local, Project: ws, Ask: []string{"Bash(git push:*)"}},
	}
	if !reflect.DeepEqual(got.ruleSets, wantSets) {
		t.Errorf("rule sets =\n%+v\nwant the user's whole and the project's deny and ask only:\n%+v", got.ruleSets, wantSets)
	}
	if got.Permissions.DefaultMode != "" || got.Env["MINICODE_COMPAT_PROJECT_VAR"] != "" || len(got.EnabledMCPJSONServers) > 0 {
		t.Errorf("mode %q, env %q, enabled servers %q survived in an untrusted workspace", got.Permissions.DefaultMode, got.Env, got.EnabledMCPJSONServers)
	}
	planOnly := Settings{source: project, project: true, Permissions: PermissionsSettings{DefaultMode: "plan"}}
	if got := mergeSettings([]Settings{planOnly}, ws, false); got.Permissions.DefaultMode != "plan" {
		t.Errorf("untrusted plan mode = %q, want plan: a stricter mode always applies", got.Permissions.DefaultMode)
	}
}

func TestSettingsMistakesInKnownKeysStop(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"env not an object", "{\n\"env\": [\"A=1\"]\n}", `line 2: field "env" must be an object, got array`},
		{"env value not a string", "{\"env\": {\n\"A\": 1}}", `line 2: field "env" must be a string, got number`},
		{"bad json", "{\"model\": \"x\",,}", "line 1: not valid JSON (invalid character ','"},
		{"servers list", "{\n\"disabledMcpjsonServers\": \"docs\"}", `line 2: field "disabledMcpjsonServers" must be an array, got string`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			path := filepath.Join(ws, ".claude", "settings.local.json")
			writeFile(t, path, tc.content)
			err := brokenSettings(t.TempDir(), t.TempDir(), ws)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one naming %s and %q", err, path, tc.want)
			}
		})
	}
	if _, err := loadSettings(t.TempDir(), t.TempDir(), t.TempDir(), []string{"/no/such/settings.json"}, nil, noneBroken(t)); err == nil || !strings.Contains(err.Error(), "--settings") {
		t.Errorf("missing --settings file: error = %v, want one naming --settings", err)
	}
}

func TestSelectProjectServers(t *testing.T) {
	ws := t.TempDir()
	project, user := filepath.Join(ws, ".mcp.json"), "/home/u/.minicode/mcp.json"
	servers := []MCPServerConfig{
		{Name: "docs", URL: "http://x/mcp", Source: project},
		{Name: "tracker", Command: "tracker-mcp", Source: project},
		{Name: "lint", Command: "lint-mcp", Source: project},
		{Name: "mine", Command: "my-mcp", Source: user},
		{Name: "flagged", Command: "flag-mcp", Source: "--mcp-config"},
		{Name: "shared", Command: "project-shared", Source: project, Shadowed: &MCPServerConfig{Name: "shared", Command: "user-shared", Source: user}},
	}
	cases := []struct {
		name     string
		settings Settings
		trusted  bool
		want     []string
	}{
		{"trusted", Settings{}, true, []string{"docs", "tracker", "lint", "mine (user)", "flagged", "shared"}},
		{"untrusted skips every project server", Settings{}, false, []string{"mine (user)", "flagged", "shared (user)"}},
		{"disabled", Settings{DisabledMCPJSONServers: []string{"lint", "mine", "shared"}}, true, []string{"docs", "tracker", "mine (user)", "flagged", "shared (user)"}},
		{"enabled only", Settings{EnabledMCPJSONServers: []string{"tracker"}}, true, []string{"tracker", "mine (user)", "flagged", "shared (user)"}},
		{"enable all", Settings{EnabledMCPJSONServers: []string{"tracker"}, EnableAllProjectMCPServers: true}, true, []string{"docs", "tracker", "lint", "mine (user)", "flagged", "shared"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range selectProjectServers(servers, tc.settings, ws, tc.trusted) {
				name := c.Name
				if c.Source == user {
					name += " (user)"
				}
				got = append(got, name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("servers = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestExpandVarsWithDefaults(t *testing.T) {
	env := map[string]string{"PORT": "9000", "EMPTY": ""}
	lookup := func(k string) string { return env[k] }
	cases := []struct{ in, want string }{
		{"http://127.0.0.1:${PORT:-8931}/mcp", "http://127.0.0.1:9000/mcp"},
		{"http://127.0.0.1:${UNSET:-8931}/mcp", "http://127.0.0.1:8931/mcp"},
		{"${EMPTY:-fallback}", "fallback"},
		{"Bearer ${UNSET}", "Bearer "},
		{"${UNSET:-}x", "x"},
		{"cost $5 and ${", "cost $5 and ${"},
	}
	for _, tc := range cases {
		if got := expandVars(tc.in, lookup); got != tc.want {
			t.Errorf("expandVars(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestMCPConfigFlagAndStrict(t *testing.T) {
	ws, _, mhome := claudeFixture(t)
	file := filepath.Join(t.TempDir(), "extra.json")
	writeFile(t, file, `{"mcpServers": {"tracker": {"command": "other-tracker"}}}`)
	inline := `{"mcpServers": {"web": {"type": "http", "url": "http://localhost:1/mcp"}}}`
	servers, err := loadRunMCPServers(mhome, ws, []string{file, inline}, false, noneBroken(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range servers {
		got[c.Name] = c.Source + " " + c.Command + c.URL
	}
	want := map[string]string{
		"docs":    filepath.Join(ws, ".mcp.json") + " http://127.0.0.1:${DOCS_PORT:-8931}/mcp",
		"tracker": "--mcp-config other-tracker",
		"web":     "--mcp-config http://localhost:1/mcp",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("servers = %q, want %q", got, want)
	}
	strict, err := loadRunMCPServers(mhome, ws, []string{inline}, true, noneBroken(t))
	if err != nil || len(strict) != 1 || strict[0].Name != "web" {
		t.Errorf("--strict-mcp-config servers = %+v, %v; want only web", strict, err)
	}
	if _, err := loadRunMCPServers(mhome, ws, []string{`{"mcpServers": {"x": {}}}`}, false, noneBroken(t)); err == nil || !strings.Contains(err.Error(), "--mcp-config") {
		t.Errorf("bad --mcp-config: error = %v, want one naming the flag", err)
	}
}

func TestUnknownSettingsAreNamedOnceAndInStatus(t *testing.T) {
	t.Parallel()
	ws, home, _ := claudeFixture(t)
	env := []string{"HOME=" + home}
	r := runMinicode(t, env, "", "-p", "help", "--workspace", ws)
	if r.code != 0 || strings.Count(r.stderr, "ignoring settings minicode does not use") != 1 || !strings.Contains(r.stderr, "statusLine (") {
		t.Errorf("exit %d, stderr %q; want one notice naming statusLine", r.code, r.stderr)
	}
	r = runMinicode(t, env, "n\n/status\n", "--workspace", ws)
	if !strings.Contains(r.stdout, "settings minicode does not use: alwaysThinkingEnabled (") ||
		!strings.Contains(r.stdout, "not applied, the workspace is not trusted (minicode trust): model (") {
		t.Errorf("/status = %q, want the unknown keys and what trust withheld", r.stdout)
	}
}
