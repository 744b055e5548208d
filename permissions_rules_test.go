package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestParseRuleList checks flag lists: commas split rules except inside
// parentheses, and each rule keeps its specifier.
func TestParseRuleList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		list string
		want []string
	}{
		{"read_file", []string{"read_file"}},
		{"read_file, run_command(go test:*)", []string{"read_file", "run_command(go test:*)"}},
		{"run_command(echo a,b),edit_file(src/**)", []string{"run_command(echo a,b)", "edit_file(src/**)"}},
		{"run_command(echo 'a,b'),mcp__gh__*", []string{"run_command(echo 'a,b')", "mcp__gh__*"}},
		{"Bash(go test:*),Read(./src/**),Write(//tmp/x),WebFetch(domain:go.dev),WebSearch", []string{"run_command(go test:*)", "Read(./src/**)", "Edit(//tmp/x)", "web_fetch(domain:go.dev)", "web_search"}},
		{"Edit,MultiEdit(a),Grep,Glob,LS", []string{"Edit", "Edit(a)", "grep_files", "glob_files", "list_files"}},
		{"edit_file(*)", []string{"edit_file"}},
		{" , read_file ,", []string{"read_file"}},
	}
	for _, tt := range tests {
		rules, err := parseRules([]string{tt.list}, "--allowedTools", "")
		if err != nil {
			t.Errorf("parseRules(%q): %v", tt.list, err)
			continue
		}
		var got []string
		for _, r := range rules {
			got = append(got, r.String())
			if r.Source != "--allowedTools" {
				t.Errorf("source of %s = %q, want %q", r, r.Source, "--allowedTools")
			}
		}
		if strings.Join(got, " ; ") != strings.Join(tt.want, " ; ") {
			t.Errorf("parseRules(%q) = %q, want %q", tt.list, got, tt.want)
		}
	}
}

// TestParseRuleErrors checks that malformed rules are reported with the
// rule and what is wrong, never ignored.
func TestParseRuleErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ rule, want string }{
		{"edit_file(src/**", "missing closing parenthesis"},
		{"edit_file()", "empty parentheses"},
		{"(src/**)", "may hold only"},
		{"read file", "may hold only"},
		{"run_command(:*)", "empty command prefix"},
		{"web_fetch(domain:)", "empty command prefix or domain"},
		{"Bash(echo $(date))", "cannot be judged"},
		{"run_command(go test && rm -rf x)", "a rule names one command"},
		{`run_command(echo "open:*)`, "cannot be judged"},
	}
	for _, tt := range tests {
		_, err := parseRule(tt.rule, "settings.json")
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.rule)) {
			t.Errorf("ParseRule(%q) error = %v, want one naming the rule and saying %q", tt.rule, err, tt.want)
		}
	}
	if _, err := parseRules([]string{"read_file,edit_file((x)"}, "--allowedTools", ""); err == nil {
		t.Errorf("parseRules with unbalanced parentheses: no error")
	}
}

// TestRuleMatchesCommand checks prefix rules on word boundaries and exact
// rules on whole commands.
func TestRuleMatchesCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule, command string
		want          bool
	}{
		{"run_command(go test:*)", "go test ./...", true},
		{"run_command(go test:*)", "go test", true},
		{"run_command(go test:*)", "go   test  -run X", true},
		{"run_command(go test:*)", "go testx", false},
		{"run_command(go test:*)", "go vet", false},
		{"run_command(go test:*)", "sudo go test", false},
		{"run_command(git:*)", "git status", true},
		{"run_command(go test ./...)", "go test ./...", true},
		{"run_command(go test ./...)", "go test ./... -v", false},
		{"run_command(go test ./...)", "go test ./... > out", true},
		{"Bash(go test *)", "go test -v", true},
		{"Bash(go test *)", "go testx", false},
		{"run_command(sandbox:false)", "sandbox:false", false},
		{`run_command(echo "a b")`, "echo 'a b'", true},
		{`run_command(echo "a b")`, "echo a b", false},
		{"run_command", "anything at all", true},
	}
	for _, tt := range tests {
		r, err := parseRule(tt.rule, "test")
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", tt.rule, err)
		}
		cmds, err := parseCommandLine(tt.command)
		if err != nil || len(cmds) != 1 {
			t.Fatalf("parseCommandLine(%q) = %v, %v", tt.command, cmds, err)
		}
		if got := r.matchesCommand(cmds[0]); got != tt.want {
			t.Errorf("%s matches %q = %v, want %v", tt.rule, tt.command, got, tt.want)
		}
	}
}

