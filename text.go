package main

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Three cuts: cutBytes bounds what is sent or stored, cutRunes what is shown on a line, cutMiddleBytes keeps
// a long output's head and tail; none splits a character.

// cutBytes returns at most n bytes of s, followed by mark when anything was cut.
func cutBytes(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	return s[:runeFloor(s, n)] + mark
}

// cutRunes returns at most n characters of s, marking a cut with "…".
func cutRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// cutMiddleBytes keeps the head and tail of s within budget bytes, noting how much was left out.
func cutMiddleBytes(s string, budget int) string {
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

// firstLine returns the first line of s, cut to maxRunes characters, noting how many lines followed.
func firstLine(s string, maxRunes int) string {
	line, rest, more := strings.Cut(strings.TrimSpace(s), "\n")
	line = cutRunes(line, maxRunes)
	if more {
		line += fmt.Sprintf(" (+%d lines)", strings.Count(rest, "\n")+1)
	}
	return line
}

// oneLine collapses whitespace in s and cuts it to maxRunes characters.
func oneLine(s string, maxRunes int) string {
	return cutRunes(strings.Join(strings.Fields(s), " "), maxRunes)
}

// runeFloor moves i back to the start of the rune it falls in.
func runeFloor[T string | []byte](s T, i int) int {
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

// visibleLines is visibleControls on each line of s, keeping its line breaks (a CR before one goes).
func visibleLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = visibleControls(strings.TrimSuffix(line, "\r"))
	}
	return strings.Join(lines, "\n")
}

// visibleControls writes control characters but tab in caret notation, and the C1 controls (U+0080 to
// U+009F, which some terminals obey as ESC and a letter: U+009B as "ESC [") as ^[ and that letter.
func visibleControls(line string) string {
	isControl := func(i int) bool { // a byte: in UTF-8 no character holds one, and C1 controls start with 0xC2
		c := line[i]
		return c != '\t' && (c < 0x20 || c == 0x7f) || c == 0xc2 && i+1 < len(line) && line[i+1] >= 0x80 && line[i+1] < 0xa0
	}
	i := 0
	for i < len(line) && !isControl(i) { // as fast as the scan can be: every line shown passes here
		i++
	}
	if i == len(line) {
		return line
	}
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case !isControl(i):
		case c == 0xc2:
			i, c = i+1, line[i+1]-0x40
			b.WriteString("^[")
		default:
			b.WriteByte('^')
			c = (c + '@') & 0x7f // DEL becomes ^?
		}
		b.WriteByte(c)
	}
	return b.String()
}

// lineOf returns the 1-based line of a byte offset in data.
func lineOf(data []byte, offset int64) int {
	return bytes.Count(data[:min(offset, int64(len(data)))], []byte("\n")) + 1
}

// thousands writes n with thousands separators.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fenced puts text in a Markdown code block of the info string, fenced longer than any fence inside it.
func fenced(info, text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + info + "\n" + strings.TrimSuffix(text, "\n") + "\n" + fence
}
