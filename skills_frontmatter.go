package main

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// readDefinition reads a Markdown file with front matter, optional unless required.
func readDefinition(path string, required bool) (map[string]any, string, error) {
	data, err := readConfigFile(path)
	if err != nil {
		return nil, "", err
	}
	if !required && !strings.HasPrefix(strings.TrimPrefix(string(data), "\uFEFF"), "---") {
		return map[string]any{}, string(data), nil
	}
	header, body, err := splitFrontMatter(data)
	if err != nil {
		return nil, "", err
	}
	meta, _ := parseFrontMatter(header) // a key that cannot be read is left out unseen
	return meta, strings.TrimLeft(body, "\n"), nil
}

// splitFrontMatter separates a Markdown file's front matter, between "---" lines, from its body; both end lines with "\n".
func splitFrontMatter(data []byte) (header, body string, err error) {
	text := strings.ReplaceAll(strings.TrimPrefix(string(data), "\uFEFF"), "\r\n", "\n")
	lines := strings.SplitAfter(text, "\n")
	for i, line := range lines {
		switch fence := strings.TrimRight(line, " \t\n"); {
		case i == 0 && !utf8.ValidString(text):
			return "", "", errors.New("the file is not valid UTF-8")
		case i == 0 && fence != "---":
			return "", "", errors.New(`no front matter: the file must start with a line "---", then name: and description:, then "---"`)
		case i > 0 && (fence == "---" || fence == "..."):
			return strings.Join(lines[1:i], ""), strings.Join(lines[i+1:], ""), nil
		}
	}
	return "", "", errors.New(`the front matter is not closed: add a line "---" after it`)
}

// parseFrontMatter reads the YAML of SKILL.md, agent and command files (key: value,
// quoted text, | and > blocks, lists, one level of maps) into strings, []any,
// map[string]any or nil; a key in any other form is left out with a warning.
func parseFrontMatter(header string) (map[string]any, []string) {
	lines := strings.Split(strings.TrimSuffix(header, "\n"), "\n")
	below := func(line string) bool { // blank, comment, indented and "- item" lines belong to the key above
		return line == "" || strings.IndexByte(" \t#", line[0]) >= 0 || strings.HasPrefix(line+" ", "- ")
	}
	meta, warnings := map[string]any{}, []string(nil)
	for i, end := 0, 0; i < len(lines); i = end {
		for end = i + 1; end < len(lines) && below(lines[end]); end++ {
		}
		key, value, ok := strings.Cut(lines[i]+" ", ": ")
		key = strings.TrimSpace(key)
		v, read := readValue(strings.TrimSpace(value), lines[i+1:end])
		switch _, dup := meta[key]; {
		case below(lines[i]): // comments, and indented lines with no key above
		case !ok || !read || key == "" || strings.IndexByte(`"'?&*!`, key[0]) >= 0:
			warnings = append(warnings, fmt.Sprintf("front matter line %d: %q is not in the YAML minicode reads (key: value, quoted text, | and > blocks, lists, one level of maps); it is left out", i+2, cutRunes(lines[i], 80)))
		case dup:
			warnings = append(warnings, fmt.Sprintf("front matter line %d: %s appears twice; the first value is kept", i+2, key))
		default:
			meta[key] = v
		}
	}
	return meta, warnings
}

