package main

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// completion is a menu entry: the text that replaces the word typed, and a note.
type completion struct{ value, note string }

// completionMenu completes the word before the cursor; Esc empties it until the text changes.
type completionMenu struct {
	items  []completion
	sel    int
	word   string // the word being completed, which ends at the cursor
	before string // the text before the cursor when the menu was built
}

// update rebuilds the menu for the input's text before the cursor.
func (m *completionMenu) update(e *lineEditor, app *App) {
	before := string(e.buf[:e.cursor])
	if before == m.before {
		return
	}
	m.before, m.sel = before, 0
	start := strings.LastIndexAny(before, " \n") + 1
	m.word, m.items = before[start:], completionsFor(before[:start], before[start:], app)
}

// completionsFor lists the completions of word, given the text before it.
func completionsFor(head, word string, app *App) []completion {
	var all []completion
	switch command := strings.Join(strings.Fields(head), " "); {
	case strings.HasPrefix(word, "@"): // up to 50 files and folders, hidden ones when asked for
		dir, base := path.Split(word[1:])
		entries, _ := os.ReadDir(filepath.Join(app.Workspace, filepath.FromSlash(dir)))
		for _, e := range entries {
			hidden := strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(base, ".")
			if name := e.Name(); strings.HasPrefix(name, base) && !hidden && len(all) < 50 {
				if e.IsDir() {
					name += "/"
				}
				all = append(all, completion{value: "@" + dir + name})
			}
		}
	case head == "" && strings.HasPrefix(word, "/"):
		all = mapped(app.slashCommandList(), func(c SlashCommand) completion { return completion{"/" + c.name, c.help} })
	case command == "/resume": // the workspace's sessions, newest first, numbered as /resume N takes them
		infos, _ := listSessions(app.sessionsDir())
		for i, s := range infos {
			title := cmp.Or(s.Title, strings.Join(strings.Fields(s.FirstPrompt), " "))
			all = append(all, completion{s.ID, fmt.Sprintf("%d. %s, %d messages: %s", i+1, formatAge(time.Since(s.Modified)), s.Messages, title)})
		}
		if n, err := strconv.Atoi(word); err == nil { // a number picks that entry
			return all[min(max(n-1, 0), len(all)):min(max(n, 0), len(all))]
		}
	case command == "/rewind": // the checkpoints, newest first
		for i, c := range slices.Backward(app.Session.Checkpoints()) {
			all = append(all, completion{strconv.Itoa(i + 1), describeCheckpoint(c)})
		}
	case command == "/permissions":
		all = []completion{{value: string(ModeDefault)}, {value: string(ModeAcceptEdits)}, {value: string(ModePlan)}, {value: string(ModeBypass)}}
	case command == "/mcp":
		all = []completion{{value: "restart"}, {value: "login"}}
	case command == "/mcp restart" || command == "/mcp login":
		all = mapped(app.MCP.Status(), func(s ServerStatus) completion { return completion{value: s.Name} })
	}
	return slices.DeleteFunc(all, func(c completion) bool { return !strings.HasPrefix(c.value, word) })
}

// handle applies a key meant for the menu and reports whether it was.
func (m *completionMenu) handle(k key, e *lineEditor) bool {
	switch {
	case len(m.items) == 0:
		return k.name == "tab"
	case k.name == "tab" && len(m.items) > 1 && len(commonPrefix(m.items)) > len(m.word):
		m.apply(e, commonPrefix(m.items), false)
	case k.name == "tab" || k.name == "enter" && m.items[m.sel].value != m.word:
		m.apply(e, m.items[m.sel].value, true)
	case k.name == "up" || k.name == "down":
		menuKey(k, &m.sel, len(m.items))
	default:
		return false
	}
	return true
}

// apply replaces the word with value, and a space when finished (not after a folder, whose files come next).
func (m *completionMenu) apply(e *lineEditor, value string, finished bool) {
	if finished && !strings.HasSuffix(value, "/") {
		value += " "
	}
	e.remove(e.cursor-utf8.RuneCountInString(m.word), e.cursor, false)
	e.insert(value)
}

// commonPrefix is the longest prefix all the items' values share.
func commonPrefix(items []completion) string {
	p := items[0].value
	for _, it := range items[1:] {
		for !strings.HasPrefix(it.value, p) {
			_, size := utf8.DecodeLastRuneInString(p) // whole characters: é and è share a first byte
			p = p[:len(p)-size]
		}
	}
	return p
}

// lines draws up to six entries of the menu around the chosen one.
func (m *completionMenu) lines(width int, tr *Transcript) []string {
	const shown = 6
	first := min(max(0, m.sel-shown/2), max(0, len(m.items)-shown))
	var out []string
	for i, it := range m.items[first:min(first+shown, len(m.items))] {
		out = append(out, tr.menuEntry(fmt.Sprintf("%-16s %s", it.value, it.note), first+i == m.sel, width))
	}
	if len(m.items) > shown {
		out = append(out, fmt.Sprintf("  (%d of %d; Tab completes)", m.sel+1, len(m.items)))
	}
	return out
}
