package main

import (
	"html"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// htmlTokenKind tells the kinds of HTML token apart.
type htmlTokenKind int

// The kinds of token htmlTokenizer produces; comments, doctypes and
// processing instructions are skipped.
const (
	htmlText htmlTokenKind = iota
	htmlStartTag
	htmlEndTag
)

// htmlToken is one piece of an HTML document.
type htmlToken struct {
	kind  htmlTokenKind
	name  string            // lower-case tag name, for tags
	attrs map[string]string // lower-case attribute names, unescaped values
	text  string            // unescaped text, for text tokens
}

// rawTextTags hold text that is not HTML: their content runs to their end
// tag, whatever it looks like.
var rawTextTags = map[string]bool{"script": true, "style": true, "textarea": true, "title": true, "xmp": true}

// htmlTokenizer splits HTML into tokens. It is forgiving in the way
// browsers are: a stray "<" is text, an unclosed tag or comment ends the
// document, and entities are decoded.
type htmlTokenizer struct {
	s   string
	pos int
	raw string // the raw-text element being read, if any
}

// next returns the next token, or false at the end of the input. Comments
// and the like are skipped in a loop, so a page made of millions of them
// costs no stack.
func (z *htmlTokenizer) next() (htmlToken, bool) {
	for z.pos < len(z.s) {
		if z.raw != "" {
			return z.rawText(), true
		}
		rest := z.s[z.pos:]
		if rest[0] != '<' || len(rest) < 2 {
			return z.text(), true
		}
		switch c := rest[1]; {
		case strings.HasPrefix(rest, "<!--"):
			z.skipPast("-->", 4)
		case c == '!' || c == '?':
			z.skipPast(">", 2)
		case c == '/' && len(rest) > 2 && isASCIILetter(rest[2]):
			t, ok := z.tag(2)
			t.kind = htmlEndTag
			return t, ok
		case isASCIILetter(c):
			t, ok := z.tag(1)
			if rawTextTags[t.name] {
				z.raw = t.name
			}
			return t, ok
		default:
			return z.text(), true
		}
	}
	return htmlToken{}, false
}

// text reads text up to the next "<" that could start markup.
func (z *htmlTokenizer) text() htmlToken {
	start := z.pos
	i := z.pos + 1
	for i < len(z.s) {
		j := strings.IndexByte(z.s[i:], '<')
		if j < 0 {
			i = len(z.s)
			break
		}
		i += j
		if i+1 < len(z.s) && (isASCIILetter(z.s[i+1]) || strings.ContainsRune("/!?", rune(z.s[i+1]))) {
			break
		}
		i++
	}
	z.pos = i
	return htmlToken{kind: htmlText, text: html.UnescapeString(z.s[start:i])}
}

// rawText reads the content of a raw-text element up to its end tag.
func (z *htmlTokenizer) rawText() htmlToken {
	rest := z.s[z.pos:]
	end := indexEndTag(rest, z.raw)
	text := rest[:end]
	if z.raw == "title" || z.raw == "textarea" {
		text = html.UnescapeString(text)
	}
	z.pos += end
	z.raw = ""
	return htmlToken{kind: htmlText, text: text}
}

// indexEndTag finds the end tag of the element name in s, in any letter
// case, returning len(s) when there is none.
func indexEndTag(s, name string) int {
	for i := 0; ; {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			return len(s)
		}
		i += j
		if end := i + 2 + len(name); end <= len(s) && strings.EqualFold(s[i+2:end], name) {
			return i
		}
		i += 2
	}
}

// skipPast moves past the next occurrence of end, searching from offset
// from of the current position, or to the end of the input.
func (z *htmlTokenizer) skipPast(end string, from int) {
	i := strings.Index(z.s[z.pos+min(from, len(z.s)-z.pos):], end)
	if i < 0 {
		z.pos = len(z.s)
		return
	}
	z.pos += from + i + len(end)
}

