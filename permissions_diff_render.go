package main

import (
	"fmt"
	"strings"
)

// defaultDiffFold is how many diff lines a prompt shows before folding
// the rest away.
const defaultDiffFold = 40

// ANSI escapes used to colour diffs.
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
)

// renderDiff prepares a unified diff for the terminal: file headers bold,
// hunk headers cyan, removed lines red, added lines green (when color is
// set), and control characters from the files shown as ^X so they cannot
// drive the terminal. When fold is positive and the diff is longer, only
// the first fold lines are shown, followed by a line saying how many more
// there are; hidden is that number. Every line ends with a newline.
func renderDiff(diff string, color bool, fold int) (text string, hidden int) {
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	if diff == "" {
		lines = nil
	}
	if fold > 0 && len(lines) > fold {
		hidden = len(lines) - fold
		lines = lines[:fold]
	}
	var b strings.Builder
	for _, line := range lines {
		b.WriteString(colorDiffLine(visibleControls(line), color))
		b.WriteByte('\n')
	}
	if hidden > 0 {
		note := fmt.Sprintf("… %d more lines (press d to show all)", hidden)
		if color {
			note = ansiDim + note + ansiReset
		}
		b.WriteString(note + "\n")
	}
	return b.String(), hidden
}

// colorDiffLine wraps one diff line in the colour its first characters
// call for.
func colorDiffLine(line string, color bool) string {
	for _, c := range []struct{ prefix, code string }{{"+++ ", ansiBold}, {"--- ", ansiBold}, {"@@", ansiCyan}, {"+", ansiGreen}, {"-", ansiRed}, {`\`, ansiDim}} {
		if color && strings.HasPrefix(line, c.prefix) {
			return c.code + line + ansiReset
		}
	}
	return line
}

// visibleControls replaces control characters other than tab with caret
// notation (ESC becomes ^[), so a file's bytes are shown, never obeyed.
func visibleControls(line string) string {
	if !strings.ContainsFunc(line, isControl) {
		return line
	}
	var b strings.Builder
	for _, r := range line {
		switch {
		case r == 0x7f:
			b.WriteString("^?")
		case isControl(r):
			b.WriteByte('^')
			b.WriteRune(r + '@')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isControl reports whether r is an ASCII control character other than tab.
func isControl(r rune) bool {
	return r != '\t' && (r < 0x20 || r == 0x7f)
}
