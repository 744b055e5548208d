package main

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// key is a keypress, named as "enter" or "ctrl-a", or "rune" (typed) or "paste" text.
type key struct{ name, text string }

// The markers a terminal puts around pasted text in bracketed paste mode.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// keyNames names the keys other than Ctrl and a letter; SS3 sequences (ESC O) are looked up as CSI (ESC [).
var keyNames = map[string]string{
	"\r": "enter", "\n": "enter", "\t": "tab", "\x7f": "backspace", "\b": "backspace", "\x0e": "down", "\x10": "up",
	"\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left", "\x1b[H": "home", "\x1b[F": "end",
	"\x1b[1~": "home", "\x1b[4~": "end", "\x1b[7~": "home", "\x1b[8~": "end",
	"\x1b[3~": "delete", "\x1b[1;5C": "alt-f", "\x1b[1;5D": "alt-b", "\x1b[1;3C": "alt-f", "\x1b[1;3D": "alt-b",
	"\x1b\r": "alt-enter", "\x1b\n": "alt-enter", "\x1b\x7f": "alt-backspace", "\x1b\b": "alt-backspace",
	"\x1bb": "alt-b", "\x1bf": "alt-f", "\x1b[Z": "shift-tab",
}

// decodeKey returns the first key of buf and its length, or 0 for the start of a sequence; ESC alone is Esc.
func decodeKey(buf []byte) (k key, n int) {
	s := string(buf[:min(len(buf), 32)])
	switch {
	case strings.HasPrefix(s, pasteStart):
		end := bytes.Index(buf, []byte(pasteEnd))
		if end < 0 {
			return key{}, 0
		}
		return key{"paste", strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(string(buf[len(pasteStart):end]))}, end + len(pasteEnd)
	case s == "\x1b":
		return key{name: "esc"}, 1
	case strings.HasPrefix(pasteStart, s):
		return key{}, 0
	case s[0] == 0x1b && (s[1] == '[' || s[1] == 'O'): // CSI and SS3: parameters, then a final byte
		if i := strings.IndexFunc(s[2:], isFinalByte); i >= 0 {
			return key{name: cmp.Or(keyNames["\x1b["+s[2:i+3]], "ignored")}, i + 3
		} else if len(s) == 32 {
			return key{name: "ignored"}, len(s)
		}
		return key{}, 0
	case s[0] == 0x1b && keyNames[s[:2]] != "":
		return key{name: keyNames[s[:2]]}, 2
	case s[0] == 0x1b:
		return key{name: "esc"}, 1
	case keyNames[s[:1]] != "":
		return key{name: keyNames[s[:1]]}, 1
	case s[0] < 0x20:
		return key{name: "ctrl-" + string(rune('a'+s[0]-1))}, 1
	case !utf8.FullRuneInString(s):
		return key{}, 0
	}
	_, size := utf8.DecodeRuneInString(s)
	return key{"rune", s[:size]}, size
}

// isFinalByte reports whether r ends a CSI escape sequence.
func isFinalByte(r rune) bool { return r >= 0x40 && r <= 0x7e }

// readKeys applies the terminal's keys and redraws after each read, until the input closes.
func (u *tui) readKeys(in *os.File) {
	defer u.restoreOnPanic()
	var buf []byte
	chunk := make([]byte, 4096)
	for {
		n, err := in.Read(chunk)
		if err != nil {
			u.exit()
			return
		}
		buf = append(buf, chunk[:n]...)
		read := time.Now() // a question that opens while this waits for the lock came after these keys
		u.mu.Lock()
		u.keysReadAt = read
		for k, used := decodeKey(buf); used > 0; k, used = decodeKey(buf) {
			buf = buf[used:]
			u.handleKey(k)
		}
		u.draw()
		u.mu.Unlock()
	}
}

