package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Timing of the terminal UI.
const (
	frameInterval  = 16 * time.Millisecond  // the shortest time between two redraws while text streams
	spinnerTick    = 100 * time.Millisecond // how often the activity's clock is redrawn
	exitArmTimeout = 2 * time.Second        // how long a first Ctrl-C at the prompt waits for the second
)

// exitHint is shown after a first Ctrl-C at an idle prompt.
const exitHint = "Press Ctrl-C again to exit."

// Terminal modes the UI turns on and off.
const (
	bracketedPasteOn  = "\x1b[?2004h"
	bracketedPasteOff = "\x1b[?2004l"
)

// spinnerFrames animate the status line while something runs.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// tui is minicode's interactive face on a terminal. The transcript is
// printed once into the terminal's normal scrollback; only the live
// region at the bottom (the line being streamed, running tools, the
// status line, the input box and its menus, or an approval dialog) is
// redrawn. Three goroutines share it under mu: the main loop runs turns
// and commands, the key reader edits the input and interrupts, and the
// ticker animates the clock and follows resizes.
type tui struct {
	app    *App
	out    io.Writer
	color  bool
	hist   *InputHistory
	inputs chan string   // inputs sent, in order, for the main loop
	quit   chan struct{} // closed when the user leaves
	leave  sync.Once

	size    func() (width, height int) // the terminal's size now; nil keeps it fixed
	restore func()                     // puts the terminal's modes back; nil in tests
	history []Message                  // the conversation, owned by the main loop

	mu            sync.Mutex
	width, height int
	editor        lineEditor
	tr            transcript
	scroll        strings.Builder // finished lines not yet printed
	screen        liveScreen
	dialog        *approvalDialog
	menu          completionMenu
	queued        []string // inputs sent while a turn ran, not yet started
	cancel        context.CancelFunc
	activity      string // what is happening now; "" when idle
	activityAt    time.Time
	hint          string      // a line under the input, such as how to exit
	armedAt       time.Time   // the first Ctrl-C at an idle prompt
	answers       chan string // set while a question (an MCP server's) waits for a typed answer
	usage         Usage       // tokens used this session
	cost          float64     // their price in dollars, where the model's price is known
	lastDraw      time.Time
	drawQueued    bool
}

// terminalPair returns stdin and stdout as files when both are terminals,
// which is when minicode runs its terminal UI rather than line mode.
func terminalPair(stdin io.Reader, stdout io.Writer) (in, out *os.File, ok bool) {
	in, okIn := stdin.(*os.File)
	out, okOut := stdout.(*os.File)
	if !okIn || !okOut || !isTerminal(int(in.Fd())) || !isTerminal(int(out.Fd())) {
		return nil, nil, false
	}
	return in, out, true
}

// newTUI builds the UI for app, drawing on out at the given size.
func newTUI(app *App, out io.Writer, width, height int) *tui {
	u := &tui{app: app, out: out, width: width, height: height,
		color:  app.getenv("NO_COLOR") == "" && app.getenv("TERM") != "dumb",
		inputs: make(chan string, 64), quit: make(chan struct{})}
	u.tr = transcript{out: &u.scroll, color: u.color, md: markdown{color: u.color}}
	u.hist, u.editor.history = openHistory(app.Home, app.Workspace)
	u.editor.reset()
	return u
}

// runTUI runs the interactive session on a terminal until the user leaves
// or ctx ends. The terminal's modes are restored on every way out.
func (app *App) runTUI(ctx context.Context, in, out *os.File) error {
	rt, err := enterRaw(int(in.Fd()))
	if err != nil {
		return fmt.Errorf("setting up the terminal: %w", err)
	}
	defer rt.restore()
	width, height := terminalSize(int(out.Fd()))
	u := newTUI(app, out, width, height)
	u.size = func() (int, int) { return terminalSize(int(out.Fd())) }
	u.restore = rt.restore
	app.asker = notifyingAsker{&tuiAsker{u: u}, app.Env.Hooks}
	app.Agent.Emit = u.event
	*app.lines = *NewLineReader(&answerSource{u: u})
	defer app.writeTo(transcriptWriter{u})()
	fmt.Fprint(out, bracketedPasteOn)
	defer u.close()
	u.mu.Lock()
	u.start()
	u.mu.Unlock()
	go u.readKeys(in)
	go u.tick(ctx)
	return u.loop(ctx)
}

