package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The built binary, shared by the tests that run minicode as a process.
var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// minicodeBinary builds minicode once per test run and returns its path.
func minicodeBinary(t testing.TB) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "minicode-bin")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "minicode")
		out, err := exec.Command("go", "build", "-o", binaryPath, ".").CombinedOutput()
		if err != nil {
			binaryErr = errors.New(string(out))
		}
	})
	if binaryErr != nil {
		t.Fatalf("building minicode: %v", binaryErr)
	}
	return binaryPath
}

// removeMinicodeBinary deletes the binary built by minicodeBinary, if
// any; TestMain calls it when all tests are done.
func removeMinicodeBinary() {
	if binaryPath != "" {
		os.RemoveAll(filepath.Dir(binaryPath))
	}
}

// runResult is what a minicode process did.
type runResult struct {
	stdout, stderr string
	code           int
}

// runMinicode runs the binary in a fresh home and workspace with only the
// given environment, feeding stdin.
func runMinicode(t *testing.T, env []string, stdin string, args ...string) runResult {
	t.Helper()
	return runIn(t, "", append([]string{"HOME=" + t.TempDir(), "MINICODE_HOME=" + t.TempDir()}, env...), stdin, args...)
}

// runIn runs the binary in dir ("": this one) with only PATH and the given environment, feeding stdin.
func runIn(t *testing.T, dir string, env []string, stdin string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(minicodeBinary(t), args...)
	cmd.Env, cmd.Dir = append([]string{"PATH=" + os.Getenv("PATH")}, env...), dir
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{stdout.String(), stderr.String(), code}
}

// workspaceWith makes a workspace holding the given files.
func workspaceWith(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for name, content := range files {
		writeFile(t, filepath.Join(ws, name), content)
	}
	return ws
}

func TestHeadlessJSONWithDemoModel(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"main.go": "package main\n", "docs/guide.md": "# Guide\n"})
	r := runMinicode(t, nil, "", "-p", "list files", "--output-format", "json", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %q", r.stdout)
	}
	for _, key := range []string{"type", "subtype", "is_error", "result", "session_id", "num_turns", "duration_ms", "usage"} {
		if _, ok := got[key]; !ok {
			t.Errorf("result lacks %q: %s", key, r.stdout)
		}
	}
	if got["type"] != "result" || got["subtype"] != "success" || got["is_error"] != false || got["num_turns"] != 2.0 {
		t.Errorf("result = %s, want a success after 2 turns", r.stdout)
	}
	result, _ := got["result"].(string)
	if !strings.Contains(result, "main.go") || !strings.Contains(result, "docs/") {
		t.Errorf("result %q does not list the workspace", result)
	}
	usage, _ := got["usage"].(map[string]any)
	if usage["input_tokens"].(float64) <= 0 || usage["output_tokens"].(float64) <= 0 {
		t.Errorf("usage = %v, want token counts", usage)
	}
}

// writeScript stores a mock script and returns its path.
func writeScript(t *testing.T, replies string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.json")
	writeFile(t, path, replies)
	return path
}

func TestHeadlessStreamJSON(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"notes.txt": "alpha\nbeta\n"})
	script := writeScript(t, `[
		{"thinking":"Read the notes.","text":"Reading.","tool_calls":[{"id":"t1","name":"read_file","input":{"path":"notes.txt"}}]},
		{"text":"The notes say alpha and beta."}
	]`)
	r := runMinicode(t, nil, "", "-p", "summarise the notes", "--output-format", "stream-json", "--provider", "mock", "--mock-script", script, "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("line %q is not JSON", sc.Text())
		}
		lines = append(lines, v)
	}
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l["type"].(string))
	}
	if got, want := strings.Join(kinds, ","), "system,assistant,user,assistant,result"; got != want {
		t.Fatalf("line types = %s, want %s", got, want)
	}
	if lines[0]["subtype"] != "init" || lines[0]["session_id"] != lines[4]["session_id"] {
		t.Errorf("init line = %v", lines[0])
	}
	toolResult := lines[2]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	if toolResult["tool_use_id"] != "t1" || !strings.Contains(toolResult["content"].(string), "alpha") {
		t.Errorf("user line = %v, want the read_file result", lines[2])
	}
	if lines[4]["result"] != "The notes say alpha and beta." || lines[4]["num_turns"] != 2.0 {
		t.Errorf("result line = %v", lines[4])
	}
}

