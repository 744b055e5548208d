package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Front matter is the YAML between a first line "---" and the next "---"
// of SKILL.md, agent and command files: "key: value" with plain or quoted
// values, [flow] and "- block" lists, | and > blocks, and one level of
// maps. Values are strings, []any of strings, map[string]any or nil;
// anything else leaves its key out with a warning naming the line.

// splitFrontMatter separates the front matter from the body of a Markdown
// file, accepting a byte order mark and Windows line endings; both parts
// come back with "\n" line endings.
func splitFrontMatter(data []byte) (header, body string, err error) {
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\uFEFF"), "\r\n", "\n")
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

// parseFrontMatter reads a header split off by splitFrontMatter; a key it
// cannot read is left out, with a warning naming its line.
func parseFrontMatter(header string) (map[string]any, []string) {
	below := func(line string) bool { // a line that belongs to the key above
		return line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line == "-" || strings.HasPrefix(line, "- ")
	}
	meta, warnings := map[string]any{}, []string(nil)
	lines := strings.Split(strings.TrimSuffix(header, "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		if below(lines[i]) {
			continue // comments, and indented lines with no key above
		}
		at := i + 2
		key, value, ok := splitKey(lines[i])
		var more []string
		for ; i+1 < len(lines) && below(lines[i+1]); i++ {
			if !strings.HasPrefix(lines[i+1], "#") {
				more = append(more, lines[i+1])
			}
		}
		v, err := parseValue(value, more)
		_, dup := meta[key]
		switch {
		case !ok:
			warnings = append(warnings, fmt.Sprintf(`front matter line %d: expected "key: value"; the line is left out`, at))
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("front matter line %d: %s: %v; the key is left out", at, key, err))
		case dup:
			warnings = append(warnings, fmt.Sprintf("front matter line %d: %s appears twice; the first value is kept", at, key))
		default:
			meta[key] = v
		}
	}
	return meta, warnings
}

// parseValue reads the value after "key:" and the lines below it.
func parseValue(v string, more []string) (any, error) {
	switch {
	case v == "":
		return nestedValue(more)
	case v[0] == '|' || v[0] == '>':
		return blockScalar(v, more)
	case v[0] == '[':
		return flowList(strings.Join(append([]string{v}, more...), " "))
	}
	return scalar(foldPlain(append([]string{v}, more...)))
}

// splitKey splits "key: value"; the key may be quoted.
func splitKey(line string) (key, value string, ok bool) {
	if line != "" && (line[0] == '"' || line[0] == '\'') {
		key, rest, err := quoted(line)
		value, found := strings.CutPrefix(rest, ":")
		return key, strings.TrimSpace(value), err == nil && found
	}
	key, value, ok = strings.Cut(line+" ", ": ")
	return strings.TrimSpace(key), strings.TrimSpace(value), ok && strings.TrimSpace(key) != ""
}

// nestedValue reads the lines below a key without a value: a block list,
// one level of map, plain text, or nothing (nil).
func nestedValue(lines []string) (any, error) {
	var items []string
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && t[0] != '#' {
			items = append(items, l)
		}
	}
	if len(items) == 0 {
		return nil, nil
	}
	_, isList := listItem(items[0])
	if _, _, isMap := splitKey(strings.TrimSpace(items[0])); !isMap && !isList {
		return scalar(foldPlain(lines))
	}
	list, m := []any{}, map[string]any{}
	for _, l := range items {
		item, isItem := listItem(l)
		key, value, isKey := splitKey(strings.TrimSpace(l))
		var err error
		switch {
		case leadingSpaces(l) != leadingSpaces(items[0]):
			return nil, errors.New("nesting deeper than one level is not supported")
		case isItem != isList:
			return nil, errors.New("a list and a map are mixed")
		case isList && strings.Contains(item+" ", ": "):
			return nil, errors.New("a list of maps is not supported")
		case isList:
			item, err = scalar(item)
			list = append(list, item)
		case !isKey:
			return nil, errors.New(`expected "key: value"`)
		default:
			m[key], err = parseValue(value, nil)
		}
		if err != nil {
			return nil, err
		}
	}
	if isList {
		return list, nil
	}
	return m, nil
}

// listItem returns the text of a block list item "- text".
func listItem(line string) (string, bool) {
	item, ok := strings.CutPrefix(strings.TrimSpace(line)+" ", "- ")
	return strings.TrimSpace(item), ok
}

// leadingSpaces counts the spaces that indent a line.
func leadingSpaces(line string) int {
	return len(line) - len(strings.TrimLeft(line, " "))
}

