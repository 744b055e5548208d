package main

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestParseFrontMatter runs the front matter parser over one table of
// headers in the forms it reads and the values they must give.
func TestParseFrontMatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want map[string]any
	}{
		{name: "plain", in: "name: pdf\ndescription: Fill PDF forms.\n", want: map[string]any{"name": "pdf", "description": "Fill PDF forms."}},
		{name: "comment after plain", in: "name: pdf # the name\n", want: map[string]any{"name": "pdf"}},
		{name: "colon inside plain", in: "description: Use when: the user asks\n", want: map[string]any{"description": "Use when: the user asks"}},
		{name: "plain continued", in: "description: first line\n  second line\n\n  after blank\nname: x\n", want: map[string]any{"description": "first line second line\nafter blank", "name": "x"}},
		{name: "double quoted escapes", in: `d: "a \"q\" \\ \n\t\u00e9\x41"` + "\n", want: map[string]any{"d": "a \"q\" \\ \n\té" + "A"}},
		{name: "single quoted", in: "d: 'it''s # not a comment'\n", want: map[string]any{"d": "it's # not a comment"}},
		{name: "quoted over lines", in: "d: \"one\n  two\"\n", want: map[string]any{"d": "one two"}},
		{name: "quoted with a blank line", in: "d: \"one\n\n  two\"\n", want: map[string]any{"d": "one\ntwo"}},
		{name: "flow list", in: "tools: [read_file, \"grep\", 'run_command(git:*)']\n", want: map[string]any{"tools": []any{"read_file", "grep", "run_command(git:*)"}}},
		{name: "flow list over lines", in: "tools: [a,\n  b,]\n", want: map[string]any{"tools": []any{"a", "b"}}},
		{name: "empty flow list", in: "tools: [] # none\n", want: map[string]any{"tools": []any{}}},
		{name: "text after a list is a string", in: "argument-hint: [pr-number] [priority]\n", want: map[string]any{"argument-hint": "[pr-number] [priority]"}},
		{name: "text after a list over lines", in: "d: [a,\n  b] c\n", want: map[string]any{"d": "[a, b] c"}},
		{name: "block list", in: "tools:\n  - read_file\n  - \"grep\"\nname: x\n", want: map[string]any{"tools": []any{"read_file", "grep"}, "name": "x"}},
		{name: "block list at key indent", in: "tools:\n- a\n- b\nname: x\n", want: map[string]any{"tools": []any{"a", "b"}, "name": "x"}},
		{name: "block list with comments", in: "tools:\n  # read\n  - a # first\n\n  - 'b: c'\n", want: map[string]any{"tools": []any{"a", "b: c"}}},
		{name: "one level of map", in: "metadata:\n  version: \"1.0\"\n  tags: [a, b]\n  empty:\nname: x\n", want: map[string]any{"metadata": map[string]any{"version": "1.0", "tags": []any{"a", "b"}, "empty": nil}, "name": "x"}},
		{name: "block in a map", in: "m:\n  d: >-\n    one\n    two\n", want: map[string]any{"m": map[string]any{"d": "one two"}}},
		{name: "blank line in a block in a map", in: "m:\n  d: |\n    a\n\n    b\n", want: map[string]any{"m": map[string]any{"d": "a\n\nb\n"}}},
		{name: "empty value", in: "license:\nname: x\n", want: map[string]any{"license": nil, "name": "x"}},
		{name: "value on next line", in: "description:\n  Text on the next line\n", want: map[string]any{"description": "Text on the next line"}},
		{name: "literal clip", in: "d: |\n  line one\n    indented\n  line three\n\nname: x\n", want: map[string]any{"d": "line one\n  indented\nline three\n", "name": "x"}},
		{name: "literal strip", in: "d: |-\n  a\n  b\n\n", want: map[string]any{"d": "a\nb"}},
		{name: "literal keeps comments", in: "d: |\n  # not a comment\n", want: map[string]any{"d": "# not a comment\n"}},
		{name: "empty literal", in: "d: |\nname: x\n", want: map[string]any{"d": "", "name": "x"}},
		{name: "folded", in: "d: >\n  one\n  two\n\n  three\n    more\n  four\n", want: map[string]any{"d": "one two\nthree\n  more\nfour\n"}},
		{name: "folded strip", in: "d: >-\n  one\n  two\n", want: map[string]any{"d": "one two"}},
		{name: "folded header comment", in: "d: > # folded\n  one\n", want: map[string]any{"d": "one\n"}},
		{name: "comments and blanks", in: "# top\n\nname: x\n  # indented comment\n", want: map[string]any{"name": "x"}},
		{name: "empty document", in: "", want: map[string]any{}},
		{name: "only a comment after the key", in: "d: # nothing\n", want: map[string]any{"d": ""}},
		{name: "a comment after the key, the value below", in: "d: # note\n  text below\n", want: map[string]any{"d": "text below"}},
		{name: "scalars stay strings", in: "a: true\nb: 1.0\nc: null\n", want: map[string]any{"a": "true", "b": "1.0", "c": "null"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings := parseFrontMatter(tt.in)
			if !reflect.DeepEqual(got, tt.want) || len(warnings) > 0 {
				t.Errorf("parseFrontMatter(%q)\n got %q, warnings %q\nwant %q", tt.in, fmt.Sprint(got), warnings, fmt.Sprint(tt.want))
			}
		})
	}
}

