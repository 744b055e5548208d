package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// testSummary is the summary the recording server gives.
const testSummary = "Request: answer the numbered questions."

// slowCommand writes its process id to child.pid in the workspace and
// then sleeps, so a test can find it and see whether it outlives minicode.
const slowCommand = "echo $$ > child.pid; exec sleep 300"

// recordingAnthropic is an Anthropic Messages server that records each
// request's messages and answers with reply(messages), a complete event
// stream, or stalls until the client leaves when reply returns "". It
// answers requests for a summary with testSummary.
type recordingAnthropic struct {
	mu       sync.Mutex
	requests [][]Message
}

// serve starts the server.
func (s *recordingAnthropic) serve(t *testing.T, reply func([]Message) string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			System   []struct{ Text string } `json:"system"`
			Messages []Message               `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests = append(s.requests, req.Messages)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		stream := reply(req.Messages)
		if len(req.System) > 0 && req.System[0].Text == summarySystemPrompt {
			stream = anthropicTextStream("<summary>\n"+testSummary+"\n</summary>", StopEndTurn)
		}
		if stream == "" {
			fmt.Fprint(w, anthropicEvents(
				`{"type":"message_start","message":{"id":"msg_s","usage":{"input_tokens":10,"output_tokens":1}}}`,
				`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Partial answer"}}`))
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, stream)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// last returns the messages of the newest request.
func (s *recordingAnthropic) last() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return nil
	}
	return s.requests[len(s.requests)-1]
}

// lastUserText is the newest text the user typed in messages.
func lastUserText(messages []Message) string {
	for i := len(messages) - 1; i >= 0; i-- {
		for j := len(messages[i].Content) - 1; j >= 0; j-- {
			if b := messages[i].Content[j]; messages[i].Role == RoleUser && b.Type == BlockText {
				return b.Text
			}
		}
	}
	return ""
}

// sessionFiles lists the session files saved in home.
func sessionFiles(t *testing.T, home string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return paths
}

func TestKilledSessionContinuesWithUnknownOutcome(t *testing.T) {
	if testing.Short() {
		t.Skip("runs minicode and a slow command")
	}
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	script := writeScript(t, fmt.Sprintf(`[
		{"text":"Starting the server.","tool_calls":[{"id":"toolu_slow","name":"run_command","input":{"command":%q}}]},
		{"text":"unreachable"}
	]`, slowCommand))
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + home}
	first := exec.Command(minicodeBinary(t), "-p", "start the server", "--mock-script", script,
		"--permission-mode", "bypassPermissions", "--workspace", ws)
	first.Env = env
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	pid := readPid(t, filepath.Join(ws, "child.pid"))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	first.Process.Kill()
	first.Wait()
	files := sessionFiles(t, home)
	if len(files) != 1 {
		t.Fatalf("session files after kill -9: %q, want one", files)
	}
	id := strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")

	var api recordingAnthropic
	srv := api.serve(t, func([]Message) string { return anthropicTextStream("The server is not running.", "end_turn") })
	cmd := exec.Command(minicodeBinary(t), "--continue", "-p", "is it running?", "--output-format", "json", "--workspace", ws)
	cmd.Env = append(env, "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL="+srv.URL)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("--continue -p: %v\n%s", err, out)
	}
	var res resultRecord
	if err := json.Unmarshal(out, &res); err != nil || res.SessionID != id || res.Result != "The server is not running." {
		t.Errorf("result = %s, want session %s answered", out, id)
	}
	want := []Message{
		userText("start the server"),
		{Role: RoleAssistant, Content: []Block{{Type: BlockText, Text: "Starting the server."},
			{Type: BlockToolUse, ID: "toolu_slow", Name: "run_command", Input: json.RawMessage(fmt.Sprintf(`{"command":%q}`, slowCommand))}}},
		{Role: RoleUser, Content: []Block{{Type: BlockToolResult, ToolUseID: "toolu_slow", Content: unknownOutcomeText, IsError: true},
			{Type: BlockText, Text: "is it running?"}}},
	}
	got, _ := json.Marshal(api.last())
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("resumed request messages =\n%s\nwant\n%s", got, wantJSON)
	}
	if !processGone(pid) {
		t.Errorf("the killed agent's child %d still runs", pid)
	}
}