func TestHeadlessExitCodes(t *testing.T) {
	t.Parallel()
	loop := `[{"tool_calls":[{"name":"list_files"}]},{"tool_calls":[{"name":"list_files"}]},{"tool_calls":[{"name":"list_files"}]}]`
	cases := []struct {
		name        string
		args        []string
		stdin       string
		wantCode    int
		wantStdout  string
		wantStderr  string
		wantSubtype string
	}{
		{name: "text answer", args: []string{"-p", "help"}, wantCode: 0, wantStdout: "I am minicode's offline demo model"},
		{name: "task on stdin", args: []string{"-p"}, stdin: "help\n", wantCode: 0, wantStdout: "I understand these requests"},
		{name: "max turns", args: []string{"-p", "go", "--max-turns", "2", "--output-format", "json", "--mock-script", writeScript(t, loop)},
			wantCode: 1, wantSubtype: "error_max_turns"},
		{name: "model error", args: []string{"-p", "go", "--output-format", "json", "--mock-script", writeScript(t, `[{"error":"model exploded"}]`)},
			wantCode: 1, wantSubtype: "error_during_execution"},
		{name: "unknown flag", args: []string{"--frobnicate"}, wantCode: 2, wantStderr: "minicode: unknown flag --frobnicate\nRun"},
		{name: "bad output format", args: []string{"-p", "x", "--output-format", "yaml"}, wantCode: 2, wantStderr: `unknown --output-format "yaml"`},
		{name: "empty task", args: []string{"-p"}, wantCode: 2, wantStderr: "-p needs a task"},
		{name: "bad permission mode", args: []string{"-p", "x", "--permission-mode", "yolo"}, wantCode: 2, wantStderr: `unknown permission mode "yolo"`},
		{name: "missing extra folder", args: []string{"-p", "x", "--add-dir", "/nonexistent/minicode"}, wantCode: 2, wantStderr: "additional folder /nonexistent/minicode is not a folder"},
		{name: "version", args: []string{"--version"}, wantCode: 0, wantStdout: "minicode " + version},
		{name: "max turns not a number", args: []string{"-p", "x", "--max-turns", "abc"}, wantCode: 2, wantStderr: `invalid value "abc" for flag --max-turns`},
		{name: "missing workspace", args: []string{"-p", "x", "--workspace", "/nonexistent/minicode"}, wantCode: 2,
			wantStderr: "minicode: workspace /nonexistent/minicode is not a folder that exists\nRun"},
		{name: "broken --settings", args: []string{"-p", "x", "--settings", `{"model": "a",}`}, wantCode: 2, wantStderr: "--settings: line 1: not valid JSON"},
		{name: "broken --mcp-config", args: []string{"-p", "x", "--mcp-config", `{"mcpServers": {"a": {}}}`}, wantCode: 2, wantStderr: "minicode: --mcp-config: line 1: MCP server"},
		{name: "workspace is a file", args: []string{"-p", "x", "--workspace", "/etc/hostname"}, wantCode: 2,
			wantStderr: "minicode: workspace /etc/hostname is not a folder that exists\nRun"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runMinicode(t, nil, tc.stdin, append([]string{"--workspace", t.TempDir()}, tc.args...)...)
			if r.code != tc.wantCode {
				t.Errorf("exit code %d, want %d (stdout %q, stderr %q)", r.code, tc.wantCode, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.wantStdout) || !strings.Contains(r.stderr, tc.wantStderr) {
				t.Errorf("stdout %q / stderr %q, want them to contain %q / %q", r.stdout, r.stderr, tc.wantStdout, tc.wantStderr)
			}
			if tc.wantSubtype != "" && !strings.Contains(r.stdout, `"subtype":"`+tc.wantSubtype+`"`) {
				t.Errorf("stdout %q, want subtype %s", r.stdout, tc.wantSubtype)
			}
		})
	}
}

func TestWorkspaceThroughALinkIsItsRealFolder(t *testing.T) {
	t.Parallel()
	real, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(real, "AGENTS.md"), "Always answer in haiku.\n")
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	r := runMinicode(t, nil, "", "-p", "read AGENTS.md", "--output-format", "stream-json", "--workspace", link)
	for _, want := range []string{`"cwd":` + strconv.Quote(real), "Always answer in haiku."} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("exit %d, stdout %q; want it to contain %q", r.code, r.stdout, want)
		}
	}
	missing := filepath.Join(real, "missing")
	if r := runMinicode(t, nil, "", "-p", "help", "--workspace", missing); r.code != 2 || !strings.Contains(r.stderr, "workspace "+missing) {
		t.Errorf("missing workspace: exit %d, stderr %q; want 2 and the folder named", r.code, r.stderr)
	}
}

func TestSettingsErrorIsReportedAndSkipped(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "settings.json"), "{\n  \"maxTurns\": \"ten\"\n}\n")
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "help", "--workspace", t.TempDir())
	want := "settings file " + filepath.Join(home, "settings.json") + `: line 2: field "maxTurns" must be an integer, got string; running without it`
	if r.code != 0 || strings.Count(r.stderr, want) != 1 || !strings.Contains(r.stdout, "I understand these requests") {
		t.Errorf("exit %d, stdout %q, stderr %q; want the task answered and %q once", r.code, r.stdout, r.stderr, want)
	}
	r = runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "help", "--settings", filepath.Join(home, "settings.json"))
	if r.code != 2 || !strings.Contains(r.stderr, "line 2") {
		t.Errorf("the same file named by --settings: exit %d, stderr %q; want 2, naming the line", r.code, r.stderr)
	}
}