// tag reads a tag whose name starts at offset from of the current
// position, with its attributes, up to and including its ">". A tag the
// input ends inside is dropped, as browsers do, and ends the document.
func (z *htmlTokenizer) tag(from int) (htmlToken, bool) {
	s := z.s
	i := z.pos + from
	start := i
	for i < len(s) && !isTagSpace(s[i]) && s[i] != '>' && s[i] != '/' {
		i++
	}
	t := htmlToken{kind: htmlStartTag, name: strings.ToLower(s[start:i]), attrs: map[string]string{}}
	for i < len(s) && s[i] != '>' {
		if isTagSpace(s[i]) || s[i] == '/' {
			i++
			continue
		}
		nameStart := i
		for i < len(s) && !isTagSpace(s[i]) && !strings.ContainsRune("=>/", rune(s[i])) {
			i++
		}
		name := strings.ToLower(s[nameStart:i])
		for i < len(s) && isTagSpace(s[i]) {
			i++
		}
		value := ""
		if i < len(s) && s[i] == '=' {
			value, i = attrValue(s, i+1)
		}
		if _, seen := t.attrs[name]; !seen {
			t.attrs[name] = html.UnescapeString(value)
		}
	}
	z.pos = min(i+1, len(s))
	return t, i < len(s)
}

// attrValue reads a quoted or bare attribute value starting at i, after
// any spaces, and returns it with the position after it.
func attrValue(s string, i int) (string, int) {
	for i < len(s) && isTagSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		end := strings.IndexByte(s[i+1:], s[i])
		if end < 0 {
			return s[i+1:], len(s)
		}
		return s[i+1 : i+1+end], i + end + 2
	}
	start := i
	for i < len(s) && !isTagSpace(s[i]) && s[i] != '>' {
		i++
	}
	return s[start:i], i
}

// isTagSpace reports whether c separates parts of a tag.
func isTagSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// isASCIILetter reports whether c is an ASCII letter.
func isASCIILetter(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// hasClass reports whether a tag's class attribute lists class.
func (t htmlToken) hasClass(class string) bool {
	for _, c := range strings.Fields(t.attrs["class"]) {
		if c == class {
			return true
		}
	}
	return false
}

// skippedTags are elements whose content is not part of a page's text.
var skippedTags = map[string]bool{
	"script": true, "style": true, "noscript": true, "template": true, "svg": true,
	"iframe": true, "object": true, "canvas": true, "head": true, "select": true,
}

// blockTags are elements that start on a new line.
var blockTags = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true, "footer": true,
	"nav": true, "aside": true, "ul": true, "ol": true, "li": true, "table": true, "tr": true, "pre": true,
	"blockquote": true, "form": true, "dl": true, "dt": true, "dd": true, "figure": true, "figcaption": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "hr": true, "br": true,
}

// htmlToText turns an HTML page into readable text: the title, headings
// marked with #, list items with -, links as [text](url) with url resolved
// against base, preformatted text kept as it is, and no scripts, styles or
// other invisible parts.
func htmlToText(page string, base *url.URL) (title, text string) {
	c := textConverter{base: base}
	z := htmlTokenizer{s: page}
	for {
		t, ok := z.next()
		if !ok {
			break
		}
		c.token(t)
	}
	for len(c.hrefs) > 0 {
		c.end("a")
	}
	return strings.Join(strings.Fields(c.title), " "), strings.TrimSpace(c.out.String()) + "\n"
}

// textConverter is the state of one htmlToText call.
type textConverter struct {
	base    *url.URL
	out     strings.Builder
	title   string
	inTitle bool
	skip    []string // open elements whose content is skipped
	pre     int      // depth of open <pre> elements
	hrefs   []string // targets of the open <a> elements ("" when not shown)
	space   bool     // a space is due before the next word
}

