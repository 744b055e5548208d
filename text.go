package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Byte limits (clip, prefix, cutText, cutMiddle) bound what is sent or stored, rune limits (cut, firstLine,
// oneLine) what is shown on a line; no cut splits a character.

// prefix returns at most n bytes of s.
func prefix(s string, n int) string {
	return s[:runeFloor(s, min(n, len(s)))]
}

// clip shortens s to at most n bytes, marking the cut with "...".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return prefix(s, n) + "..."
}

// cutText returns at most n bytes of s, ending at a line break when one is near the end.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n = runeFloor(s, n)
	if nl := strings.LastIndexByte(s[:n], '\n'); nl >= n*4/5 {
		n = nl + 1
	}
	return s[:n]
}

// cutMiddle keeps the head and tail of s within budget bytes, noting how much was left out.
func cutMiddle(s string, budget int) string {
	if len(s) <= budget {
		return s
	}
	half := budget / 2
	head, tail := s[:runeFloor(s, half)], s[len(s)-half:]
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	omitted := len(s) - len(head) - len(tail)
	return fmt.Sprintf("%s\n[... %d characters omitted ...]\n%s", head, omitted, tail)
}

// cut shortens s to at most max characters, marking the cut with "…".
func cut(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max]) + "…"
}

// firstLine returns the first line of s, cut to max characters, noting how many lines followed.
func firstLine(s string, max int) string {
	line, rest, more := strings.Cut(strings.TrimSpace(s), "\n")
	line = cut(line, max)
	if more {
		line += fmt.Sprintf(" (+%d lines)", strings.Count(rest, "\n")+1)
	}
	return line
}

// oneLine collapses whitespace in s and cuts it to n characters.
func oneLine(s string, n int) string {
	return cut(strings.Join(strings.Fields(s), " "), n)
}

// runeFloor moves i back to the start of the rune it falls in.
func runeFloor(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// plural formats a count with the singular or plural noun.
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// visibleControls writes control characters but tab in caret notation.
func visibleControls(line string) string {
	isControl := func(r rune) bool { return r != '\t' && (r < 0x20 || r == 0x7f) }
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

// lineOf returns the 1-based line of a byte offset in data.
func lineOf(data []byte, offset int64) int {
	return lineAt(string(data), int(min(offset, int64(len(data)))))
}

// lineAt is the 1-based line number of byte offset i in content.
func lineAt(content string, i int) int {
	return strings.Count(content[:i], "\n") + 1
}
