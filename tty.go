package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Timing and texts of the terminal UI.
const (
	frameInterval  = 16 * time.Millisecond  // the shortest time between two redraws while text streams
	spinnerTick    = 100 * time.Millisecond // how often the activity's clock is redrawn
	exitArmTimeout = 2 * time.Second        // how long a first Ctrl-C at the prompt waits for the second
	exitHint       = "Press Ctrl-C again to exit."
	answerHint     = "Type your answer and press Enter."
)

// spinnerFrames animate the status line while something runs.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// tui is the terminal UI: the transcript goes once into the scrollback; only the live region below is redrawn.
type tui struct {
	app   *App
	out   io.Writer
	hist  *InputHistory
	ready chan struct{} // tells the main loop an input waits in queued
	quit  chan struct{} // closed when the user leaves
	wake  chan struct{} // restarts the frame clock, stopped while nothing changes
	exit  func()        // ends the session: closes quit, once

	size    func() (width, height int) // the terminal's size now
	restore func()                     // puts the terminal's modes back
	history []Message                  // the conversation, owned by the main loop
	asking  sync.Mutex                 // held while a permission question waits

	mu            sync.Mutex
	width, height int
	editor        lineEditor
	tr            Transcript
	scroll        strings.Builder // finished lines not yet printed
	screen        liveScreen
	dialog        *approvalDialog
	menu          completionMenu
	search        *historySearch // Ctrl-R's, while it runs
	queued        []string       // inputs sent and not yet started, in order
	cancel        context.CancelFunc
	activity      string // what is happening now; "" when idle
	activityAt    time.Time
	hint          string                // a line under the input, such as how to exit; the next key clears it
	asked         bool                  // the model asked the user: answerHint stays until the next input starts
	armedAt       time.Time             // the first Ctrl-C at an idle prompt
	escAt         time.Time             // the first Esc at an empty, idle prompt: a second opens /rewind
	typedAt       time.Time             // the last key typed while a turn ran, which a question may interrupt
	keysReadAt    time.Time             // when the keys being handled were read from the terminal
	todos         []byte                // the newest todo_write list with steps to do, shown while a turn runs
	answers       chan string           // set while a question (an MCP server's) waits for a typed answer
	attached      map[string]attachment // the images of the input's placeholders (tty_attach.go)
	usage         SessionUsage          // what this session's model calls used, as the status line shows it
	session       string                // the session's id, as the status line shows it (commands replace app.Session unlocked)
	lastDraw      time.Time
	dirty         bool // something changed that the next tick draws
}

// terminalPair returns stdin and stdout as files when both are terminals, for the terminal UI.
func terminalPair(stdin io.Reader, stdout io.Writer) (in, out *os.File, ok bool) {
	in, _ = stdin.(*os.File)
	out, _ = stdout.(*os.File)
	return in, out, isTerminal(in) && isTerminal(out)
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	return f != nil && ioctl(int(f.Fd()), ioctlGetTermios, unsafe.Pointer(&t)) == nil
}

// ioctl performs a terminal ioctl whose argument is a pointer.
func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// enterRaw switches the terminal to raw input (keys one by one, unechoed, Ctrl-C a key) and returns what undoes it.
func enterRaw(fd int) (restore func(), err error) {
	var saved syscall.Termios
	if err := ioctl(fd, ioctlGetTermios, unsafe.Pointer(&saved)); err != nil {
		return nil, err
	}
	raw := saved
	raw.Iflag &^= syscall.ICRNL | syscall.INLCR | syscall.IGNCR | syscall.IXON | syscall.ISTRIP | syscall.BRKINT
	raw.Lflag &^= syscall.ECHO | syscall.ECHONL | syscall.ICANON | syscall.ISIG | syscall.IEXTEN
	raw.Cflag |= syscall.CS8
	raw.Cc[syscall.VMIN], raw.Cc[syscall.VTIME] = 1, 0
	if err := ioctl(fd, ioctlSetTermios, unsafe.Pointer(&raw)); err != nil {
		return nil, err
	}
	return sync.OnceFunc(func() { _ = ioctl(fd, ioctlSetTermios, unsafe.Pointer(&saved)) }), nil
}