// blockScalar reads a literal (|) or folded (>) block: a header with an
// optional chomping indicator (- strips the final line break, + keeps the
// trailing blank lines) and indentation digit, then the lines below.
func blockScalar(header string, lines []string) (string, error) {
	chomp, indent := byte(0), 0
	for _, c := range []byte(stripComment(header[1:])) {
		switch {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
		case c >= '1' && c <= '9' && indent == 0:
			indent = int(c - '0')
		default:
			return "", fmt.Errorf("bad block header %q", header)
		}
	}
	body := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if indent == 0 {
			indent = leadingSpaces(l)
		}
		if leadingSpaces(l) < indent {
			return "", errors.New("a line of the block is indented less than its first")
		}
		body[i] = l[indent:]
	}
	text := strings.Join(body, "\n")
	if header[0] == '>' {
		text = foldLines(body)
	}
	content := strings.TrimRight(text, "\n")
	switch {
	case chomp == '-' || content == "":
		return content, nil
	case chomp == '+':
		return content + "\n" + strings.Repeat("\n", len(text)-len(content)), nil
	}
	return content + "\n", nil
}

// foldLines joins the lines of a folded block: neighbouring lines with a
// space, a blank line as a line break; more-indented lines keep theirs.
func foldLines(lines []string) string {
	var b strings.Builder
	blanks, started, prevIndented := 0, false, false
	for _, l := range lines {
		if l == "" {
			blanks++
			continue
		}
		indented := l[0] == ' '
		switch {
		case started && blanks == 0 && !indented && !prevIndented:
			b.WriteByte(' ')
		case started && (indented || prevIndented):
			b.WriteString(strings.Repeat("\n", blanks+1))
		default:
			b.WriteString(strings.Repeat("\n", blanks))
		}
		b.WriteString(l)
		blanks, started, prevIndented = 0, true, indented
	}
	return b.String() + strings.Repeat("\n", blanks)
}

// foldPlain folds a plain or quoted value continued on the lines below,
// as a folded block without comments and indentation.
func foldPlain(lines []string) string {
	var kept []string
	for _, l := range lines {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "#") {
			kept = append(kept, t)
		}
	}
	return strings.TrimSpace(foldLines(kept))
}

// scalar reads a plain or quoted value, with an optional comment after it.
func scalar(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", nil
	case s[0] == '"' || s[0] == '\'':
		v, rest, err := quoted(s)
		if rest = strings.TrimSpace(rest); err == nil && rest != "" && rest[0] != '#' {
			err = fmt.Errorf("unexpected text %q after the quoted value", rest)
		}
		return v, err
	case strings.ContainsRune("[]{}&*!|>%@`", rune(s[0])):
		return "", fmt.Errorf("values starting with %q are not supported", s[0])
	}
	return stripComment(s), nil
}

// flowList reads "[a, 'b', "c"]" into its items.
func flowList(s string) ([]any, error) {
	items := []any{}
	for s = s[1:]; ; s = strings.TrimPrefix(s, ",") {
		s = strings.TrimLeft(s, " ")
		item, err := "", error(nil)
		switch {
		case s == "":
			return nil, errors.New("the [list] is not closed")
		case s[0] == ']':
			if rest := strings.TrimSpace(s[1:]); rest != "" && rest[0] != '#' {
				return nil, fmt.Errorf("unexpected text %q after the list", rest)
			}
			return items, nil
		case s[0] == '"' || s[0] == '\'':
			item, s, err = quoted(s)
			s = strings.TrimLeft(s, " ")
		default:
			end := strings.IndexAny(s+"]", ",]")
			item, err = scalar(s[:end])
			s = s[end:]
		}
		if err == nil && s != "" && s[0] != ',' && s[0] != ']' {
			err = fmt.Errorf("unexpected text %q in the list", s)
		}
		if err != nil {
			return nil, err
		}
		items = append(items, item)
	}
}

// quoted reads the quoted string s starts with and returns the text after
// it: double quotes take Go's escapes; in single quotes a doubled quote
// stands for one.
func quoted(s string) (value, rest string, err error) {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '\\' && q == '"', s[i] == '\'' && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q && q == '\'':
			return strings.ReplaceAll(s[1:i], "''", "'"), s[i+1:], nil
		case s[i] == q:
			v, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", fmt.Errorf("bad escape in %s", s[:i+1])
			}
			return v, s[i+1:], nil
		}
	}
	return "", "", errors.New("the quoted string is not closed")
}

// stripComment removes a " #" comment and the spaces around a value.
func stripComment(s string) string {
	s, _, _ = strings.Cut(s, " #")
	return strings.TrimSpace(s)
}
