package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// longDiff is a diff of 30 changed lines, long enough to fold.
func longDiff() string {
	var before, after strings.Builder
	for i := range 30 {
		fmt.Fprintf(&before, "line %d\n", i)
		fmt.Fprintf(&after, "LINE %d\n", i)
	}
	return unifiedDiff("big.txt", before.String(), after.String())
}

// TestLineAsker drives the line-mode asker with typed input and checks
// the answer it returns and what it printed.
func TestLineAsker(t *testing.T) {
	t.Parallel()
	edit := Prompt{Title: "edit_file big.txt", Reason: "edits need approval in default mode",
		Diff: longDiff(), Choices: choicesFor(true, false, "Edit(big.txt)"),
		SaveTargets: []SaveOption{{saveProject, "/w/.minicode/permissions.json"}, {saveUser, "/h/permissions.json"}, {saveSession, ""}}}
	command := Prompt{Title: `run_command "rm -rf build"`, Reason: "rm -r deletes files and folders irrecoverably",
		Warning: "be careful", Choices: choicesFor(false, true, "run_command(rm -rf build)"), SaveTargets: edit.SaveTargets}
	tests := []struct {
		name   string
		prompt Prompt
		input  string
		want   Answer
		shown  []string // text the output must contain
	}{
		{"apply once", edit, "y\n", Answer{Choice: ChoiceAllowOnce},
			[]string{"Permission needed: edit_file big.txt", "why: edits need approval", "… 53 more lines (press d to show all)", "f  allow this file this turn"}},
		{"show the whole diff first", edit, "d\nf\n", Answer{Choice: ChoiceAllowFileTurn}, []string{"+LINE 29"}},
		{"all edits this turn", edit, " e \n", Answer{Choice: ChoiceAllowEditsTurn}, nil},
		{"always, user file", edit, "a\nu\n", Answer{Choice: ChoiceAllowAlways, SaveTo: saveUser}, []string{"[p]roject (/w/.minicode/permissions.json)", "[u]ser (/h/permissions.json)"}},
		{"always, default place", edit, "a\n\n", Answer{Choice: ChoiceAllowAlways, SaveTo: saveProject}, nil},
		{"always reject, session", edit, "x\nzz\nsession\n", Answer{Choice: ChoiceDenyAlways, SaveTo: saveSession}, []string{`unknown place "zz"`}},
		{"guidance on the same line", edit, "g use errors.Join\n", Answer{Choice: ChoiceDenyGuidance, Guidance: "use errors.Join"}, nil},
		{"guidance on the next line", edit, "g\n keep the old name \n", Answer{Choice: ChoiceDenyGuidance, Guidance: "keep the old name"}, []string{"guidance for the model: "}},
		{"unknown key, then reject", edit, "maybe\nn\n", Answer{Choice: ChoiceDenyOnce}, []string{`unknown choice "maybe"`}},
		{"destructive command offers no always-allow", command, "a\ny\n", Answer{Choice: ChoiceAllowOnce},
			[]string{"warning: be careful", "rm -r deletes", `unknown choice "a"`, "choice [y/n/x/g]: "}},
		{"no diff to show", command, "d\nn\n", Answer{Choice: ChoiceDenyOnce}, []string{`unknown choice "d"`}},
		{"answer without a final newline", command, "n", Answer{Choice: ChoiceDenyOnce}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out strings.Builder
			a := &lineAsker{In: newLineReader(strings.NewReader(tt.input)), Out: &out, Fold: 10}
			got, err := a.Ask(context.Background(), tt.prompt)
			if err != nil {
				t.Fatalf("Ask: %v\noutput:\n%s", err, out.String())
			}
			if got != tt.want {
				t.Errorf("answer %+v, want %+v", got, tt.want)
			}
			for _, s := range tt.shown {
				if !strings.Contains(out.String(), s) {
					t.Errorf("output does not contain %q:\n%s", s, out.String())
				}
			}
			if strings.Contains(out.String(), "\x1b[") {
				t.Errorf("output has colour escapes with Color off:\n%q", out.String())
			}
		})
	}
}

// TestLineAskerEnd checks that the end of input is an error, never an
// answer.
func TestLineAskerEnd(t *testing.T) {
	t.Parallel()
	p := Prompt{Title: "x", Choices: choicesFor(false, false, "run_command(x)")}
	for _, input := range []string{"", "zz\n", "g\n"} {
		a := &lineAsker{In: newLineReader(strings.NewReader(input)), Out: io.Discard}
		if got, err := a.Ask(context.Background(), p); !errors.Is(err, io.EOF) {
			t.Errorf("input %q: answer %+v error %v, want io.EOF", input, got, err)
		}
	}
}

