package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// demoVolatile matches what changes between runs of the same request:
// ids, times and temporary paths.
var demoVolatile = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`), "<id>"},
	{regexp.MustCompile(`msg_[0-9a-f]+`), "msg_<id>"},
	{regexp.MustCompile(`"(duration_ms|duration_api_ms)":\d+`), `"$1":0`},
	// The prompt and some replies name temporary paths, whose length varies.
	{regexp.MustCompile(`"(input_tokens|inputTokens|output_tokens|outputTokens)":\d+`), `"$1":0`},
	{regexp.MustCompile(`\(context: .*\)`), "(context: <usage>)"},
	{regexp.MustCompile(`[A-Z][a-z]{2} \d{1,2} \d\d:\d\d`), "<time>"},
	{regexp.MustCompile(`"timestamp":"[^"]+"`), `"timestamp":"<time>"`},
	{regexp.MustCompile(`<home>/projects/[^/]+/`), "<home>/projects/<workspace>/"},
}

// normaliseRun replaces the workspace, the home and the volatile parts,
// and drops the init event, which describes the machine's sandbox.
func normaliseRun(out, ws, home string) string {
	out = regexp.MustCompile(`(?m)^\{"type":"system","subtype":"init".*\n`).ReplaceAllString(out, "")
	out = strings.ReplaceAll(strings.ReplaceAll(out, home, "<home>"), ws, "<ws>")
	for _, v := range demoVolatile {
		out = v.re.ReplaceAllString(out, v.with)
	}
	return out
}

func TestDemoRequestsGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the binary many times")
	}
	t.Parallel()
	cases := []struct {
		name, stdin string
		args        []string
	}{
		{"list", "", []string{"-p", "list files"}},
		{"unknown", "", []string{"-p", "write me a poem about files"}},
		{"chain", "", []string{"-p", "find TODO and show me the first file"}},
		{"error", "", []string{"-p", "demo error"}},
		{"big_output", "", []string{"-p", "demo big output", "--allowedTools", "run_command"}},
		{"permissions", "", []string{"-p", "demo permissions", "--allowedTools", "write_file,run_command"}},
		{"denied", "", []string{"-p", "demo permissions"}}, // Claude Code's names in the tool_use blocks and permission_denials
		{"resume", "", []string{"-p", "demo resume"}},
		{"help", "", []string{"-p", "help"}},
		{"ask", "ask me something\nblue\n/exit\n", nil},
		{"todo", "", []string{"-p", "demo todo"}},
		{"plan", "", []string{"-p", "demo plan", "--permission-mode", "plan"}},
		{"plan_approved", "demo plan\ng and add a test\na\n/exit\n", []string{"--permission-mode", "plan"}},
		{"rewind", "demo rewind\ndemo rewind\n/rewind\n/rewind 2\nf\ny\nread rewind-demo.txt\n/exit\n", []string{"--permission-mode", "acceptEdits", "--allowedTools", "run_command"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := workspaceWith(t, map[string]string{"main.go": "package main\n\n// TODO: say hello\nfunc main() {}\n", "notes.txt": "blue sky\n"})
			home := t.TempDir()
			args := append([]string{"--provider", "mock", "--workspace", ws}, tc.args...)
			if tc.stdin == "" {
				args = append(args, "--output-format", "stream-json")
			}
			r := runMinicode(t, []string{"MINICODE_HOME=" + home}, tc.stdin, args...)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			checkGolden(t, filepath.Join("testdata", "demo", tc.name+".txt"), normaliseRun(r.stdout, ws, home))
		})
	}
}

func TestDemoJSONIsStableAcrossRuns(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"main.go": "package main\n"})
	var runs []string
	for range 2 {
		home := t.TempDir()
		r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "list files", "--provider", "mock", "--output-format", "json", "--workspace", ws)
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		runs = append(runs, normaliseRun(r.stdout, ws, home))
	}
	if runs[0] != runs[1] {
		t.Errorf("two runs differ beyond ids and times:\n%q\n%q", runs[0], runs[1])
	}
}