// TestRuleMatchesTool checks exact names, wildcards, MCP servers and the
// Edit alias.
func TestRuleMatchesTool(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule, tool string
		access     Access
		want       bool
	}{
		{"read_file", "read_file", AccessRead, true},
		{"read_file", "read_files", AccessRead, false},
		{"mcp__gh__*", "mcp__gh__create_issue", AccessExternal, true},
		{"mcp__gh__*", "mcp__ghx__create_issue", AccessExternal, false},
		{"mcp__gh", "mcp__gh__create_issue", AccessExternal, true},
		{"mcp__gh", "mcp__ghx__create_issue", AccessExternal, false},
		{"mcp__gh__list", "mcp__gh__list", AccessExternal, true},
		{"Edit", "write_file", AccessWrite, true},
		{"Edit", "patch_file", AccessWrite, true},
		{"Edit", "read_file", AccessRead, false},
		{"edit_file", "write_file", AccessWrite, false},
		{"Write", "edit_file", AccessWrite, true},
		{"Read", "grep_files", AccessRead, true},
		{"Read", "list_files", AccessRead, true},
		{"Read", "web_fetch", AccessNetwork, false},
		{"Bash", "run_command", AccessExecute, true},
		{"WebFetch", "web_fetch", AccessNetwork, true},
	}
	for _, tt := range tests {
		r, err := parseRule(tt.rule, "test")
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", tt.rule, err)
		}
		if got := r.matchesTool(tt.tool, tt.access); got != tt.want {
			t.Errorf("%s matches tool %q = %v, want %v", tt.rule, tt.tool, got, tt.want)
		}
	}
}

// TestRuleMatchesHost checks domain rules cover the domain and its
// subdomains only.
func TestRuleMatchesHost(t *testing.T) {
	t.Parallel()
	r, err := parseRule("web_fetch(domain:go.dev)", "test")
	if err != nil {
		t.Fatal(err)
	}
	p := &Permissions{}
	for host, want := range map[string]bool{"go.dev": true, "pkg.go.dev": true, "notgo.dev": false, "go.dev.evil.com": false, "GO.DEV.": false} {
		if got := p.allows(r, hostTarget{host: host}); got != want {
			t.Errorf("%s matches host %q = %v, want %v", r, host, got, want)
		}
	}
}