// readValue reads the value after "key:" and the lines below it.
func readValue(v string, more []string) (any, bool) {
	header := strings.TrimSpace(strings.Split(" "+v, " #")[0]) // v without a comment
	block := header == "|" || header == "|-" || header == ">" || header == ">-"
	lines, ok := dedent(more, block)
	body := strings.TrimLeft(strings.Join(lines, "\n"), "\n") // the text below, from its first line
	switch first, _, _ := strings.Cut(body, "\n"); {
	case block:
		text := strings.TrimRight(foldLines(lines, header[0] == '|'), "\n")
		if text != "" && len(header) == 1 {
			text += "\n"
		}
		return text, ok
	case v != "" && header == "":
		v = "" // only a comment: the lines below, if any, are the value
	case v != "": // a plain or quoted value, maybe continued below
	case body == "" || !ok:
		return nil, ok
	case strings.HasPrefix(first+" ", "- "):
		list := []any{}
		for _, l := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' }) {
			item, isItem := strings.CutPrefix(l, "- ")
			item = strings.TrimSpace(item)
			v, rest, read := inlineValue(item, "")
			s, isString := v.(string)
			if !isItem || !read || !isString || rest != "" && rest[0] != '#' || strings.IndexAny(item, `"'`) != 0 && strings.Contains(item+" ", ": ") {
				return nil, false // a list of lists or maps
			}
			list = append(list, s)
		}
		return list, true
	case strings.Contains(first+" ", ": "):
		m, warnings := parseFrontMatter(body)
		for _, x := range m {
			if _, deeper := x.(map[string]any); deeper {
				return nil, false // a map in a map
			}
		}
		return m, len(warnings) == 0
	}
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	value, rest, ok := inlineValue(strings.TrimSpace(foldLines(append([]string{v}, lines...), false)), "")
	return value, ok && (rest == "" || rest[0] == '#')
}

// dedent removes the first text line's indent from the lines and says whether none
// is indented less; comments go, but for those indented in a block.
func dedent(lines []string, block bool) ([]string, bool) {
	out, indent, ok := []string{}, -1, true
	for _, l := range lines {
		t := strings.TrimLeft(l, " \t")
		switch n := len(l) - len(t); {
		case t == "":
			out = append(out, "")
		case t[0] == '#' && (!block || n == 0):
		case indent < 0:
			indent = n
			out = append(out, t)
		default:
			ok = ok && n >= indent
			out = append(out, l[min(n, indent):])
		}
	}
	return out, ok
}

// foldLines joins lines with a space, but a blank line stands for a line break, and
// the breaks around more-indented lines, or all in a literal block, stay.
func foldLines(lines []string, literal bool) string {
	var b strings.Builder
	last := "" // the last line with text
	for i, l := range lines {
		switch keep := literal || strings.HasPrefix(l, " ") || strings.HasPrefix(last, " "); {
		case l == "" || last != "" && keep:
			b.WriteByte('\n')
		case last != "" && lines[i-1] != "":
			b.WriteByte(' ')
		}
		b.WriteString(l)
		last = cmp.Or(l, last)
	}
	return b.String()
}

// quoted matches a "double-quoted" string with escapes or a 'single-quoted' one.
var quoted = regexp.MustCompile(`^(?s:"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')`)

// inlineValue reads the quoted or plain string, or [a, b] list of them, s starts with
// and returns the text after it; a plain string ends at " #" or a byte of stop, and
// text after a list's "]" keeps the value as written, as in "[pr] [priority]".
func inlineValue(s, stop string) (v any, rest string, ok bool) {
	if q := quoted.FindString(s); q != "" {
		v, err := strconv.Unquote(strings.ReplaceAll(q, "\n", `\n`))
		if q[0] == '\'' {
			v, err = strings.ReplaceAll(q[1:len(q)-1], "''", "'"), nil
		}
		return v, strings.TrimLeft(s[len(q):], " \n"), err == nil
	}
	if rest, isList := strings.CutPrefix(s, "["); isList && stop == "" {
		items := []any{}
		for rest = strings.TrimLeft(rest, " \n"); !strings.HasPrefix(rest, "]"); {
			item, after, ok := inlineValue(rest, ",]")
			if !ok || after == "" || after[0] != ',' && after[0] != ']' {
				return nil, "", false
			}
			items, rest = append(items, item), strings.TrimLeft(strings.TrimPrefix(after, ","), " \n")
		}
		if after := strings.TrimSpace(rest[1:]); after != "" && after[0] != '#' {
			return s, "", true
		}
		return items, strings.TrimSpace(rest[1:]), true
	}
	plain, _, _ := strings.Cut(s, " #")
	if i := strings.IndexAny(plain, stop); i >= 0 {
		plain = plain[:i]
	}
	return strings.TrimSpace(plain), strings.TrimLeft(s[len(plain):], " "), s == "" || strings.IndexByte("[]{}&*!|>%@`\"'", s[0]) < 0
}
