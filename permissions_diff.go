package main

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// unifiedDiff returns the unified diff that turns before into after.
func unifiedDiff(path, before, after string) string {
	if before == after {
		return ""
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        diffLines(before),
		B:        diffLines(after),
		FromFile: "a/" + path,
		ToFile:   "b/" + path,
		Context:  3,
	})
	if err != nil {
		return ""
	}
	return text
}

// diffLines splits text into lines, marking a missing final newline.
func diffLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if last := len(lines) - 1; lines[last] == "" {
		lines = lines[:last]
	} else {
		lines[last] += "\n\\ No newline at end of file\n"
	}
	return lines
}