// TestNormalHost checks that every literal form of an address is
// written one way.
func TestNormalHost(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"LOCALHOST": "127.0.0.1", "a.localhost": "127.0.0.1", "2130706433": "127.0.0.1",
		"0177.0.0.1": "127.0.0.1", "0x7f.1": "127.0.0.1", "127.1": "127.0.0.1", "::ffff:127.0.0.1": "127.0.0.1", "[::1]": "::1",
		"Go.Dev.": "go.dev", "256.1.1.1": "256.1.1.1", "1.2.3.4.5": "1.2.3.4.5"} {
		if got := normalHost(in); got != want {
			t.Errorf("normalHost(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRuleFile checks that saved rules are read back, that other rules in
// the file are kept, and that a malformed file is reported with its name
// and line or rule.
func TestRuleFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "sub", "permissions.json")
	loadRuleFile := func(file string) (allow, deny []Rule, err error) { // as minicode reads it at start
		layer, err := ruleLayer(file, false)
		if err != nil {
			return nil, nil, err
		}
		p, err := newPermissions(PermissionConfig{Workspace: dir, Settings: mergeSettings([]Settings{layer}, dir, true).ruleSets})
		if err != nil {
			return nil, nil, err
		}
		return p.allow, p.deny, nil
	}
	for _, r := range []struct {
		text  string
		allow bool
	}{{"Edit(src/a.go)", true}, {"run_command(rm -rf build)", false}, {"Edit(src/a.go)", true}} {
		rule, err := parseRule(r.text, "test")
		if err != nil {
			t.Fatal(err)
		}
		if err := addToRuleFile(file, rule, r.allow); err != nil {
			t.Fatalf("addToRuleFile: %v", err)
		}
	}
	allow, deny, err := loadRuleFile(file)
	if err != nil {
		t.Fatalf("loadRuleFile: %v", err)
	}
	if len(allow) != 1 || allow[0].String() != "Edit(src/a.go)" || len(deny) != 1 || deny[0].String() != "run_command(rm -rf build)" {
		t.Errorf("loaded allow %v deny %v, want [Edit(src/a.go)] and [run_command(rm -rf build)]", allow, deny)
	}
	if allow[0].Source != file {
		t.Errorf("source = %q, want %q", allow[0].Source, file)
	}

	bad := []struct{ content, want string }{
		{"{\n  \"allow\": [\"read_file(\"]\n}", "missing closing parenthesis"},
		{"{\n  \"allow\": [\n    1\n  ]\n}", "line 3: "},
		{"{\n  \"allow\": [],\n  \"alow\": []\n}", "alow"},
		{"{\n  \"allow\": [,]\n}", "line 2: "},
	}
	for i, b := range bad {
		path := filepath.Join(dir, "bad"+string(rune('a'+i))+".json")
		if err := os.WriteFile(path, []byte(b.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := loadRuleFile(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), b.want) {
			t.Errorf("loadRuleFile(%q) error = %v, want one naming the file and %q", b.content, err, b.want)
		}
	}
	if allow, deny, err := loadRuleFile(filepath.Join(dir, "missing.json")); err != nil || allow != nil || deny != nil {
		t.Errorf("loadRuleFile(missing) = %v, %v, %v; want no rules and no error", allow, deny, err)
	}
	empty := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(empty, []byte(" \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := addToRuleFile(empty, Rule{Tool: "read_file"}, true); err != nil {
		t.Errorf("addToRuleFile to an empty file: %v", err)
	}
	if allow, _, err := loadRuleFile(empty); err != nil || len(allow) != 1 {
		t.Errorf("after adding to an empty file: allow %v, error %v; want the one rule", allow, err)
	}
}

// TestRulePaths checks where each form of a rule's path starts: Claude
// Code's / at the settings file's project, // and minicode's / at the
// root, ~/ at home, a bare name at any depth.
func TestRulePaths(t *testing.T) {
	t.Parallel()
	tests := []struct{ rule, root, want string }{
		{"Read(/secrets/**)", "/proj", "/proj/secrets/**"},
		{"Edit(/src/)", "/proj", "/proj/src/**"},
		{"Read(/secrets/**)", "", "/ws/secrets/**"},
		{"Read(//etc/*)", "/proj", "/etc/*"},
		{"read_file(/etc/*)", "/proj", "/etc/*"},
		{"Read(~/.aws/**)", "", "/home/u/.aws/**"},
		{"Read(./secrets/**)", "/proj", "/proj/secrets/**"},
		{"Read(*.env)", "", "/ws/**/*.env"},
		{"Read(../other/x)", "", "/other/x"},
	}
	for _, tt := range tests {
		r, err := parseRule(tt.rule, "settings.json")
		if err != nil {
			t.Fatal(err)
		}
		r.Root = tt.root
		if got := r.pathGlob("/ws", "/home/u"); got != tt.want {
			t.Errorf("%s from %s: glob %q, want %q", tt.rule, tt.root, got, tt.want)
		}
	}
}

// TestWarnUnknownTools checks that a rule naming no tool is reported.
func TestWarnUnknownTools(t *testing.T) {
	t.Parallel()
	var notices []string
	p, err := newPermissions(PermissionConfig{Workspace: t.TempDir(), Notice: func(s string) { notices = append(notices, s) },
		Settings: []RuleSet{{Source: "settings.json", Deny: []string{"Bsh(curl:*)", "Bash(curl:*)", "mcp__gh", "Read(x)", "WebSearch"}}}})
	if err != nil {
		t.Fatal(err)
	}
	p.WarnUnknownTools([]string{"run_command", "read_file", "web_search"})
	if len(notices) != 1 || !strings.Contains(notices[0], "Bsh(curl:*) (settings.json) names no known tool") {
		t.Errorf("notices = %q, want one about Bsh(curl:*)", notices)
	}
}

// TestDenyFolders checks which Read, Edit and Write deny rules the sandbox enforces.
func TestDenyFolders(t *testing.T) {
	t.Parallel()
	sets := []RuleSet{{Source: "/p/.claude/settings.json", Project: "/p", Deny: []string{"Read(./secrets/**)", "Read(*.env)", "Read(~/.kube/**)",
		"Edit(./x)", "Edit(./y/**)", "Write(./docs/*.md)", "edit_file(**/*.go)", "Bash(curl:*)", "Read"}}}
	for _, tc := range []struct {
		write bool
		want  []string
	}{{false, []string{"/p/secrets", "/home/u/.kube", "/etc/shadow", "/srv/keys"}}, {true, []string{"/p/y", "/p/docs", "/srv/out"}}} {
		got, _ := denyFolders(sets, []string{"Read(//etc/shadow),read_file(/srv/keys/*.pem),Edit(//srv/out/**)"}, "/p", "/home/u", tc.write)
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("DenyFolders(write %v) = %q, want %q", tc.write, got, tc.want)
		}
	}
}

// TestClaudeToolNamesInRulesAndLists checks that one table gives Claude
// Code's tool names their meaning as rules (Read and Edit cover every
// reading or writing tool) and in hooks and tool lists (the tools the
// name stands for).
func TestClaudeToolNamesInRulesAndLists(t *testing.T) {
	cases := []struct {
		name, tool   string
		access       Access
		rule, listed bool
	}{
		{"Read", "read_file", AccessRead, true, true},
		{"Read", "grep_files", AccessRead, true, false},
		{"Write", "edit_file", AccessWrite, true, false},
		{"Edit", "patch_file", AccessWrite, true, true},
		{"NotebookEdit", "write_file", AccessWrite, true, false},
		{"Bash", "run_command", AccessExecute, true, true},
		{"Bash", "command_output", AccessRead, false, true},
		{"Glob", "glob_files", AccessRead, true, true},
		{"Task", "task", AccessRead, true, true},
		{"Skill", "load_skill", AccessRead, false, true},
		{"WebFetch", "web_search", AccessNetwork, false, false},
	}
	for _, tc := range cases {
		r, err := parseRule(tc.name, "test")
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", tc.name, err)
		}
		if got := r.matchesTool(tc.tool, tc.access); got != tc.rule {
			t.Errorf("rule %q covers %q = %v, want %v", tc.name, tc.tool, got, tc.rule)
		}
		if got := slices.Contains(toolNamesFor(tc.tool), tc.name); got != tc.listed {
			t.Errorf("hooks: %q answers to %q = %v, want %v", tc.tool, tc.name, got, tc.listed)
		}
		if got := slices.Contains(minicodeToolNames(tc.name), tc.tool); got != tc.listed {
			t.Errorf("tool lists: %q stands for %q = %v, want %v", tc.name, tc.tool, got, tc.listed)
		}
	}
}
