package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Front matter is the YAML that opens SKILL.md, agent and command files.
// minicode reads the part of YAML they use: "key: value" with plain or quoted
// values, |, |-, > and >- blocks, [a, b] and "- item" lists, and one level of
// maps; a key written in any other form is left out with a warning.

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

// parseFrontMatter reads a header into strings, []any, map[string]any or nil;
// a key it cannot read is left out, with a warning naming its line.
func parseFrontMatter(header string) (map[string]any, []string) {
	return parseMap(strings.Split(strings.TrimSuffix(header, "\n"), "\n"), 2, false)
}

// parseMap reads "key: value" lines, the first numbered first, each with the
// blank, indented, comment and list item lines below it; a nested map holds
// no map.
func parseMap(lines []string, first int, nested bool) (map[string]any, []string) {
	below := func(line string) bool {
		return line == "" || strings.IndexByte(" \t#", line[0]) >= 0 || line == "-" || strings.HasPrefix(line, "- ")
	}
	meta, warnings := map[string]any{}, []string(nil)
	for i, end := 0, 0; i < len(lines); i = end {
		for end = i + 1; end < len(lines) && below(lines[end]); end++ {
		}
		if below(lines[i]) {
			continue // comments, and indented lines with no key above
		}
		key, value, ok := strings.Cut(lines[i]+" ", ": ")
		v, read := readValue(strings.TrimSpace(value), lines[i+1:end], nested)
		key = strings.TrimSpace(key)
		switch _, dup := meta[key]; {
		case !ok || !read || key == "" || strings.IndexByte(`"'?&*!`, key[0]) >= 0:
			warnings = append(warnings, fmt.Sprintf("front matter line %d: %q is not in the YAML minicode reads (key: value, quoted text, | and > blocks, lists, one level of maps); it is left out", first+i, cut(lines[i], 80)))
		case dup:
			warnings = append(warnings, fmt.Sprintf("front matter line %d: %s appears twice; the first value is kept", first+i, key))
		default:
			meta[key] = v
		}
	}
	return meta, warnings
}

// readValue reads the value after "key:" and the lines below it.
func readValue(v string, more []string, nested bool) (any, bool) {
	header, _, _ := strings.Cut(v, " #")
	if header = strings.TrimSpace(header); slices.Contains([]string{"|", "|-", ">", ">-"}, header) {
		body, ok := dedent(more, true)
		text := strings.Join(body, "\n")
		if header[0] == '>' {
			text = foldLines(body)
		}
		if text = strings.TrimRight(text, "\n"); text != "" && header[1:] != "-" {
			text += "\n"
		}
		return text, ok
	}
	lines, ok := dedent(more, false)
	first := " " // the first line below, and a space
	if len(lines) > 0 {
		first = lines[0] + " "
	}
	_, _, isKey := strings.Cut(first, ": ")
	switch {
	case v == "" && (!ok || len(lines) == 0):
		return nil, ok
	case v == "" && strings.HasPrefix(first, "- "):
		return blockList(lines)
	case v == "" && isKey:
		m, warnings := parseMap(lines, 0, true)
		return m, !nested && len(warnings) == 0
	}
	return inlineValue(foldPlain(append([]string{v}, more...)))
}

// blockList reads "- item" lines into a list of strings.
func blockList(lines []string) ([]any, bool) {
	list := []any{}
	for _, l := range lines {
		item, ok := strings.CutPrefix(l, "- ")
		item = strings.TrimSpace(item)
		v, read := inlineValue(item)
		s, isString := v.(string)
		if !ok || !read || !isString || strings.IndexAny(item, `"'`) != 0 && strings.Contains(item+" ", ": ") { // a list of maps
			return nil, false
		}
		list = append(list, s)
	}
	return list, true
}

// dedent removes the indent of the first line with text from the lines, none
// of which may be indented less; blank lines and comments stay in a block.
func dedent(lines []string, block bool) ([]string, bool) {
	var out []string
	indent := -1
	for _, l := range lines {
		t, spaces := strings.TrimSpace(l), len(l)-len(strings.TrimLeft(l, " \t"))
		switch {
		case t == "" && block:
			out = append(out, "")
			continue
		case t == "" || t[0] == '#' && (!block || spaces == 0):
			continue
		case indent < 0:
			indent = spaces
		}
		if spaces < indent {
			return nil, false
		}
		out = append(out, l[indent:])
	}
	return out, true
}

// inlineValue reads a [a, b] list or a quoted or plain string; text after a
// list's "]" keeps the value as written, as in "[pr] [priority]".
func inlineValue(s string) (any, bool) {
	rest, isList := strings.CutPrefix(s, "[")
	if !isList {
		v, rest, ok := scalar(s, "")
		return v, ok && (rest == "" || rest[0] == '#')
	}
	items := []any{}
	for rest = strings.TrimLeft(rest, " \n"); !strings.HasPrefix(rest, "]"); rest = strings.TrimLeft(rest[1:], " \n") {
		item, after, ok := scalar(rest, ",]")
		if !ok || after == "" || after[0] != ',' && after[0] != ']' {
			return nil, false
		}
		items, rest = append(items, item), after
		if rest[0] == ']' {
			break
		}
	}
	if after := strings.TrimSpace(rest[1:]); after != "" && after[0] != '#' {
		return s, true
	}
	return items, true
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
	lines = slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "#") })
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(foldLines(lines))
}

// scalar reads the quoted or plain string s starts with and returns the text
// after it: a plain one ends at a " #" comment or a byte of stop.
func scalar(s, stop string) (v, rest string, ok bool) {
	s = strings.TrimLeft(s, " \n")
	if s != "" && strings.IndexByte("[]{}&*!|>%@`", s[0]) >= 0 {
		return "", "", false
	}
	for i := 1; s != "" && (s[0] == '"' || s[0] == '\'') && i < len(s); i++ {
		switch {
		case s[0] == '"' && s[i] == '\\', s[0] == '\'' && strings.HasPrefix(s[i:], "''"):
			i++
		case s[i] == s[0] && s[0] == '\'':
			return strings.ReplaceAll(s[1:i], "''", "'"), strings.TrimLeft(s[i+1:], " \n"), true
		case s[i] == s[0]:
			v, err := strconv.Unquote(strings.ReplaceAll(s[:i+1], "\n", `\n`))
			return v, strings.TrimLeft(s[i+1:], " \n"), err == nil
		}
	}
	end := len(s)
	if i := strings.IndexAny(s, stop); i >= 0 {
		end = i
	}
	if i := strings.Index(s[:end], " #"); i >= 0 {
		end = i
	}
	return strings.TrimSpace(s[:end]), strings.TrimLeft(s[end:], " "), s == "" || (s[0] != '"' && s[0] != '\'')
}