// terminalSize returns the width and height of the terminal fd, or 80x24 when unknown.
func terminalSize(fd int) (width, height int) {
	var ws struct{ rows, cols, x, y uint16 }
	if ioctl(fd, syscall.TIOCGWINSZ, unsafe.Pointer(&ws)) != nil || ws.cols == 0 || ws.rows == 0 {
		return 80, 24
	}
	return int(ws.cols), int(ws.rows)
}

// newTUI builds the UI for app, drawing on out at a fixed size.
func newTUI(app *App, out io.Writer, width, height int) *tui {
	u := &tui{app: app, out: out, width: width, height: height, restore: func() {}, attached: map[string]attachment{},
		ready: make(chan struct{}, 1), quit: make(chan struct{}), wake: make(chan struct{}, 1)}
	u.exit = sync.OnceFunc(func() { close(u.quit) })
	u.size = func() (int, int) { return width, height }
	u.tr = Transcript{out: &u.scroll, color: app.getenv("NO_COLOR") == "" && app.getenv("TERM") != "dumb", width: max(width-1, 10)}
	u.hist, u.editor.history = openHistory(app.Home, app.Workspace)
	u.usage, u.session = app.Session.Usage(), app.Session.ID
	u.editor.reset()
	return u
}

// runTUI runs the interactive session until the user leaves or ctx ends, restoring the terminal on every way out.
func (app *App) runTUI(ctx context.Context, in, out *os.File) error {
	restore, err := enterRaw(int(in.Fd()))
	if err != nil {
		return fmt.Errorf("setting up the terminal: %w", err)
	}
	defer restore()
	width, height := terminalSize(int(out.Fd()))
	u := newTUI(app, out, width, height)
	u.size, u.restore = func() (int, int) { return terminalSize(int(out.Fd())) }, restore
	app.asker, app.Agent.Emit, app.lines = u, u.event, u
	defer app.writeTo(u)()
	fmt.Fprint(out, "\x1b[?2004h") // bracketed paste on
	defer u.close()
	u.mu.Lock()
	u.tr.println(u.tr.style(ansiBold, app.banner()))
	if u.history = app.Session.View(); len(u.history) > 0 {
		u.showResumed()
		u.todos = unfinishedTodos(u.history)
	}
	u.draw()
	u.mu.Unlock()
	if app.Opts.ResumePick { // --resume without an id
		u.command(ctx, "/resume")
	}
	go u.readKeys(in)
	go u.tick(ctx)
	return u.loop(ctx)
}

// writeTo sends what minicode prints on stdout and stderr to w until the returned function is called.
func (app *App) writeTo(w io.Writer) (restore func()) {
	app.stdout.mu.Lock()
	defer app.stdout.mu.Unlock()
	stdout, stderr := app.stdout.w, app.stderr
	app.stdout.w, app.stderr = w, w
	return func() {
		app.writeTo(stdout)
		app.stderr = stderr
	}
}

// close clears the live region, says how to resume, and turns off the UI's terminal modes.
func (u *tui) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.tr.endText()
	u.out.Write(u.screen.render(u.scroll.String(), frame{row: -1}))
	fmt.Fprint(u.out, showCursor+"\x1b[?2004l")
}

// loop runs what the user sends, one input at a time.
func (u *tui) loop(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-u.quit:
			return nil
		case <-u.ready:
			if input, ok := u.nextInput(); ok {
				if prompt := u.command(ctx, input); prompt != nil {
					u.busy(ctx, "thinking", func(ctx context.Context) { u.turn(ctx, *prompt) })
				}
			}
		}
	}
}

// nextInput takes the input that waits longest, if any, and shows it in the transcript.
func (u *tui) nextInput() (string, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.queued) == 0 {
		return "", false
	}
	input := u.queued[0]
	u.queued, u.asked = u.queued[1:], false
	u.tr.echo(input)
	if len(u.queued) > 0 {
		notify(u.ready) // for the next one
	}
	return input, true
}

