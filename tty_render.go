package main

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The ANSI escapes the terminal UI, its diffs and its Markdown use.
const (
	ansiReset     = "\x1b[0m"
	ansiBold      = "\x1b[1m"
	ansiDim       = "\x1b[2m"
	ansiItalic    = "\x1b[3m"
	ansiUnderline = "\x1b[4m"
	ansiRed       = "\x1b[31m"
	ansiGreen     = "\x1b[32m"
	ansiYellow    = "\x1b[33m"
	ansiCyan      = "\x1b[36m"
	ansiReverse   = "\x1b[7m"
	hideCursor    = "\x1b[?25l"
	showCursor    = "\x1b[?25h"
)

// frame is one drawing of the live region: its lines and the cursor (hidden when row < 0).
type frame struct {
	lines    []string
	row, col int
}

// liveScreen draws the live region below the finished text, so a redraw costs the region's size only.
type liveScreen struct {
	cursorRow, cursorCol int      // where in the region the terminal's cursor is
	lines                []string // the lines last drawn
	above                int      // the rows printed above the region that are on screen, as far as known
}

// render returns the bytes that print text (lines ending in "\n") and then draw f over the last frame.
func (s *liveScreen) render(text string, f frame) []byte {
	var b strings.Builder
	b.WriteString(hideCursor)
	if s.cursorRow > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", s.cursorRow)
	}
	b.WriteString("\r\x1b[J" + strings.ReplaceAll(text, "\n", "\r\n") + strings.Join(f.lines, "\r\n"))
	s.lines, s.cursorRow, s.cursorCol = f.lines, len(f.lines)-1, 0
	if len(f.lines) > 0 {
		s.cursorCol = displayWidth(f.lines[len(f.lines)-1])
	}
	if f.row >= 0 {
		if up := s.cursorRow - f.row; up > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", up)
		}
		b.WriteString("\r")
		if f.col > 0 {
			fmt.Fprintf(&b, "\x1b[%dC", f.col)
		}
		b.WriteString(showCursor)
		s.cursorRow, s.cursorCol = f.row, f.col
	}
	return []byte(b.String())
}

// resized recounts the rows above the cursor in the lines last drawn, as a new width reflows them
// (the cursor's own line too: past the new width, the cursor is on a row of its own).
func (s *liveScreen) resized(width int) {
	s.cursorRow = s.cursorCol/width + screenRows(s.lines[:min(s.cursorRow, len(s.lines))], width)
}

// screenRows is how many rows of a terminal width lines take, each wrapped where it passes the width.
func screenRows(lines []string, width int) int {
	rows := 0
	for _, line := range lines {
		rows += max(1, (displayWidth(line)+width-1)/width)
	}
	return rows
}

// menuEntry draws an entry of a menu (a file's name, a session's title), the chosen one marked and reversed.
func (t *Transcript) menuEntry(text string, chosen bool, width int) string {
	line := truncateWidth("  "+visibleControls(text), width)
	if chosen {
		return t.style(ansiReverse, ">"+line[1:])
	}
	return line
}

// frame lays out the live region (text arriving, tools running, status, dialog or input box); past the terminal's height, the top goes.
func (u *tui) frame(now time.Time) frame {
	w, tr := max(u.width-1, 10), &u.tr
	var lines []string
	if p := stripTags(endCells(tr.partial.String(), 3*w), true); p != "" {
		rows := wrapWords(tr.styleLine(visibleControls(p)), w)
		lines = rows[max(0, len(rows)-3):]
	}
	if thought := strings.TrimRight(tr.thinking.String(), "\n "); thought != "" {
		thought = thought[strings.LastIndexByte(thought, '\n')+1:]
		lines = append(lines, tr.style(ansiDim, truncateWidth("∴ thinking… "+visibleControls(thought), w)))
	}
	spin := spinnerFrames[int(now.Sub(u.activityAt)/spinnerTick)%len(spinnerFrames)]
	for _, r := range tr.running {
		lines = append(lines, truncateWidth(tr.toolLine(tr.style(ansiYellow, spin), r, formatDuration(now.Sub(r.start))), w))
	}
	if u.activity != "" {
		for _, todo := range todoLines(u.todos, tr) {
			lines = append(lines, truncateWidth(todo, w))
		}
	}
	for _, q := range u.queued {
		lines = append(lines, tr.style(ansiDim, truncateWidth("queued: "+visibleControls(strings.ReplaceAll(q, "\n", "↵")), w)))
	}
	lines = append(lines, u.statusLine(now, spin, w))
	below, row, col := inputLines(&u.editor, w, tr.style(ansiBold+ansiCyan, "›")+" ")
	below = append(below, u.menu.lines(w, tr)...)
	hint := u.hint
	if hint == "" && (u.asked || u.answers != nil) { // a question's hint stays while its answer is typed
		hint = answerHint
	}
	if u.search != nil {
		hint = u.search.line()
	}
	if hint != "" {
		below = append(below, tr.style(ansiDim, truncateWidth(hint, w)))
	}
	if u.dialog != nil {
		below, row, col = u.dialog.lines(w)
	}
	top := len(lines)
	lines = append(lines, below...)
	extra := max(len(lines)-max(u.height-1, 1), 0)
	if row >= 0 {
		row = max(row+top-extra, 0)
	}
	return frame{lines[extra:], row, col}
}

