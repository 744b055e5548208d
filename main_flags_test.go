package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestSplitRuleList(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Read,Edit", []string{"Read", "Edit"}},
		{"Read Edit", []string{"Read", "Edit"}},
		{"Bash(go test:*) Read", []string{"Bash(go test:*)", "Read"}},
		{"Bash(git log:*), Bash(git diff:*),  Read", []string{"Bash(git log:*)", "Bash(git diff:*)", "Read"}},
		{"run_command(go test:*),read_file", []string{"run_command(go test:*)", "read_file"}},
		{"Bash(echo (a, b))", []string{"Bash(echo (a, b))"}},
		{"  ", nil},
	}
	for _, tc := range cases {
		if got := splitRuleList(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitRuleList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseClaudeCodeFlags(t *testing.T) {
	dirA, dirB := t.TempDir(), t.TempDir()
	cases := []struct {
		name string
		args []string
		want func(o Options) bool
	}{
		{"verbose stream-json", []string{"-p", "read data.txt", "--allowedTools", "Read", "--output-format", "stream-json", "--verbose"},
			func(o Options) bool {
				return o.OutputFormat == "stream-json" && o.Task == "read data.txt" && reflect.DeepEqual(o.AllowedTools, []string{"Read"})
			}},
		{"repeated and spaced rule lists", []string{"-p", "x", "--allowedTools", "Bash(go test:*) Read", "--allowed-tools=Edit", "--disallowed-tools", "WebFetch,Bash(rm:*)", "--disallowedTools", "Write"},
			func(o Options) bool {
				return reflect.DeepEqual(o.AllowedTools, []string{"Bash(go test:*)", "Read", "Edit"}) &&
					reflect.DeepEqual(o.DisallowedTools, []string{"WebFetch", "Bash(rm:*)", "Write"}) && o.Task == "x"
			}},
		{"variadic rules stop at the task", []string{"-p", "--allowedTools", "Read", "Bash(git log:*)", "fix the bug"},
			func(o Options) bool {
				return reflect.DeepEqual(o.AllowedTools, []string{"Read", "Bash(git log:*)"}) && o.Task == "fix the bug"
			}},
		{"add-dir takes several folders", []string{"--add-dir", dirA, dirB, "-p", "go"},
			func(o Options) bool { return reflect.DeepEqual(o.AddDirs, []string{dirA, dirB}) && o.Task == "go" }},
		{"add-dir stops at a task", []string{"-p", "--add-dir", dirA, "list files"},
			func(o Options) bool { return reflect.DeepEqual(o.AddDirs, []string{dirA}) && o.Task == "list files" }},
		{"prompts and models", []string{"-p", "x", "--system-prompt", "Be terse.", "--append-system-prompt=Use Go.", "--model", "sonnet", "--fallback-model", "haiku"},
			func(o Options) bool {
				return o.SystemPrompt == "Be terse." && o.AppendSystemPrompt == "Use Go." && o.Model == "sonnet" && o.FallbackModel == "haiku"
			}},
		{"skip permissions", []string{"-p", "x", "--dangerously-skip-permissions"},
			func(o Options) bool { return o.PermissionMode == "bypassPermissions" }},
		{"settings, mcp config, strict, debug", []string{"-p", "x", "--settings", `{"model":"m"}`, "--mcp-config", `{"mcpServers":{}}`, "--strict-mcp-config", "--debug"},
			func(o Options) bool {
				return reflect.DeepEqual(o.Settings, []string{`{"model":"m"}`}) && reflect.DeepEqual(o.MCPConfig, []string{`{"mcpServers":{}}`}) && o.StrictMCPConfig && o.Debug
			}},
		{"debug with a filter", []string{"-p", "x", "--debug=api,mcp"}, func(o Options) bool { return o.Debug && o.Task == "x" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, _, err := parseFlags(tc.args, io.Discard)
			if err != nil {
				t.Fatalf("parseFlags(%q): %v", tc.args, err)
			}
			if !tc.want(o) {
				t.Errorf("parseFlags(%q) = %+v", tc.args, o)
			}
		})
	}
}

func TestFlagErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{"-frobnicate=1"}, "unknown flag --frobnicate"},
		{[]string{"-p", "x", "--model"}, "flag --model needs a value"},
	}
	for _, tc := range cases {
		var stderr strings.Builder
		_, _, err := parseFlags(tc.args, &stderr)
		if err == nil || err.Error() != tc.want {
			t.Errorf("parseFlags(%q) error = %v, want %q", tc.args, err, tc.want)
		}
		if stderr.Len() > 0 {
			t.Errorf("parseFlags(%q) printed %q; a usage error is reported once, without the help", tc.args, stderr.String())
		}
	}
}

