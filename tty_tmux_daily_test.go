package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The demo's texts the wrapping tests look for.
const (
	demoPoemReply = "I am the offline demo model and did not understand that; the closest things I can do are list files, read FILE, search for TEXT (type help for the full list)."
	demoBanner    = `No API key is configured, so the offline demo model is answering. Type "help" to see what it understands.`
)

func TestTUIDailyUseInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	if testing.Short() {
		t.Skip("drives the terminal UI through tmux")
	}
	bin := minicodeBinary(t)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		name := fmt.Sprintf("%dx%d ", w, h)
		t.Run(name+"resume shows the conversation", func(t *testing.T) { tmuxResumeShowsConversation(t, bin, w, h) })
		t.Run(name+"usage is live and kept, an interrupted reply too", func(t *testing.T) { tmuxLiveUsage(t, bin, w, h) })
		t.Run(name+"prose wraps at word boundaries", func(t *testing.T) { tmuxWordWrap(t, bin, w, h) })
		t.Run(name+"the resume picker", func(t *testing.T) { tmuxResumePicker(t, bin, w, h) })
		t.Run(name+"Ctrl-R searches the history", func(t *testing.T) { tmuxHistorySearch(t, bin, w, h) })
		t.Run(name+"menus answer to their letters", func(t *testing.T) { tmuxMenuLetters(t, bin, w, h) })
		t.Run(name+"Markdown", func(t *testing.T) { tmuxMarkdown(t, bin, w, h) })
		t.Run(name+"TERM=dumb is line mode", func(t *testing.T) { tmuxDumbTerminal(t, bin, w, h) })
		t.Run(name+"the smaller ones", func(t *testing.T) { tmuxSmallerOnes(t, bin, w, h) })
		t.Run(name+"an Esc brings a waiting input back", func(t *testing.T) { tmuxEscWithAWaitingInput(t, bin, w, h) })
	}
	t.Run("resize re-wraps what is on screen", func(t *testing.T) { tmuxResizeRewraps(t, bin) })
	t.Run("resize with a long draft leaves one status line", func(t *testing.T) { tmuxResizeLongDraft(t, bin) })
}

// checkWrapped checks that the screen shows text in rows broken at its spaces, none wider than width.
func checkWrapped(t *testing.T, screen, text string, width int) {
	t.Helper()
	if err := wrappedAt(screen, text, width); err != nil {
		t.Fatalf("%v; the screen:\n%s", err, screen)
	}
}

// wrappedAt says how the screen fails to show text in rows broken at its spaces, none wider than width.
func wrappedAt(screen, text string, width int) error {
	rows := strings.Split(screen, "\n")
	first := strings.Join(strings.Fields(text)[:4], " ")
	start := len(rows)
	for i, r := range rows {
		if strings.HasPrefix(strings.TrimSpace(r), first) {
			start = i
		}
	}
	rest := text
	for i := start; i < len(rows) && rest != ""; i++ {
		row := strings.TrimSpace(rows[i])
		if displayWidth(strings.TrimRight(rows[i], " ")) >= width || !strings.HasPrefix(rest, row) || len(row) < len(rest) && rest[len(row)] != ' ' {
			return fmt.Errorf("row %q does not end at a word of %q (width %d)", rows[i], text, width)
		}
		rest = strings.TrimLeft(rest[len(row):], " ")
	}
	if rest != "" {
		return fmt.Errorf("the screen lacks %q of %q", rest, text)
	}
	return nil
}

// statusLines are the visible lines holding a status line.
func (tm *tmuxTerm) statusLines() []string {
	var status []string
	for _, line := range strings.Split(tm.screen(false, false), "\n") {
		if strings.Contains(line, "· ctx ") {
			status = append(status, strings.TrimRight(line, " "))
		}
	}
	return status
}