// statusLine shows the activity, model, context use, tokens, cost, session, MCP, mode and sandbox;
// when they do not fit, the session goes first, then the provider, MCP, the model and the tokens.
func (u *tui) statusLine(now time.Time, spin string, width int) string {
	app, activity := u.app, ""
	if u.activity != "" {
		activity = fmt.Sprintf("%s %s %s", spin, u.activity, formatDuration(now.Sub(u.activityAt)))
	}
	tokens := countTokens(u.usage.Tokens.InputTokens+u.usage.Tokens.OutputTokens) + " tokens"
	if u.usage.CostUSD > 0 {
		tokens += fmt.Sprintf(" $%.2f", u.usage.CostUSD)
	}
	window := app.Agent.ContextUsage()
	parts := []string{activity, fmt.Sprintf("%s (%s)", window.Model, app.Agent.Provider.Name()), fmt.Sprintf("ctx %.0f%%", window.Percent),
		tokens, "session " + u.session[:min(8, len(u.session))], app.MCP.StatusLine(), string(app.Perms.Mode()), app.Sandbox.Label()}
	line := func() string {
		return strings.Join(slices.DeleteFunc(slices.Clone(parts), func(p string) bool { return p == "" }), " · ")
	}
	for _, drop := range []func(){func() { parts[4] = "" }, func() { parts[1] = window.Model }, func() { parts[5] = "" }, func() { parts[1] = "" }, func() { parts[3] = "" }} {
		if displayWidth(line()) <= width {
			break
		}
		drop()
	}
	return u.tr.style(ansiDim, truncateWidth(line(), width))
}

// countTokens shows a number of tokens as 950, 12.3k or 1.2M.
func countTokens(n int) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// inputLines lays out an input box behind marker, wrapped to width, and the cursor's row and column.
func inputLines(e *lineEditor, width int, marker string) (lines []string, row, col int) {
	avail := max(width-3, 8)
	e.columns = avail // for Up and Down
	start := 0
	for _, logical := range strings.Split(e.text(), "\n") {
		runes := []rune(logical)
		if in := e.cursor - start; in >= 0 && in <= len(runes) {
			w := displayWidth(visibleControls(string(runes[:in])))
			row, col = len(lines)+w/avail, 2+w%avail
		}
		for _, p := range wrapWidth(visibleControls(logical), avail) {
			lines = append(lines, "  "+p)
		}
		start += len(runes) + 1
	}
	if row >= len(lines) {
		lines = append(lines, "  ")
	}
	lines[0] = marker + lines[0][2:]
	return lines, row, col
}