func TestUnknownResumeIDListsSessions(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	env := []string{"MINICODE_HOME=" + home}
	first := runMinicode(t, env, "", "-p", "list files", "--output-format", "json", "--workspace", ws)
	var res resultRecord
	if err := json.Unmarshal([]byte(first.stdout), &res); err != nil || !isSessionID(res.SessionID) {
		t.Fatalf("first run: %q, want a result with a session id", first.stdout)
	}
	r := runMinicode(t, env, "", "--resume", "0b6c3c1e-8a8f-4e36-9d4e-5d8c2a6f1e00", "-p", "go on", "--workspace", ws)
	if r.code != exitUsage || !strings.Contains(r.stderr, res.SessionID) || !strings.Contains(r.stderr, "list files") {
		t.Errorf("exit %d, stderr %q; want a usage error listing session %s and its first prompt", r.code, r.stderr, res.SessionID)
	}
}

func TestNewerSessionFileRunsInMemory(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	id := newSessionID()
	path := filepath.Join(projectDir(home, ws), id+".jsonl")
	newer := `{"version":2,"type":"user","id":"a","time":"2030-01-01T00:00:00Z","payload":{}}` + "\n"
	writeFile(t, path, newer)
	r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "--resume", id, "-p", "list files", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stderr, "newer minicode") || !strings.Contains(r.stderr, "not being saved") {
		t.Errorf("exit %d, stderr %q; want the task done and a notice that the session is not saved", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(path); string(data) != newer {
		t.Errorf("the newer file changed to %q", data)
	}
}

func TestLineModeSessionCommands(t *testing.T) {
	t.Parallel()
	ws, home := workspaceWith(t, map[string]string{"a.txt": "alpha\n"}), t.TempDir()
	env := []string{"MINICODE_HOME=" + home}
	r := runMinicode(t, env, "read a.txt\n/rename alpha reader\n/export notes.md\n/fork\nlist files\n/new\n/resume\n2\n/status\n", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	files := sessionFiles(t, home)
	if len(files) != 2 {
		t.Fatalf("session files %q, want the original and the fork (the /new one stays empty)", files)
	}
	for _, want := range []string{"is now \"alpha reader\"", "Wrote 4 messages to " + filepath.Join(ws, "notes.md"), "Forked session",
		"Started session", "alpha reader", "Resumed session", "messages: 4", "To resume: minicode --resume "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	export, _ := os.ReadFile(filepath.Join(ws, "notes.md"))
	if !strings.HasPrefix(string(export), "# alpha reader\n") || !strings.Contains(string(export), "**Tool call** `read_file`") {
		t.Errorf("export = %q, want a Markdown transcript titled after the session", export)
	}
}

// tmuxSession is minicode in line mode in a terminal of a private tmux
// server, which the test's cleanup stops. Its output goes through tee to
// a file, so minicode runs in line mode with the terminal as its input;
// tee -i ignores the terminal's Ctrl-C.
type tmuxSession struct {
	t      *testing.T
	socket string
	out    string // the file holding minicode's output
}

// startTmux starts minicode with env (NAME=value words) and args.
func startTmux(t *testing.T, env string, args ...string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	dir := t.TempDir()
	s := &tmuxSession{t: t, socket: filepath.Join(dir, "tmux.sock"), out: filepath.Join(dir, "out.txt")}
	command := fmt.Sprintf("env -i PATH=%q %s %q", os.Getenv("PATH"), env, minicodeBinary(t))
	for _, a := range args {
		command += fmt.Sprintf(" %q", a)
	}
	s.run("new-session", "-d", "-s", "minicode", "-x", "200", "-y", "50", command+fmt.Sprintf(" 2>&1 | tee -i %q", s.out))
	t.Cleanup(func() { exec.Command("tmux", "-S", s.socket, "kill-server").Run() })
	return s
}

// run runs a tmux command against the session's server.
func (s *tmuxSession) run(args ...string) {
	s.t.Helper()
	if out, err := exec.Command("tmux", append([]string{"-S", s.socket}, args...)...).CombinedOutput(); err != nil {
		s.t.Fatalf("tmux %q: %v\n%s", args, err, out)
	}
}

// keys types keys into the terminal, as tmux's send-keys names them.
func (s *tmuxSession) keys(keys ...string) {
	s.run(append([]string{"send-keys", "-t", "minicode"}, keys...)...)
}

// output is what minicode printed so far.
func (s *tmuxSession) output() string {
	data, _ := os.ReadFile(s.out)
	return string(data)
}

// waitOutput waits until what appears count times in the output.
func (s *tmuxSession) waitOutput(what string, count int) {
	s.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); strings.Count(s.output(), what) < count; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %q to appear %d times in the output:\n%s", what, count, s.output())
		}
	}
}

func TestLineModeCtrlCInterruptsTheTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("drives minicode through a terminal")
	}
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	var api recordingAnthropic
	srv := api.serve(t, func(messages []Message) string {
		switch text := lastUserText(messages); {
		case text == "stream slowly":
			return "" // stall mid-stream
		case text == "run the slow command" && len(messages[len(messages)-1].ToolResults()) == 0:
			return anthropicToolStream(Block{ID: "toolu_slow", Name: "run_command", Input: json.RawMessage(fmt.Sprintf(`{"command":%q}`, slowCommand))})
		default:
			return anthropicTextStream("Answer to: "+text, "end_turn")
		}
	})
	term := startTmux(t, fmt.Sprintf("HOME=%q MINICODE_HOME=%q ANTHROPIC_API_KEY=k ANTHROPIC_BASE_URL=%q", t.TempDir(), home, srv.URL),
		"--workspace", ws, "--permission-mode", "bypassPermissions")
	term.waitOutput("Type /help", 1)

	term.keys("stream slowly", "Enter")
	term.waitOutput("Partial answer", 1)
	term.keys("C-c")
	term.waitOutput("interrupted", 1)

	term.keys("run the slow command", "Enter")
	term.waitOutput("→ run_command", 1)
	pid := readPid(t, filepath.Join(ws, "child.pid"))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	term.keys("C-c")
	term.waitOutput("interrupted", 2)
	waitFor(t, fmt.Sprintf("the cancelled command %d to be gone", pid), func() bool { return processGone(pid) })

	term.keys("still there?", "Enter")
	term.waitOutput("Answer to: still there?", 1)
	term.waitOutput("(context: ", 3) // the turn is over: this Ctrl-C is at the prompt
	term.keys("C-c")
	term.waitOutput("press Ctrl-C again", 1)
	term.keys("Enter") // an empty line in between: the next Ctrl-C is a first one again
	term.keys("C-c")
	term.waitOutput("press Ctrl-C again", 2)
	term.keys("C-c")
	term.waitOutput("To resume: minicode --resume ", 1)

	files := sessionFiles(t, home)
	if len(files) != 1 {
		t.Fatalf("session files %q, want one", files)
	}
	if !strings.Contains(term.output(), "To resume: minicode --resume "+strings.TrimSuffix(filepath.Base(files[0]), ".jsonl")) {
		t.Errorf("the resume hint names another session than %s:\n%s", files[0], term.output())
	}
	checkSavedPrompts(t, files[0], "stream slowly", interruptedText, "run the slow command", interruptedText, "still there?")
	if got := lastUserText(api.last()); got != "still there?" {
		t.Errorf("the last request ended with %q, want the prompt typed after the interruptions", got)
	}
}

// checkSavedPrompts checks that the session at path loads without
// warnings, holds the prompts in order, and gives each tool call a result.
func checkSavedPrompts(t *testing.T, path string, want ...string) {
	t.Helper()
	j, err := readJournal(path)
	if err != nil || len(j.Warnings) > 0 {
		t.Fatalf("reading the session: %v, warnings %q", err, j.Warnings)
	}
	var prompts []string
	calls, results := 0, 0
	for _, m := range j.View {
		if m.Role == RoleUser && m.Text() != "" {
			prompts = append(prompts, m.Text())
		}
		calls, results = calls+len(m.ToolUses()), results+len(m.ToolResults())
	}
	if !reflect.DeepEqual(prompts, want) || calls != results {
		t.Errorf("saved prompts %q with %d tool calls and %d results; want %q and a result for each call", prompts, calls, results, want)
	}
}

