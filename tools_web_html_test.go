package main

import (
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHTMLToTextGolden(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(filepath.Join("testdata", "tools", "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://example.test/guide/index.html")
	title, text := htmlToText(string(page), base)
	if title != "Gophers & Friends" {
		t.Errorf("title = %q, want %q", title, "Gophers & Friends")
	}
	golden := filepath.Join("testdata", "tools", "page.txt")
	if *update {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if text != string(want) {
		t.Errorf("text of page.html:\n%s\nwant:\n%s", text, want)
	}
}

func TestHTMLToText(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain text", "just text", "just text\n"},
		{"entities", "<p>a &amp; b &lt;c&gt; &#x263A; &copy;</p>", "a & b <c> ☺ ©\n"},
		{"stray less-than", "a < b <= c", "a < b <= c\n"},
		{"unclosed tag", "<p>text<a href='x", "text\n"},
		{"unclosed link", "<a href=x>text", "[text](https://h.test/x)\n"},
		{"unclosed comment", "before<!-- never closed", "before\n"},
		{"uppercase tags", "<P>One</P><H3>Two</H3>", "One\n\n### Two\n"},
		{"script case-insensitive end", "<script>x</ScRiPt>shown", "shown\n"},
		{"nested skipped", "<svg><svg></svg><text>no</text></svg>yes", "yes\n"},
		{"unquoted attribute", "<a href=/x/y>link</a>", "[link](https://h.test/x/y)\n"},
		{"javascript link", `<a href="javascript:void(0)">click</a>`, "click\n"},
		{"line breaks", "one<br>two<br/>three", "one\ntwo\nthree\n"},
		{"missing head end", "<head><title>T</title><body><p>body text</p>", "body text\n"},
		{"invalid utf-8", "caf\xe9", "caf\xe9\n"},
	}
	base, _ := url.Parse("https://h.test/")
	for _, tc := range tests {
		if _, got := htmlToText(tc.in, base); got != tc.want {
			t.Errorf("%s: htmlToText(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

func TestHTMLTokenizerAttributes(t *testing.T) {
	t.Parallel()
	var tokens []htmlToken
	htmlTokens(`<A HREF="a&amp;b" class='x  y' data-x=1 disabled checked=checked href="dup">`, func(tok htmlToken) {
		tokens = append(tokens, tok)
	})
	if len(tokens) != 1 || tokens[0].end || tokens[0].name != "a" {
		t.Fatalf("tokens = %+v, want one start tag a", tokens)
	}
	tok := tokens[0]
	want := map[string]string{"href": "a&b", "class": "x  y", "data-x": "1", "disabled": "", "checked": "checked"}
	for k, v := range want {
		if tok.attrs[k] != v {
			t.Errorf("attribute %q = %q, want %q", k, tok.attrs[k], v)
		}
	}
	if !tok.hasClass("y") || tok.hasClass("x  y") {
		t.Errorf("hasClass wrong for class %q", tok.attrs["class"])
	}
}

// TestHTMLToTextManyComments converts a page as large as web_fetch reads,
// made only of comments and declarations, with the stack limited to 32 MB:
// skipping them must not take stack per comment. It does not run in
// parallel, since the limit holds for the whole test binary.
func TestHTMLToTextManyComments(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(32 << 20))
	page := strings.Repeat("<!>", webMaxBodyBytes/6) + strings.Repeat("<!---->", webMaxBodyBytes/14) + "<p>end</p>"
	if _, got := htmlToText(page, nil); got != "end\n" {
		t.Errorf("text = %q, want %q", got, "end\n")
	}
}

// FuzzHTMLToText checks that no input crashes the converter or makes it
// loop, that valid UTF-8 stays valid, and that script content never shows.
func FuzzHTMLToText(f *testing.F) {
	for _, seed := range []string{"<p>x</p>", "<script>a<b</script>", "<a href=x>", "<!--", "<", "</", "<a =x>", "<title>t", "<pre>\n x</pre>"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		_, text := htmlToText(in, nil)
		if utf8.ValidString(in) && !utf8.ValidString(text) {
			t.Errorf("htmlToText(%q) = %q, not valid UTF-8", in, text)
		}
		if strings.Contains(in, "<script>SECRET</script>") && strings.Contains(text, "SECRET") && strings.Count(in, "SECRET") == 1 {
			t.Errorf("script content shown: %q", text)
		}
	})
}