// wideRanges are the code points drawn two columns wide: East Asian wide and fullwidth ones and emoji.
var wideRanges = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
	{0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
	{0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
	{0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F5}, {0x26FA, 0x26FD},
	{0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E},
	{0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF},
	{0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x303E}, {0x3041, 0x33FF},
	{0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF}, {0xA960, 0xA97F}, {0xAC00, 0xD7A3},
	{0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6},
	{0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
	{0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B}, {0x1F240, 0x1F248},
	{0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB},
	{0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
}

// runeWidth is the columns r takes: 0 for combining marks and format characters, 2 for wide ones, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || r == 0xFE0F:
		return 0
	}
	i := sort.Search(len(wideRanges), func(i int) bool { return wideRanges[i][1] >= r })
	if i < len(wideRanges) && r >= wideRanges[i][0] {
		return 2
	}
	return 1
}

// cell returns the bytes and columns of the character or ANSI escape (0 columns) at the start of s.
func cell(s string) (size, width int) {
	switch {
	case s[0] != 0x1b:
		r, size := utf8.DecodeRuneInString(s)
		return size, runeWidth(r)
	case len(s) < 2 || s[1] != '[':
		return 1, 0
	}
	if i := strings.IndexFunc(s[2:], isFinalByte); i >= 0 {
		return i + 3, 0
	}
	return len(s), 0
}

// displayWidth is the number of columns s takes on a terminal, escapes not counted.
func displayWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f { // printable ASCII, most of what is shown
			i, w = i+1, w+1
			continue
		}
		size, cw := cell(s[i:])
		i, w = i+size, w+cw
	}
	return w
}

// truncateWidth cuts s to max columns, ending with "…" (and a reset, when s is coloured).
func truncateWidth(s string, max int) string {
	if displayWidth(s) <= max {
		return s
	}
	return wrapWidth(s, max-1)[0] + "…" + map[bool]string{true: ansiReset}[strings.Contains(s, "\x1b")]
}

// endCells is about the last cells of a line, cut at a character, so showing a long line's end costs the same however long it grew.
func endCells(s string, cells int) string {
	return s[runeFloor(s, max(0, len(s)-4*cells)):]
}

// wrapWidth splits s into pieces of at most width columns, breaking between characters.
func wrapWidth(s string, width int) []string {
	var out []string
	start, w := 0, 0
	for i := 0; i < len(s); {
		size, cw := cell(s[i:])
		if w+cw > width && i > start {
			out, start, w = append(out, s[start:i]), i, 0
		}
		i, w = i+size, w+cw
	}
	return append(out, s[start:])
}

// ansiEscape matches the escapes that style text.
var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")

// wrapWords splits a line into rows of at most width columns, breaking at spaces or between wide
// characters (CJK text has no spaces), a word longer than a row where it must; rows after the first
// start at the line's hanging indent, so a list item's text stays in its column.
func wrapWords(s string, width int) []string {
	if displayWidth(s) <= width {
		return []string{s}
	}
	pad := strings.Repeat(" ", min(hangingIndent(s), width/2))
	var rows []string
	row, rowWidth := "", 0
	for i := 0; i < len(s); {
		g := len(s) - len(strings.TrimLeft(s[i:], " "))
		j, w := wordEnd(s, g)
		if j == g {
			break // spaces at the end
		}
		pieces := []string{s[g:j]}
		if w > width-len(pad) { // a word wider than a row is cut
			pieces = wrapWidth(s[g:j], width-len(pad))
		}
		for k, piece := range pieces {
			gap, w := s[i:g], displayWidth(piece)
			if k > 0 || row != "" && rowWidth+len(gap)+w > width {
				rows, row, rowWidth, gap = append(rows, row), pad, len(pad), ""
			}
			row, rowWidth = row+gap+piece, rowWidth+len(gap)+w
		}
		i = j
	}
	return append(rows, row)
}

// wordEnd returns where the word at i ends and its columns: characters up to a space, or one wide one and its zero-width marks.
func wordEnd(s string, i int) (end, width int) {
	wide := false
	for end = i; end < len(s) && s[end] != ' '; {
		size, w := cell(s[end:])
		if w == 2 && width > 0 || w > 0 && wide {
			break
		}
		end, width, wide = end+size, width+w, wide || w == 2
	}
	return end, width
}

// hangingIndent is where a wrapped line's later rows start: past its indent and a list number, bullet, quote bar, mark or prompt.
func hangingIndent(s string) int {
	plain := ansiEscape.ReplaceAllString(cutBytes(s, 64, ""), "")
	text := strings.TrimLeft(plain, " ")
	indent, digits := len(plain)-len(text), len(text)-len(strings.TrimLeft(text, "0123456789"))
	switch r, size := utf8.DecodeRuneInString(text); {
	case digits > 0 && strings.HasPrefix(text[digits:], ". "):
		return indent + digits + 2
	case strings.ContainsRune("•›│-*✓✗!·", r) && strings.HasPrefix(text[size:], " "):
		return indent + 2
	}
	return indent
}