func TestSignalEndsLineModeCleanly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs minicode and a slow command")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			ws, home := t.TempDir(), t.TempDir()
			script := writeScript(t, fmt.Sprintf(`[{"tool_calls":[{"id":"toolu_slow","name":"run_command","input":{"command":%q}}]}]`, slowCommand))
			cmd := exec.Command(minicodeBinary(t), "--mock-script", script, "--permission-mode", "bypassPermissions", "--workspace", ws)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + home}
			stdin, _ := cmd.StdinPipe()
			var stdout strings.Builder
			cmd.Stdout = &stdout
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			io.WriteString(stdin, "start it\n")
			pid := readPid(t, filepath.Join(ws, "child.pid"))
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			cmd.Process.Signal(sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("minicode still runs after %v", sig)
			}
			if !processGone(pid) {
				t.Errorf("the command %d outlived minicode", pid)
			}
			files := sessionFiles(t, home)
			if len(files) != 1 || !strings.Contains(stdout.String(), "To resume: minicode --resume ") {
				t.Fatalf("session files %q, output %q; want one session and the resume hint", files, stdout.String())
			}
			j, err := readJournal(files[0])
			if err != nil || len(j.View) != 4 || len(j.View[2].ToolResults()) != 1 || j.View[3].Text() != interruptedText || j.Torn {
				t.Errorf("saved view = %+v (%v), want the prompt, the call, its result and the note that the turn was interrupted", j.View, err)
			}
		})
	}
}

func TestSessionStartHookSeesResume(t *testing.T) {
	t.Parallel()
	ws := hookWorkspace(t, `{"SessionStart": [{"hooks": [{"type": "command", "command": "grep -o '\"source\":\"[a-z]*\"' >> sources.txt"}]}]}`, nil)
	env := []string{"MINICODE_HOME=" + trustingHome(t, ws)}
	for _, args := range [][]string{{"-p", "list files"}, {"-c", "-p", "list files again"}} {
		if r := runMinicode(t, env, "", append(args, "--workspace", ws)...); r.code != 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	data, _ := os.ReadFile(filepath.Join(ws, "sources.txt"))
	if want := "\"source\":\"startup\"\n\"source\":\"resume\"\n"; string(data) != want {
		t.Errorf("SessionStart sources = %q, want %q", data, want)
	}
}

func TestSessionChoiceFlags(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	env := []string{"MINICODE_HOME=" + home}
	id := newSessionID()
	run := func(args ...string) (resultRecord, runResult) {
		t.Helper()
		r := runMinicode(t, env, "", append(args, "--output-format", "json", "--workspace", ws)...)
		var res resultRecord
		json.Unmarshal([]byte(r.stdout), &res)
		return res, r
	}
	if res, r := run("-c", "-p", "list files"); res.SessionID == "" || !strings.Contains(r.stderr, "No earlier session") {
		t.Errorf("-c with no session: %q, stderr %q; want a new session and a notice", r.stdout, r.stderr)
	}
	if res, r := run("--session-id", id, "-p", "list files"); res.SessionID != id {
		t.Errorf("--session-id: result %q, want session %s", r.stdout, id)
	}
	if _, r := run("--session-id", id, "-p", "list files"); r.code != exitUsage || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("reusing --session-id: exit %d, stderr %q; want a usage error", r.code, r.stderr)
	}
	if _, r := run("--resume", id, "-p", "/rename alpha"); r.code != 0 {
		t.Errorf("/rename: exit %d, stderr %q", r.code, r.stderr)
	}
	if j, err := readJournal(filepath.Join(projectDir(home, ws), id+".jsonl")); err != nil || j.Title != "alpha" {
		t.Errorf("after /rename alpha of the resumed session: title %q (%v), want it saved", j.Title, err)
	}
	original, _ := os.ReadFile(filepath.Join(projectDir(home, ws), id+".jsonl"))
	res, r := run("--resume", id, "--fork-session", "-p", "read nothing")
	if res.SessionID == id || !isSessionID(res.SessionID) {
		t.Errorf("--fork-session: result %q, want a new session id", r.stdout)
	}
	if now, _ := os.ReadFile(filepath.Join(projectDir(home, ws), id+".jsonl")); string(now) != string(original) {
		t.Errorf("forking changed the original session")
	}
	fork, err := readJournal(filepath.Join(projectDir(home, ws), res.SessionID+".jsonl"))
	if err != nil || fork.firstPrompt() != "list files" || len(fork.View) < 5 || lastUserText(fork.View) != "read nothing" || fork.Title != "alpha" {
		t.Errorf("fork view = %+v (%v), want the original conversation, named as it was, followed by the new prompt", fork, err)
	}
}

