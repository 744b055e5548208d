package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// This file reads the YAML front matter at the top of a SKILL.md: the block
// between a first line "---" and the next "---". It understands the part of
// YAML that skill files use, without a YAML library:
//
//	name: pdf-tools                    plain strings
//	description: "Fill \"PDF\" forms"  double quotes (with escapes), 'single' quotes
//	allowed-tools: [read_file, grep]   flow lists and {flow: maps}
//	tags:                              block lists
//	  - pdf
//	description: >-                    folded (>) and literal (|) block
//	  Long text that                   scalars, with the chomping
//	  wraps.                           indicators - and +
//	metadata:                          nested maps
//	  version: "1.0"
//
// Values come back as string, []any, map[string]any, or nil for an empty
// value. Scalars stay strings: "true" and "1.0" are not converted. Anchors,
// aliases and tags are refused with an error rather than misread. One
// leniency: a plain value may contain ": " (strict YAML refuses it, but
// skill descriptions often say "Use when: ..." and the meaning is plain).

// splitFrontMatter separates the front matter from the body of a Markdown
// file. It accepts a byte order mark and Windows line endings; the returned
// header and body use "\n" line endings.
func splitFrontMatter(data []byte) (header, body string, err error) {
	text := strings.TrimPrefix(string(data), "\uFEFF")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !utf8.ValidString(text) {
		return "", "", errors.New("the file is not valid UTF-8")
	}
	first, rest, _ := strings.Cut(text, "\n")
	if strings.TrimRight(first, " \t") != "---" {
		return "", "", errors.New(`no front matter: the file must start with a line "---", then name: and description:, then "---"`)
	}
	lines := strings.SplitAfter(rest, "\n")
	for i, line := range lines {
		if end := strings.TrimRight(line, " \t\n"); end == "---" || end == "..." {
			return strings.Join(lines[:i], ""), strings.Join(lines[i+1:], ""), nil
		}
	}
	return "", "", errors.New(`the front matter is not closed: add a line "---" after it`)
}

