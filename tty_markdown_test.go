package main

import (
	"strings"
	"testing"
)

func TestWrapWords(t *testing.T) {
	tests := []struct {
		name, in string
		width    int
		want     string // rows joined by |
	}{
		{"fits", "search for TEXT", 20, "search for TEXT"},
		{"breaks at spaces", "search for TEXT in the files", 12, "search for|TEXT in the|files"},
		{"never mid-word", "the demo model did not understand", 10, "the demo|model did|not|understand"},
		{"a long word is cut", "see /usr/local/share/very/long/path here", 12, "see|/usr/local/s|hare/very/lo|ng/path here"},
		{"list items hang", "• first item of a list", 12, "• first item|  of a list"},
		{"numbered items hang", "12. first item of a list", 12, "12. first|    item of|    a list"},
		{"indent kept", "    indented text that wraps", 14, "    indented|    text that|    wraps"},
		{"CJK breaks between characters", "日本語のテキストです", 7, "日本語|のテキ|ストで|す"},
		{"CJK after a word", "see 日本語", 6, "see 日|本語"},
		{"emoji are two columns", "ok 👍 👍 👍 done", 7, "ok 👍|👍 👍|done"},
		{"escapes take no columns", "\x1b[1mbold\x1b[0m words here", 10, "\x1b[1mbold\x1b[0m words|here"},
		{"trailing spaces dropped", "one two   ", 4, "one|two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows := wrapWords(tt.in, tt.width)
			if got := strings.Join(rows, "|"); got != tt.want {
				t.Errorf("wrapWords(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
			}
			for _, r := range rows {
				if displayWidth(r) > tt.width {
					t.Errorf("row %q is %d columns, wider than %d", r, displayWidth(r), tt.width)
				}
			}
		})
	}
}

func TestCodeAndTablesAreNotWrapped(t *testing.T) {
	var out strings.Builder
	tr := Transcript{out: &out, color: true, width: 20}
	tr.text("```go\nfunc main() { fmt.Println(\"a long line of code\") }\n```\n")
	if got := out.String(); !strings.Contains(got, `func main() { fmt.Println("a long line of code") }`) {
		t.Errorf("a code line was wrapped: %q", got)
	}
	out.Reset()
	tr.color = false
	tr.text("```\nfunc main() { fmt.Println(\"a long line of code\") }\n```\nprose that is long enough to wrap\n")
	if got, want := out.String(), "```\nfunc main() { fmt.Println(\"a long line of code\") }\n```\nprose that is long\nenough to wrap\n"; got != want {
		t.Errorf("without colour got %q, want %q", got, want)
	}
}

func TestMarkdownTable(t *testing.T) {
	table := "| name | size | note |\n|---|--:|---|\n| `a.go` | 12 | the entry point |\n| b_test.go | 1024 |  |\n"
	tests := []struct {
		width int
		want  []string
	}{
		{80, []string{
			ansiBold + "name      │ size │ note" + ansiReset,
			ansiDim + "──────────┼──────┼────────────────" + ansiReset,
			ansiCyan + "a.go" + ansiReset + "      │ 12   │ the entry point",
			"b_test.go │ 1024 │",
		}},
		{26, []string{ // the widest column gives up its columns first
			ansiBold + "name     │ size │ note" + ansiReset,
			ansiDim + "─────────┼──────┼─────────" + ansiReset,
			ansiCyan + "a.go" + ansiReset + "     │ 12   │ the ent…",
			"b_test.… │ 1024 │",
		}},
	}
	for _, tt := range tests {
		var out strings.Builder
		tr := Transcript{out: &out, color: true, width: tt.width}
		for i := 0; i < len(table); i += 7 { // as it streams
			tr.text(table[i:min(i+7, len(table))])
		}
		if out.Len() != 0 {
			t.Errorf("the table was printed before it ended: %q", out.String())
		}
		tr.text("after\n")
		if got, want := out.String(), strings.Join(tt.want, "\n")+"\nafter\n"; got != want {
			t.Errorf("width %d: got\n%s\nwant\n%s", tt.width, got, want)
		}
	}
}

func TestStyleInline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"use **care** and `go vet`", "use " + ansiBold + "care" + ansiReset + " and " + ansiCyan + "go vet" + ansiReset},
		{"an *italic* word", "an " + ansiItalic + "italic" + ansiReset + " word"},
		{"`*.go` files and `*.md`", ansiCyan + "*.go" + ansiReset + " files and " + ansiCyan + "*.md" + ansiReset},
		{"an `unclosed span", "an `unclosed span"},
		{"snake_case_name stays", "snake_case_name stays"},
		{"2 * 3 * 4", "2 * 3 * 4"},
		{"**not closed", "**not closed"},
		{"`a*b*c` is code", ansiCyan + "a*b*c" + ansiReset + " is code"},
	}
	for _, tt := range tests {
		if got := styleInline(tt.in); got != tt.want {
			t.Errorf("styleInline(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