func TestResumeAfterCompactionSeesTheCompactedView(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	var api recordingAnthropic
	srv := api.serve(t, func(messages []Message) string {
		// Long answers, so that a summary is shorter than what it replaces.
		return anthropicTextStream("Answer to: "+lastUserText(messages)+strings.Repeat(" with more detail", 300), StopEndTurn)
	})
	env := []string{"MINICODE_HOME=" + home, "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
	r := runMinicode(t, env, "first question\nsecond question\n/compact\n", "--workspace", ws)
	if r.code != 0 || !strings.Contains(r.stdout, "compaction (manual) saved") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the compaction reported", r.code, r.stdout, r.stderr)
	}
	r = runMinicode(t, env, "", "-c", "-p", "third question", "--workspace", ws)
	if r.code != 0 {
		t.Fatalf("-c -p: exit %d, stderr %q", r.code, r.stderr)
	}
	sent, _ := json.Marshal(api.last())
	if !strings.Contains(string(sent), testSummary) || strings.Contains(string(sent), "first question") || lastUserText(api.last()) != "third question" {
		t.Errorf("resumed request %s; want the summary in place of the first question, then the new prompt", sent)
	}
	files := sessionFiles(t, home)
	j, err := readJournal(files[0])
	if err != nil || len(files) != 1 || j.firstPrompt() != "first question" {
		t.Fatalf("session files %q, first prompt %q (%v); want one file keeping the whole history", files, j.firstPrompt(), err)
	}
	var kinds []string
	for _, rec := range readRecords(t, files[0]) {
		if rec.Type == recordCompaction {
			kinds = append(kinds, fmt.Sprintf("%s splices:%v", rec.Payload.Kind, rec.Payload.Splices != nil))
		}
	}
	if want := []string{"compact splices:true"}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("compaction records %q, want %q (the journal's view matched the loop's)", kinds, want)
	}
}

func TestCleanupPeriodDaysSetting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		settings        string
		tenDayOldKept   bool
		fortyDayOldKept bool
	}{
		{"", true, false},
		{`{"cleanupPeriodDays": 7}`, false, false},
		{`{"cleanupPeriodDays": 60}`, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.settings, func(t *testing.T) {
			home := t.TempDir()
			if tt.settings != "" {
				writeFile(t, filepath.Join(home, "settings.json"), tt.settings)
			}
			old := map[string]time.Duration{newSessionID(): 10 * 24 * time.Hour, newSessionID(): 40 * 24 * time.Hour}
			for id, age := range old {
				path := filepath.Join(home, "projects", "-elsewhere", id+".jsonl")
				writeFile(t, path, "{}\n")
				writeFile(t, filepath.Join(home, "tool-results", id, "r.txt"), "stored result")
				os.Chtimes(path, time.Now().Add(-age), time.Now().Add(-age))
			}
			if r := runMinicode(t, []string{"MINICODE_HOME=" + home}, "", "-p", "list files", "--workspace", t.TempDir()); r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			for id, age := range old {
				want := tt.tenDayOldKept
				if age > 30*24*time.Hour {
					want = tt.fortyDayOldKept
				}
				_, errFile := os.Stat(filepath.Join(home, "projects", "-elsewhere", id+".jsonl"))
				_, errResults := os.Stat(filepath.Join(home, "tool-results", id))
				if (errFile == nil) != want || (errResults == nil) != want {
					t.Errorf("session %v old: file kept %v, results kept %v; want %v", age, errFile == nil, errResults == nil, want)
				}
			}
			if len(sessionFiles(t, home)) == 0 {
				t.Errorf("the current session was pruned too")
			}
		})
	}
}
