package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Transcript turns the loop's events into lines: finished ones go to out, what still changes stays for the live region.
type Transcript struct {
	out      *strings.Builder
	color    bool
	width    int             // the columns prose is wrapped to; 0: not wrapped
	shown    []shownLine     // the newest lines printed, while they may be on screen
	pending  int             // lines of shown not drawn yet
	inFence  bool            // a fenced code block of the reply is open
	table    []string        // the rows of a table still arriving
	partial  strings.Builder // the text line still arriving
	streamed bool            // the current reply's text arrived as deltas
	thinking strings.Builder
	thinkAt  time.Time
	running  []*toolRun
	latest   string // the newest folded entry (a tool result or thinking), which Ctrl-O prints
}

// toolRun is a tool call that has started and not yet finished.
type toolRun struct {
	id, name, arg string
	start         time.Time
	subCalls      int // a task call's subagent: the tool calls it made so far
}

// toolLine is a tool call's mark, name, key argument, time taken and (for a task) subagent's calls.
func (t *Transcript) toolLine(mark string, r *toolRun, took string) string {
	line := fmt.Sprintf("%s %s %s %s", mark, t.style(ansiBold, visibleControls(r.name)), visibleControls(cutRunes(r.arg, 120)), t.style(ansiDim, took))
	if r.subCalls > 0 {
		line += fmt.Sprintf(" · %d tool calls", r.subCalls)
	}
	return line
}

// style wraps s in an ANSI style when colour is on.
func (t *Transcript) style(code, s string) string {
	if !t.color || code == "" {
		return s
	}
	return code + s + ansiReset
}

// shownLine is a line printed into the scrollback, kept while it may be on screen so a resize can re-wrap it.
type shownLine struct {
	text  string
	prose bool // wrapped at word boundaries to the width; code, tables and diffs are left to the terminal
}

// maxShown is how many printed lines are kept for re-wrapping: more than any screen holds.
const maxShown = 300

// printOutside prints text from outside the transcript (a notice, a command's output, an error) as prose,
// each line in the style code ("" for none) and its control characters made visible.
func (t *Transcript) printOutside(code, s string) {
	for line := range strings.SplitSeq(s, "\n") {
		t.println(t.style(code, visibleControls(line)))
	}
}

// println prints lines of prose into the scrollback, wrapped at word boundaries.
func (t *Transcript) println(s string) { t.print(s, true) }

// printRaw prints lines as they are: the terminal wraps them where they pass its width.
func (t *Transcript) printRaw(s string) { t.print(s, false) }

// print prints the lines of s into the scrollback and keeps them for re-wrapping.
func (t *Transcript) print(s string, prose bool) {
	for line := range strings.SplitSeq(s, "\n") {
		l := shownLine{line, prose}
		if prose && len(line) > t.width && displayWidth(line) > t.width { // most lines fit
			line = strings.Join(l.rows(t.width), "\n")
		}
		t.out.WriteString(line)
		t.out.WriteByte('\n')
		if len(t.shown) == 2*maxShown {
			t.shown = slices.Delete(t.shown, 0, maxShown)
		}
		t.shown, t.pending = append(t.shown, l), t.pending+1
	}
}

// rows is how a line is printed at a width: prose wrapped at word boundaries, the rest whole.
func (l shownLine) rows(width int) []string {
	if !l.prose || width <= 0 || len(l.text) <= width {
		return []string{l.text}
	}
	return wrapWords(l.text, width)
}

// event records a loop event and returns the activity it starts, if any; a subagent's events only count its task's tool calls.
func (t *Transcript) event(e Event, now time.Time) (activity string) {
	if e.Kind == EventToolStart {
		activity = "running " + visibleControls(cutRunes(cmp.Or(keyArgument(e.Call.Input), e.Call.Name), 40))
	}
	if e.ParentToolUseID != "" {
		for _, r := range t.running {
			if r.id == e.ParentToolUseID && e.Kind == EventToolStart {
				r.subCalls++
			}
		}
		return activity
	}
	switch e.Kind {
	case EventThinkingDelta:
		if t.thinking.Len() == 0 {
			t.thinkAt = now
		}
		t.thinking.WriteString(e.Text)
		return "thinking"
	case EventToolResults:
		return "thinking"
	case EventTextDelta:
		t.flushThinking(now)
		t.streamed = true
		t.text(e.Text)
		return "writing"
	case EventAssistant:
		t.flushThinking(now)
		if !t.streamed {
			t.text(e.Message.Text())
		}
		t.endText()
		t.streamed = false
	case EventToolStart:
		t.endText()
		t.running = append(t.running, &toolRun{id: e.Call.ID, name: e.Call.Name, arg: keyArgument(e.Call.Input), start: now})
	case EventToolEnd:
		t.toolEnd(e, now)
	case EventNotice:
		t.endText()
		t.printOutside(ansiYellow, "! "+e.Text)
	case EventCompact:
		if e.Compaction.Trigger != "manual" { // a command says what it did
			t.endText()
			t.printOutside(ansiDim, "· "+e.Text)
		}
	}
	return activity
}

