package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The value forms of the front matter parser (see skills_frontmatter.go): block
// scalars (| and >), flow lists and maps ([a, b] and {k: v}), and quoted
// strings.

// parseBlockScalar reads a literal (|) or folded (>) block whose header,
// e.g. ">-" or "|2+", has been given; its lines follow, indented deeper
// than the key.
func (p *yamlParser) parseBlockScalar(header string, indent int) (string, error) {
	style, chomp, width, err := parseBlockHeader(header)
	if err != nil {
		return "", p.errorAt(p.pos-1, "%v", err)
	}
	var lines []string
	content := -1
	if width > 0 {
		content = indent + width
	}
	for ; p.pos < len(p.lines); p.pos++ {
		line := p.lines[p.pos]
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" {
			lines = append(lines, "")
			continue
		}
		at := leadingSpaces(line)
		if at <= indent {
			break
		}
		if content < 0 {
			content = at
		}
		if at < content {
			return "", p.errorf("this line is indented less than the block's first line")
		}
		lines = append(lines, line[content:])
	}
	end := len(lines)
	for end > 0 && lines[end-1] == "" {
		end--
	}
	var text string
	if style == '|' {
		text = strings.Join(lines[:end], "\n")
	} else {
		text = foldLines(lines[:end])
	}
	return chompBlock(text, chomp, end > 0, len(lines)-end), nil
}

// parseBlockHeader reads a block scalar header: the style, then a chomping
// indicator and an indentation digit in either order, then a comment.
func parseBlockHeader(header string) (style, chomp byte, width int, err error) {
	style = header[0]
	rest := stripComment(" " + header[1:])
	for _, c := range []byte(rest) {
		switch {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
		case c >= '1' && c <= '9' && width == 0:
			width = int(c - '0')
		default:
			return 0, 0, 0, fmt.Errorf("bad block scalar header %q", header)
		}
	}
	return style, chomp, width, nil
}

// foldLines joins the lines of a folded block: a single line break between
// two ordinary lines becomes a space, each blank line becomes a line break,
// and lines indented further keep their breaks.
func foldLines(lines []string) string {
	var b strings.Builder
	blanks, started, prevOrdinary := 0, false, false
	for _, l := range lines {
		if l == "" {
			blanks++
			continue
		}
		ordinary := l[0] != ' ' && l[0] != '\t'
		switch {
		case !started:
			b.WriteString(strings.Repeat("\n", blanks))
		case prevOrdinary && ordinary && blanks == 0:
			b.WriteByte(' ')
		case prevOrdinary && ordinary:
			b.WriteString(strings.Repeat("\n", blanks))
		default:
			b.WriteString(strings.Repeat("\n", blanks+1))
		}
		b.WriteString(l)
		started, prevOrdinary, blanks = true, ordinary, 0
	}
	return b.String()
}

// chompBlock applies a chomping indicator to a block's text: "-" drops the
// final line break, "+" keeps it and every trailing blank line, and the
// default keeps just one line break.
func chompBlock(text string, chomp byte, hasContent bool, trailingBlanks int) string {
	switch {
	case chomp == '-':
		return text
	case chomp == '+':
		if !hasContent {
			return strings.Repeat("\n", trailingBlanks)
		}
		return text + "\n" + strings.Repeat("\n", trailingBlanks)
	case hasContent:
		return text + "\n"
	}
	return ""
}

// errUnterminated marks a flow value or quoted string that is not closed
// on the text given so far.
var errUnterminated = errors.New("unterminated value")

// parseFlow reads one flow value from the start of s: a quoted string, a
// [list], a {map} or (inside those) a plain scalar. It returns the value
// and the text after it.
func parseFlow(s string) (any, string, error) {
	s = strings.TrimLeft(s, " ")
	if s == "" {
		return nil, "", errUnterminated
	}
	switch s[0] {
	case '"', '\'':
		return parseQuoted(s)
	case '[':
		return parseFlowList(s[1:])
	case '{':
		return parseFlowMap(s[1:])
	}
	end := strings.IndexAny(s, ",]}")
	if end < 0 {
		end = len(s)
	}
	return strings.TrimSpace(stripComment(s[:end])), s[end:], nil
}

