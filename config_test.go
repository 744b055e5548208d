package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

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
	layers, err := loadSettings(home, t.TempDir(), ws, nil, nil)
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
			_, err := loadSettings(home, t.TempDir(), t.TempDir(), nil, nil)
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
		layers, err := loadSettings(home, user, ws, []string{`{"model":"flag"}`}, tc.kinds)
		var got []string
		for _, l := range layers {
			got = append(got, l.Model)
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("kinds %q: layers %q (%v), want %q", tc.kinds, got, err, tc.want)
		}
	}
}
