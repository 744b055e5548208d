package main

import (
	"slices"
	"unicode"
)

// lineEditor is the input box, edited as in a shell: Emacs keys, a kill buffer, history.
type lineEditor struct {
	buf     []rune
	cursor  int      // index into buf
	killed  string   // the text last cut, for Ctrl-Y
	history []string // earlier inputs, oldest first
	histPos int      // the history entry shown; len(history) for the draft
	draft   string   // the text typed before Up
}

// text returns the input as typed.
func (e *lineEditor) text() string { return string(e.buf) }

// set replaces the input and puts the cursor at its end.
func (e *lineEditor) set(s string) {
	e.buf = []rune(s)
	e.cursor = len(e.buf)
}

// reset empties the input and returns to the newest history entry.
func (e *lineEditor) reset() {
	e.set("")
	e.histPos, e.draft = len(e.history), ""
}

// insert puts s at the cursor.
func (e *lineEditor) insert(s string) {
	r := []rune(s)
	e.buf = slices.Insert(e.buf, e.cursor, r...)
	e.cursor += len(r)
}

// remove deletes buf[from:to], the cursor going to from; kill keeps the text for Ctrl-Y.
func (e *lineEditor) remove(from, to int, kill bool) {
	if kill && from < to {
		e.killed = string(e.buf[from:to])
	}
	e.buf, e.cursor = slices.Delete(e.buf, from, to), from
}

// handle applies a key and reports whether Enter sends the input (after a backslash it starts a line).
func (e *lineEditor) handle(k key) (submit bool) {
	switch k.name {
	case "rune", "paste":
		e.insert(k.text)
	case "enter":
		if e.cursor == len(e.buf) && e.cursor > 0 && e.buf[e.cursor-1] == '\\' {
			e.buf[e.cursor-1] = '\n'
			return false
		}
		return true
	case "alt-enter":
		e.insert("\n")
	case "backspace":
		e.remove(max(e.cursor-1, 0), e.cursor, false)
	case "delete", "ctrl-d":
		e.remove(e.cursor, min(e.cursor+1, len(e.buf)), false)
	case "up", "down":
		e.verticalMove(k.name == "up")
	case "left", "ctrl-b":
		e.cursor = max(e.cursor-1, 0)
	case "right", "ctrl-f":
		e.cursor = min(e.cursor+1, len(e.buf))
	case "home", "ctrl-a":
		e.cursor = e.back(e.cursor, inLine)
	case "end", "ctrl-e":
		e.cursor = e.forward(e.cursor, inLine)
	case "alt-b":
		e.cursor = e.wordLeft()
	case "alt-f":
		e.cursor = e.forward(e.forward(e.cursor, notWord), isWord)
	case "ctrl-u":
		e.remove(e.back(e.cursor, inLine), e.cursor, true)
	case "ctrl-k":
		e.remove(e.cursor, e.forward(e.cursor, inLine), true)
	case "ctrl-w", "alt-backspace":
		e.remove(e.wordLeft(), e.cursor, true)
	case "ctrl-y":
		e.insert(e.killed)
	}
	return false
}

// back returns where the run of runes before i for which in holds starts.
func (e *lineEditor) back(i int, in func(rune) bool) int {
	for i > 0 && in(e.buf[i-1]) {
		i--
	}
	return i
}

// forward returns where the run of runes from i for which in holds ends.
func (e *lineEditor) forward(i int, in func(rune) bool) int {
	for i < len(e.buf) && in(e.buf[i]) {
		i++
	}
	return i
}

// wordLeft is the start of the word before the cursor.
func (e *lineEditor) wordLeft() int { return e.back(e.back(e.cursor, notWord), isWord) }

// inLine reports whether r belongs to a line, i.e. is not a newline.
func inLine(r rune) bool { return r != '\n' }

// isWord reports whether r belongs to a word for Alt-B/F and Ctrl-W.
func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// notWord reports whether r separates words.
func notWord(r rune) bool { return !isWord(r) }

// verticalMove moves between the lines of the input, and past its first or last through the history.
func (e *lineEditor) verticalMove(up bool) {
	start, end := e.back(e.cursor, inLine), e.forward(e.cursor, inLine)
	col := e.cursor - start
	switch {
	case up && start > 0:
		prev := e.back(start-1, inLine)
		e.cursor = prev + min(col, start-1-prev)
	case !up && end < len(e.buf):
		e.cursor = end + 1 + min(col, e.forward(end+1, inLine)-end-1)
	default:
		e.recall(up)
	}
}

// recall shows the previous (up) or next history entry, or past the newest the draft.
func (e *lineEditor) recall(up bool) {
	pos := e.histPos + 1
	if up {
		pos -= 2
	}
	if pos < 0 || pos > len(e.history) {
		return
	}
	if e.histPos == len(e.history) {
		e.draft = e.text()
	}
	e.histPos = pos
	e.set(e.draft)
	if pos < len(e.history) {
		e.set(e.history[pos])
	}
}

// remember adds a sent input to the editor's history.
func (e *lineEditor) remember(input string) {
	e.history = slices.Compact(append(e.history, input))
	e.histPos = len(e.history)
}
