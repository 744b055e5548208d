package main

import (
	"html"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// htmlToken is one piece of an HTML document: text, or a start or end tag.
type htmlToken struct {
	text  string            // unescaped text; "" for tags
	name  string            // lower-case tag name; "" for text
	end   bool              // an end tag
	attrs map[string]string // lower-case attribute names, unescaped values; the first of a name wins
}

// Patterns of HTML markup: where markup may begin, a tag, an attribute.
var (
	htmlMarkupStart = regexp.MustCompile(`<(?:[a-zA-Z!?]|/[a-zA-Z])`)
	htmlTag         = regexp.MustCompile(`^<(/?)([a-zA-Z][^\t\n\f\r />]*)((?:[^>"']|"[^"]*"|'[^']*')*)>`)
	htmlAttr        = regexp.MustCompile(`([^\t\n\f\r /=>]+)(?:[\t\n\f\r ]*=[\t\n\f\r ]*("[^"]*"|'[^']*'|[^\t\n\f\r >]*))?`)
)

// htmlTokens splits a page into tokens as forgivingly as browsers do, passing
// each to visit; script, style, title, textarea and xmp content runs to its end tag.
func htmlTokens(page string, visit func(htmlToken)) {
	for page != "" {
		i := len(page)
		if loc := htmlMarkupStart.FindStringIndex(page); loc != nil {
			i = loc[0]
		}
		if i > 0 {
			visit(htmlToken{text: html.UnescapeString(page[:i])})
			page = page[i:]
			continue
		}
		switch { // an unclosed comment or declaration ends the page
		case strings.HasPrefix(page, "<!--"):
			_, page, _ = strings.Cut(page[4:], "-->")
			continue
		case page[1] == '!' || page[1] == '?':
			_, page, _ = strings.Cut(page[2:], ">")
			continue
		}
		m := htmlTag.FindStringSubmatch(page)
		if m == nil {
			return
		}
		page = page[len(m[0]):]
		t := htmlToken{name: strings.ToLower(m[2]), end: m[1] == "/", attrs: map[string]string{}}
		for _, a := range htmlAttr.FindAllStringSubmatch(m[3], -1) {
			name, value := strings.ToLower(a[1]), a[2]
			if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') {
				value = value[1 : len(value)-1]
			}
			if _, seen := t.attrs[name]; !seen {
				t.attrs[name] = html.UnescapeString(value)
			}
		}
		visit(t)
		if raw := strings.Contains(" script style textarea title xmp ", " "+t.name+" "); raw && !t.end {
			n := indexEndTag(page, t.name)
			text := page[:n]
			if t.name == "title" || t.name == "textarea" {
				text = html.UnescapeString(text)
			}
			visit(htmlToken{text: text})
			page = page[n:]
		}
	}
}

// indexEndTag finds the end tag of the element name in s, or len(s).
func indexEndTag(s, name string) int {
	for i := 0; ; i += 2 {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			return len(s)
		}
		if i += j; strings.EqualFold(s[i+2:min(len(s), i+2+len(name))], name) {
			return i
		}
	}
}

// hasClass reports whether a tag's class attribute lists class.
func (t htmlToken) hasClass(class string) bool {
	return slices.Contains(strings.Fields(t.attrs["class"]), class)
}

// skippedTags are elements whose content is not text; blockTags start lines.
const (
	skippedTags = " script style noscript template svg iframe object canvas head select "
	blockTags   = " div section article main header footer nav aside ul ol li tr dl dt dd figure figcaption hr br form "
)

// htmlToText turns a page into text: # headings, - list items, [text](url) links, no scripts or styles.
func htmlToText(page string, base *url.URL) (title, text string) {
	c := textConverter{base: base}
	htmlTokens(page, c.token)
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
	case t.name == "title":
		c.inTitle = !t.end
	case c.inTitle:
		if t.name == "" && c.title == "" {
			c.title = t.text
		}
	case len(c.skip) > 0:
		top := c.skip[len(c.skip)-1]
		switch {
		case top == "head" && t.name == "body" && !t.end, t.name == top && t.end:
			c.skip = c.skip[:len(c.skip)-1]
		case t.name == top:
			c.skip = append(c.skip, t.name)
		}
	case t.name == "":
		c.text(t.text)
	case t.end:
		c.end(t.name)
	default:
		c.start(t)
	}
}

// start handles an opening tag.
func (c *textConverter) start(t htmlToken) {
	switch {
	case strings.Contains(skippedTags, " "+t.name+" "):
		c.skip = append(c.skip, t.name)
	case t.name == "a":
		href := c.resolve(t.attrs["href"])
		c.hrefs = append(c.hrefs, href)
		if href != "" {
			c.write("[")
		}
	case t.name == "img" && t.attrs["alt"] != "":
		c.write("[image: " + t.attrs["alt"] + "]")
	case headingLevel(t.name) > 0:
		c.newline(2)
		c.write(strings.Repeat("#", headingLevel(t.name)) + " ")
	case t.name == "li":
		c.newline(1)
		c.write("- ")
	case t.name == "td" || t.name == "th":
		c.space = false
		if c.out.Len() > 0 && !strings.HasSuffix(c.out.String(), "\n") {
			c.out.WriteString(" | ")
		}
	case t.name == "pre":
		c.newline(2)
		c.pre++
	default:
		c.end(t.name)
	}
}

// end handles a closing tag, and the line breaks an opening tag shares.
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
	case name == "p" || name == "table" || name == "blockquote" || headingLevel(name) > 0:
		c.newline(2)
	case strings.Contains(blockTags, " "+name+" ") || name == "pre":
		c.newline(1)
	}
}

// headingLevel is n for the tag hn (h1 to h6), else 0.
func headingLevel(name string) int {
	if len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6' {
		return int(name[1] - '0')
	}
	return 0
}

// text adds page text, collapsing white space outside <pre>.
func (c *textConverter) text(s string) {
	if c.pre > 0 {
		c.out.WriteString(s)
		return
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	c.space = c.space || unicode.IsSpace(first)
	words := strings.Fields(s)
	for _, w := range words {
		c.write(w)
		c.space = true
	}
	if len(words) > 0 {
		c.space = unicode.IsSpace(last)
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

// newline ends the current line and leaves up to n line breaks in a row.
func (c *textConverter) newline(n int) {
	c.space = false
	if c.out.Len() == 0 {
		return
	}
	have := len(c.out.String()) - len(strings.TrimRight(c.out.String(), "\n"))
	c.out.WriteString(strings.Repeat("\n", max(0, n-have)))
}

// resolve makes a link absolute; links to scripts or this page become "".
func (c *textConverter) resolve(href string) string {
	href = strings.TrimSpace(href)
	u, err := url.Parse(href)
	if href == "" || href[0] == '#' || strings.HasPrefix(strings.ToLower(href), "javascript:") || err != nil {
		return ""
	}
	if c.base != nil {
		u = c.base.ResolveReference(u)
	}
	return u.String()
}
