package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCommonPrefixKeepsWholeCharacters: Tab completes to the completions' common prefix in
// characters, not bytes, where two of them differ in a letter sharing its first byte.
func TestCommonPrefixKeepsWholeCharacters(t *testing.T) {
	for _, tt := range []struct{ a, b, want string }{{"@é1", "@è2", "@"}, {"@café", "@cafè", "@caf"}, {"@a", "@a", "@a"}, {"@日本", "@日曜", "@日"}} {
		if got := commonPrefix([]completion{{value: tt.a}, {value: tt.b}}); got != tt.want {
			t.Errorf("commonPrefix(%q, %q) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestCompletionMenu(t *testing.T) {
	u := plainTUI(t, io.Discard)
	for _, f := range []string{"main.go", "main_test.go", "docs/guide.md"} {
		p := filepath.Join(u.app.Workspace, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		keys, wantText, wantMenu string
	}{
		{"/he<tab>", "/help ", ""},
		{"/st<enter>", "", ""}, // completed and sent
		{"/s", "/s", "> /status|  /sandbox|  /skills|  /snip"},
		{"/s<down><tab>", "/sandbox ", ""},
		{"/permissions acc<tab>", "/permissions acceptEdits ", ""},
		{"/mcp lo<tab>", "/mcp login ", ""},
		{"read @ma<tab>", "read @main", "> @main.go|  @main_test.go"},
		{"read @ma<tab>_<tab>", "read @main_test.go ", ""},
		{"see @do<tab>", "see @docs/", "> @docs/guide.md"},
		{"/s<esc>", "/s", ""},
	}
	for _, tt := range tests {
		t.Run(tt.keys, func(t *testing.T) {
			u.editor.reset()
			u.menu = completionMenu{}
			for _, k := range typeKeys(tt.keys) {
				u.handleKey(k)
			}
			var menu []string
			for _, l := range u.menu.lines(80, &u.tr) {
				menu = append(menu, l[:2]+strings.Fields(l[2:])[0])
			}
			gotMenu := strings.Join(menu, "|")
			if u.editor.text() != tt.wantText || gotMenu != tt.wantMenu {
				t.Errorf("got %q menu %q, want %q menu %q", u.editor.text(), gotMenu, tt.wantText, tt.wantMenu)
			}
		})
	}
	if len(u.queued) != 1 || u.queued[0] != "/status" {
		t.Errorf("sent %q, want /status, completed by Enter", u.queued)
	}
}

// TestCompletionMenuShowsControlsVisibly lists a file whose name holds escapes, as a cloned repository
// may: the menu shows them in caret notation.
func TestCompletionMenuShowsControlsVisibly(t *testing.T) {
	var out strings.Builder
	u := plainTUI(t, &out)
	if err := os.WriteFile(filepath.Join(u.app.Workspace, hostileText), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, k := range typeKeys("@") {
		u.handleKey(k)
	}
	u.draw()
	checkNoRawControls(t, "the menu of files", out.String())
	if !strings.Contains(out.String(), "@a^[]0;pwned^G") {
		t.Errorf("the menu lacks the file, its escapes visible: %q", out.String())
	}
}

func TestMentionAttachesTheFile(t *testing.T) {
	u := plainTUI(t, io.Discard)
	if err := os.WriteFile(filepath.Join(u.app.Workspace, "notes.txt"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u.turn(t.Context(), SlashPrompt{Prompt: "summarise @notes.txt and @missing.txt."})
	got := u.history[0].Text()
	if want := "summarise @notes.txt and @missing.txt.\n\nContents of notes.txt:\nnotes.txt: 1 line\n1\tremember the milk\n"; got != want {
		t.Errorf("message got %q, want %q", got, want)
	}
	if !strings.Contains(u.scroll.String(), "attached notes.txt") {
		t.Errorf("the transcript does not say what was attached: %q", u.scroll.String())
	}
}

func TestApprovalDialog(t *testing.T) {
	edit := Prompt{Title: "edit a.txt", Diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old\n+new\n",
		Choices:     choicesFor(true, false, "Edit(a.txt)"),
		SaveTargets: []SaveOption{{saveProject, "/ws/.minicode/permissions.json"}, {saveUser, "/home/permissions.json"}, {saveSession, ""}}}
	tests := []struct {
		keys string
		want Answer
	}{
		{"<enter>", Answer{Choice: ChoiceAllowOnce}},
		{"<down><down><enter>", Answer{Choice: ChoiceAllowEditsTurn}},
		{"<up><enter><enter>", Answer{Choice: ChoiceDenyAlways, SaveTo: saveProject}},
		{"5", Answer{Choice: ChoiceDenyOnce}},
		{"<esc>", Answer{Choice: ChoiceDenyOnce}},
		{"a<down>2", Answer{Choice: ChoiceAllowAlways, SaveTo: saveUser}},
		{"au", Answer{Choice: ChoiceAllowAlways, SaveTo: saveUser}}, // the letters the menu shows
		{"as", Answer{Choice: ChoiceAllowAlways, SaveTo: saveSession}},
		{"d<up><enter>p", Answer{Choice: ChoiceDenyAlways, SaveTo: saveProject}},
		{"g<esc>y", Answer{Choice: ChoiceAllowOnce}},
		{"guse a helper<ctrl-a>Please <enter>", Answer{Choice: ChoiceDenyGuidance, Guidance: "Please use a helper"}},
	}
	for _, tt := range tests {
		t.Run(tt.keys, func(t *testing.T) {
			u := plainTUI(t, io.Discard)
			got := make(chan Answer, 1)
			go func() {
				ans, err := u.Ask(context.Background(), edit)
				if err != nil {
					t.Error(err)
				}
				got <- ans
			}()
			waitFor(t, "the dialog", func() bool { u.mu.Lock(); defer u.mu.Unlock(); return u.dialog != nil })
			u.mu.Lock()
			for _, k := range typeKeys(tt.keys) {
				u.handleKey(k)
			}
			u.mu.Unlock()
			select {
			case ans := <-got:
				if ans != tt.want {
					t.Errorf("got %+v, want %+v", ans, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("no answer")
			}
		})
	}
}

func TestApprovalDialogFrame(t *testing.T) {
	u := plainTUI(t, io.Discard)
	u.dialog = &approvalDialog{tr: &u.tr, prompt: Prompt{Title: "run rm -r build", Diff: "x\ny\nz\n",
		Choices: choicesFor(false, true, "")}}
	u.dialog.folded = u.tr.printQuestion(u.dialog.prompt, 2) > 0
	want := "mock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n" +
		"> 1. allow once (y)          allow this call; the next one asks again\n" +
		"  2. deny (n)                refuse this call\n" +
		"  3. deny with guidance (g)  refuse, and tell the model what to do instead\n" +
		"↑↓ Enter, a number or a letter picks · Esc rejects · d shows the whole diff"
	f := u.frame(time.Now())
	if got := strings.Join(f.lines, "\n"); got != want || f.row != -1 {
		t.Errorf("frame got (cursor row %d)\n%s\nwant\n%s", f.row, got, want)
	}
	if got := u.scroll.String(); got != "? Permission needed: run rm -r build\nx\ny\n… 1 more lines (press d to show all)\n" {
		t.Errorf("scrollback got %q", got)
	}
	u.scroll.Reset()
	u.handleKey(key{"rune", "d"})
	u.handleKey(key{"rune", "d"}) // the diff is shown whole now: no second copy
	if got := u.scroll.String(); got != "x\ny\nz\n" {
		t.Errorf("d printed %q, want the whole diff once", got)
	}
	if f := u.frame(time.Now()); strings.Contains(strings.Join(f.lines, "\n"), "d shows") {
		t.Errorf("the dialog still offers d: %q", f.lines)
	}
}

func TestQuestionsReadTheirAnswerFromTheInputBox(t *testing.T) {
	u := plainTUI(t, io.Discard)
	got := make(chan string, 1)
	go func() {
		line, _ := u.ReadLine(context.Background())
		got <- line
	}()
	waitFor(t, "the question to wait", func() bool { u.mu.Lock(); defer u.mu.Unlock(); return u.answers != nil })
	u.mu.Lock()
	shown := func() bool { return strings.Contains(strings.Join(u.frame(time.Now()).lines, "\n"), answerHint) }
	for _, k := range typeKeys("blue") {
		u.handleKey(k)
	}
	if !shown() {
		t.Errorf("the frame lacks %q while the answer is typed: %q", answerHint, u.frame(time.Now()).lines)
	}
	u.handleKey(key{name: "enter"})
	if shown() {
		t.Errorf("the frame still shows %q after the answer was sent", answerHint)
	}
	u.mu.Unlock()
	if line := <-got; line != "blue" || len(u.queued) != 0 {
		t.Errorf("the question read %q and %d tasks were queued; want the answer and no task", line, len(u.queued))
	}
}

// TestCancelledQuestionFreesTheInputBox: once a question waiting for a typed
// answer is cancelled, the next line typed is a task, and the next question
// gets the line typed after it.
func TestCancelledQuestionFreesTheInputBox(t *testing.T) {
	u := plainTUI(t, io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := u.ReadLine(ctx)
		done <- err
	}()
	waitFor(t, "the question to wait", func() bool { u.mu.Lock(); defer u.mu.Unlock(); return u.answers != nil })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled question returned %v, want context.Canceled", err)
	}
	typeLine := func(text string) {
		u.mu.Lock()
		defer u.mu.Unlock()
		for _, k := range typeKeys(text) {
			u.handleKey(k)
		}
		u.handleKey(key{name: "enter"})
	}
	typeLine("next task")
	if len(u.queued) != 1 || u.queued[0] != "next task" {
		t.Errorf("queued tasks = %q, want the line typed after the cancel", u.queued)
	}
	got := make(chan string, 1)
	go func() {
		line, _ := u.ReadLine(context.Background())
		got <- line
	}()
	waitFor(t, "the second question to wait", func() bool { u.mu.Lock(); defer u.mu.Unlock(); return u.answers != nil })
	typeLine("green")
	if line := <-got; line != "green" {
		t.Errorf("the second question read %q, want %q", line, "green")
	}
}

func TestModelCommandSwitchesTheModel(t *testing.T) {
	app := testApp(t, t.TempDir(), Options{})
	var history []Message
	_, out, _, err := app.slashInput(context.Background(), "/model opus", &history)
	if err != nil || app.Agent.Model != resolveModelAlias("opus") || !strings.Contains(out, app.Agent.Model) {
		t.Errorf("/model opus: %q, %v; the agent uses %q, want %q", out, err, app.Agent.Model, resolveModelAlias("opus"))
	}
	if app.Agent.Limits != limitsFor(app.Agent.Model, nil) {
		t.Errorf("limits %+v, want those of %s", app.Agent.Limits, app.Agent.Model)
	}
}
