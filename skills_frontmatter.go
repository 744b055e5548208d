package main

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Front matter is the YAML that opens SKILL.md, agent and command files;
// minicode reads the part of YAML they use: "key: value" with plain or
// quoted values, | and > blocks, [a, b] and "- item" lists, one level of maps.

// splitFrontMatter separates the front matter between "---" lines from the
// body of a Markdown file, both with "\n" line endings.
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

// parseFrontMatter reads a header into strings, []any, map[string]any or
// nil; a key it cannot read is left out, with a warning naming its line.
func parseFrontMatter(header string) (map[string]any, []string) {
	below := func(line string) bool { // blank, indented, a comment or a list item: part of the key above
		return line == "" || strings.IndexByte(" \t#", line[0]) >= 0 || line == "-" || strings.HasPrefix(line, "- ")
	}
	meta, warnings := map[string]any{}, []string(nil)
	lines := strings.Split(strings.TrimSuffix(header, "\n"), "\n")
	for i, end := 0, 0; i < len(lines); i = end {
		for end = i + 1; end < len(lines) && below(lines[end]); end++ {
		}
		if below(lines[i]) {
			continue // comments, and indented lines with no key above
		}
		more := slices.DeleteFunc(slices.Clone(lines[i+1:end]), func(l string) bool { return strings.HasPrefix(l, "#") })
		key, value, ok := splitKey(lines[i])
		v, err := parseValue(value, more)
		_, dup := meta[key]
		switch {
		case !ok:
			warnings = append(warnings, fmt.Sprintf(`front matter line %d: expected "key: value"; the line is left out`, i+2))
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("front matter line %d: %s: %v; the key is left out", i+2, key, err))
		case dup:
			warnings = append(warnings, fmt.Sprintf("front matter line %d: %s appears twice; the first value is kept", i+2, key))
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
	}
	text := foldPlain(append([]string{v}, more...))
	if strings.HasPrefix(text, "[") {
		return flowList(text[1:])
	}
	s, _, err := scalar(text, "")
	return s, err
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
	var list []any
	m, indent := map[string]any{}, -1
	for _, l := range lines {
		t := strings.TrimSpace(l)
		item, isItem := strings.CutPrefix(t+" ", "- ")
		key, value, isKey := splitKey(t)
		var err error
		switch {
		case t == "" || t[0] == '#':
			continue
		case indent < 0 && !isItem && !isKey:
			s, _, err := scalar(foldPlain(lines), "")
			return s, err
		case indent < 0:
			indent = leadingSpaces(l)
			if isItem {
				list = []any{}
			}
		}
		switch {
		case leadingSpaces(l) != indent:
			return nil, errors.New("nesting deeper than one level is not supported")
		case isItem != (list != nil):
			return nil, errors.New("a list and a map are mixed")
		case isItem && strings.Contains(item, ": "):
			return nil, errors.New("a list of maps is not supported")
		case isItem:
			item, _, err = scalar(item, "")
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
	switch {
	case indent < 0:
		return nil, nil
	case list != nil:
		return list, nil
	}
	return m, nil
}

// leadingSpaces counts the spaces that indent a line.
func leadingSpaces(line string) int {
	return len(line) - len(strings.TrimLeft(line, " "))
}

// blockHeader matches "|" or ">" with optional chomping and indentation indicators.
var blockHeader = regexp.MustCompile(`^[|>]([-+]?[1-9]?|[1-9][-+])$`)

// blockScalar reads a literal (|) or folded (>) block; "-" strips the final
// line break, "+" keeps the trailing blank lines.
func blockScalar(header string, lines []string) (string, error) {
	flags, _, _ := strings.Cut(header, " #")
	if flags = strings.TrimSpace(flags); !blockHeader.MatchString(flags) {
		return "", fmt.Errorf("bad block header %q", header)
	}
	chomp := strings.Trim(flags[1:], "123456789")
	indent, _ := strconv.Atoi(strings.Trim(flags[1:], "+-"))
	body := make([]string, len(lines))
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indent = cmp.Or(indent, leadingSpaces(l))
		if leadingSpaces(l) < indent {
			return "", errors.New("a line of the block is indented less than its first")
		}
		body[i] = l[indent:]
	}
	text := strings.Join(body, "\n")
	if header[0] == '>' {
		text = foldLines(body)
	}
	switch content := strings.TrimRight(text, "\n"); {
	case chomp == "-" || content == "":
		return content, nil
	case chomp == "+":
		return text + "\n", nil
	default:
		return content + "\n", nil
	}
}

// foldLines joins lines with a space, except around blank and more-indented
// lines, whose line breaks stay (a blank line's own break is dropped).
func foldLines(lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(l)
		next := "" // the next line with text
		for _, n := range lines[i+1:] {
			if next = n; n != "" {
				break
			}
		}
		switch {
		case i == len(lines)-1:
		case l == "" || l[0] == ' ' || next == "" || next[0] == ' ':
			b.WriteByte('\n')
		case lines[i+1] != "":
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// foldPlain folds a value continued on the lines below, without comments.
func foldPlain(lines []string) string {
	var kept []string
	for _, l := range lines {
		if t := strings.TrimSpace(l); !strings.HasPrefix(t, "#") {
			kept = append(kept, t)
		}
	}
	return strings.TrimSpace(foldLines(kept))
}

// scalar reads the value s starts with and returns the text after it: a plain
// value ends at a " #" comment or a byte of stop; with no stop, only a comment may follow.
func scalar(s, stop string) (v, rest string, err error) {
	s = strings.TrimLeft(s, " \n")
	switch {
	case s == "":
	case s[0] == '"' || s[0] == '\'':
		v, rest, err = quoted(s)
	case strings.IndexByte("[]{}&*!|>%@`", s[0]) >= 0:
		err = fmt.Errorf("values starting with %q are not supported", s[0])
	default:
		end := len(s)
		if i := strings.IndexAny(s, stop); i >= 0 {
			end = i
		}
		if i := strings.Index(s[:end], " #"); i >= 0 {
			end = i
		}
		v, rest = strings.TrimSpace(s[:end]), s[end:]
	}
	if rest = strings.TrimLeft(rest, " \n"); err == nil && stop == "" && rest != "" && rest[0] != '#' {
		err = fmt.Errorf("unexpected text %q after the quoted value", rest)
	}
	return v, rest, err
}

// flowList reads the items of a "[a, 'b', "c"]" list after its "[".
func flowList(s string) ([]any, error) {
	items := []any{}
	for {
		if rest, ok := strings.CutPrefix(strings.TrimLeft(s, " \n"), "]"); ok {
			if rest = strings.TrimSpace(rest); rest != "" && rest[0] != '#' {
				return nil, fmt.Errorf("unexpected text %q after the list", rest)
			}
			return items, nil
		}
		item, rest, err := scalar(s, ",]")
		switch {
		case err != nil:
			return nil, err
		case rest == "":
			return nil, errors.New("the [list] is not closed")
		case rest[0] != ',' && rest[0] != ']':
			return nil, fmt.Errorf("unexpected text %q in the list", rest)
		}
		items = append(items, item)
		s = strings.TrimPrefix(rest, ",")
	}
}

// quoted reads the string s starts with, in double quotes with Go's escapes
// or in single quotes (a doubled quote for one), and returns the text after it.
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