// text adds streamed reply text, printing each completed line.
func (t *Transcript) text(s string) {
	for line, rest, ok := strings.Cut(s, "\n"); ok; line, rest, ok = strings.Cut(s, "\n") {
		t.partial.WriteString(line)
		t.textLine(t.partial.String())
		t.partial.Reset()
		s = rest
	}
	t.partial.WriteString(s)
}

// endText prints the last, unterminated line of a reply and a table it ends.
func (t *Transcript) endText() {
	if line := t.partial.String(); strings.TrimSpace(stripTags(line, false)) != "" {
		t.textLine(line)
	}
	t.endTable()
	t.partial.Reset()
	t.inFence = false
}

// flushThinking prints finished thinking as one dimmed, folded line.
func (t *Transcript) flushThinking(now time.Time) {
	text := strings.TrimSpace(t.thinking.String())
	if text == "" {
		return
	}
	first, _, _ := strings.Cut(text, "\n")
	line := fmt.Sprintf("∴ thought for %.1fs: %s", now.Sub(t.thinkAt).Seconds(), first)
	t.println(t.style(ansiDim, truncateWidth(visibleControls(line), 200)))
	t.latest = text
	t.thinking.Reset()
}

// toolEnd prints a finished call and a preview: the result's first lines, or a command's last ones.
func (t *Transcript) toolEnd(e Event, now time.Time) {
	run := &toolRun{name: e.Call.Name, arg: keyArgument(e.Call.Input), start: now}
	if i := slices.IndexFunc(t.running, func(r *toolRun) bool { return r.id == e.Call.ID }); i >= 0 {
		run = t.running[i]
		t.running = slices.Delete(t.running, i, i+1)
	}
	mark := map[bool]string{false: t.style(ansiGreen, "✓"), true: t.style(ansiRed, "✗")}[e.Result.IsError]
	t.println(t.toolLine(mark, run, "("+formatDuration(now.Sub(run.start))+")"))
	preview := strings.Split(strings.TrimSpace(e.Result.Content), "\n")
	if run.name == "run_command" && strings.Contains(e.Result.Content, "Exit code: ") {
		preview = commandPreview(e.Result.Content)
	} else if len(preview) > 3 {
		preview = append(preview[:2], fmt.Sprintf("… %d more lines (Ctrl-O shows all)", len(preview)-2))
	}
	if run.name == "todo_write" && !e.Result.IsError {
		preview = nil
		t.printTodos(e.Call.Input)
	}
	for _, line := range preview {
		t.println(t.style(ansiDim, "  │ "+visibleControls(cutRunes(line, 160))))
	}
	t.latest = e.Result.Content
}

// keyArgument shows a tool call's main input (command, path, pattern...), else its compact JSON.
func keyArgument(raw json.RawMessage) string {
	var in map[string]any
	err := json.Unmarshal(raw, &in)
	for _, name := range []string{"command", "path", "file_path", "pattern", "url", "query", "question", "id", "name", "description"} {
		if s, ok := in[name].(string); ok && s != "" {
			return strings.ReplaceAll(s, "\n", "↵")
		}
	}
	if todos, ok := in["todos"].([]any); ok {
		return plural(len(todos), "step", "steps") // the list follows, on lines of its own
	}
	if err == nil && len(in) == 0 {
		return ""
	}
	return compactJSON(raw, 80)
}

// commandPreview shows a run_command result's last output lines and its exit code.
func commandPreview(content string) []string {
	head, streams, _ := strings.Cut(content, "\nstdout:\n")
	var out []string
	for _, l := range strings.Split(strings.Replace(streams, "\n\nstderr:\n", "\n", 1), "\n") {
		if t := strings.TrimSpace(l); t != "" && t != "(empty)" {
			out = append(out, l)
		}
	}
	if n := len(out) - 3; n > 0 {
		out = append([]string{fmt.Sprintf("… %d earlier lines (Ctrl-O shows all)", n)}, out[n:]...)
	}
	return append(out, strings.Split(strings.Replace(strings.TrimSpace(head), "Exit code: ", "exit ", 1), "\n")...)
}