func TestResolveModelAlias(t *testing.T) {
	// Claude Code's model configuration: on the Anthropic API opus is Opus 4.8, sonnet Sonnet 5.
	cases := map[string]string{
		"sonnet": "claude-sonnet-5", "opus": "claude-opus-4-8", "haiku": "claude-haiku-4-5", "fable": "claude-fable-5",
		"default": "claude-sonnet-5", "best": "claude-fable-5", "opusplan": "opusplan",
		"sonnet-latest": "claude-sonnet-5", "claude-opus-latest": "claude-opus-4-8", "opus[1m]": "claude-opus-4-8[1m]",
		"claude-sonnet-4-5": "claude-sonnet-4-5", "gpt-4.1": "gpt-4.1",
	}
	for in, want := range cases {
		if got := resolveModelAlias(in); got != want {
			t.Errorf("resolveModelAlias(%q) = %q, want %q", in, got, want)
		}
	}
	for _, tc := range []struct {
		planning bool
		want     string
	}{{true, "claude-opus-4-8"}, {false, "claude-sonnet-5"}} {
		if got := modelForMode("opusplan", tc.planning); got != tc.want {
			t.Errorf("opusplan while planning=%v = %q, want %q", tc.planning, got, tc.want)
		}
	}
}

func TestModelTable(t *testing.T) {
	cases := []struct {
		model       string
		window, out int
		known       bool
	}{
		{"claude-opus-4-8", 1_000_000, 128_000, true},
		{"claude-sonnet-4-5", 200_000, 64_000, true},
		{"claude-sonnet-4-5[1m]", 1_000_000, 64_000, true},
		{"claude-haiku-4-5-20251001", 200_000, 64_000, true},
		{"opusplan", 1_000_000, 128_000, true},
		{"gpt-5.5", 1_050_000, 128_000, true},
		{"openai/gpt-4o", 128_000, 16_384, true},
		{"gemini-2.5-flash", 1_048_576, 65_536, true},
		{"qwen3-coder:30b", 262_144, 65_536, true},
		{"some-new-model", 128_000, 8_192, false},
	}
	for _, tc := range cases {
		got := limitsFor(tc.model, nil)
		if _, n := tableEntry(tc.model); got.ContextWindow != tc.window || got.MaxOutput != tc.out || (n > 0) != tc.known {
			t.Errorf("%s: limits %+v (known %v), want %d and %d (known %v)", tc.model, got, n > 0, tc.window, tc.out, tc.known)
		}
	}
}

func TestCostUSD(t *testing.T) {
	cases := []struct {
		model string
		usage Usage
		want  float64
	}{
		{"claude-opus-4-8", Usage{InputTokens: 4000, OutputTokens: 80}, 0.022},
		{"claude-sonnet-4-5", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 18},
		{"claude-sonnet-4-5", Usage{CacheCreationInputTokens: 1_000_000, CacheReadInputTokens: 1_000_000}, 3*1.25 + 0.3},
		{"claude-haiku-4-5", Usage{InputTokens: 1_000_000, OutputTokens: 1_000_000}, 6},
		{"claude-fable-5", Usage{InputTokens: 1_000_000}, 10},
		{"mock", Usage{InputTokens: 1000}, 0},
	}
	for _, tc := range cases {
		if got := costUSD(tc.model, tc.usage); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("costUSD(%q, %+v) = %v, want %v", tc.model, tc.usage, got, tc.want)
		}
	}
}

func TestAddDirAndDontAsk(t *testing.T) {
	ws, extra, outside := t.TempDir(), t.TempDir(), t.TempDir()
	cases := []struct {
		mode PermissionMode
		req  PermissionRequest
		want verdict
	}{
		{ModeDefault, PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{extra + "/a.go"}}, verdictAllow},
		{ModeDefault, PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{outside + "/a.go"}}, verdictAsk},
		{ModeAcceptEdits, PermissionRequest{Tool: "write_file", Access: AccessWrite, Paths: []string{extra + "/b.go"}}, verdictAllow},
		{ModeAcceptEdits, PermissionRequest{Tool: "write_file", Access: AccessWrite, Paths: []string{outside + "/b.go"}}, verdictAsk},
		{ModeDontAsk, PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{extra + "/a.go"}}, verdictAllow},
		{ModeDontAsk, PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{outside + "/a.go"}}, verdictDeny},
		{ModeDontAsk, PermissionRequest{Tool: "run_command", Access: AccessExecute, Command: "make"}, verdictDeny},
	}
	for _, tc := range cases {
		p, err := newPermissions(PermissionConfig{Mode: tc.mode, Workspace: ws, AddDirs: []string{extra}})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.decide(tc.req); got.Verdict != tc.want {
			t.Errorf("%s: %s %q = %v (%s), want %v", tc.mode, tc.req.Tool, tc.req.Paths, got.Verdict, got.Reason, tc.want)
		}
	}
}

