package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// unifiedDiff returns the unified diff that turns before into after.
func unifiedDiff(path, before, after string) string {
	if before == after {
		return ""
	}
	text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{ // writing to a string never fails
		A:        diffLines(before),
		B:        diffLines(after),
		FromFile: "a/" + path,
		ToFile:   "b/" + path,
		Context:  3,
	})
	return text
}

// diffLines splits text into lines, marking a missing final newline.
func diffLines(text string) []string {
	lines := slices.Collect(strings.Lines(text))
	if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
		lines[n-1] += "\n\\ No newline at end of file\n"
	}
	return lines
}

// defaultDiffFold is how many diff lines a prompt shows before folding.
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

// renderDiff prepares a diff for the terminal, folded after fold lines.
func renderDiff(diff string, color bool, fold int) (text string, hidden int) {
	lines := slices.Collect(strings.Lines(diff))
	if fold > 0 && len(lines) > fold {
		hidden, lines = len(lines)-fold, lines[:fold]
	}
	var b strings.Builder
	for _, line := range lines {
		b.WriteString(colorDiffLine(visibleControls(strings.TrimSuffix(line, "\n")), color) + "\n")
	}
	if hidden > 0 {
		b.WriteString(colorDiffLine(fmt.Sprintf("… %d more lines (press d to show all)", hidden), color) + "\n")
	}
	return b.String(), hidden
}

// colorDiffLine wraps a rendered diff line in the colour its start calls for.
func colorDiffLine(line string, color bool) string {
	for _, c := range []struct{ prefix, code string }{{"+++ ", ansiBold}, {"--- ", ansiBold}, {"@@", ansiCyan}, {"+", ansiGreen}, {"-", ansiRed}, {`\`, ansiDim}, {"…", ansiDim}} {
		if color && strings.HasPrefix(line, c.prefix) {
			return c.code + line + ansiReset
		}
	}
	return line
}

// visibleControls writes control characters but tab in caret notation.
func visibleControls(line string) string {
	if !strings.ContainsFunc(line, isControl) {
		return line
	}
	var b strings.Builder
	for _, r := range line {
		if isControl(r) {
			b.WriteByte('^')
			r = (r + '@') & 0x7f // DEL becomes ^?
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isControl reports whether r is an ASCII control character other than tab.
func isControl(r rune) bool {
	return r != '\t' && (r < 0x20 || r == 0x7f)
}