// tmuxResumeShowsConversation: a resumed session shows its prompts, replies and
// tool calls, and a long one its last screenfuls after a line counting the rest;
// resuming an older session than the newest says so.
func tmuxResumeShowsConversation(t *testing.T, bin string, width, height int) {
	dir := tuiDir(t)
	long := newSession(projectDir(filepath.Join(dir, "home"), filepath.Join(dir, "ws")), newSessionID(), nil)
	for i := 0; i < 150; i++ {
		long.AddUser(userText(fmt.Sprintf("question number %d", i)))
		long.Event(Event{Kind: EventAssistant, Message: &Message{Role: RoleAssistant, Content: []Block{{Type: BlockText, Text: fmt.Sprintf("answer number %d", i)}}}})
	}
	long.Close()
	tm := startTUIIn(t, dir, bin, width, height, nil)
	for _, task := range []string{"list files", "read a.txt"} {
		tm.send(task, "Enter")
		tm.waitFor(map[string]string{"list files": "Result of list_files:", "read a.txt": "Result of read_file:"}[task])
		tm.waitIdle()
	}
	tm.send("C-d")
	tm.waitFor("MINICODE-EXITED")
	tm.tmux("kill-server")

	tm = startTUIIn(t, dir, bin, width, height, nil, "-c") // the newest session
	s := tm.waitFor("Resumed session")
	for _, want := range []string{"› list files", "✓ list_files", "› read a.txt", "✓ read_file a.txt", "hello world"} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed screen lacks %q:\n%s", want, s)
		}
	}
	if status := tm.statusLines(); len(status) != 1 || strings.Contains(status[0], " 0 tokens") || strings.Contains(status[0], "ctx 0%") {
		t.Errorf("the status line after a resume counts nothing: %q", status)
	}
	if strings.Contains(s, "A newer session") {
		t.Errorf("the newest session says a newer one exists:\n%s", s)
	}
	tm.tmux("kill-server")

	// The long session, older: only its end, after a line saying how much came before.
	tm = startTUIIn(t, dir, bin, width, height, nil, "--resume", long.ID)
	s = tm.waitFor("answer number 149")
	for _, want := range []string{"earlier lines before these (/export writes the whole conversation)", "A newer session of this workspace exists"} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "question number 1\n") {
		t.Errorf("the whole long session was printed:\n%s", s)
	}
}

