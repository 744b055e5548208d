package main

import (
	"strings"
	"unicode"
)

// lineEditor is the input box's text and cursor, edited by keys as a shell
// line editor would (Emacs keys, a kill buffer, history). It knows nothing
// of the screen: render draws it.
type lineEditor struct {
	buf    []rune
	cursor int    // index into buf
	killed string // the last text cut by Ctrl-K/U/W or Alt-Backspace, for Ctrl-Y
	// history holds earlier inputs, oldest first; histPos is the entry
	// shown (len(history) = the draft being written), draft the text
	// that was being written before Up was first pressed.
	history []string
	histPos int
	draft   string
}

// text returns the input as typed.
func (e *lineEditor) text() string { return string(e.buf) }

// set replaces the input and puts the cursor at its end.
func (e *lineEditor) set(s string) {
	e.buf = []rune(s)
	e.cursor = len(e.buf)
}

// reset empties the input after it was sent and returns to the newest
// history entry.
func (e *lineEditor) reset() {
	e.set("")
	e.histPos, e.draft = len(e.history), ""
}

// insert puts s at the cursor.
func (e *lineEditor) insert(s string) {
	r := []rune(s)
	e.buf = append(e.buf[:e.cursor], append(r, e.buf[e.cursor:]...)...)
	e.cursor += len(r)
}

// cut removes buf[from:to], keeping it for Ctrl-Y.
func (e *lineEditor) cut(from, to int) {
	if from >= to {
		return
	}
	e.killed = string(e.buf[from:to])
	e.buf = append(e.buf[:from], e.buf[to:]...)
	e.cursor = from
}

// handle applies one key. It reports whether the key was an editing key;
// submit is set when Enter asks for the input to be sent (a trailing
// backslash instead continues the input on a new line).
func (e *lineEditor) handle(k key) (handled, submit bool) {
	switch k.name {
	case "rune":
		e.insert(string(k.r))
	case "paste":
		e.insert(k.text)
	case "enter":
		if e.cursor == len(e.buf) && e.cursor > 0 && e.buf[e.cursor-1] == '\\' {
			e.buf[e.cursor-1] = '\n'
			return true, false
		}
		return true, true
	case "alt-enter":
		e.insert("\n")
	case "backspace":
		if e.cursor > 0 {
			e.buf = append(e.buf[:e.cursor-1], e.buf[e.cursor:]...)
			e.cursor--
		}
	case "delete":
		if e.cursor < len(e.buf) {
			e.buf = append(e.buf[:e.cursor], e.buf[e.cursor+1:]...)
		}
	case "up", "down":
		e.verticalMove(k.name == "up")
	default:
		return e.move(k), false
	}
	return true, false
}

// move applies the cursor movement and cutting keys.
func (e *lineEditor) move(k key) bool {
	switch k.name {
	case "left", "ctrl-b":
		e.cursor = max(e.cursor-1, 0)
	case "right", "ctrl-f":
		e.cursor = min(e.cursor+1, len(e.buf))
	case "home", "ctrl-a":
		e.cursor = e.lineStart()
	case "end", "ctrl-e":
		e.cursor = e.lineEnd()
	case "alt-b":
		e.cursor = e.wordLeft()
	case "alt-f":
		e.cursor = e.wordRight()
	case "ctrl-u":
		e.cut(e.lineStart(), e.cursor)
	case "ctrl-k":
		e.cut(e.cursor, e.lineEnd())
	case "ctrl-w", "alt-backspace":
		e.cut(e.wordLeft(), e.cursor)
	case "alt-d":
		e.cut(e.cursor, e.wordRight())
	case "ctrl-y":
		e.insert(e.killed)
	default:
		return false
	}
	return true
}

// lineStart is the index where the cursor's line begins.
func (e *lineEditor) lineStart() int {
	i := e.cursor
	for i > 0 && e.buf[i-1] != '\n' {
		i--
	}
	return i
}

// lineEnd is the index where the cursor's line ends.
func (e *lineEditor) lineEnd() int {
	i := e.cursor
	for i < len(e.buf) && e.buf[i] != '\n' {
		i++
	}
	return i
}

// wordLeft is the start of the word before the cursor.
func (e *lineEditor) wordLeft() int {
	i := e.cursor
	for i > 0 && !isWordRune(e.buf[i-1]) {
		i--
	}
	for i > 0 && isWordRune(e.buf[i-1]) {
		i--
	}
	return i
}

// wordRight is the end of the word after the cursor.
func (e *lineEditor) wordRight() int {
	i := e.cursor
	for i < len(e.buf) && !isWordRune(e.buf[i]) {
		i++
	}
	for i < len(e.buf) && isWordRune(e.buf[i]) {
		i++
	}
	return i
}

// isWordRune reports whether r belongs to a word for Alt-B/F and Ctrl-W.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}

// verticalMove moves between the lines of a multi-line input, and past
// its first or last line through the history.
func (e *lineEditor) verticalMove(up bool) {
	start, end := e.lineStart(), e.lineEnd()
	col := e.cursor - start
	switch {
	case up && start > 0:
		prevStart := start - 1
		for prevStart > 0 && e.buf[prevStart-1] != '\n' {
			prevStart--
		}
		e.cursor = prevStart + min(col, start-1-prevStart)
	case !up && end < len(e.buf):
		nextEnd := end + 1
		for nextEnd < len(e.buf) && e.buf[nextEnd] != '\n' {
			nextEnd++
		}
		e.cursor = end + 1 + min(col, nextEnd-end-1)
	default:
		e.recall(up)
	}
}

// recall shows the previous (up) or next history entry; going down past
// the newest entry brings back the draft.
func (e *lineEditor) recall(up bool) {
	if e.histPos == len(e.history) {
		e.draft = e.text()
	}
	switch {
	case up && e.histPos > 0:
		e.histPos--
		e.set(e.history[e.histPos])
	case !up && e.histPos < len(e.history):
		e.histPos++
		if e.histPos == len(e.history) {
			e.set(e.draft)
		} else {
			e.set(e.history[e.histPos])
		}
	}
}

// remember adds a sent input to the editor's history.
func (e *lineEditor) remember(input string) {
	if strings.TrimSpace(input) == "" {
		return
	}
	if n := len(e.history); n == 0 || e.history[n-1] != input {
		e.history = append(e.history, input)
	}
	e.histPos = len(e.history)
}
