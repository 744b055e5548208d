package main

import (
	"cmp"
	"slices"
	"strings"
)

// textLine prints a line of reply text. With colour, its Markdown is styled: a fence opens or closes
// a code block (labelled with its language, its tabs four columns), and table rows (which start and
// end with a pipe) wait for the table's end to be laid out in columns. Without colour the Markdown is printed as written.
func (t *Transcript) textLine(s string) {
	s = visibleControls(stripTags(s, false))
	if row := strings.TrimSpace(s); t.color && !t.inFence && len(row) > 1 && row[0] == '|' && row[len(row)-1] == '|' {
		t.table = append(t.table, s)
		return
	}
	t.endTable()
	fence := strings.HasPrefix(strings.TrimSpace(s), "```")
	t.inFence = t.inFence != fence
	switch lang := strings.Trim(strings.TrimSpace(s), "`"); {
	case !t.color:
		t.print(s, !t.inFence && !fence)
	case fence && t.inFence && lang != "":
		t.printRaw(t.style(ansiDim, "  "+lang))
	case !fence:
		t.print(t.styleLine(s), !t.inFence)
	}
}

// styleLine styles a line of reply text as textLine prints it, for the line still arriving too: code, or
// prose with its heading, quote or list item and its inline spans.
func (t *Transcript) styleLine(s string) string {
	heading := strings.TrimLeft(s, "#")
	level := len(s) - len(heading)
	switch {
	case !t.color:
		return s
	case t.inFence:
		return "  " + ansiCyan + strings.ReplaceAll(s, "\t", "    ") + ansiReset
	case level > 0 && level <= 6 && strings.HasPrefix(heading, " "):
		style := map[int]string{1: ansiBold + ansiUnderline, 2: ansiBold}[level] // H3 and below are bold italic
		return cmp.Or(style, ansiBold+ansiItalic) + strings.TrimSpace(heading) + ansiReset
	case strings.HasPrefix(s, "> "):
		return ansiDim + "│ " + s[2:] + ansiReset
	}
	if item := strings.TrimLeft(s, " \t"); len(item) > 1 && strings.IndexByte("-*+", item[0]) >= 0 && item[1] == ' ' {
		s = s[:len(s)-len(item)] + "• " + item[2:]
	}
	return styleInline(s)
}

// styleInline styles a line's `code`, and **bold** and *italic* outside it (`*.go` is no emphasis);
// _underscores_ are left alone, as they join the words of snake_case names.
func styleInline(s string) string {
	var b strings.Builder
	for {
		before, rest, found := strings.Cut(s, "`")
		b.WriteString(styleSpans(styleSpans(before, "**", ansiBold), "*", ansiItalic))
		code, after, closed := strings.Cut(rest, "`")
		switch {
		case !found:
			return b.String()
		case !closed: // an unclosed or empty span stays as typed
			return b.String() + "`" + rest
		case code == "":
			b.WriteString("``")
		default:
			b.WriteString(ansiCyan + code + ansiReset)
		}
		s = after
	}
}

// styleSpans styles each span between two marks that holds no character of the mark and neither starts
// nor ends with a space (so 2 * 3 * 4 stays as it is), dropping the marks.
func styleSpans(s, mark, code string) string {
	var b strings.Builder
	for i := strings.Index(s, mark); i >= 0; i = strings.Index(s, mark) {
		span := s[i+len(mark):]
		if n := strings.IndexByte(span, mark[0]); n > 0 && strings.HasPrefix(span[n:], mark) && span[0] != ' ' && span[n-1] != ' ' {
			b.WriteString(s[:i] + code + span[:n] + ansiReset)
			s = span[n+len(mark):]
		} else {
			b.WriteString(s[:i+1])
			s = s[i+1:]
		}
	}
	return b.String() + s
}

// tableCells splits a table row into its cells, trimmed and styled.
func tableCells(row string) []string {
	cells := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
	for i := range cells {
		cells[i] = styleInline(strings.TrimSpace(cells[i]))
	}
	return cells
}

// endTable prints the rows held back: in columns when they are a table (a header, a rule of dashes), else as written.
func (t *Transcript) endTable() {
	rows := t.table
	isTable := len(rows) > 1 && !slices.ContainsFunc(tableCells(rows[1]), func(c string) bool { return c == "" || strings.Trim(c, ":-") != "" })
	if t.table = nil; isTable {
		rows = layoutTable(slices.Delete(rows, 1, 2), t.width)
	}
	for _, row := range rows {
		t.print(row, !isTable)
	}
}

// layoutTable lays out a table's rows (the header first, bold, a rule under it) in columns; when the
// table is wider than width (if not 0), the widest columns give up columns and their cells are cut.
func layoutTable(rows []string, width int) []string {
	cells, widths := make([][]string, len(rows)), []int{}
	for i, row := range rows {
		cells[i] = tableCells(row)
		for j, c := range cells[i] {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], displayWidth(c))
		}
	}
	total := 3 * (len(widths) - 1)
	for _, w := range widths {
		total += w
	}
	for ; width > 0 && total > width && slices.Max(widths) > 3; total-- {
		widths[slices.Index(widths, slices.Max(widths))]--
	}
	out, rule := make([]string, len(rows)), make([]string, len(widths))
	for i, row := range cells {
		line := make([]string, len(widths))
		for j, w := range widths {
			if j < len(row) {
				line[j] = truncateWidth(row[j], w)
			}
			line[j] += strings.Repeat(" ", w-displayWidth(line[j]))
			rule[j] = strings.Repeat("─", w)
		}
		out[i] = strings.TrimRight(strings.Join(line, " │ "), " ")
	}
	out[0] = ansiBold + out[0] + ansiReset
	return slices.Insert(out, 1, ansiDim+strings.Join(rule, "─┼─")+ansiReset)
}

// hiddenTags mark the model's progress updates and answers; the transcript never shows them.
var hiddenTags = []string{"<progress>", "</progress>", "<final>", "</final>"}

// stripTags removes the hidden tags, and in a partial line the start of one at its end.
func stripTags(s string, partial bool) string {
	for _, t := range hiddenTags {
		s = strings.ReplaceAll(s, t, "")
	}
	i := strings.LastIndexByte(s, '<')
	if partial && i >= 0 && slices.ContainsFunc(hiddenTags, func(t string) bool { return strings.HasPrefix(t, s[i:]) }) {
		return s[:i]
	}
	return s
}
