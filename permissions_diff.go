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

// renderDiff prepares a diff for the terminal, folded after fold lines.
func renderDiff(diff string, color bool, fold int) (text string, hidden int) {
	lines := slices.Collect(strings.Lines(diff))
	if fold > 0 && len(lines) > fold {
		hidden = len(lines) - fold
		lines = append(lines[:fold], fmt.Sprintf("… %d more lines (press d to show all)", hidden))
	}
	var b strings.Builder
	for _, line := range lines {
		b.WriteString(colorDiffLine(visibleControls(strings.TrimSuffix(line, "\n")), color) + "\n")
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