// TestParseFrontMatterUnsupported checks that a key written in YAML the
// parser does not read is left out with one warning naming its line, and
// that the other keys are kept.
func TestParseFrontMatterUnsupported(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		line     int // the header starts on line 2, after "---"
	}{
		{name: "no colon", in: "just text\nname: x\n", line: 2},
		{name: "quoted key", in: "name: x\n\"odd key\": v\n", line: 3},
		{name: "complex key", in: "name: x\n? k\n", line: 3},
		{name: "deeper nesting", in: "name: x\nm:\n  a:\n    b: 1\n", line: 3},
		{name: "list of maps", in: "name: x\nl:\n  - a: 1\n    b: 2\n", line: 3},
		{name: "list and map mixed", in: "name: x\nl:\n  - a\n  b: 2\n", line: 3},
		{name: "nested block list", in: "name: x\nl:\n  - a\n    - b\n", line: 3},
		{name: "unterminated quote", in: "d: \"open\nname: x\n", line: 2},
		{name: "unterminated list", in: "t: [a,\n  b\nname: x\n", line: 2},
		{name: "nested list", in: "name: x\nt: [a, [b]]\n", line: 3},
		{name: "list in a list", in: "name: x\nt:\n  - [a]\n", line: 3},
		{name: "flow map", in: "m: {a: 1}\nname: x\n", line: 2},
		{name: "text after quote", in: "name: x\nd: \"a\" b\n", line: 3},
		{name: "bad escape", in: `d: "\q"` + "\nname: x\n", line: 2},
		{name: "anchor", in: "d: &anchor x\nname: x\n", line: 2},
		{name: "alias in list", in: "name: x\nl:\n  - *anchor\n", line: 3},
		{name: "tag", in: "name: x\nd: !!str 1\n", line: 3},
		{name: "keep chomping", in: "name: x\nd: |+\n  a\n", line: 3},
		{name: "indentation indicator", in: "name: x\nd: |2\n    a\n", line: 3},
		{name: "bad block header", in: "d: |x\n  a\nname: x\n", line: 2},
		{name: "block less indented", in: "name: x\nd: |\n    a\n  b\n", line: 3},
		{name: "directive", in: "name: x\n%YAML 1.2\n", line: 3},
		{name: "long line", in: "name: x\nd: &a " + strings.Repeat("long ", 100) + "\n", line: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings := parseFrontMatter(tt.in)
			want := fmt.Sprintf("front matter line %d: ", tt.line)
			if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) || !strings.Contains(warnings[0], "is not in the YAML minicode reads") {
				t.Errorf("parseFrontMatter(%q) warnings = %q, want one starting %q", tt.in, warnings, want)
			}
			if len(warnings) == 1 && len(warnings[0]) > 250 {
				t.Errorf("warning %q is too long to read", warnings[0])
			}
			if !reflect.DeepEqual(got, map[string]any{"name": "x"}) {
				t.Errorf("parseFrontMatter(%q) = %q, want only name: x", tt.in, fmt.Sprint(got))
			}
		})
	}
	if _, warnings := parseFrontMatter("name: a\nname: b\n"); !reflect.DeepEqual(warnings, []string{"front matter line 3: name appears twice; the first value is kept"}) {
		t.Errorf("duplicate key: warnings = %q", warnings)
	}
}

// TestSplitFrontMatter checks the --- fences, with a byte order mark and
// Windows line endings, and the files that have no proper front matter.
func TestSplitFrontMatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, header, body, wantErr string
	}{
		{name: "unix", in: "---\nname: a\n---\nBody\n", header: "name: a\n", body: "Body\n"},
		{name: "windows and bom", in: "\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nBody\r\nline\r\n", header: "name: a\ndescription: b\n", body: "Body\nline\n"},
		{name: "trailing spaces on fences", in: "--- \nname: a\n---  \nBody", header: "name: a\n", body: "Body"},
		{name: "dots close", in: "---\nname: a\n...\nBody", header: "name: a\n", body: "Body"},
		{name: "empty body", in: "---\nname: a\n---", header: "name: a\n", body: ""},
		{name: "no front matter", in: "# Title\n", wantErr: "no front matter"},
		{name: "not closed", in: "---\nname: a\n", wantErr: "not closed"},
		{name: "not utf-8", in: "---\nname: \xff\n---\n", wantErr: "not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header, body, err := splitFrontMatter([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || header != tt.header || body != tt.body {
				t.Errorf("splitFrontMatter(%q) = %q, %q, %v; want %q, %q", tt.in, header, body, err, tt.header, tt.body)
			}
		})
	}
}

// FuzzParseFrontMatter checks that no input makes the parser panic or
// loop, and that a SKILL.md parses the same with Unix and Windows line
// endings.
func FuzzParseFrontMatter(f *testing.F) {
	for _, seed := range []string{"name: a\n", "d: >-\n  x\n", "l:\n  - a: 1\n", "m: {a: [b, 'c']}\n", "m:\n  k: [a, 'b']\n  l: |\n    x\n", "h: [a] b\n", "d: \"\\u00e9\"\n"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if strings.Contains(in, "\r") {
			t.Skip("carriage returns of its own would change under conversion")
		}
		parse := func(doc string) (map[string]any, string, error) {
			header, body, err := splitFrontMatter([]byte(doc))
			if err != nil {
				return nil, "", err
			}
			m, warnings := parseFrontMatter(header)
			return m, body, errors.New(strings.Join(warnings, "; "))
		}
		doc := "---\n" + in + "\n---\nbody\n"
		unixMap, unixBody, unixErr := parse(doc)
		winMap, winBody, winErr := parse("\uFEFF" + strings.ReplaceAll(doc, "\n", "\r\n"))
		if fmt.Sprint(unixErr) != fmt.Sprint(winErr) || !reflect.DeepEqual(unixMap, winMap) || unixBody != winBody {
			t.Fatalf("%q: Unix gives %q, %q, %v; Windows gives %q, %q, %v", in, fmt.Sprint(unixMap), unixBody, unixErr, fmt.Sprint(winMap), winBody, winErr)
		}
	})
}
