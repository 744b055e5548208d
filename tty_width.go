package main

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// wideRanges are the code points a terminal draws two columns wide: East
// Asian wide and fullwidth characters and emoji.
var wideRanges = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
	{0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
	{0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
	{0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F5}, {0x26FA, 0x26FD},
	{0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E},
	{0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797}, {0x27B0, 0x27B0}, {0x27BF, 0x27BF},
	{0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55}, {0x2E80, 0x303E}, {0x3041, 0x33FF},
	{0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF}, {0xA960, 0xA97F}, {0xAC00, 0xD7A3},
	{0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6},
	{0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
	{0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B}, {0x1F240, 0x1F248},
	{0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB},
	{0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
}

// runeWidth is the number of columns a terminal gives r: 0 for combining
// marks and invisible format characters, 2 for wide characters, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || r == 0xFE0F:
		return 0
	}
	i := sort.Search(len(wideRanges), func(i int) bool { return wideRanges[i][1] >= r })
	if i < len(wideRanges) && r >= wideRanges[i][0] {
		return 2
	}
	return 1
}

// cell returns the size in bytes of the character or ANSI escape sequence
// at the start of s and the columns it takes (0 for an escape).
func cell(s string) (size, width int) {
	switch {
	case s[0] != 0x1b:
		r, size := utf8.DecodeRuneInString(s)
		return size, runeWidth(r)
	case len(s) < 2 || s[1] != '[':
		return 1, 0
	}
	if i := strings.IndexFunc(s[2:], isFinalByte); i >= 0 {
		return i + 3, 0
	}
	return len(s), 0
}

// displayWidth is the number of columns s takes on a terminal; coloured
// text measures as its letters.
func displayWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		size, cw := cell(s[i:])
		i, w = i+size, w+cw
	}
	return w
}

// truncateWidth cuts s to at most max columns, ending with "…" when cut.
// Escape sequences are kept, so a cut coloured string still resets.
func truncateWidth(s string, max int) string {
	if displayWidth(s) <= max {
		return s
	}
	for i, w := 0, 0; ; {
		size, cw := cell(s[i:])
		if w+cw > max-1 {
			if strings.Contains(s, "\x1b") {
				return s[:i] + "…" + ansiReset
			}
			return s[:i] + "…"
		}
		i, w = i+size, w+cw
	}
}

// wrapWidth splits a line without newlines into pieces of at most width
// columns, breaking between characters.
func wrapWidth(line string, width int) []string {
	var out []string
	start, w := 0, 0
	for i, r := range line {
		rw := runeWidth(r)
		if w+rw > width && i > start {
			out = append(out, line[start:i])
			start, w = i, 0
		}
		w += rw
	}
	return append(out, line[start:])
}
