package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// isSubagent reports whether a request comes from a subagent.
func isSubagent(req modelRequest) bool {
	return len(req.System) > 0 && strings.Contains(req.System[0].Text, "subagent")
}

// barrier lets n goroutines wait until all have arrived, or a deadline.
type barrier struct {
	mu      sync.Mutex
	n       int
	arrived chan struct{}
}

// newBarrier returns a barrier for n parties.
func newBarrier(n int) *barrier { return &barrier{n: n, arrived: make(chan struct{})} }

// wait arrives and waits for the others; false if they did not come in time.
func (b *barrier) wait() bool {
	b.mu.Lock()
	if b.n--; b.n == 0 {
		close(b.arrived)
	}
	b.mu.Unlock()
	select {
	case <-b.arrived:
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}

// twoReadersModel is a model whose main agent asks for two tasks in one
// reply, each reading a file, and whose subagents read their file and
// answer with its contents. The subagents' first requests wait for each
// other, so the test fails if the tasks run one after the other.
func twoReadersModel(agent string) func(*http.Request, modelRequest) string {
	both := newBarrier(2)
	return func(_ *http.Request, req modelRequest) string {
		prompt := req.Messages[0].Text()
		switch {
		case !isSubagent(req) && len(toolResultsOf(req)) == 0:
			return anthropicToolStream(
				Block{ID: "toolu_task_a", Name: "task", Input: json.RawMessage(`{"description":"read a","prompt":"Read a.txt","subagent_type":"` + agent + `"}`)},
				Block{ID: "toolu_task_b", Name: "task", Input: json.RawMessage(`{"description":"read b","prompt":"Read b.txt","subagent_type":"` + agent + `"}`)})
		case !isSubagent(req):
			return anthropicTextStream("both read", StopEndTurn)
		case len(toolResultsOf(req)) == 0:
			if !both.wait() {
				return anthropicTextStream("the other subagent never started", StopEndTurn)
			}
			file := strings.TrimPrefix(prompt, "Read ")
			return anthropicToolStream(Block{ID: "toolu_read_" + file, Name: "read_file", Input: json.RawMessage(`{"path":"` + file + `"}`)})
		default:
			content := toolResultsOf(req)[0].Content
			return anthropicTextStream(fmt.Sprintf("%s holds %q", strings.TrimPrefix(prompt, "Read "), content), StopEndTurn)
		}
	}
}

func TestTaskCallsRunSubagentsInParallel(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{
		"a.txt":                    "alpha",
		"b.txt":                    "beta",
		".claude/agents/reader.md": "---\nname: reader\ndescription: Reads files.\ntools: Read\nmodel: claude-haiku-4-5\n---\nYou are a subagent that reads files.\n",
	})
	srv, requests := anthropicServer(t, twoReadersModel("reader"))
	home := trustingHome(t, ws) // an agent's model is gated by trust
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL, "MINICODE_HOME=" + home}, "",
		"-p", "read both files", "--workspace", ws, "--output-format", "stream-json")
	if res.code != 0 {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	var parent []modelRequest
	for _, req := range requests() {
		if !isSubagent(req) {
			parent = append(parent, req)
			continue
		}
		var tools []string
		for _, tool := range req.Tools {
			tools = append(tools, tool.Name)
		}
		if req.Model != "claude-haiku-4-5" || strings.Join(tools, ",") != "read_file" || len(req.Messages[0].Content) != 1 {
			t.Errorf("subagent request: model %q, tools %q, first message %+v; want the agent's model, read_file only, and just the prompt", req.Model, tools, req.Messages[0])
		}
	}
	if len(parent) != 2 {
		t.Fatalf("the main agent made %d requests, want 2", len(parent))
	}
	// The parent's next request holds the two answers and nothing of what
	// the subagents did to get them.
	next, _ := json.Marshal(parent[1].Messages)
	results := toolResultsOf(parent[1])
	if len(results) != 2 || !strings.HasPrefix(results[0].Content, `a.txt holds "`) || !strings.HasPrefix(results[1].Content, `b.txt holds "`) ||
		!strings.Contains(results[0].Content, "[subagent reader: 2 steps,") || strings.Contains(string(next), "read_file") {
		t.Errorf("the parent's next request holds %s, want only the two answers", next)
	}
	for _, want := range []string{`"parent_tool_use_id":"toolu_task_a"`, `"parent_tool_use_id":"toolu_task_b"`} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("stream-json output lacks %s: %s", want, res.stdout)
		}
	}
	checkSidechains(t, home)
}