func TestSessionFlags(t *testing.T) {
	id := "0b6c3c1e-8a8f-4e36-9d4e-5d8c2a6f1e00"
	tests := []struct {
		args    []string
		want    Options
		wantErr string
	}{
		{[]string{"--resume", id}, Options{Resume: id}, ""},
		{[]string{"--resume=" + id}, Options{Resume: id}, ""},
		{[]string{"-r", id, "-p", "next step"}, Options{Resume: id, Print: true, Task: "next step"}, ""},
		{[]string{"--resume"}, Options{ResumePick: true}, ""},
		{[]string{"--resume", "-p", "fix the bug"}, Options{ResumePick: true, Print: true, Task: "fix the bug"}, ""},
		{[]string{"-p", "--resume", "fix the bug"}, Options{ResumePick: true, Print: true, Task: "fix the bug"}, ""},
		{[]string{"-c", "-p", "go on"}, Options{Continue: true, Print: true, Task: "go on"}, ""},
		{[]string{"--continue", "--fork-session"}, Options{Continue: true, ForkSession: true}, ""},
		{[]string{"--resume", id, "--fork-session", "--session-id", id}, Options{Resume: id, ForkSession: true, SessionID: id}, ""},
		{[]string{"--session-id", id}, Options{SessionID: id}, ""},
		{[]string{"--session-id", "abc"}, Options{}, "must be a UUID"},
		{[]string{"--fork-session"}, Options{}, "needs --continue or --resume"},
		{[]string{"-c", "--resume", id}, Options{}, "either --continue or --resume"},
		{[]string{"--resume", id, "--session-id", id}, Options{}, "needs --fork-session"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, _, err := parseFlags(tt.args, &strings.Builder{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.OutputFormat = ""
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("options = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestHelpListsEverySubcommand: --help's usage names each command the package doc (the manual) names.
func TestHelpListsEverySubcommand(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	commands := regexp.MustCompile(`(?m)^//\tminicode ([a-z]+) `).FindAllSubmatch(doc, -1)
	if len(commands) < 5 {
		t.Fatalf("the package doc names %d commands; want mcp, skills, trust, acp and sandbox at least", len(commands))
	}
	for _, c := range commands {
		if !strings.Contains(usageText, "\n  minicode "+string(c[1])+" ") {
			t.Errorf("--help does not list minicode %s", c[1])
		}
	}
}

// TestToolsFlagOffersWhatItNames runs -p with --tools and reads the init event's
// tool list: the subagent and skill tools are offered only when named, like every
// other built-in tool, and naming them is no mistake.
func TestToolsFlagOffersWhatItNames(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "skills", "notes", "SKILL.md"), "---\nname: notes\ndescription: Take notes.\n---\nWrite them down.\n")
	for _, tc := range []struct{ tools, want string }{
		{"Read,LS", "Read LS"},
		{"Read,Task,Skill", "Read Skill Task"},
		{"", ""},
	} {
		r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "list files", "--provider", "mock", "--tools", tc.tools, "--output-format", "stream-json")
		var init struct{ Tools []string }
		first, _, _ := strings.Cut(r.stdout, "\n")
		if err := json.Unmarshal([]byte(first), &init); err != nil || r.code != 0 || strings.Join(init.Tools, " ") != tc.want || strings.Contains(r.stderr, "--tools") {
			t.Errorf("--tools %q: exit %d, tools %q, stderr %q; want %q and no warning", tc.tools, r.code, init.Tools, r.stderr, tc.want)
		}
	}
}

// TestOutputFormatNeedsPrintMode runs the binary with --output-format json or stream-json and no -p: the
// terminal UI and line mode print text, so it is a usage error (exit 2), not a flag silently ignored. With
// -p, or as the SDK runs it (--input-format stream-json), the format is used.
func TestOutputFormatNeedsPrintMode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"--output-format", "json"}, 2},
		{[]string{"--output-format", "stream-json", "--verbose"}, 2},
		{[]string{"--output-format", "text"}, 0},
		{[]string{"-p", "help", "--output-format", "json"}, 0},
		{sdkArgs, 0},
	} {
		r := runMinicode(t, nil, "", append([]string{"--provider", "mock", "--workspace", t.TempDir()}, tc.args...)...)
		said := strings.Contains(r.stderr, "needs -p")
		if r.code != tc.code || said != (tc.code == 2) {
			t.Errorf("minicode %q: exit %d, stderr %q; want exit %d", tc.args, r.code, r.stderr, tc.code)
		}
	}
}