// writeTo sends what minicode's parts print on its output and error
// streams (MCP servers' and permission notices) to w, and returns a
// function that puts the streams back.
func (app *App) writeTo(w io.Writer) (restore func()) {
	stderr := app.stderr
	app.stderr = w
	sw, _ := app.stdout.(*syncWriter)
	var stdout io.Writer
	if sw != nil {
		sw.mu.Lock()
		stdout, sw.w = sw.w, w
		sw.mu.Unlock()
	}
	return func() {
		app.stderr = stderr
		if sw != nil {
			sw.mu.Lock()
			sw.w = stdout
			sw.mu.Unlock()
		}
	}
}

// start shows the banner and the resumed conversation's size, and offers
// the session picker when --resume came without an id.
func (u *tui) start() {
	u.tr.println(u.tr.style(ansiBold, u.app.banner()))
	u.history = u.app.Session.View()
	if n := len(u.history); n > 0 {
		u.tr.println(fmt.Sprintf("Resumed session %s (%d messages).", u.app.SessionID, n))
	}
	if u.app.Opts.ResumePick {
		u.editor.set("/resume ")
		u.menu.update(&u.editor, u.app)
	}
	u.draw()
}

// close clears the live region, says how to come back, and turns off the
// terminal modes the UI turned on.
func (u *tui) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.dialog, u.activity, u.hint = nil, "", ""
	u.tr.endText()
	if hint := u.app.resumeHint(); hint != "" {
		u.tr.println(hint)
	}
	u.out.Write(u.screen.render(u.scroll.String(), frame{row: -1}, u.width))
	fmt.Fprint(u.out, showCursor+bracketedPasteOff)
}

// loop runs what the user sends, one input at a time.
func (u *tui) loop(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-u.quit:
			return nil
		case input := <-u.inputs:
			u.mu.Lock()
			u.queued = u.queued[1:]
			u.echo(input)
			u.mu.Unlock()
			prompt := &slashPrompt{Prompt: input}
			if strings.HasPrefix(input, "/") {
				prompt = u.command(ctx, input)
			}
			if prompt != nil {
				u.busy(ctx, "thinking", func(ctx context.Context) { u.turn(ctx, *prompt) })
			}
		}
	}
}

// busy runs fn as the current activity, which Ctrl-C or Esc cancels.
func (u *tui) busy(ctx context.Context, activity string, fn func(context.Context)) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	u.mu.Lock()
	u.cancel = cancel
	u.setActivity(activity)
	u.draw()
	u.mu.Unlock()
	fn(runCtx)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.tr.flushThinking(time.Now())
	u.tr.endText()
	u.tr.running = nil
	if runCtx.Err() != nil && ctx.Err() == nil {
		u.tr.println(u.tr.style(ansiRed, "interrupted"))
	}
	u.cancel, u.activity = nil, ""
	u.draw()
}

// turn sends one task to the model and shows the turn as it happens.
func (u *tui) turn(ctx context.Context, prompt slashPrompt) {
	u.mu.Lock()
	prompt.Prompt = attachMentions(prompt.Prompt, u.app.Workspace, &u.tr)
	u.draw()
	u.mu.Unlock()
	res := u.app.runPrompt(ctx, u.history, prompt)
	u.history = res.Messages
	u.mu.Lock()
	defer u.mu.Unlock()
	u.usage.Add(res.Usage)
	u.cost += costUSD(u.app.Model, res.Usage)
}

// command runs a slash command and prints what it says. A custom command
// or skill returns the prompt it expands to, for a turn.
func (u *tui) command(ctx context.Context, input string) (prompt *slashPrompt) {
	name, args, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	if name == "resume" && strings.TrimSpace(args) == "" {
		u.mu.Lock()
		defer u.mu.Unlock()
		u.editor.set("/resume ")
		u.menu.update(&u.editor, u.app)
		u.tr.println(u.tr.style(ansiDim, "Pick a session with the arrows and Enter, or type its number."))
		u.draw()
		return nil
	}
	var out string
	var quit bool
	var err error
	u.busy(ctx, "running /"+name, func(ctx context.Context) {
		prompt, out, quit, err = u.app.slashInput(ctx, input, &u.history)
		u.app.Session.Sync(u.history)
	})
	u.mu.Lock()
	defer u.mu.Unlock()
	switch {
	case err != nil:
		u.tr.println(u.tr.style(ansiRed, "error: "+err.Error()))
	case out != "":
		u.tr.println(out)
	}
	if quit {
		u.exit()
	}
	u.draw()
	if err != nil {
		return nil
	}
	return prompt
}

// echo prints what the user sent into the transcript.
func (u *tui) echo(input string) {
	for i, line := range strings.Split(input, "\n") {
		prefix := "  "
		if i == 0 {
			prefix = "› "
		}
		u.tr.println(u.tr.style(ansiBold, prefix+visibleControls(line)))
	}
}