func TestDemoDelaySetting(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"main.go": "package main\n"})
	r := runMinicode(t, []string{"MINICODE_DEMO_DELAY=1ms"}, "", "-p", "explain yourself", "--provider", "mock", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "deterministic demo model") {
		t.Errorf("with a delay: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runMinicode(t, []string{"MINICODE_DEMO_DELAY=soon"}, "", "-p", "help", "--provider", "mock", "--workspace", ws)
	if r.code == 0 || !strings.Contains(r.stderr, "MINICODE_DEMO_DELAY") {
		t.Errorf("a bad delay: exit %d, stderr %q, want a usage error naming the variable", r.code, r.stderr)
	}
}

// TestDemosReportWhatHappened runs the demos where what they say depends on what happened:
// denied calls are reported as denied, with what allows them; a session kept in memory says
// it cannot be resumed and where saved ones go; demo permissions leaves no file behind.
func TestDemosReportWhatHappened(t *testing.T) {
	t.Parallel()
	n := newNewcomer(t)
	writeFile(t, filepath.Join(n.ws, "main.go"), "package main\n")
	r := n.mustRun(0, "-p", "demo big output", "--provider", "mock", "--output-format", "json")
	for _, want := range []string{"The permission check refused 7 of my 7 calls, so they did not run", "--allowedTools", `"permission_denials":[{`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo big output without the rule: %q lacks %q", r.stdout, want)
		}
	}
	if strings.Contains(r.stdout, "stored the largest on disk") {
		t.Errorf("demo big output claims outputs that were never made: %q", r.stdout)
	}
	journals := filepath.Join(n.home, ".minicode", "projects")
	r = n.mustRun(0, "-p", "demo resume", "--provider", "mock", "--no-session-persistence")
	if !strings.Contains(r.stdout, "This conversation is not saved: the session is kept in memory only (--no-session-persistence)") || !strings.Contains(r.stdout, journals) {
		t.Errorf("demo resume in memory: %q, want it not saved and the folder %s", r.stdout, journals)
	}
	r = n.mustRun(0, "-p", "demo resume", "--provider", "mock")
	if !strings.Contains(r.stdout, "its journal, "+journals+"/") || !strings.Contains(r.stdout, "--resume ") {
		t.Errorf("demo resume: %q, want the journal under %s", r.stdout, journals)
	}
	n.mustRun(0, "-p", "demo permissions", "--provider", "mock", "--allowedTools", "write_file,run_command")
	if _, err := os.Stat(filepath.Join(n.ws, "minicode-demo.txt")); err == nil {
		t.Error("demo permissions left minicode-demo.txt in the workspace")
	}
	if r = n.mustRun(0, "-p", "demo plan", "--provider", "mock"); !strings.Contains(r.stdout, "with -p, add --permission-mode plan") {
		t.Errorf("demo plan outside plan mode with -p: %q, want the flag that turns plan mode on", r.stdout)
	}
	n = newNewcomer(t)
	writeFile(t, filepath.Join(n.home, ".minicode", "tool-results"), "a file where the folder should be, as storing fails on a full disk")
	r = n.mustRun(0, "-p", "demo big output", "--provider", "mock", "--allowedTools", "run_command")
	if strings.Contains(r.stdout, "stored the largest on disk") || !strings.Contains(r.stdout, "storing it failed: ") {
		t.Errorf("demo big output when storing fails: %q, want it to say so", r.stdout)
	}
}

// TestCompactShowsAndExportMarksTheSummary runs /compact in line mode, which prints the summary
// it made, and /export, which marks the compaction with the summary where it happened.
func TestCompactShowsAndExportMarksTheSummary(t *testing.T) {
	t.Parallel()
	n := newNewcomer(t)
	writeFile(t, filepath.Join(n.ws, "main.go"), "package main\n// TODO: x\n")
	r := n.run("read main.go\nsearch for TODO\nlist files\n/compact\n/export out.md\n", "--provider", "mock")
	if !strings.Contains(r.stdout, "compaction (manual) saved ") || !strings.Contains(r.stdout, "<summary>\nRequest: read main.go\n") {
		t.Errorf("/compact did not show its summary:\n%s", r.stdout)
	}
	data, err := os.ReadFile(filepath.Join(n.ws, "out.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "*compaction: the model's view changed here; every message stays in this transcript*\n\n```\n[minicode context: ") {
		t.Errorf("the export does not mark the compaction:\n%s", data)
	}
}