// busy runs fn as the current activity, which Ctrl-C or Esc cancels.
func (u *tui) busy(ctx context.Context, activity string, fn func(context.Context)) {
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	u.mu.Lock()
	u.cancel, u.activity, u.activityAt = cancel, activity, time.Now()
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
func (u *tui) turn(ctx context.Context, prompt SlashPrompt) {
	if prompt.Input == "" { // a command's or skill's expansion attaches its own @files
		if err := u.attach(ctx, &prompt); err != nil {
			u.mu.Lock()
			defer u.mu.Unlock()
			u.tr.printOutside(ansiRed, "error: "+err.Error())
			return
		}
	}
	res := u.app.runPrompt(ctx, u.history, prompt)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.history, u.asked = res.Messages, res.End == EndAskUser
	u.todos = unfinishedTodos(u.history) // all done: the next turn shows a list once it writes one
}

// command runs input if it is a slash command, printing what it says, and returns the prompt for a turn, if any.
func (u *tui) command(ctx context.Context, input string) (prompt *SlashPrompt) {
	name, args, _ := strings.Cut(strings.TrimPrefix(input, "/"), " ")
	switch {
	case !strings.HasPrefix(input, "/"):
		return &SlashPrompt{Prompt: input}
	case (name == "resume" || name == "rewind") && strings.TrimSpace(args) == "":
		u.mu.Lock()
		defer u.mu.Unlock()
		u.openMenu(name)
		return nil
	}
	u.busy(ctx, "running /"+name, func(ctx context.Context) {
		session := u.app.Session
		p, out, quit, err := u.app.slashInput(ctx, input, &u.history)
		u.mu.Lock()
		defer u.mu.Unlock()
		u.todos = unfinishedTodos(u.history) // the list of the conversation /rewind, /clear or /resume left
		switch {
		case err != nil && ctx.Err() != nil: // interrupted, as busy says
			p, out = nil, ""
		case err != nil:
			p, out = nil, "error: "+err.Error()
		}
		if out != "" {
			u.tr.printOutside(map[bool]string{true: ansiRed}[err != nil], out)
		}
		if u.app.Session != session { // /resume, /new or /fork
			u.usage, u.session = u.app.Session.Usage(), u.app.Session.ID
			if name == "resume" {
				u.showResumed()
			}
		}
		if quit {
			u.exit()
		}
		prompt = p
	})
	return prompt
}

// openMenu puts /resume or /rewind in the input, whose menu lists the saved sessions or the checkpoints.
func (u *tui) openMenu(command string) {
	u.editor.set("/" + command + " ")
	u.menu.update(&u.editor, u.app)
	u.tr.println(u.tr.style(ansiDim, map[string]string{"resume": "Pick a session", "rewind": "Pick a checkpoint"}[command]+" with the arrows and Enter, or type its number."))
	u.draw()
}

// echo prints what the user sent into the transcript.
func (t *Transcript) echo(input string) {
	prefix := "› "
	for _, line := range strings.Split(input, "\n") {
		t.println(t.style(ansiBold, prefix+visibleControls(line)))
		prefix = "  "
	}
}

// event takes a turn's events; a new activity, such as a reply's first text, is drawn at once, the rest on a tick.
func (u *tui) event(e Event) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.changed()
	if e.Kind == EventToolEnd && e.Call.Name == "todo_write" && !e.Result.IsError && e.ParentToolUseID == "" {
		u.todos = e.Call.Input
	}
	if e.Kind == EventUsage {
		u.usage.add(e.Text, *e.Usage, e.Took)
	}
	if activity := u.tr.event(e, time.Now()); activity != "" && activity != u.activity {
		u.activity, u.activityAt = activity, time.Now()
		u.draw()
	}
}

// draw prints the finished lines and redraws the live region at the terminal's size now (SIGWINCH may be late).
func (u *tui) draw() {
	text := u.scroll.String()
	if w, h := u.size(); w != u.width || h != u.height {
		text = u.resized(w, h, text)
	}
	f := u.frame(time.Now())
	u.out.Write(u.screen.render(text, f))
	if text != "" {
		u.screen.above = min(u.screen.above+screenRows(strings.Split(strings.TrimSuffix(text, "\n"), "\n"), u.width), u.height-len(f.lines))
	}
	u.scroll.Reset()
	u.tr.pending = 0
	u.lastDraw, u.dirty = time.Now(), false
	notify(u.wake) // an activity or a hint drawn now may need tick's clock
}