// checkSidechains checks that the session journal under home keeps the
// subagents' messages as side chains, out of the conversation.
func checkSidechains(t *testing.T, home string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, "projects", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("journals %q, want one", files)
	}
	j, err := readJournal(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := len(j.Transcript); got != 4 {
		t.Errorf("the conversation has %d messages, want 4 (prompt, tasks, answers, final)", got)
	}
	data, _ := os.ReadFile(files[0])
	sidechains := map[string]int{}
	for _, line := range readLines(string(data)) {
		var rec record
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Type == recordSidechain {
			sidechains[rec.Payload.ParentToolUseID]++
		}
	}
	if sidechains["toolu_task_a"] != 3 || sidechains["toolu_task_b"] != 3 {
		t.Errorf("side chain records by task call: %v, want 3 each (read, result, answer)", sidechains)
	}
}

func TestDenyRuleStopsTheTaskTool(t *testing.T) {
	t.Parallel()
	srv, requests := anthropicServer(t, twoReadersModel("general-purpose"))
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "",
		"-p", "read both files", "--workspace", t.TempDir(), "--disallowedTools", "task")
	reqs := requests()
	if len(reqs) != 2 || isSubagent(reqs[1]) {
		t.Fatalf("requests %+v, want two from the main agent only; stderr %q", reqs, res.stderr)
	}
	if results := toolResultsOf(reqs[1]); len(results) != 2 || !strings.Contains(results[0].Content, "denied by the rule task") {
		t.Errorf("results %+v, want both task calls denied", results)
	}
}

func TestCancellingTheTurnCancelsTheSubagents(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	cancelled := 0
	children := make(chan struct{}, 2)
	srv, _ := anthropicServer(t, func(r *http.Request, req modelRequest) string {
		if !isSubagent(req) {
			return twoReadersModel("general-purpose")(r, req)
		}
		children <- struct{}{}
		<-r.Context().Done() // a child's model call stalls until it is cancelled
		mu.Lock()
		cancelled++
		mu.Unlock()
		return ""
	})
	cmd := exec.Command(minicodeBinary(t), "-p", "read both files", "--workspace", t.TempDir())
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "MINICODE_HOME=" + t.TempDir(),
		"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for range 2 {
		select {
		case <-children:
		case <-time.After(20 * time.Second):
			t.Fatal("the two subagents never called the model")
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("minicode did not stop after SIGINT")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := cancelled
		mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 2 subagent model calls were cancelled", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("exit code %d, want %d", code, exitInterrupted)
	}
}