// formatDuration shows a duration as "0.4s", "12s" or "3m05s".
func formatDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// todoLines draws a todo_write call's list, the step in progress highlighted; nil when the input is no list.
func todoLines(input json.RawMessage, t *Transcript) []string {
	var in TodoInput
	if json.Unmarshal(input, &in) != nil {
		return nil
	}
	return mapped(in.Todos, func(item TodoItem) string {
		content, active := visibleControls(item.Content), visibleControls(item.ActiveForm)
		line := map[string]string{"completed": t.style(ansiDim, "  ☒ "+content), "in_progress": t.style(ansiBold+ansiCyan, "  ▸ "+active)}[item.Status]
		return cmp.Or(line, "  ☐ "+content)
	})
}

// printTodos prints a todo_write call's list under the call.
func (t *Transcript) printTodos(input json.RawMessage) {
	for _, line := range todoLines(input, t) {
		t.println(line)
	}
}

// unfinishedTodos returns the newest list todo_write took in messages if a step of it is not completed, else nil.
func unfinishedTodos(messages []Message) json.RawMessage {
	failed := map[string]bool{}
	for _, m := range slices.Backward(messages) {
		for _, r := range m.ToolResults() {
			failed[r.ToolUseID] = r.IsError
		}
		for _, call := range slices.Backward(m.ToolUses()) {
			var in TodoInput
			if call.Name == "todo_write" && !failed[call.ID] && json.Unmarshal(call.Input, &in) == nil {
				if slices.ContainsFunc(in.Todos, func(t TodoItem) bool { return t.Status != "completed" }) {
					return call.Input
				}
				return nil
			}
		}
	}
	return nil
}

// resumedScreens is how many screenfuls of a resumed conversation are shown; /export writes all of it.
const resumedScreens = 2

// showResumed prints the resumed session's conversation as the transcript showed it (prompts, replies, tool calls on one
// line, compactions), from its journal: the last screenfuls, after a line saying how much came before.
func (u *tui) showResumed() {
	messages, marks, done := u.history, []JournalMark(nil), map[string]bool{} // a call with no result (minicode was killed while it ran) is not done
	if j, err := readJournal(u.app.Session.Path); err == nil {
		messages, marks = j.Transcript, j.Marks
		for id, r := range j.calls { // ended before minicode was killed: their results are in no message
			done[id] = r != nil && !r.IsError
		}
	}
	for _, m := range messages {
		for _, r := range m.ToolResults() {
			done[r.ToolUseID] = !r.IsError
		}
	}
	t := Transcript{out: &strings.Builder{}, color: u.tr.color, width: u.tr.width} // keeps the newest lines
	for i := 0; i <= len(messages); i++ {
		for ; len(marks) > 0 && marks[0].At <= i; marks = marks[1:] {
			t.println(t.style(ansiDim, "· "+marks[0].String()))
		}
		if i < len(messages) {
			t.replay(messages[i], done)
		}
	}
	from := len(t.shown)
	for rows := 0; from > 0 && rows < resumedScreens*u.height; from-- {
		rows += screenRows(t.shown[from-1].rows(t.width), u.width)
	}
	if earlier := t.pending - (len(t.shown) - from); earlier > 0 {
		u.tr.println(u.tr.style(ansiDim, fmt.Sprintf("… %s before these (/export writes the whole conversation)", plural(earlier, "earlier line", "earlier lines"))))
	}
	for _, l := range t.shown[from:] {
		u.tr.print(l.text, l.prose)
	}
}

// loopPrompts are the user messages the loop itself writes to the model, which a resumed transcript does not show.
var loopPrompts = []string{progressNudge, continuePrompt, halfToolCallPrompt, emptyAfterToolsText, emptyText}

// replay prints a recorded message as the transcript showed it: the user's prompt (without the files it
// attached), the reply's text and thinking, its tool calls on one line each.
func (t *Transcript) replay(m Message, done map[string]bool) {
	for i, b := range m.Content {
		switch {
		case b.Type == BlockText && m.Role == RoleAssistant:
			t.text(b.Text)
			t.endText()
		case b.Type == BlockText && b.Text == interruptedText:
			t.println(t.style(ansiRed, "interrupted"))
		case b.Type == BlockText && i == 0 && !slices.Contains(loopPrompts, b.Text) && !strings.HasPrefix(b.Text, "A Stop hook"):
			prompt, _, _ := strings.Cut(b.Text, "\n\nContents of ")
			t.echo(prompt)
		case b.Type == BlockThinking:
			t.println(t.style(ansiDim, visibleControls("∴ "+firstLine(b.Thinking, 200))))
		case b.Type == BlockToolUse:
			mark := map[bool]string{true: t.style(ansiGreen, "✓"), false: t.style(ansiRed, "✗")}[done[b.ID]]
			t.println(t.toolLine(mark, &toolRun{name: b.Name, arg: keyArgument(b.Input)}, ""))
			if b.Name == "todo_write" && done[b.ID] {
				t.printTodos(b.Input)
			}
		}
	}
}
