package main

import (
	"github.com/pmezard/go-difflib/difflib"
)

// unifiedDiff returns the unified diff (3 lines of context) that turns
// before into after, labelled with path; "" when they are equal.
func unifiedDiff(path, before, after string) string {
	if before == after {
		return ""
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(before),
		B:        difflib.SplitLines(after),
		FromFile: "a/" + path,
		ToFile:   "b/" + path,
		Context:  3,
	})
	if err != nil {
		return ""
	}
	return text
}