// handleKey applies a key to the approval dialog when one is open (unless typed ahead of it), else to the input, its menu or the turn.
func (u *tui) handleKey(k key) {
	u.hint = ""
	if u.cancel != nil && u.dialog == nil {
		u.typedAt = time.Now()
	}
	switch {
	case k.name == "ctrl-c":
		u.interrupt()
	case u.dialog != nil && !u.dialog.typedAhead(time.Now(), u.keysReadAt):
		if u.dialog.handle(k) {
			close(u.dialog.done)
			u.dialog = nil
		}
	case u.search != nil:
		if !u.search.handle(k, &u.editor) {
			if u.search = nil; k.name != "esc" && k.name != "ctrl-g" {
				u.handleKey(k)
			}
		}
	case k.name == "ctrl-r":
		u.startSearch()
	case k.name == "esc" && u.cancel != nil:
		u.stop()
	case k.name == "esc" && len(u.editor.buf) == 0 && len(u.menu.items) == 0 && time.Since(u.escAt) < exitArmTimeout:
		u.openMenu("rewind")
	case k.name == "esc":
		u.menu.items, u.escAt = nil, time.Now()
	case k.name == "shift-tab": // default → acceptEdits → plan → default
		next := map[PermissionMode]PermissionMode{ModeDefault: ModeAcceptEdits, ModeAcceptEdits: ModePlan}[u.app.Perms.Mode()]
		u.app.Perms.SetMode(cmp.Or(next, ModeDefault))
	case k.name == "ctrl-d" && len(u.editor.buf) == 0 && u.cancel == nil:
		u.exit()
	case k.name == "ctrl-o":
		u.expandLatest()
	case k.name == "paste" && u.attachPasted(k.text):
	case k.name == "ctrl-v":
		go u.pasteClipboard()
	case u.menu.handle(k, &u.editor):
		if text := u.editor.text(); k.name == "enter" && strings.HasPrefix(text, "/") && !strings.HasSuffix(text, "/") {
			u.submit() // a command completed by Enter runs
		}
	case u.editor.handle(k):
		u.submit()
	}
	u.menu.update(&u.editor, u.app)
}

// maxQueued is how many inputs may wait for the turn that runs.
const maxQueued = 64

// stop cancels what runs; the inputs waiting for it come back into the input box, to be sent again or not.
func (u *tui) stop() {
	u.cancel()
	if len(u.queued) > 0 {
		u.editor.set(strings.Join(slices.DeleteFunc(append(u.queued, u.editor.text()), func(s string) bool { return s == "" }), "\n"))
		u.queued = nil
	}
}

// interrupt is Ctrl-C: it cancels what runs, or clears the input, or, twice at an empty prompt, quits.
func (u *tui) interrupt() {
	u.search = nil
	switch {
	case u.cancel != nil:
		u.stop()
	case len(u.editor.buf) > 0:
		u.editor.reset()
	case time.Since(u.armedAt) < exitArmTimeout:
		u.exit()
	default:
		u.armedAt, u.hint = time.Now(), exitHint
	}
}

// submit sends the input as the answer to a waiting question, else as a task, kept in the history.
func (u *tui) submit() {
	text := strings.TrimSpace(u.editor.text())
	switch {
	case u.answers != nil:
		u.tr.echo(text)
		u.answers <- text
		u.answers = nil
	case text == "":
		return
	case len(u.queued) == maxQueued:
		u.hint = "Too many inputs are waiting; this one was kept in the input box."
		return
	default:
		u.queued = append(u.queued, text)
		notify(u.ready)
		u.editor.history = slices.Compact(append(u.editor.history, text))
		if err := u.hist.Add(text); err != nil {
			u.tr.println(u.tr.style(ansiYellow, "! "+err.Error()))
		}
	}
	u.editor.reset()
}

// expandLatest prints the newest folded result or thinking in full, up to its last 400 lines.
func (u *tui) expandLatest() {
	if u.tr.latest == "" {
		return
	}
	lines := strings.Split(strings.TrimRight(u.tr.latest, "\n"), "\n")
	if n := len(lines) - 400; n > 0 {
		lines = append(lines[n:], fmt.Sprintf("(%d earlier lines not shown)", n))
	}
	for _, l := range lines {
		u.tr.println(u.tr.style(ansiDim, "  │ ") + visibleControls(l))
	}
}

