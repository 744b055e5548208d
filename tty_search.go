package main

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// historySearch is Ctrl-R's incremental search of earlier inputs, as readline's: this workspace's
// newest first, then those of every workspace; the input box shows the match.
type historySearch struct {
	query   string
	entries []string   // what is searched, in that order
	at      int        // the entry shown
	failed  bool       // no entry from at on holds the query
	draft   lineEditor // the input box before the search, which Esc puts back
}

// startSearch opens a history search; the input stays as it is until a match replaces it.
func (u *tui) startSearch() {
	var entries []string
	seen, all := map[string]bool{}, u.hist.read() // every workspace's, oldest first
	for _, mine := range []bool{true, false} {
		for _, e := range slices.Backward(all) {
			if (e.Project == u.app.Workspace) == mine && !seen[e.Display] {
				seen[e.Display], entries = true, append(entries, e.Display)
			}
		}
	}
	u.search = &historySearch{entries: entries, at: -1, draft: u.editor}
}

// handle applies a key to the search and reports whether the search goes on; a key that ends it
// (Enter, an arrow) is then the input box's, but for Esc, which puts the draft back.
func (s *historySearch) handle(k key, e *lineEditor) bool {
	from := max(s.at, 0)
	switch k.name {
	case "rune", "paste":
		s.query += k.text
	case "backspace":
		_, size := utf8.DecodeLastRuneInString(s.query)
		s.query, from = s.query[:len(s.query)-size], 0
	case "ctrl-r":
		from = s.at + 1
	case "esc", "ctrl-g":
		*e = s.draft
		return false
	default:
		return false
	}
	s.find(e, from)
	return true
}

// find shows the first entry from index from that holds the query, ignoring case, the cursor on the match.
func (s *historySearch) find(e *lineEditor, from int) {
	query := strings.ToLower(s.query)
	i := slices.IndexFunc(s.entries[min(from, len(s.entries)):], func(entry string) bool { return strings.Contains(strings.ToLower(entry), query) })
	if s.failed = i < 0 || query == ""; !s.failed {
		s.at = from + i
		e.set(s.entries[s.at])
		e.cursor = utf8.RuneCountInString(s.entries[s.at][:strings.Index(strings.ToLower(s.entries[s.at]), query)])
	}
}

// line is what the search shows under the input box.
func (s *historySearch) line() string {
	return map[bool]string{false: "history search: ", true: "no match in the history: "}[s.failed && s.query != ""] + s.query +
		"_ · Ctrl-R older · Enter runs · Esc puts your input back"
}