// resized takes a new terminal size: the live region, and the printed lines above it still on screen,
// are drawn again for it, prose re-wrapped; it returns what to print in place of text, the lines not
// drawn yet. Terminals reflow their screen on a resize and keep the cursor's row, so the rows to go up
// are counted as reflowed, and only those between the cursor and the top of the screen.
func (u *tui) resized(width, height int, text string) string {
	oldWidth, shown := u.tr.width, u.tr.shown
	cursorY := min(u.screen.above+u.screen.cursorRow, height-1)
	u.screen.resized(width)
	u.width, u.height, u.tr.width = width, height, max(width-1, 10)
	u.screen.above = max(0, cursorY-u.screen.cursorRow)
	if u.tr.pending >= len(shown) {
		return text
	}
	from, rows := len(shown)-u.tr.pending, 0
	for ; from > 0; from-- {
		n := screenRows(shown[from-1].rows(oldWidth), width)
		if rows+n > u.screen.above {
			break
		}
		rows += n
	}
	u.screen.cursorRow, u.screen.above = u.screen.cursorRow+rows, u.screen.above-rows
	var b strings.Builder
	for _, l := range shown[from:] {
		b.WriteString(strings.Join(l.rows(u.tr.width), "\n") + "\n")
	}
	return b.String()
}

// changed marks the live region for the next frame, restarting tick's clock if it sleeps.
func (u *tui) changed() {
	u.dirty = true
	notify(u.wake)
}

// notify wakes whoever waits on c, a channel of one place, unless it is woken already.
func notify(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// restoreOnPanic, deferred first in each UI goroutine, puts the terminal back before a panic ends the program.
func (u *tui) restoreOnPanic() {
	if p := recover(); p != nil {
		u.restore()
		panic(p)
	}
}

// tick draws changes once a frame and the activity's clock, redraws on a resize and takes SIGINT as Ctrl-C;
// at an idle prompt its clock stops, so minicode waiting for input wakes no thread.
func (u *tui) tick(ctx context.Context) {
	defer u.restoreOnPanic()
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGWINCH, os.Interrupt)
	defer signal.Stop(signals)
	ticker := time.NewTicker(frameInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-u.quit:
			return
		case sig := <-signals:
			u.mu.Lock()
			if sig == os.Interrupt {
				u.interrupt()
			}
			u.draw()
			u.mu.Unlock()
		case <-u.wake:
			ticker.Reset(frameInterval)
		case now := <-ticker.C:
			u.mu.Lock()
			if u.hint == exitHint && now.Sub(u.armedAt) > exitArmTimeout {
				u.hint, u.dirty = "", true
			}
			if u.dirty || u.activity != "" && now.Sub(u.lastDraw) >= spinnerTick {
				u.draw()
			}
			if !u.dirty && u.activity == "" && u.hint != exitHint {
				ticker.Stop() // until u.wake
			}
			u.mu.Unlock()
		}
	}
}

// Write prints what other parts of minicode write (such as MCP notices) into the transcript.
func (u *tui) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.tr.endText()
	u.tr.printOutside("", strings.TrimRight(string(p), "\n"))
	u.changed()
	return len(p), nil
}

// ReadLine gives a question asked line by line (an MCP server's) the input box's next line; once ctx ends, it takes tasks again.
func (u *tui) ReadLine(ctx context.Context) (string, error) {
	answers := make(chan string, 1)
	u.mu.Lock()
	u.answers = answers
	u.draw()
	u.mu.Unlock()
	select {
	case line := <-answers:
		return line, nil
	case <-ctx.Done():
		u.mu.Lock()
		if u.answers == answers {
			u.answers = nil
			u.draw()
		}
		u.mu.Unlock()
		return "", ctx.Err()
	}
}