// tmuxLiveUsage: the status line counts a reply's tokens while it streams, an
// interruption keeps them and the reply's text (marked as interrupted, for the
// model and a resume), /cost and /context show them, and a resume counts them.
func tmuxLiveUsage(t *testing.T, bin string, width, height int) {
	var api recordingAnthropic
	srv := api.serve(t, func(messages []Message) string {
		if lastUserText(messages) == "stream slowly" {
			return "" // its first words and usage, then nothing until the client goes
		}
		return anthropicTextStream("Answer to: "+lastUserText(messages), StopEndTurn)
	})
	dir := tuiDir(t)
	env := []string{"ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + srv.URL}
	tm := startTUIIn(t, dir, bin, width, height, env, "--provider", "anthropic", "--model", "claude-sonnet-4-5")
	tm.send("stream slowly", "Enter")
	tm.waitFor("Partial answer")
	tm.waitUntil("the status line to count the streaming reply's tokens", func(string) bool {
		status := tm.statusLines()
		return len(status) == 1 && strings.Contains(status[0], "11 tokens")
	})
	if status := tm.statusLines()[0]; !strings.Contains(status, "writing") || !strings.Contains(status, "· default · ") || !strings.Contains(status, "sandbox") {
		t.Errorf("the status line %q lacks the activity, the mode or the sandbox", status)
	}
	tm.send("Escape")
	tm.waitFor("interrupted")
	tm.waitIdle()
	if status := tm.statusLines(); len(status) != 1 || !strings.Contains(status[0], "11 tokens") {
		t.Errorf("after the interruption the status line reads %q, want the reply's 11 tokens", status)
	}
	tm.send("next question", "Enter")
	tm.waitFor("Answer to: next question")
	tm.waitIdle()
	last := api.last()
	if len(last) < 3 || last[1].Text() != "Partial answer" || last[2].Content[0].Text != interruptedText {
		t.Errorf("the model was sent %+v; want the interrupted reply and the note after it", last)
	}
	tm.send("/cost", "Enter")
	tm.waitFor("Total duration (API):")
	tm.send("/context", "Enter")
	s := tm.waitFor("tool results")
	for _, want := range []string{"Tokens:                20 input, 8 output", "Cache hit rate:", "system prompt", "messages", "kept for the reply", "claude-sonnet-4-5 · "} {
		if !strings.Contains(s, want) {
			t.Errorf("/cost and /context lack %q:\n%s", want, s)
		}
	}
	tm.send("C-d")
	tm.waitFor("MINICODE-EXITED")
	tm.tmux("kill-server")

	tm = startTUIIn(t, dir, bin, width, height, env, "--provider", "anthropic", "--model", "claude-sonnet-4-5", "-c")
	s = tm.waitFor("Resumed session")
	if !strings.Contains(s, "Partial answer\ninterrupted\n") {
		t.Errorf("the resumed conversation lacks the interrupted reply:\n%s", s)
	}
	if status := tm.statusLines(); len(status) != 1 || !strings.Contains(status[0], "28 tokens") {
		t.Errorf("after the resume the status line reads %q, want the session's 28 tokens", status)
	}
}

// tmuxWordWrap: replies, the banner and command output break at spaces, not
// inside words.
func tmuxWordWrap(t *testing.T, bin string, width, height int) {
	tm := startTUI(t, bin, width, height)
	checkWrapped(t, tm.screen(true, false), demoBanner, width)
	tm.send("write me a poem", "Enter")
	tm.waitFor("did not understand")
	tm.waitIdle()
	checkWrapped(t, tm.screen(true, false), demoPoemReply, width)
	tm.send("/permissions", "Enter")
	tm.waitFor("Permission mode")
	for _, line := range strings.Split(tm.screen(false, false), "\n") {
		if displayWidth(strings.TrimRight(line, " ")) >= width {
			t.Errorf("/permissions printed %q, as wide as the terminal (%d)", line, width)
		}
	}
}

// tmuxResumePicker: Enter on an entry of /resume's menu resumes it, and a bare
// number picks that entry of the list.
func tmuxResumePicker(t *testing.T, bin string, width, height int) {
	dir := tuiDir(t)
	for _, task := range []string{"list files", "read a.txt"} { // two sessions, the second newer
		tm := startTUIIn(t, dir, bin, width, height, nil)
		tm.send(task, "Enter")
		tm.waitFor("Result of")
		tm.waitIdle()
		tm.send("C-d")
		tm.waitFor("MINICODE-EXITED")
		tm.tmux("kill-server")
	}
	tm := startTUIIn(t, dir, bin, width, height, nil)
	tm.send("/resume", "Enter")
	tm.waitFor("2. ")
	tm.send("Enter")
	s := tm.waitFor("Resumed session")
	if !strings.Contains(s[strings.Index(s, "Resumed session"):], "› read a.txt") {
		t.Errorf("one Enter did not resume the newest session:\n%s", s)
	}
	tm.waitIdle()
	tm.send("/resume 2", "Enter")
	s = tm.waitUntil("a second resume", func(s string) bool { return strings.Count(s, "Resumed session") == 2 })
	if after := s[strings.LastIndex(s, "Resumed session"):]; !strings.Contains(after, "› list files") || strings.Contains(after, "› read a.txt") {
		t.Errorf("/resume 2 did not resume the second session of the list:\n%s", after)
	}
}

// tmuxHistorySearch: Ctrl-R finds earlier inputs as they are typed, Enter
// runs the match and Esc puts the draft back.
func tmuxHistorySearch(t *testing.T, bin string, width, height int) {
	tm := startTUI(t, bin, width, height)
	for _, task := range []string{"read a.txt", "list files"} {
		tm.send(task, "Enter")
		tm.waitFor("Result of " + map[string]string{"read a.txt": "read_file", "list files": "list_files"}[task])
		tm.waitIdle()
	}
	tm.send("my draft")
	tm.waitInput("› my draft")
	tm.send("C-r", "re")
	tm.waitInput("› read a.txt")
	tm.waitFor("history search: re_")
	tm.send("Escape")
	tm.waitInput("› my draft")
	tm.send("C-u", "C-r", "li")
	tm.waitInput("› list files")
	tm.send("Enter")
	tm.waitUntil("the match to run", func(s string) bool { return strings.Count(s, "Result of list_files:") == 2 })
}

// tmuxMenuLetters: the "save the rule where?" menu answers to the letters it shows.
func tmuxMenuLetters(t *testing.T, bin string, width, height int) {
	tm := startTUI(t, bin, width, height)
	tm.send("run touch made", "Enter")
	tm.waitFor("Permission needed")
	tm.send("a")
	tm.waitFor("[u]ser")
	tm.send("u")
	tm.waitFor("(saved: user)")
	tm.waitFor("✓ run_command touch made")
}

// tmuxMarkdown: a reply's Markdown is styled (headings, italic, lists while
// they stream), its table laid out in columns and its code labelled.
func tmuxMarkdown(t *testing.T, bin string, width, height int) {
	dir := tuiDir(t)
	reply := "# Main title\n## Part two\n### Detail\nSome *italic* words and **bold** ones.\n- first item of the list\n- second item of the list\n\n" +
		"| name | size |\n|---|---|\n| a.go | 12 |\n| b_test.go | 1024 |\n\n```go\nfunc main() {\n\tx := 1\n}\n```\nThe end."
	script, _ := json.Marshal([]ScriptedReply{{Text: reply}})
	if err := os.WriteFile(filepath.Join(dir, "script.json"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	tm := startTUIIn(t, dir, bin, width, height, []string{"MINICODE_DEMO_DELAY=30ms"}, "--mock-script", filepath.Join(dir, "script.json"))
	tm.send("show me", "Enter")
	var raw []string // lines of raw Markdown seen while the reply streamed
	tm.waitUntil("the reply to end", func(s string) bool {
		for _, line := range strings.Split(tm.screen(false, false), "\n") {
			if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "# ") {
				raw = append(raw, line)
			}
		}
		return strings.Contains(s, "The end.")
	})
	if len(raw) > 0 {
		t.Errorf("raw Markdown showed while the reply streamed: %q", raw)
	}
	plain, colored := tm.screen(true, false), tm.screen(true, true)
	for _, want := range []string{"• first item of the list", "name      │ size", "a.go      │ 12", "b_test.go │ 1024", "\n  go\n", "\n      x := 1\n"} {
		if !strings.Contains(plain, want) {
			t.Errorf("the reply lacks %q:\n%s", want, plain)
		}
	}
	for text, want := range map[string]string{"Main title": "bold underline", "Part two": "bold", "Detail": "bold italic", "italic": "italic", "bold": "bold", "words": ""} {
		if got := styleAt(colored, text); got != want {
			t.Errorf("%q is drawn %q, want %q:\n%q", text, got, want, colored)
		}
	}
}

// styleAt is the style (bold, italic, underline) a capture with escapes draws the first character
// of text in, following the escapes from the start, as tmux writes only the changes.
func styleAt(capture, text string) string {
	on := map[string]bool{}
	names := map[string]string{"1": "bold", "3": "italic", "4": "underline"}
	for i := 0; i < len(capture); i++ {
		if strings.HasPrefix(capture[i:], text) {
			var style []string
			for _, n := range []string{"bold", "italic", "underline"} {
				if on[n] {
					style = append(style, n)
				}
			}
			return strings.Join(style, " ")
		}
		if end := strings.IndexByte(capture[i:], 'm'); strings.HasPrefix(capture[i:], "\x1b[") && end > 0 {
			for _, code := range strings.Split(capture[i+2:i+end], ";") {
				switch code {
				case "0", "":
					on = map[string]bool{}
				case "22", "23", "24":
					delete(on, names[code[1:]])
				default:
					on[names[code]] = names[code] != ""
				}
			}
			i += end
		}
	}
	return "not shown"
}

// tmuxDumbTerminal: with TERM=dumb minicode runs in line mode, which moves no cursor.
func tmuxDumbTerminal(t *testing.T, bin string, width, height int) {
	tm := startTUIIn(t, tuiDir(t), bin, width, height, []string{"TERM=dumb"})
	tm.send("list files", "Enter")
	s := tm.waitFor("(context: ")
	if !strings.Contains(s, "→ list_files") || strings.Contains(s, "· ctx ") || strings.Contains(tm.screen(true, true), "\x1b[") {
		t.Errorf("TERM=dumb did not get line mode's plain output:\n%s", s)
	}
}

// tmuxSmallerOnes: the status line keeps the mode and sandbox; Up in a wrapped
// draft moves up a row before the history; d does not print a diff shown whole
// again; Ctrl-C during a question says no "context canceled".
func tmuxSmallerOnes(t *testing.T, bin string, width, height int) {
	tm := startTUI(t, bin, width, height)
	tm.send("replace hello with bye in a.txt", "Enter")
	tm.waitFor("Permission needed")
	if strings.Contains(tm.screen(false, false), "d shows the whole diff") {
		t.Errorf("the dialog offers d for a diff shown whole:\n%s", tm.screen(false, false))
	}
	tm.send("d")
	tm.send("n")
	tm.waitFor("→ reject once")
	if n := strings.Count(tm.screen(true, false), "+bye world"); n != 1 {
		t.Errorf("the diff was printed %d times, want once", n)
	}

	tm.send("run touch made", "Enter")
	tm.waitUntil("a second question", func(s string) bool { return strings.Count(s, "Permission needed") == 2 })
	tm.send("C-c")
	tm.waitFor("interrupted")
	tm.waitIdle()
	if s := tm.screen(true, false); strings.Contains(s, "context canceled") {
		t.Errorf("Ctrl-C during a question printed a raw error:\n%s", s)
	}

	tm.send("list files", "Enter")
	tm.waitFor("Result of list_files:")
	tm.waitIdle()
	draft := strings.TrimSpace(strings.Repeat("word ", width*5/10)) + "END"
	tm.send(draft)
	tm.waitFor("END")
	row := tm.cursorRow()
	tm.send("Up")
	tm.waitUntil("the cursor to move up a row", func(string) bool { return tm.cursorRow() == row-1 })
	if line := tm.inputLine(); !strings.HasPrefix(line, "› word word") {
		t.Errorf("Up left the draft for the history: %q", line)
	}
}

// tmuxEscWithAWaitingInput: an Esc while an input waits for the turn stops
// the turn and brings the input back into the box instead of starting it;
// the prompt is then idle, and Ctrl-C clears the box, then twice exits.
func tmuxEscWithAWaitingInput(t *testing.T, bin string, width, height int) {
	dir := tuiDir(t)
	script, _ := json.Marshal([]ScriptedReply{{Text: strings.Repeat("a long story streamed slowly ", 100)}})
	if err := os.WriteFile(filepath.Join(dir, "script.json"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	tm := startTUIIn(t, dir, bin, width, height, []string{"MINICODE_DEMO_DELAY=20ms"}, "--mock-script", filepath.Join(dir, "script.json"))
	tm.send("tell me a story", "Enter")
	tm.waitFor("writing")
	tm.send("read a.txt", "Enter")
	tm.waitFor("queued: read a.txt")
	tm.send("Escape")
	tm.waitFor("interrupted")
	tm.waitIdle()
	tm.waitInput("› read a.txt")
	if s := tm.screen(true, false); strings.Contains(s[:strings.LastIndex(s, "· ctx ")], "› read a.txt") { // an echo above the status line
		t.Errorf("the input waiting for the interrupted turn was started:\n%s", s)
	}
	tm.send("C-c", "C-c")
	tm.waitFor("Press Ctrl-C again")
	tm.send("C-c")
	tm.waitFor("MINICODE-EXITED")
}

// cursorRow is the row of the pane's cursor.
func (tm *tmuxTerm) cursorRow() int {
	row, _ := strconv.Atoi(strings.TrimSpace(tm.tmux("display-message", "-p", "-t", "main", "#{cursor_y}")))
	return row
}

// tmuxResizeRewraps: prose still on screen is wrapped again for the new width.
func tmuxResizeRewraps(t *testing.T, bin string) {
	tm := startTUI(t, bin, 120, 40)
	tm.send("write me a poem", "Enter")
	tm.waitFor("did not understand")
	tm.waitIdle()
	for _, size := range [][2]int{{60, 20}, {100, 30}} {
		tm.tmux("resize-window", "-t", "main", "-x", strconv.Itoa(size[0]), "-y", strconv.Itoa(size[1]))
		tm.waitTerminalSize(size[0], size[1])
		tm.send("x", "BSpace") // a redraw, whether or not the resize was seen
		tm.waitUntil(fmt.Sprintf("the reply wrapped again at words for %d columns", size[0]), func(string) bool {
			return wrappedAt(tm.screen(false, false), demoPoemReply, size[0]) == nil
		})
	}
}

// tmuxResizeLongDraft: a draft of several rows with the cursor at its end
// leaves no copy of the status line behind when the window narrows.
func tmuxResizeLongDraft(t *testing.T, bin string) {
	tm := startTUI(t, bin, 120, 40)
	tm.send(strings.Repeat("word ", 39) + "END") // two rows, the second longer than the new width
	tm.waitFor("END")
	tm.tmux("resize-window", "-t", "main", "-x", "60", "-y", "20")
	tm.waitTerminalSize(60, 20)
	tm.send(" TAIL") // drawn at the new size
	tm.waitUntil("one status line and the draft's end", func(string) bool {
		return len(tm.statusLines()) == 1 && strings.Contains(tm.screen(false, false), "TAIL")
	})
}
