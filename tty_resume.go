package main

import (
	"fmt"
	"slices"
	"strings"
)

// resumedScreens is how many screenfuls of a resumed conversation are shown; /export writes all of it.
const resumedScreens = 2

// showResumed prints the conversation of the session resumed as the transcript showed it (prompts,
// replies, tool calls on their one line, compactions), from the session's journal: its last
// screenfuls, after a line saying how much came before.
func (u *tui) showResumed() {
	messages, marks := u.history, []JournalMark(nil)
	if j, err := readJournal(u.app.Session.Path); err == nil {
		messages, marks = j.Transcript, j.Marks
	}
	failed := map[string]bool{}
	for _, m := range messages {
		for _, r := range m.ToolResults() {
			failed[r.ToolUseID] = r.IsError
		}
	}
	t := Transcript{out: &strings.Builder{}, color: u.tr.color, width: u.tr.width} // keeps the newest lines
	for i := 0; i <= len(messages); i++ {
		for ; len(marks) > 0 && marks[0].At <= i; marks = marks[1:] {
			t.println(t.style(ansiDim, "· "+marks[0].String()))
		}
		if i < len(messages) {
			t.replay(messages[i], failed)
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
func (t *Transcript) replay(m Message, failed map[string]bool) {
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
			mark := map[bool]string{false: t.style(ansiGreen, "✓"), true: t.style(ansiRed, "✗")}[failed[b.ID]]
			t.println(t.toolLine(mark, &toolRun{name: b.Name, arg: keyArgument(b.Input)}, ""))
		}
	}
}