func TestSubagentLimits(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{"a.txt": "alpha"})
	// Every subagent reply is another read, so it never finishes.
	srv, requests := anthropicServer(t, func(_ *http.Request, req modelRequest) string {
		if len(req.Messages) > 1 {
			return anthropicTextStream("a.txt starts with alph", StopEndTurn)
		}
		return anthropicToolStream(Block{ID: fmt.Sprintf("toolu_%d", len(req.Messages)), Name: "read_file", Input: json.RawMessage(`{"path":"a.txt"}`)})
	})
	provider := newAnthropic(ProviderOptions{APIKey: "k", BaseURL: srv.URL})
	for _, tc := range []struct {
		depth, steps int
		wantTask     bool
		wantText     string
	}{
		{0, 1, false, "reached its limit of 1 steps"},
		{2, 3, true, "a.txt starts with alph"},
	} {
		builtins, _ := newBuiltins("", nil)
		parent := &Agent{Provider: provider, Model: "m", Tools: newRegistry(builtins...), Env: &ToolEnv{Workspace: ws, ResultsDir: t.TempDir()}}
		s := &Subagents{Parent: parent, Agents: loadAgents(nil), MaxDepth: tc.depth, MaxSteps: tc.steps}
		parent.Tools.Add(s.Tool())
		out, err := s.run(context.Background(), parent.Env, "general-purpose", "Read a.txt")
		if err != nil || !strings.Contains(out.Text, tc.wantText) {
			t.Errorf("depth %d, steps %d: answer %q (%v), want it to hold %q", tc.depth, tc.steps, out.Text, err, tc.wantText)
		}
		reqs := requests()
		last := reqs[len(reqs)-1]
		hasTask := false
		for _, tool := range last.Tools {
			hasTask = hasTask || tool.Name == "task" || tool.Name == "ask_user"
		}
		if hasTask != tc.wantTask {
			t.Errorf("depth %d: the subagent was offered task: %v, want %v", tc.depth, hasTask, tc.wantTask)
		}
	}
	if _, err := (&Subagents{Agents: loadAgents(nil)}).run(context.Background(), nil, "nobody", "x"); err == nil || !strings.Contains(err.Error(), "general-purpose") {
		t.Errorf("unknown agent: %v, want an error listing the agents", err)
	}
}

func TestLoadAgents(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"reviewer.md": "---\nname: code-reviewer\ndescription: Reviews code.\ntools: Read, Grep, Bash\nmodel: inherit\n---\nYou review code.\n",
		"empty.md":    "---\nname: empty\ndescription: Nothing.\n---\n",
		"plain.md":    "No front matter.\n",
	})
	agents := loadAgents([]string{dir})
	got := map[string]*AgentDef{}
	for _, a := range agents {
		got[a.Name] = a
	}
	r := got["code-reviewer"]
	if r == nil || strings.Join(r.Tools, ",") != "read_file,grep_files,run_command,command_output,command_kill" || r.Prompt != "You review code." || r.Model != "inherit" {
		t.Errorf("code-reviewer = %+v", r)
	}
	if got["empty"] == nil || got["empty"].Problem == "" || got["plain"] == nil || got["plain"].Problem == "" || got["general-purpose"] == nil {
		t.Errorf("agents %v: want empty and plain listed as broken, and general-purpose built in", got)
	}
}

func TestForkedSkillRunsInASubagent(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{
		".claude/skills/summarise/SKILL.md": "---\nname: summarise\ndescription: Summarise a file.\ncontext: fork\n---\nSummarise $ARGUMENTS.\n",
	})
	srv, requests := anthropicServer(t, answerOnce())
	res := runMinicode(t, []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}, "/summarise notes.txt\n", "--workspace", ws)
	reqs := requests()
	if len(reqs) != 1 || !isSubagent(reqs[0]) || !strings.Contains(reqs[0].Messages[0].Text(), "Summarise notes.txt.") {
		t.Fatalf("requests %+v, want one subagent request with the skill", reqs)
	}
	if !strings.Contains(res.stdout, "answer 1") {
		t.Errorf("line mode printed %q, want the subagent's answer", res.stdout)
	}
}