// token adds one token to the text.
func (c *textConverter) token(t htmlToken) {
	switch {
	case t.kind == htmlStartTag && t.name == "title":
		c.inTitle = true
	case t.kind == htmlEndTag && t.name == "title":
		c.inTitle = false
	case c.inTitle:
		if t.kind == htmlText && c.title == "" {
			c.title = t.text
		}
	case len(c.skip) > 0:
		top := c.skip[len(c.skip)-1]
		if top == "head" && t.kind == htmlStartTag && t.name == "body" {
			c.skip = c.skip[:len(c.skip)-1]
		} else if t.kind == htmlStartTag && t.name == top {
			c.skip = append(c.skip, t.name)
		} else if t.kind == htmlEndTag && t.name == top {
			c.skip = c.skip[:len(c.skip)-1]
		}
	case t.kind == htmlText:
		c.text(t.text)
	case t.kind == htmlStartTag:
		c.start(t)
	case t.kind == htmlEndTag:
		c.end(t.name)
	}
}

// start handles an opening tag.
func (c *textConverter) start(t htmlToken) {
	switch {
	case skippedTags[t.name]:
		c.skip = append(c.skip, t.name)
	case t.name == "a":
		href := c.resolve(t.attrs["href"])
		c.hrefs = append(c.hrefs, href)
		if href != "" {
			c.write("[")
		}
	case t.name == "img" && t.attrs["alt"] != "":
		c.write("[image: " + t.attrs["alt"] + "]")
	case len(t.name) == 2 && t.name[0] == 'h' && t.name[1] >= '1' && t.name[1] <= '6':
		c.newline(2)
		c.write(strings.Repeat("#", int(t.name[1]-'0')) + " ")
	case t.name == "li":
		c.newline(1)
		c.write("- ")
	case t.name == "td" || t.name == "th":
		c.cell()
	case t.name == "pre":
		c.newline(2)
		c.pre++
	case t.name == "p" || t.name == "blockquote" || t.name == "table":
		c.newline(2)
	case blockTags[t.name]:
		c.newline(1)
	}
}

// end handles a closing tag.
func (c *textConverter) end(name string) {
	switch {
	case name == "a" && len(c.hrefs) > 0:
		href := c.hrefs[len(c.hrefs)-1]
		c.hrefs = c.hrefs[:len(c.hrefs)-1]
		if href != "" {
			c.space = false
			c.out.WriteString("](" + href + ")")
		}
	case name == "pre" && c.pre > 0:
		c.pre--
		c.newline(2)
	case name == "p" || name == "table" || name == "blockquote" || (len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6'):
		c.newline(2)
	case blockTags[name]:
		c.newline(1)
	}
}

// text adds page text, collapsing white space outside <pre>.
func (c *textConverter) text(s string) {
	if c.pre > 0 {
		c.out.WriteString(s)
		return
	}
	first, _ := utf8.DecodeRuneInString(s)
	if unicode.IsSpace(first) {
		c.space = true
	}
	words := strings.Fields(s)
	for i, w := range words {
		if i > 0 {
			c.space = true
		}
		c.write(w)
	}
	if last, _ := utf8.DecodeLastRuneInString(s); len(words) > 0 && unicode.IsSpace(last) {
		c.space = true
	}
}

// write adds s, after a space if one is due and the line has begun.
func (c *textConverter) write(s string) {
	if c.space && c.out.Len() > 0 && !strings.HasSuffix(c.out.String(), "\n") && !strings.HasSuffix(c.out.String(), "[") {
		c.out.WriteByte(' ')
	}
	c.space = false
	c.out.WriteString(s)
}

// cell starts a table cell: a "|" before each cell but the row's first.
func (c *textConverter) cell() {
	c.space = false
	if c.out.Len() > 0 && !strings.HasSuffix(c.out.String(), "\n") {
		c.out.WriteString(" | ")
	}
}

// newline ends the current line and leaves up to n line breaks in a row.
func (c *textConverter) newline(n int) {
	c.space = false
	if c.out.Len() == 0 {
		return
	}
	have := len(c.out.String()) - len(strings.TrimRight(c.out.String(), "\n"))
	for ; have < n; have++ {
		c.out.WriteByte('\n')
	}
}

// resolve makes a link target absolute against the page's address; links
// that lead nowhere useful (scripts, fragments of this page) become "".
func (c *textConverter) resolve(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") || strings.HasPrefix(strings.ToLower(href), "javascript:") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if c.base != nil {
		u = c.base.ResolveReference(u)
	}
	return u.String()
}