// event receives the loop's events while a turn runs.
func (u *tui) event(e Event) {
	u.mu.Lock()
	defer u.mu.Unlock()
	now := time.Now()
	u.tr.event(e, now)
	activity := u.activity
	switch {
	case e.Kind == EventToolStart:
		activity = "running " + cut(cmp.Or(keyArgument(e.Call.Input), e.Call.Name), 40)
	case e.ParentToolUseID != "": // a subagent's reply
	case e.Kind == EventTextDelta:
		activity = "writing"
	case e.Kind == EventThinkingDelta || e.Kind == EventToolResults:
		activity = "thinking"
	}
	if activity != u.activity {
		// Something new started, such as the first text of a reply: it
		// is drawn at once.
		u.setActivity(activity)
		u.draw()
		return
	}
	u.requestDraw(now)
}

// setActivity names what is happening now and restarts its clock.
func (u *tui) setActivity(a string) {
	u.activity, u.activityAt = a, time.Now()
}

// requestDraw redraws now, or soon when the last frame was drawn less
// than a frame interval ago, so a fast stream costs a bounded number of
// frames while its text still appears within one interval.
func (u *tui) requestDraw(now time.Time) {
	wait := frameInterval - now.Sub(u.lastDraw)
	if wait <= 0 {
		u.draw()
		return
	}
	if !u.drawQueued {
		u.drawQueued = true
		time.AfterFunc(wait, func() {
			defer u.restoreOnPanic()
			u.mu.Lock()
			defer u.mu.Unlock()
			u.drawQueued = false
			u.draw()
		})
	}
}

// draw prints the finished lines and redraws the live region. It reads
// the terminal's size first: a resize re-wraps the lines last drawn, and
// a frame drawn before SIGWINCH arrives must already know it.
func (u *tui) draw() {
	if u.size != nil {
		if w, h := u.size(); w != u.width || h != u.height {
			u.screen.resized(w)
			u.width, u.height = w, h
		}
	}
	f := fitFrame(u.frame(time.Now()), u.height)
	u.out.Write(u.screen.render(u.scroll.String(), f, u.width))
	u.scroll.Reset()
	u.lastDraw = time.Now()
}

// restoreOnPanic puts the terminal back before a panic in one of the
// UI's goroutines ends the program; deferred first in each of them.
func (u *tui) restoreOnPanic() {
	if p := recover(); p != nil {
		if u.restore != nil {
			u.restore()
		}
		panic(p)
	}
}

// exit ends the session (the main loop returns).
func (u *tui) exit() {
	u.leave.Do(func() { close(u.quit) })
}

// tick redraws the activity's clock while something runs, redraws when
// the terminal is resized, and takes an interrupt signal (kill -INT) as Ctrl-C.
func (u *tui) tick(ctx context.Context) {
	defer u.restoreOnPanic()
	winch, interrupts := make(chan os.Signal, 1), make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	signal.Notify(interrupts, os.Interrupt)
	defer signal.Stop(winch)
	defer signal.Stop(interrupts)
	ticker := time.NewTicker(spinnerTick)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.quit:
			return
		case <-interrupts:
			u.mu.Lock()
			u.interrupt()
			u.draw()
			u.mu.Unlock()
		case <-winch:
			u.mu.Lock()
			u.draw()
			u.mu.Unlock()
		case now := <-ticker.C:
			u.mu.Lock()
			if u.hint == exitHint && now.Sub(u.armedAt) > exitArmTimeout {
				u.hint = ""
				u.draw()
			}
			if u.activity != "" {
				u.requestDraw(now)
			}
			u.mu.Unlock()
		}
	}
}

// transcriptWriter prints what other parts of minicode write while the
// UI runs (MCP servers' notices, permission notices) into the transcript.
type transcriptWriter struct{ u *tui }

// Write adds p to the transcript as finished lines.
func (w transcriptWriter) Write(p []byte) (int, error) {
	w.u.mu.Lock()
	defer w.u.mu.Unlock()
	w.u.tr.endText()
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		w.u.tr.println(visibleControls(line))
	}
	w.u.requestDraw(time.Now())
	return len(p), nil
}

// answerSource is where line-by-line questions asked while the UI runs
// (an MCP server asking for input) read their answers: while one waits,
// Enter answers it instead of sending a task.
type answerSource struct {
	u    *tui
	rest []byte // what did not fit the last read
}

// Read waits for the next line the user enters.
func (s *answerSource) Read(p []byte) (int, error) {
	if len(s.rest) == 0 {
		answers := make(chan string, 1)
		s.u.mu.Lock()
		s.u.answers, s.u.hint = answers, "Type your answer and press Enter."
		s.u.draw()
		s.u.mu.Unlock()
		s.rest = []byte(<-answers + "\n")
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}
