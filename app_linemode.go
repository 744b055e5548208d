package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
)

// runLineMode reads tasks and commands line by line and prints answers without terminal escapes; Ctrl-C cancels a turn.
func (app *App) runLineMode(ctx context.Context, interrupts <-chan os.Signal) error {
	fmt.Fprintln(app.stdout, app.banner())
	r := &lineRenderer{w: app.stdout, usage: app.Agent.ContextUsage}
	app.Agent.Emit = r.event
	history := app.Session.View()
	if app.Opts.ResumePick {
		app.lineInput(ctx, "/resume", &history)
	}
	inputs, _ := openHistory(app.Home, app.Workspace)
	for {
		input, err := app.readInput(ctx, interrupts)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := inputs.Add(input); err != nil {
			fmt.Fprintf(app.stdout, "! %v\n", err)
		}
		res, quit := (*TurnResult)(nil), false
		interrupted := withInterrupts(ctx, interrupts, func(ctx context.Context) { res, quit = app.lineInput(ctx, input, &history) })
		switch {
		case quit:
			return nil
		case res != nil:
			history = res.Messages
			r.endTurn(*res)
			fmt.Fprintf(app.stdout, "(context: %s)\n", app.Agent.ContextUsage())
		case interrupted:
			fmt.Fprintln(app.stdout, "interrupted")
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// lineInput runs a slash command, printing what it says, or a turn for a prompt (a custom command's or
// skill's, or the input with its @files attached), returning its result; quit ends the session.
func (app *App) lineInput(ctx context.Context, input string, history *[]Message) (res *TurnResult, quit bool) {
	prompt, err := &SlashPrompt{Prompt: input}, error(nil)
	if strings.HasPrefix(input, "/") {
		var out string
		if prompt, out, quit, err = app.slashInput(ctx, input, history); out != "" {
			fmt.Fprintln(app.stdout, out)
		}
	} else {
		err = app.attachFiles(ctx, app.Env, prompt, func(msg string) { fmt.Fprintln(app.stdout, "  "+msg) })
	}
	if err != nil {
		fmt.Fprintf(app.stdout, "error: %v\n", err)
	}
	if err != nil || prompt == nil {
		return nil, quit
	}
	turn := app.runPrompt(ctx, *history, *prompt)
	return &turn, false
}

// readInput reads the next input, joining lines that end in a backslash; a second Ctrl-C in a row is the end of input.
func (app *App) readInput(ctx context.Context, interrupts <-chan os.Signal) (string, error) {
	var lines []string
	for armed := false; ; {
		line, err := "", error(nil)
		if withInterrupts(ctx, interrupts, func(ctx context.Context) { line, err = app.lines.ReadLine(ctx) }) {
			if armed {
				return "", io.EOF
			}
			armed, lines = true, nil
			fmt.Fprintln(app.stdout, "(press Ctrl-C again to exit)")
			continue
		}
		// The two presses that exit come in a row, with no line between.
		armed = false
		if err != nil && (len(lines) == 0 || !errors.Is(err, io.EOF)) { // the end of input ends a continued line
			return "", err
		}
		line, more := strings.CutSuffix(line, `\`)
		if lines = append(lines, line); more && err == nil {
			continue
		}
		if input := strings.TrimSpace(strings.Join(lines, "\n")); input != "" {
			return input, nil
		} else if err != nil {
			return "", err
		}
		lines = nil
	}
}

// withInterrupts runs fn with a context that an interrupt cancels, and reports whether one did.
func withInterrupts(ctx context.Context, interrupts <-chan os.Signal, fn func(context.Context)) bool {
	fnCtx, cancel := context.WithCancel(ctx)
	interrupted := make(chan bool, 1)
	go func() {
		select {
		case <-interrupts:
			cancel()
			interrupted <- true
		case <-fnCtx.Done():
			interrupted <- false
		}
	}()
	fn(fnCtx)
	cancel()
	return <-interrupted
}

// banner is the first thing an interactive session shows.
func (app *App) banner() string {
	s := fmt.Sprintf("minicode %s · %s (%s) · %s", version, app.Agent.ModelName(), app.Agent.Provider.Name(), app.Workspace)
	if app.Demo {
		s += "\nNo API key is configured, so the offline demo model is answering. Type \"help\" to see what it understands." +
			"\nTo use a real model, set ANTHROPIC_API_KEY or OPENAI_API_KEY (or put \"provider\" and \"model\" in ~/.minicode/settings.json)."
	}
	if !app.Sandbox.Holds() {
		s += "\nWarning: " + app.Sandbox.Status() + "."
	}
	s += "\nType /help for commands."
	if n := len(app.Session.View()); n > 0 {
		s += fmt.Sprintf("\nResumed session %s (%d messages).", app.Session.ID, n) + app.newerSession("")
	}
	return s
}

// lineRenderer prints loop events as plain lines.
type lineRenderer struct {
	w        io.Writer
	streamed bool // text of the current reply has been printed as it came
	midLine  bool // the last thing printed did not end a line
	usage    func() ContextUsage
}

// event prints one loop event; of a subagent's, only its tool calls.
func (r *lineRenderer) event(e Event) {
	if e.ParentToolUseID != "" {
		if e.Kind == EventToolStart {
			fmt.Fprintf(r.w, "    ↳ %s %s\n", e.Call.Name, compactJSON(e.Call.Input, 120))
		}
		return
	}
	switch e.Kind {
	case EventTextDelta:
		fmt.Fprint(r.w, visibleLines(e.Text)) // the model's text may carry what a file held
		r.streamed, r.midLine = true, !strings.HasSuffix(e.Text, "\n")
	case EventAssistant:
		if text := e.Message.Text(); !r.streamed && text != "" {
			fmt.Fprintln(r.w, visibleLines(text))
		}
		r.newline()
		r.streamed = false
	case EventToolStart:
		r.newline()
		fmt.Fprintf(r.w, "→ %s %s\n", e.Call.Name, compactJSON(e.Call.Input, 200))
	case EventToolEnd:
		fmt.Fprintf(r.w, "  %s: %s\n", map[bool]string{false: "ok", true: "error"}[e.Result.IsError], visibleControls(firstLine(e.Result.Content, 200)))
		if e.Call.Name == "todo_write" && !e.Result.IsError {
			fmt.Fprintln(r.w, strings.Join(todoLines(e.Call.Input, &Transcript{}), "\n"))
		}
	case EventNotice:
		r.newline()
		fmt.Fprintf(r.w, "! %s\n", visibleLines(e.Text))
	case EventCompact:
		if e.Compaction.Trigger != "manual" { // a command says what it did
			r.newline()
			fmt.Fprintf(r.w, "· %s (context now %s)\n", visibleLines(e.Text), r.usage())
		}
	}
}

// endTurn finishes the output of a turn and readies the next.
func (r *lineRenderer) endTurn(res TurnResult) {
	r.newline()
	r.streamed = false
	if res.End == EndError {
		fmt.Fprintln(r.w, "(the turn ended with an error; you can try again)")
	} else if res.End == EndCancelled {
		fmt.Fprintln(r.w, "interrupted")
	}
}

// newline ends a line left open by streamed text.
func (r *lineRenderer) newline() {
	if r.midLine {
		fmt.Fprintln(r.w)
		r.midLine = false
	}
}

// compactJSON shows a tool input on one line, cut to max characters.
func compactJSON(raw json.RawMessage, max int) string {
	var v any
	if json.Unmarshal(raw, &v) == nil {
		if b, err := encodeJSON(v, len(raw)); err == nil {
			raw = b
		}
	}
	return cutRunes(string(raw), max)
}

// LineSource gives lines one at a time: stdin's LineReader, or the terminal UI's input box.
type LineSource interface {
	ReadLine(ctx context.Context) (string, error)
}

// LineReader reads lines for several users (tasks, then answers), who may wait at once: the next line goes
// to the newest caller waiting, as an MCP server's question asked while the prompt waits takes its answer;
// a line a cancelled caller gave up on goes to the next.
type LineReader struct {
	r       *bufio.Reader
	mu      sync.Mutex
	waiting []chan lineRead // the callers waiting, newest last
	unread  *lineRead       // a line read when nobody waited any more
	reading bool            // a goroutine reads the next line
}

// lineRead is one line without its line ending, or why there is none.
type lineRead struct {
	line string
	err  error
}

// newLineReader returns a LineReader reading r.
func newLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReader(r)}
}

// ReadLine returns the next line without its line ending, io.EOF at the end of input, or ctx's error when ctx ends first.
func (l *LineReader) ReadLine(ctx context.Context) (string, error) {
	l.mu.Lock()
	if r := l.unread; r != nil {
		l.unread = nil
		l.mu.Unlock()
		return r.line, r.err
	}
	me := make(chan lineRead, 1)
	l.waiting = append(l.waiting, me)
	if !l.reading {
		l.reading = true
		go l.read()
	}
	l.mu.Unlock()
	select {
	case r := <-me:
		return r.line, r.err
	case <-ctx.Done():
		l.mu.Lock()
		defer l.mu.Unlock()
		if i := slices.Index(l.waiting, me); i >= 0 {
			l.waiting = slices.Delete(l.waiting, i, i+1)
		} else {
			l.pass(<-me) // handed over as ctx ended
		}
		return "", ctx.Err()
	}
}

// read reads lines while callers wait.
func (l *LineReader) read() {
	for more := true; more; {
		line, err := l.r.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		l.mu.Lock()
		l.pass(lineRead{strings.TrimRight(line, "\r\n"), err})
		more = len(l.waiting) > 0
		l.reading = more
		l.mu.Unlock()
	}
}

// pass gives r to the newest caller waiting, or keeps it for the next; the caller holds l.mu.
func (l *LineReader) pass(r lineRead) {
	if n := len(l.waiting); n > 0 {
		l.waiting[n-1] <- r // buffered
		l.waiting = l.waiting[:n-1]
		return
	}
	l.unread = &r
}

// lineAsker asks permission questions in line mode, answered by a line ("d" shows the whole diff).
type lineAsker struct {
	In   LineSource
	Out  io.Writer
	Fold int // diff lines shown before folding; 0 means defaultDiffFold
}

// Ask prints the prompt and reads answers until one is valid.
func (a *lineAsker) Ask(ctx context.Context, p Prompt) (Answer, error) {
	var b strings.Builder
	(&Transcript{out: &b}).printQuestion(p, cmp.Or(a.Fold, defaultDiffFold))
	fmt.Fprint(a.Out, "\n"+b.String())
	var keys []string
	for _, c := range p.Choices {
		fmt.Fprintf(a.Out, "  %s  %-26s %s\n", c.Key, c.Label, c.Meaning)
		keys = append(keys, c.Key)
	}
	for {
		line, err := a.read(ctx, "choice ["+strings.Join(keys, "/")+"]: ", "the answer")
		if err != nil {
			return Answer{}, err
		}
		key, guidance, _ := strings.Cut(line, " ")
		if key == "d" && p.Diff != "" {
			text, _ := renderDiff(p.Diff, false, 0)
			fmt.Fprint(a.Out, text)
		} else if choice, ok := findChoice(p.Choices, key); ok {
			return a.complete(ctx, p, Answer{Choice: choice.ID, Guidance: strings.TrimSpace(guidance)})
		} else {
			fmt.Fprintf(a.Out, "unknown choice %q\n", line)
		}
	}
}

// findChoice returns the choice picked by a key.
func findChoice(choices []Choice, key string) (Choice, bool) {
	i := slices.IndexFunc(choices, func(c Choice) bool { return c.Key == key })
	if i < 0 {
		return Choice{}, false
	}
	return choices[i], true
}

// read prints a question and reads its answer, trimmed, and echoes it, as line mode's input is not a terminal.
func (a *lineAsker) read(ctx context.Context, question, what string) (string, error) {
	fmt.Fprint(a.Out, question)
	line, err := a.In.ReadLine(ctx)
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", what, err)
	}
	fmt.Fprintln(a.Out, line)
	return strings.TrimSpace(line), nil
}

// complete asks a choice's follow-up questions: the guidance for the model, or where to save an "always" answer.
func (a *lineAsker) complete(ctx context.Context, p Prompt, ans Answer) (Answer, error) {
	var err error
	if ans.Choice == ChoiceDenyGuidance && ans.Guidance == "" {
		if ans.Guidance, err = a.read(ctx, "guidance for the model: ", "the guidance"); err != nil {
			return Answer{}, err
		}
	}
	if !savesRule(ans.Choice) || len(p.SaveTargets) == 0 {
		return ans, nil
	}
	ans.SaveTo = p.SaveTargets[0].Target
	places := mapped(p.SaveTargets, saveOptionText)
	for len(p.SaveTargets) > 1 {
		line, err := a.read(ctx, fmt.Sprintf("save to %s (Enter: %s)? ", strings.Join(places, ", "), ans.SaveTo), "where to save")
		if err != nil {
			return Answer{}, err
		}
		i := slices.IndexFunc(p.SaveTargets, func(o SaveOption) bool { return line == string(o.Target[:1]) || line == string(o.Target) })
		if i >= 0 || line == "" {
			ans.SaveTo = p.SaveTargets[max(i, 0)].Target
			break
		}
		fmt.Fprintf(a.Out, "unknown place %q\n", line)
	}
	return ans, nil
}

// savesRule reports whether a choice keeps a rule, and so needs a place to save it.
func savesRule(c ChoiceID) bool { return c == ChoiceAllowAlways || c == ChoiceDenyAlways }

// saveOptionText shows a save option with its key and file.
func saveOptionText(o SaveOption) string {
	text := "[" + string(o.Target[:1]) + "]" + string(o.Target[1:])
	if o.File != "" {
		text += " (" + o.File + ")"
	}
	return text
}