// parseFlowList reads the items of "[a, b]" after the opening bracket.
func parseFlowList(s string) (any, string, error) {
	list := []any{}
	for {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, "]") {
			return list, s[1:], nil
		}
		item, rest, err := parseFlow(s)
		if err != nil {
			return nil, "", err
		}
		list = append(list, item)
		if s, err = flowSeparator(rest, ']'); err != nil {
			return nil, "", err
		}
		if strings.HasPrefix(s, "]") {
			return list, s[1:], nil
		}
	}
}

// parseFlowMap reads the entries of "{a: 1, b: 2}" after the opening brace.
func parseFlowMap(s string) (any, string, error) {
	m := map[string]any{}
	for {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, "}") {
			return m, s[1:], nil
		}
		colon := strings.Index(s, ":")
		if colon < 0 {
			if strings.ContainsAny(s, ",}") {
				return nil, "", fmt.Errorf("expected \"key: value\" in {...}")
			}
			return nil, "", errUnterminated
		}
		key := strings.Trim(strings.TrimSpace(s[:colon]), `"'`)
		value, rest, err := parseFlow(s[colon+1:])
		if err != nil {
			return nil, "", err
		}
		m[key] = value
		if s, err = flowSeparator(rest, '}'); err != nil {
			return nil, "", err
		}
		if strings.HasPrefix(s, "}") {
			return m, s[1:], nil
		}
	}
}

// flowSeparator expects a comma or the closing bracket after a flow item
// and returns the text from the bracket, or after the comma.
func flowSeparator(s string, closer byte) (string, error) {
	s = strings.TrimLeft(s, " ")
	switch {
	case s == "":
		return "", errUnterminated
	case s[0] == ',':
		return s[1:], nil
	case s[0] == closer:
		return s, nil
	}
	return "", fmt.Errorf("expected ',' or %q, got %q", closer, s)
}

// parseQuoted reads a single- or double-quoted string from the start of s
// and returns it and the text after the closing quote. Single quotes escape
// a quote by doubling it; double quotes take backslash escapes.
func parseQuoted(s string) (string, string, error) {
	quote := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == quote && quote == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		case c == quote:
			return b.String(), s[i+1:], nil
		case c == '\\' && quote == '"':
			n, err := writeEscape(&b, s[i+1:])
			if err != nil {
				return "", "", err
			}
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", "", errUnterminated
}

// writeEscape writes the character a double-quoted escape stands for; s is
// the text after the backslash. It returns how many bytes of s it used.
func writeEscape(b *strings.Builder, s string) (int, error) {
	if s == "" {
		return 0, errUnterminated
	}
	simple := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '0': "\x00", '\\': "\\", '"': "\"",
		'/': "/", ' ': " ", 'a': "\a", 'b': "\b", 'e': "\x1b", 'f': "\f", 'v': "\v", 'N': "\u0085",
		'_': "\u00a0", 'L': "\u2028", 'P': "\u2029", '\t': "\t"}
	if out, ok := simple[s[0]]; ok {
		b.WriteString(out)
		return 1, nil
	}
	digits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
	if digits == 0 {
		return 0, fmt.Errorf("unknown escape \\%c in a double-quoted string", s[0])
	}
	if len(s) < 1+digits {
		return 0, fmt.Errorf("escape \\%c needs %d hex digits", s[0], digits)
	}
	code, err := strconv.ParseUint(s[1:1+digits], 16, 32)
	if err != nil || !utf8.ValidRune(rune(code)) {
		return 0, fmt.Errorf("bad escape \\%s", s[:1+digits])
	}
	b.WriteRune(rune(code))
	return 1 + digits, nil
}
