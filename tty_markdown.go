package main

import (
	"regexp"
	"slices"
	"strings"
)

// Inline Markdown the transcript styles: **bold**, `code`, list bullets.
var (
	mdBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdCode = regexp.MustCompile("`([^`]+)`")
	mdList = regexp.MustCompile(`^(\s*)[-*+] `)
)

// markdown styles assistant text line by line as each line completes,
// keeping whether a fenced code block is open; without colour the text
// is printed as written.
type markdown struct {
	color   bool
	inFence bool
}

// line returns a complete line of assistant text styled for the terminal,
// or ok=false for a fence line, which is not shown.
func (m *markdown) line(s string) (out string, ok bool) {
	fence := strings.HasPrefix(strings.TrimSpace(s), "```")
	if fence {
		m.inFence = !m.inFence
	}
	heading := strings.TrimLeft(s, "#")
	switch {
	case !m.color:
		return s, true
	case fence:
		return "", false
	case m.inFence:
		return "  " + ansiCyan + s + ansiReset, true
	case len(heading) < len(s) && strings.HasPrefix(heading, " ") && len(s)-len(heading) <= 6:
		return ansiBold + strings.TrimSpace(heading) + ansiReset, true
	case strings.HasPrefix(s, "> "):
		return ansiDim + "│ " + s[2:] + ansiReset, true
	}
	s = mdList.ReplaceAllString(s, "$1• ")
	s = mdBold.ReplaceAllString(s, ansiBold+"$1"+ansiReset)
	return mdCode.ReplaceAllString(s, ansiCyan+"$1"+ansiReset), true
}

// hiddenTags are the markers the model puts around progress updates and
// answers; the transcript never shows them.
var hiddenTags = []string{"<progress>", "</progress>", "<final>", "</final>"}

// stripTags removes the hidden tags from text. When partial is set (the
// line is still arriving), a trailing start of a tag is held back too.
func stripTags(s string, partial bool) string {
	for _, t := range hiddenTags {
		s = strings.ReplaceAll(s, t, "")
	}
	i := strings.LastIndexByte(s, '<')
	if partial && i >= 0 && slices.ContainsFunc(hiddenTags, func(t string) bool { return strings.HasPrefix(t, s[i:]) }) {
		return s[:i]
	}
	return s
}
