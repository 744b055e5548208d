package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// plainTUI is a terminal UI for a demo-model app, without colour, drawing
// into out at 80x24.
func plainTUI(t testing.TB, out io.Writer) *tui {
	t.Helper()
	env := map[string]string{"MINICODE_HOME": t.TempDir(), "HOME": t.TempDir()}
	app, err := newApp(context.Background(), Options{Workspace: t.TempDir()}, strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(app.Close)
	app.Session.ID = "0123456789abcdef"
	app.Sandbox = nil // the status line then reads the same on every machine
	u := newTUI(app, out, 80, 24)
	u.tr.color = false
	return u
}

func TestLiveScreenRender(t *testing.T) {
	var s liveScreen
	steps := []struct {
		text string
		f    frame
		want string
	}{
		{"", frame{lines: []string{"status", "› hi"}, row: 1, col: 4},
			"\x1b[?25l\r\x1b[Jstatus\r\n› hi\r\x1b[4C\x1b[?25h"},
		{"done\n", frame{lines: []string{"status", "› "}, row: 1, col: 2},
			"\x1b[?25l\x1b[1A\r\x1b[Jdone\r\nstatus\r\n› \r\x1b[2C\x1b[?25h"},
		{"", frame{lines: []string{"a", "› x", "menu 1", "menu 2"}, row: 1, col: 3},
			"\x1b[?25l\x1b[1A\r\x1b[Ja\r\n› x\r\nmenu 1\r\nmenu 2\x1b[2A\r\x1b[3C\x1b[?25h"},
		{"", frame{lines: []string{"dialog"}, row: -1},
			"\x1b[?25l\x1b[1A\r\x1b[Jdialog"},
	}
	for i, st := range steps {
		if got := string(s.render(st.text, st.f)); got != st.want {
			t.Errorf("step %d: got %q, want %q", i, got, st.want)
		}
	}
}

func TestFrameKeepsTheBottom(t *testing.T) {
	u := plainTUI(t, io.Discard)
	u.height = 4
	u.editor.set("1\n2\n3\n4")
	u.editor.cursor = 5 // on the third line
	f := u.frame(time.Now())
	if strings.Join(f.lines, ",") != "  2,  3,  4" || f.row != 1 {
		t.Errorf("got %q row %d, want the input's last three lines, the cursor on the middle one", f.lines, f.row)
	}
}

func TestTranscriptFrames(t *testing.T) {
	u := plainTUI(t, io.Discard)
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	call := &Block{Type: BlockToolUse, ID: "t1", Name: "run_command", Input: json.RawMessage(`{"command":"go test ./..."}`)}
	steps := []struct {
		e          Event
		now        time.Duration
		wantScroll string
		wantFrame  string
	}{
		{Event{Kind: EventThinkingDelta, Text: "Looking at\nthe files."}, 0, "",
			"∴ thinking… the files.\nmock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventTextDelta, Text: "# Plan\nI will **read** `a.go`.\n<progress>Runn"}, 1500 * time.Millisecond,
			"∴ thought for 1.5s: Looking at\n# Plan\nI will **read** `a.go`.\n",
			"Runn\nmock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventTextDelta, Text: "ing tests.</prog"}, 1600 * time.Millisecond, "",
			"Running tests.\nmock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventTextDelta, Text: "ress>"}, 1600 * time.Millisecond, "",
			"Running tests.\nmock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventAssistant, Message: &Message{}}, 1700 * time.Millisecond, "Running tests.\n",
			"mock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventToolStart, Call: call}, 2 * time.Second, "",
			"⠋ run_command go test ./... 0.0s\nmock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventToolEnd, Call: call, Result: &Block{Content: "Exit code: 1\n\nstdout:\nok a\nFAIL b\nline3\nline4\n\nstderr:\n(empty)\n", IsError: true}},
			5 * time.Second,
			"✗ run_command go test ./... (3.0s)\n  │ … 1 earlier lines (Ctrl-O shows all)\n  │ FAIL b\n  │ line3\n  │ line4\n  │ exit 1\n",
			"mock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventNotice, Text: "retrying in 2s"}, 5 * time.Second, "! retrying in 2s\n",
			"mock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventCompact, Compaction: &Compaction{Trigger: "auto"}, Text: "snip compact (auto) saved 3,000 tokens"}, 6 * time.Second,
			"· snip compact (auto) saved 3,000 tokens\n", "mock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
		{Event{Kind: EventCompact, Compaction: &Compaction{Trigger: "manual"}, Text: "compaction (manual) saved 9 tokens"}, 6 * time.Second, // /compact says it
			"", "mock (mock) · ctx 0% · 0 tokens · session 01234567 · default · no sandbox\n› "},
	}
	for i, st := range steps {
		u.activityAt = at(st.now)
		u.tr.event(st.e, at(st.now))
		if got := u.scroll.String(); got != st.wantScroll {
			t.Errorf("step %d: scrollback got\n%q\nwant\n%q", i, got, st.wantScroll)
		}
		u.scroll.Reset()
		if got := strings.Join(u.frame(at(st.now)).lines, "\n"); got != st.wantFrame {
			t.Errorf("step %d: frame got\n%q\nwant\n%q", i, got, st.wantFrame)
		}
	}
}

func TestInputFrameWrapsAndPlacesTheCursor(t *testing.T) {
	u := plainTUI(t, io.Discard)
	u.editor.set("first line\n" + strings.Repeat("界", 45))
	u.editor.cursor = 11 + 40
	f := u.frame(time.Now())
	want := "› first line\n  " + strings.Repeat("界", 38) + "\n  " + strings.Repeat("界", 7)
	if got := strings.Join(f.lines[1:], "\n"); got != want {
		t.Errorf("input lines got\n%q\nwant\n%q", got, want)
	}
	if f.row != 3 || f.col != 2+4 {
		t.Errorf("cursor at row %d col %d, want row 3 col 6", f.row, f.col)
	}
}

func TestMarkdownLines(t *testing.T) {
	var out strings.Builder
	tr := Transcript{out: &out, color: true}
	tests := []struct{ in, want string }{
		{"# Title", ansiBold + ansiUnderline + "Title" + ansiReset},
		{"## Part", ansiBold + "Part" + ansiReset},
		{"### Detail", ansiBold + ansiItalic + "Detail" + ansiReset},
		{"- item", "• item"},
		{"> quoted", ansiDim + "│ quoted" + ansiReset},
		{"```go", ansiDim + "  go" + ansiReset}, // the fence shows its language only
		{"x := **1**", "  " + ansiCyan + "x := **1**" + ansiReset},
		{"\tindented", "  " + ansiCyan + "    indented" + ansiReset},
		{"```", ""},
		{"after", "after"},
	}
	for _, tt := range tests {
		out.Reset()
		tr.textLine(tt.in)
		if got := strings.TrimSuffix(out.String(), "\n"); got != tt.want {
			t.Errorf("textLine(%q) printed %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStripTags(t *testing.T) {
	tests := []struct {
		in      string
		partial bool
		want    string
	}{
		{"<progress>Reading.</progress>", false, "Reading."},
		{"<final>Done</final>", false, "Done"},
		{"Reading.</pro", true, "Reading."},
		{"a < b", true, "a < b"},
		{"<fin", true, ""},
	}
	for _, tt := range tests {
		if got := stripTags(tt.in, tt.partial); got != tt.want {
			t.Errorf("stripTags(%q, %v) = %q, want %q", tt.in, tt.partial, got, tt.want)
		}
	}
}

func TestStatusLineShowsTokensAndCost(t *testing.T) {
	u := plainTUI(t, io.Discard)
	u.app.Agent.Model = "claude-sonnet-4-5"
	u.usage.add(u.app.Agent.Model, Usage{InputTokens: 12_000, OutputTokens: 345}, 0)
	u.activity, u.activityAt = "running go test", time.Now().Add(-3200*time.Millisecond)
	cost := u.usage.CostUSD
	tests := []struct {
		width int
		want  string
	}{
		{200, fmt.Sprintf("* running go test 3.2s · claude-sonnet-4-5 (mock) · ctx 0%% · 12.3k tokens $%.2f · session 01234567 · default · no sandbox", cost)},
		{96, fmt.Sprintf("* running go test 3.2s · claude-sonnet-4-5 · ctx 0%% · 12.3k tokens $%.2f · default · no sandbox", cost)},
		{79, fmt.Sprintf("* running go test 3.2s · ctx 0%% · 12.3k tokens $%.2f · default · no sandbox", cost)},
		{60, "* running go test 3.2s · ctx 0% · default · no sandbox"},
		{45, "* running go test 3.2s · ctx 0% · default · …"},
	}
	for _, tt := range tests {
		if got := u.statusLine(time.Now(), "*", tt.width); cost == 0 || got != tt.want {
			t.Errorf("width %d:\ngot  %q\nwant %q", tt.width, got, tt.want)
		}
	}
}

func TestNoColorTurnsColourOff(t *testing.T) {
	app := testApp(t, t.TempDir(), Options{})
	for _, env := range []map[string]string{{"NO_COLOR": "1"}, {"TERM": "dumb"}, {"TERM": "xterm-256color"}} {
		app.getenv = func(k string) string { return env[k] }
		var out strings.Builder
		u := newTUI(app, &out, 80, 24)
		u.tr.event(Event{Kind: EventNotice, Text: "careful"}, time.Now())
		u.draw()
		wantColor := env["TERM"] == "xterm-256color"
		if hasColor := strings.Contains(out.String(), "\x1b[3"); hasColor != wantColor {
			t.Errorf("%v: colour %v, want %v: %q", env, hasColor, wantColor, out.String())
		}
	}
}

// TestLongLineStreamsInLinearSpace streams one 128 KB line without a newline
// in 16-byte deltas, drawing a frame every 64 of them: the memory allocated
// stays a small multiple of the text (appending to one string, or wrapping
// the whole line for every frame, allocates hundreds of times more), and the
// finished line is printed whole. The process's allocations are counted, so
// the least of three runs is taken: another test's goroutine may allocate meanwhile.
func TestLongLineStreamsInLinearSpace(t *testing.T) {
	text := strings.Repeat("x", 128<<10)
	var u *tui
	least := uint64(math.MaxUint64)
	for range 3 {
		u = plainTUI(t, io.Discard)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < len(text); i += 16 {
			u.tr.event(Event{Kind: EventTextDelta, Text: text[i : i+16]}, time.Now())
			if i%(64*16) == 0 {
				u.frame(time.Now())
			}
		}
		runtime.ReadMemStats(&after)
		u.tr.event(Event{Kind: EventAssistant, Message: &Message{}}, time.Now())
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	if least > 32*uint64(len(text)) {
		t.Errorf("streaming %d bytes allocated %d bytes (the least of three runs); want at most 32 times the text (about 6 times it without the race detector, 15 with)", len(text), least)
	}
	if got := strings.Count(u.scroll.String(), "x"); got != len(text) {
		t.Errorf("printed %d of the %d characters", got, len(text))
	}
}

// hostileText holds what a file or a prompt-injected model could send the terminal: a retitle (OSC ended
// by BEL), a screen clear, and the same as C1 controls.
const hostileText = "a\x1b]0;pwned\x07b\x1b[2Jc\u009b2Jd\u009d0;pwned\u009c"

// checkNoRawControls fails when the bytes sent to the terminal hold a piece of hostileText as it was.
func checkNoRawControls(t *testing.T, what, out string) {
	t.Helper()
	for _, raw := range []string{"\x1b]", "\x07", "\x1b[2J", "\u009b", "\u009d"} {
		if i := strings.Index(out, raw); i >= 0 {
			t.Errorf("%s: %q reached the terminal raw: %q", what, raw, out[max(0, i-20):min(len(out), i+20)])
		}
	}
}

// TestUntrustedTextReachesTheTerminalVisible sends hostile text through each event the transcript
// shows (a tool's name and command, a notice, a compaction, a todo list), coloured and not: its
// control characters reach the terminal in caret notation.
func TestUntrustedTextReachesTheTerminalVisible(t *testing.T) {
	input, _ := json.Marshal(map[string]string{"command": hostileText})
	todos, _ := json.Marshal(map[string]any{"todos": []map[string]string{
		{"content": hostileText, "activeForm": hostileText, "status": "in_progress"}, {"content": hostileText, "status": "pending"}}})
	events := []Event{
		{Kind: EventToolStart, Call: &Block{ID: "1", Name: "run_" + hostileText, Input: input}},
		{Kind: EventToolEnd, Call: &Block{ID: "1", Name: "run_" + hostileText, Input: input}, Result: &Block{Content: hostileText}},
		{Kind: EventNotice, Text: hostileText + "\n" + hostileText},
		{Kind: EventCompact, Text: hostileText, Compaction: &Compaction{Trigger: "auto"}},
		{Kind: EventToolEnd, Call: &Block{ID: "2", Name: "todo_write", Input: todos}, Result: &Block{Content: "ok"}},
		{Kind: EventTextDelta, Text: hostileText + "\n| " + hostileText + " |\n|---|\n\n" + hostileText},
	}
	for _, color := range []bool{false, true} {
		var out strings.Builder
		u := plainTUI(t, &out)
		u.tr.color, u.activity = color, "thinking"
		for _, e := range events {
			out.Reset()
			u.event(e)
			u.draw()
			checkNoRawControls(t, fmt.Sprintf("colour %v, %s", color, e.Kind), out.String())
		}
	}
}

// TestCommandOutputReachesTheTerminalVisible lists, with /help, a custom command of the workspace
// whose description holds escapes: the output shows them in caret notation.
func TestCommandOutputReachesTheTerminalVisible(t *testing.T) {
	var out strings.Builder
	u := plainTUI(t, &out)
	u.tr.color = true
	dir := filepath.Join(u.app.Workspace, ".minicode", "commands")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "x.md"), []byte("---\ndescription: "+hostileText+"\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u.app.Commands = loadCustomCommands([]string{dir})
	u.command(context.Background(), "/help")
	checkNoRawControls(t, "/help", out.String())
	if !strings.Contains(out.String(), "a^[]0;pwned^G") {
		t.Errorf("/help lacks the description, its escapes visible: %q", out.String())
	}
}

// TestStatusLineWhileNewSessionStarts runs /new while another goroutine draws, as the frame clock does
// while a command runs: under -race, the status line must not read the session the command replaces.
func TestStatusLineWhileNewSessionStarts(t *testing.T) {
	u := plainTUI(t, io.Discard)
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			default:
				u.mu.Lock()
				u.draw()
				u.mu.Unlock()
			}
		}
	}()
	for range 20 {
		u.command(context.Background(), "/new")
	}
	close(stop)
	<-stopped
	u.mu.Lock()
	defer u.mu.Unlock()
	if got, want := u.statusLine(time.Now(), "*", 200), "session "+u.app.Session.ID[:8]; !strings.Contains(got, want) {
		t.Errorf("status line %q does not name the new session (%q)", got, want)
	}
}