// readLines returns the lines of s.
func readLines(s string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

func TestAgentsCommand(t *testing.T) {
	t.Parallel()
	ws := workspaceWith(t, map[string]string{".claude/agents/broken.md": "---\nname: [x\n---\nbody\n"})
	res := runMinicode(t, nil, "/agents\n", "--workspace", ws)
	var found []string
	for _, line := range readLines(res.stdout) {
		if strings.Contains(line, "general-purpose") || strings.Contains(line, "broken") && strings.Contains(line, filepath.Join(ws, ".claude", "agents")) {
			found = append(found, line)
		}
	}
	if len(found) != 2 {
		t.Errorf("/agents printed %q, want general-purpose and the broken agent with its path", res.stdout)
	}
}

func TestTerminalShowsASubagentAsOneLine(t *testing.T) {
	u := plainTUI(t, io.Discard)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	call := &Block{Type: BlockToolUse, ID: "toolu_t", Name: "task", Input: json.RawMessage(`{"description":"find the tests","prompt":"Find them."}`)}
	child := &Block{Type: BlockToolUse, ID: "toolu_c", Name: "grep_files", Input: json.RawMessage(`{"pattern":"func Test"}`)}
	for _, e := range []Event{
		{Kind: EventToolStart, Call: call},
		{Kind: EventToolStart, Call: child, ParentToolUseID: "toolu_t"},
		{Kind: EventTextDelta, Text: "child text", ParentToolUseID: "toolu_t"},
		{Kind: EventToolEnd, Call: child, Result: &Block{Content: "a_test.go"}, ParentToolUseID: "toolu_t"},
		{Kind: EventToolStart, Call: child, ParentToolUseID: "toolu_t"},
	} {
		u.tr.event(e, t0)
	}
	frame := strings.Join(u.frame(t0).lines, "\n")
	if !strings.Contains(frame, "task find the tests 0.0s · 2 tool calls") || strings.Contains(frame, "child text") || u.scroll.Len() != 0 {
		t.Errorf("frame %q, scrollback %q: want one live line for the task with its tool count", frame, u.scroll.String())
	}
	u.tr.event(Event{Kind: EventToolEnd, Call: call, Result: &Block{Content: "Found 3 tests."}}, t0.Add(time.Second))
	if got := u.scroll.String(); !strings.HasPrefix(got, "✓ task find the tests (1.0s) · 2 tool calls\n") {
		t.Errorf("scrollback %q, want the task's line with its tool count", got)
	}
	// Custom commands are in the slash menu with their description.
	u.app.Commands = []*CustomCommand{{Name: "review", Description: "Review a PR"}, {Name: "help", Description: "shadowed"}}
	if got := completionsFor("", "/rev", u.app); len(got) != 1 || got[0] != (completion{"/review", "Review a PR"}) {
		t.Errorf("completions of /rev: %q, want /review with its description", got)
	}
	if got := completionsFor("", "/hel", u.app); len(got) != 1 || got[0].note == "shadowed" {
		t.Errorf("completions of /hel: %q, want only the built-in /help", got)
	}
}

// A subagent whose definition names another model runs with that model's
// limits, so its compaction fits its own window and it asks for no more output
// than that model gives; "inherit" keeps the parent's.
func TestSubagentOfAnotherModelHasItsLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		model     string
		limitsFor func(string) ModelLimits
		want      ModelLimits
	}{
		{"haiku", nil, limitsFor("claude-haiku-4-5", nil)},
		{"haiku", func(string) ModelLimits { return ModelLimits{ContextWindow: 50_000, MaxOutput: 4_000} }, ModelLimits{ContextWindow: 50_000, MaxOutput: 4_000}},
		{"inherit", nil, ModelLimits{ContextWindow: 1_000_000, MaxOutput: 128_000}},
	} {
		parent := &Agent{Tools: newRegistry(), Model: "claude-sonnet-5", Limits: ModelLimits{ContextWindow: 1_000_000, MaxOutput: 128_000}, LimitsFor: tc.limitsFor}
		child := (&Subagents{Parent: parent}).child(t.Context(), nil, &AgentDef{Name: "x", Model: tc.model}, 1)
		if got := child.limitsOf(child.Model); got != tc.want {
			t.Errorf("model %q: the subagent's limits are %+v, want %+v", tc.model, got, tc.want)
		}
		if got := child.request(child.Model, nil).MaxTokens; got != tc.want.MaxOutput {
			t.Errorf("model %q: the subagent asks for %d output tokens, want its model's %d", tc.model, got, tc.want.MaxOutput)
		}
	}
}