// TestLineReaderCancel checks that a cancelled read returns at once and
// that the line it was waiting for goes to the next reader, not lost.
func TestLineReaderCancel(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	lines := newLineReader(r)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := lines.ReadLine(ctx)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled read: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled read did not return")
	}
	go func() {
		fmt.Fprint(w, "y\r\nsecond\n")
		w.Close()
	}()
	for _, want := range []string{"y", "second"} {
		got, err := lines.ReadLine(context.Background())
		if err != nil || got != want {
			t.Errorf("ReadLine = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := lines.ReadLine(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("ReadLine at the end: %v, want io.EOF", err)
	}
}

// TestLineReaderNewestCallerTakesTheLine has two callers wait at once, as the prompt waiting for a task
// and an MCP server's question do: the line goes to the question, the next to the prompt, each once.
func TestLineReaderNewestCallerTakesTheLine(t *testing.T) {
	t.Parallel()
	r, w := io.Pipe()
	lines := newLineReader(r)
	got := make([]chan string, 2)
	for i := range got {
		got[i] = make(chan string, 1)
		go func() {
			line, err := lines.ReadLine(context.Background())
			got[i] <- fmt.Sprint(line, err)
		}()
		time.Sleep(50 * time.Millisecond) // the first caller waits before the second starts
	}
	go fmt.Fprint(w, "the answer\nthe task\n")
	if answer := <-got[1]; answer != "the answer<nil>" {
		t.Errorf("the question got %q, want %q", answer, "the answer<nil>")
	}
	if task := <-got[0]; task != "the task<nil>" {
		t.Errorf("the prompt got %q, want %q", task, "the task<nil>")
	}
}

// TestLineAskerWithPermissions runs a whole question through Authorize:
// the typed answer decides the call and its scope.
func TestLineAskerWithPermissions(t *testing.T) {
	t.Parallel()
	tr := newTestTree(t)
	var out strings.Builder
	asker := &lineAsker{In: newLineReader(strings.NewReader("f\nn\n")), Out: &out}
	p := permsWith(t, tr, ModeDefault, asker)
	ctx := context.Background()
	req := editReq("b.go")
	req.Diff = unifiedDiff("b.go", "x\n", "y\n")
	if err := p.Authorize(ctx, req); err != nil {
		t.Fatalf("first edit: %v", err)
	}
	if err := p.Authorize(ctx, req); err != nil {
		t.Fatalf("second edit in the same turn: %v", err)
	}
	p.EndTurn()
	if err := p.Authorize(ctx, req); err == nil || !strings.Contains(err.Error(), "the user rejected") {
		t.Fatalf("edit after the turn: %v, want a rejection", err)
	}
	if n := strings.Count(out.String(), "Permission needed"); n != 2 {
		t.Errorf("asked %d times, want 2:\n%s", n, out.String())
	}
	if !strings.Contains(out.String(), "+y") {
		t.Errorf("the diff was not shown:\n%s", out.String())
	}
}

// TestGuidanceIsOfferedOnlyToTheModel checks that "reject with guidance" is offered where the answer
// reaches the model (its edit), not for /init, whose refusal only the user sees; a refusal with a reason,
// as a hook or an SDK host gives, still refuses /init and keeps the reason.
func TestGuidanceIsOfferedOnlyToTheModel(t *testing.T) {
	t.Parallel()
	dir := realTempDir(t)
	guidance := Answer{Choice: ChoiceDenyGuidance, Guidance: "the hook says no"}
	asker := &scriptedAsker{answers: []Answer{guidance, guidance}}
	perms, err := newPermissions(PermissionConfig{Workspace: dir, Asker: asker})
	if err != nil {
		t.Fatal(err)
	}
	_, initErr := initAgentsFile(context.Background(), &ToolEnv{Workspace: dir, Perms: perms}, dir)
	editErr := perms.Authorize(context.Background(), editReq("a.txt"))
	for i, err := range []error{initErr, editErr} {
		if err == nil || !strings.Contains(err.Error(), "said: the hook says no") {
			t.Errorf("answer %d: error %v, want a refusal with the hook's reason", i, err)
		}
	}
	if len(asker.prompts) != 2 {
		t.Fatalf("%d prompts, want 2", len(asker.prompts))
	}
	for i, want := range []bool{false, true} {
		_, offered := findChoice(asker.prompts[i].Choices, "g")
		if offered != want {
			t.Errorf("%s: guidance offered = %v, want %v", asker.prompts[i].Title, offered, want)
		}
	}
}