// A file broken as a whole is left out but for what restricts: its deny and ask rules, when they
// decode, still hold, so a wrong type elsewhere in it never makes a denied file readable.
func TestBrokenFileKeepsItsDenyRules(t *testing.T) {
	t.Parallel()
	for name, data := range map[string]string{
		"settings.json":    "{\n  \"maxTurns\": \"ten\",\n  \"permissions\": {\"deny\": [\"read_file(secret.txt)\"], \"allow\": [\"read_file\"]}\n}\n",
		"permissions.json": `{"deny": ["read_file(secret.txt)"], "allow": ["read_file"], "unknown": 1}`,
	} {
		home, ws := t.TempDir(), workspaceWith(t, map[string]string{"secret.txt": "the secret\n"})
		writeFile(t, filepath.Join(home, name), data)
		r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "read secret.txt", "--workspace", ws)
		if strings.Contains(r.stdout, "the secret") || !strings.Contains(r.stderr, filepath.Join(home, name)) || !strings.Contains(r.stderr, "running without it but for its deny and ask rules") {
			t.Errorf("%s: stdout %q, stderr %q; want the read denied and the file reported as kept for its deny rules", name, r.stdout, r.stderr)
		}
	}
}

func TestLineModeRunsTasksLineByLine(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"hello.txt": "hi there\n"})
	r := runMinicode(t, nil, "read hello.txt\n/tools\nexplain \\\nyourself\n/exit\nnever reached\n", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"offline demo model is answering",
		"→ read_file {\"path\":\"hello.txt\"}",
		"hi there",
		"read_file",
		"I am a deterministic demo model",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("line mode output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("line mode printed terminal escapes")
	}
	if strings.Contains(r.stdout, "did not understand") {
		t.Errorf("input after /exit was run")
	}
}

func TestHeadlessDenialNamesTheFlag(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"notes.txt": "alpha\n"})
	r := runMinicode(t, nil, "", "-p", "run touch hello", "--output-format", "json", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0: the model answered, the denial is listed (stderr %q)", r.code, r.stderr)
	}
	var res struct {
		Subtype string   `json:"subtype"`
		IsError bool     `json:"is_error"`
		Result  string   `json:"result"`
		Denials []Denial `json:"permission_denials"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if res.IsError || res.Subtype != "success" || len(res.Denials) != 1 || res.Denials[0].Tool != "Bash" {
		t.Fatalf("result = %+v, want success with one Bash denial", res)
	}
	if !strings.Contains(res.Denials[0].Reason, "--allowedTools") || !strings.Contains(res.Result, "--allowedTools") {
		t.Errorf("denial %q / result %q do not name the flag that allows it", res.Denials[0].Reason, res.Result)
	}
	r = runMinicode(t, nil, "", "-p", "run touch hello", "--allowedTools", "run_command(touch:*)", "--workspace", ws)
	if _, err := os.Stat(filepath.Join(ws, "hello")); r.code != 0 || err != nil {
		t.Errorf("with the rule: exit %d, stdout %q; want the command's output", r.code, r.stdout)
	}
}

func TestLineModeAsksBeforeEditing(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"notes.txt": "alpha\nbeta\n"})
	input := "replace beta with gamma in notes.txt\ny\ncreate other.txt with hi\nn\n"
	r := runMinicode(t, nil, input, "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{"Permission needed: edit notes.txt (+1 -1 lines)", "-beta", "+gamma", "Permission needed: create other.txt"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "notes.txt")); string(data) != "alpha\ngamma\n" {
		t.Errorf("notes.txt = %q, want the approved edit applied", data)
	}
	if _, err := os.Stat(filepath.Join(ws, "other.txt")); err == nil {
		t.Errorf("other.txt was created though the write was rejected")
	}
}

// TestUnwritableHomeStillRuns runs minicode with a MINICODE_HOME that cannot be made (in /proc, where
// not even root can make a folder): it says that nothing is saved and answers, as the README says,
// instead of stopping before it starts.
func TestUnwritableHomeStillRuns(t *testing.T) {
	t.Parallel()
	home := "/proc/minicode-cannot-be-made/home"
	if err := os.MkdirAll(home, 0o700); err == nil || !os.IsNotExist(err) {
		t.Skipf("%s can be made here (%v)", home, err)
	}
	ws := workspaceWith(t, map[string]string{"main.go": "package main\n"})
	r := runIn(t, ws, []string{"HOME=" + t.TempDir(), "MINICODE_HOME=" + home}, "", "-p", "list files")
	if r.code != 0 || !strings.Contains(r.stdout, "main.go") || !strings.Contains(r.stderr, "not being saved") {
		t.Errorf("exit %d\nstdout %q\nstderr %q", r.code, r.stdout, r.stderr)
	}
}