// parseYAMLMap parses a YAML document whose top level is a map.
func parseYAMLMap(text string) (map[string]any, error) {
	if strings.TrimSpace(text) == "" {
		return map[string]any{}, nil
	}
	p := &yamlParser{lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
	indent, ok, err := p.peekIndent()
	if err != nil || !ok {
		return map[string]any{}, err
	}
	if indent != 0 {
		return nil, p.errorf("the first key must not be indented")
	}
	return p.parseMap(0)
}

// yamlParser walks the lines of a YAML document.
type yamlParser struct {
	lines []string
	pos   int // index of the next line to read
}

// errorf reports a problem at the current line.
func (p *yamlParser) errorf(format string, args ...any) error {
	return p.errorAt(p.pos, format, args...)
}

// errorAt reports a problem at lines[i], giving its line number in the
// file: lines[0] follows the opening "---", which is line 1.
func (p *yamlParser) errorAt(i int, format string, args ...any) error {
	return fmt.Errorf("front matter line %d: %s", i+2, fmt.Sprintf(format, args...))
}

// peekIndent skips blank and comment lines and returns the indentation of
// the next content line; ok is false at the end of the document.
func (p *yamlParser) peekIndent() (indent int, ok bool, err error) {
	for ; p.pos < len(p.lines); p.pos++ {
		line := p.lines[p.pos]
		trimmed := strings.TrimLeft(line, " ")
		if strings.TrimSpace(trimmed) == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if trimmed[0] == '\t' {
			return 0, false, p.errorf("tabs are not allowed for indentation; use spaces")
		}
		return leadingSpaces(line), true, nil
	}
	return 0, false, nil
}

// parseMap reads "key: value" lines at exactly the given indentation.
func (p *yamlParser) parseMap(indent int) (map[string]any, error) {
	m := map[string]any{}
	for {
		at, ok, err := p.peekIndent()
		if err != nil {
			return nil, err
		}
		if !ok || at < indent {
			return m, nil
		}
		if at > indent {
			return nil, p.errorf("unexpected indentation")
		}
		key, rest, err := p.splitKey(strings.TrimSpace(p.lines[p.pos]))
		if err != nil {
			return nil, err
		}
		if _, dup := m[key]; dup {
			return nil, p.errorf("the key %q appears twice", key)
		}
		p.pos++
		value, err := p.parseValue(rest, indent, true)
		if err != nil {
			return nil, err
		}
		m[key] = value
	}
}

// splitKey splits "key: rest" into its parts; the key may be quoted.
func (p *yamlParser) splitKey(line string) (key, rest string, err error) {
	if isListItem(line) {
		return "", "", p.errorf("a list item where a key was expected")
	}
	if line == "" {
		return "", "", p.errorf("a key was expected")
	}
	if line[0] == '"' || line[0] == '\'' {
		key, after, err := parseQuoted(line)
		if errors.Is(err, errUnterminated) {
			return "", "", p.errorf("the quoted key is not closed")
		}
		if err != nil {
			return "", "", p.errorf("%v", err)
		}
		if !strings.HasPrefix(after, ":") {
			return "", "", p.errorf("expected ':' after the key %q", key)
		}
		return key, after[1:], nil
	}
	for i := 1; i < len(line); i++ {
		if line[i] == ':' && (i+1 == len(line) || line[i+1] == ' ') {
			return strings.TrimSpace(line[:i]), line[i+1:], nil
		}
	}
	return "", "", p.errorf("expected \"key: value\", got %q", line)
}

// parseValue reads the value that follows "key:" or "- " on a line that
// has already been consumed (lines[pos-1]); indent is the indentation of
// that key or dash. A list may sit at the key's own indentation only under
// a map key.
func (p *yamlParser) parseValue(rest string, indent int, underKey bool) (any, error) {
	rest = strings.TrimSpace(rest)
	if rest == "" || strings.HasPrefix(rest, "#") {
		return p.parseNested(indent, underKey)
	}
	switch rest[0] {
	case '|', '>':
		return p.parseBlockScalar(rest, indent)
	case '[', '{', '"', '\'':
		return p.parseFlowValue(rest, indent)
	case '&', '*', '!', '%', '@', '`':
		return nil, p.errorAt(p.pos-1, "values starting with %q are not supported; quote the value", rest[0])
	}
	return p.parsePlain(rest, indent), nil
}

// parseNested reads the indented block under a key with no inline value:
// a map, a list, or nothing (nil).
func (p *yamlParser) parseNested(indent int, underKey bool) (any, error) {
	at, ok, err := p.peekIndent()
	if err != nil || !ok {
		return nil, err
	}
	line := strings.TrimSpace(p.lines[p.pos])
	switch {
	case isListItem(line) && (at > indent || at == indent && underKey):
		return p.parseList(at)
	case at <= indent:
		return nil, nil
	}
	if _, _, err := p.splitKey(line); err == nil && !startsFlowOrQuote(line) {
		return p.parseMap(at)
	}
	p.pos++
	return p.parseValue(line, indent, false)
}

// isListItem reports whether a trimmed line is a block list item.
func isListItem(line string) bool {
	return line == "-" || strings.HasPrefix(line, "- ")
}

// leadingSpaces counts the spaces that indent line.
func leadingSpaces(line string) int {
	return len(line) - len(strings.TrimLeft(line, " "))
}

// parseList reads "- item" lines at exactly the given indentation. An item
// of the form "- key: value" starts a map whose keys line up after the dash.
func (p *yamlParser) parseList(indent int) ([]any, error) {
	list := []any{}
	for {
		at, ok, err := p.peekIndent()
		if err != nil {
			return nil, err
		}
		if !ok {
			return list, nil
		}
		line := strings.TrimSpace(p.lines[p.pos])
		if at > indent {
			return nil, p.errorf("unexpected indentation")
		}
		if at < indent || !isListItem(line) {
			return list, nil
		}
		item := strings.TrimSpace(strings.TrimPrefix(line, "-"))
		if _, _, err := p.splitKey(item); err == nil && !startsFlowOrQuote(item) {
			p.lines[p.pos] = strings.Repeat(" ", indent+2) + item
			m, err := p.parseMap(indent + 2)
			if err != nil {
				return nil, err
			}
			list = append(list, m)
			continue
		}
		p.pos++
		value, err := p.parseValue(item, indent, false)
		if err != nil {
			return nil, err
		}
		list = append(list, value)
	}
}

// startsFlowOrQuote reports whether s begins a quoted or flow value, whose
// colons are not a map key's.
func startsFlowOrQuote(s string) bool {
	return s != "" && strings.ContainsRune(`"'[{`, rune(s[0]))
}

// parsePlain reads an unquoted scalar. It may continue on following lines
// indented deeper than its key: a line break there becomes a space, and
// each blank line between such lines a line break.
func (p *yamlParser) parsePlain(first string, indent int) string {
	var b strings.Builder
	b.WriteString(stripComment(first))
	blanks := 0
	for i := p.pos; i < len(p.lines); i++ {
		line := p.lines[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			blanks++
			continue
		}
		if strings.HasPrefix(trimmed, "#") || leadingSpaces(line) <= indent {
			break
		}
		if blanks == 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.Repeat("\n", blanks))
		b.WriteString(stripComment(trimmed))
		blanks, p.pos = 0, i+1
	}
	return b.String()
}

// stripComment removes a trailing " # comment" from a plain scalar.
func stripComment(s string) string {
	if i := strings.Index(s, " #"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// parseFlowValue reads a quoted string, [list] or {map}, joining following
// lines while the value is unterminated (as YAML allows), and refuses
// anything but a comment after it. Its first line is lines[pos-1]; an
// unclosed value is reported there, other mistakes on the last line read.
func (p *yamlParser) parseFlowValue(text string, indent int) (any, error) {
	start := p.pos - 1
	for {
		value, rest, err := parseFlow(text)
		if err == nil {
			if rest = strings.TrimSpace(rest); rest != "" && !strings.HasPrefix(rest, "#") {
				return nil, p.errorAt(p.pos-1, "unexpected text %q after the value", rest)
			}
			return value, nil
		}
		if !errors.Is(err, errUnterminated) {
			return nil, p.errorAt(p.pos-1, "%v", err)
		}
		if p.pos == len(p.lines) || strings.TrimSpace(p.lines[p.pos]) != "" && leadingSpaces(p.lines[p.pos]) <= indent {
			return nil, p.errorAt(start, "%s is not closed", unclosedName(text))
		}
		text += " " + strings.TrimSpace(p.lines[p.pos])
		p.pos++
	}
}

// unclosedName names the kind of flow value text starts, for the error
// that says it is not closed.
func unclosedName(text string) string {
	switch text[0] {
	case '[':
		return "the [list] starting here"
	case '{':
		return "the {map} starting here"
	}
	return "the quoted string starting here"
}