// lineEditor is the input box, edited as in a shell: Emacs keys, a kill buffer, history.
type lineEditor struct {
	buf     []rune
	cursor  int      // index into buf
	killed  string   // the text last cut, for Ctrl-Y
	history []string // earlier inputs, oldest first
	histPos int      // the history entry shown; len(history) for the draft
	draft   string   // the text typed before Up
	columns int      // the width of the box's rows, as last drawn; 0 before
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
		e.cursor = e.back(e.back(e.cursor, notWord), isWord)
	case "alt-f":
		e.cursor = e.forward(e.forward(e.cursor, notWord), isWord)
	case "ctrl-u":
		e.remove(e.back(e.cursor, inLine), e.cursor, true)
	case "ctrl-k":
		e.remove(e.cursor, e.forward(e.cursor, inLine), true)
	case "ctrl-w", "alt-backspace":
		e.remove(e.back(e.back(e.cursor, notWord), isWord), e.cursor, true)
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

// inLine reports whether r belongs to a line, i.e. is not a newline.
func inLine(r rune) bool { return r != '\n' }

// isWord reports whether r belongs to a word for Alt-B/F and Ctrl-W.
func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

// notWord reports whether r separates words.
func notWord(r rune) bool { return !isWord(r) }

// verticalMove moves between a wrapped line's rows, the input's lines, and past its first or last through the history.
func (e *lineEditor) verticalMove(up bool) {
	start, end := e.back(e.cursor, inLine), e.forward(e.cursor, inLine)
	at, width := displayWidth(string(e.buf[start:e.cursor])), displayWidth(string(e.buf[start:end]))
	if w := e.columns; w > 0 && (up && at >= w || !up && at/w < width/w) {
		target := map[bool]int{true: at - w, false: min(at+w, width)}[up]
		for e.cursor, at = start, 0; e.cursor < end && at+runeWidth(e.buf[e.cursor]) <= target; e.cursor++ {
			at += runeWidth(e.buf[e.cursor])
		}
		return
	}
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
	pos := e.histPos + map[bool]int{false: 1, true: -1}[up]
	if pos < 0 || pos > len(e.history) {
		return
	}
	if e.histPos == len(e.history) {
		e.draft = e.text()
	}
	e.histPos = pos
	e.set(append(slices.Clip(e.history), e.draft)[pos])
}

// historySearch is Ctrl-R's incremental search of earlier inputs, as readline's: this workspace's
// newest first, then those of every workspace; the input box shows the match.
type historySearch struct {
	query   string
	entries []string   // what is searched, in that order
	at      int        // the entry shown
	failed  bool       // no entry from at on holds the query
	draft   lineEditor // the input box before the search, which Esc puts back
}

// startSearch opens a history search; the input stays as it is until a match replaces it.
func (u *tui) startSearch() {
	var entries []string
	seen, all := map[string]bool{}, u.hist.read() // every workspace's, oldest first
	for _, mine := range []bool{true, false} {
		for _, e := range slices.Backward(all) {
			if (e.Project == u.app.Workspace) == mine && !seen[e.Display] {
				seen[e.Display], entries = true, append(entries, e.Display)
			}
		}
	}
	u.search = &historySearch{entries: entries, at: -1, draft: u.editor}
}

// handle applies a key to the search and reports whether the search goes on; a key that ends it
// (Enter, an arrow) is then the input box's, but for Esc, which puts the draft back.
func (s *historySearch) handle(k key, e *lineEditor) bool {
	from := max(s.at, 0)
	switch k.name {
	case "rune", "paste":
		s.query += k.text
	case "backspace":
		_, size := utf8.DecodeLastRuneInString(s.query)
		s.query, from = s.query[:len(s.query)-size], 0
	case "ctrl-r":
		from = s.at + 1
	case "esc", "ctrl-g":
		*e = s.draft
		return false
	default:
		return false
	}
	s.find(e, from)
	return true
}

// find shows the first entry from index from that holds the query, ignoring case, the cursor on the match.
func (s *historySearch) find(e *lineEditor, from int) {
	i := slices.IndexFunc(s.entries[min(from, len(s.entries)):], func(entry string) bool { return foldRuneIndex(entry, s.query) >= 0 })
	if s.failed = i < 0 || s.query == ""; !s.failed {
		s.at = from + i
		e.set(s.entries[s.at])
		e.cursor = foldRuneIndex(s.entries[s.at], s.query)
	}
}

// foldRuneIndex is the offset in runes where sub first stands in s, ignoring case, or -1. It compares
// rune by rune: the lower-cased text's byte offsets are not s's, as some letters change length ("Ⱥ").
func foldRuneIndex(s, sub string) int {
	runes, n := []rune(s), utf8.RuneCountInString(sub)
	for i := 0; i+n <= len(runes); i++ {
		if strings.EqualFold(string(runes[i:i+n]), sub) {
			return i
		}
	}
	return -1
}

// line is what the search shows under the input box.
func (s *historySearch) line() string {
	return map[bool]string{false: "history search: ", true: "no match in the history: "}[s.failed && s.query != ""] + s.query +
		"_ · Ctrl-R older · Enter runs · Esc puts your input back"
}
