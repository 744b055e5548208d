package main

import (
	"fmt"
	"strings"
)

// More ANSI escapes the terminal UI uses.
const (
	ansiYellow  = "\x1b[33m"
	ansiReverse = "\x1b[7m"
	hideCursor  = "\x1b[?25l"
	showCursor  = "\x1b[?25h"
	clearBelow  = "\x1b[J"
)

// frame is one drawing of the live region: its lines, each at most the
// terminal's width, and where the cursor goes (hidden when row < 0).
type frame struct {
	lines    []string
	row, col int
}

// liveScreen draws frames of the live region at the bottom of the terminal,
// after printing finished text above it into the scrollback, so a redraw
// costs the size of the region, not of the conversation.
type liveScreen struct {
	cursorRow int   // the row of the region the terminal's cursor is on
	widths    []int // display widths of the lines last drawn
}

// render returns the bytes that print text (finished lines, each ending
// in "\n") above the region and then draw f in place of the last frame.
func (s *liveScreen) render(text string, f frame, width int) []byte {
	var b strings.Builder
	b.WriteString(hideCursor)
	if s.cursorRow > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", s.cursorRow)
	}
	b.WriteString("\r" + clearBelow)
	b.WriteString(strings.ReplaceAll(text, "\n", "\r\n"))
	b.WriteString(strings.Join(f.lines, "\r\n"))
	s.widths = s.widths[:0]
	for _, line := range f.lines {
		s.widths = append(s.widths, displayWidth(line))
	}
	if f.row < 0 {
		s.cursorRow = len(f.lines) - 1
		return []byte(b.String())
	}
	if up := len(f.lines) - 1 - f.row; up > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", up)
	}
	b.WriteString("\r")
	if f.col > 0 {
		fmt.Fprintf(&b, "\x1b[%dC", f.col)
	}
	b.WriteString(showCursor)
	s.cursorRow = f.row
	return []byte(b.String())
}

// resized recounts the rows above the cursor after the terminal's width
// changed, as the terminal may have re-wrapped the lines last drawn.
func (s *liveScreen) resized(width int) {
	rows := 0
	for i := 0; i < s.cursorRow && i < len(s.widths); i++ {
		rows += max(1, (s.widths[i]+width-1)/width)
	}
	s.cursorRow = rows
}

// fitFrame keeps a frame within height rows, dropping lines from its top
// (the least important part) and moving the cursor with them.
func fitFrame(f frame, height int) frame {
	if extra := len(f.lines) - max(height-1, 1); extra > 0 {
		f.lines = f.lines[extra:]
		if f.row >= 0 {
			f.row = max(f.row-extra, 0)
		}
	}
	return f
}

// inputLines lays out the input box: a prompt marker, the text wrapped to
// width (continuation lines indented), and the cursor's row and column.
func inputLines(e *lineEditor, width int, marker string) (lines []string, row, col int) {
	const indent = 2
	avail := max(width-indent-1, 8)
	lineStart, curRow, curCol := 0, 0, 0
	for _, logical := range strings.Split(e.text(), "\n") {
		runes := []rune(logical)
		if cursorIn := e.cursor - lineStart; cursorIn >= 0 && cursorIn <= len(runes) {
			w := displayWidth(visibleControls(string(runes[:cursorIn])))
			curRow, curCol = len(lines)+w/avail, indent+w%avail
		}
		for _, p := range wrapWidth(visibleControls(logical), avail) {
			lines = append(lines, "  "+p)
		}
		lineStart += len(runes) + 1
	}
	if curRow >= len(lines) {
		lines = append(lines, "  ")
	}
	lines[0] = marker + lines[0][indent:]
	return lines, curRow, curCol
}
