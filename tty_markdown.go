package main

import (
	"regexp"
	"strings"
)

// Inline Markdown the transcript styles: **bold**, `code`.
var (
	mdBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
	mdCode = regexp.MustCompile("`([^`]+)`")
	mdList = regexp.MustCompile(`^(\s*)[-*+] `)
)

// markdown styles assistant text line by line, as each line completes:
// headings, bold, inline code, fenced code and list bullets. It keeps
// whether a fenced code block is open. Without colour the text is
// printed as written.
type markdown struct {
	color   bool
	inFence bool
}

// line returns a complete line of assistant text styled for the terminal,
// or ok=false for a fence line, which is not shown.
func (m *markdown) line(s string) (out string, ok bool) {
	if strings.HasPrefix(strings.TrimSpace(s), "```") {
		m.inFence = !m.inFence
		if !m.color {
			return s, true
		}
		return "", false
	}
	if !m.color {
		return s, true
	}
	if m.inFence {
		return "  " + ansiCyan + s + ansiReset, true
	}
	if h := strings.TrimLeft(s, "#"); len(h) < len(s) && strings.HasPrefix(h, " ") && len(s)-len(h) <= 6 {
		return ansiBold + strings.TrimSpace(h) + ansiReset, true
	}
	if strings.HasPrefix(s, "> ") {
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
	if !partial {
		return s
	}
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		for _, t := range hiddenTags {
			if strings.HasPrefix(t, s[i:]) {
				return s[:i]
			}
		}
	}
	return s
}
