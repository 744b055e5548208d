package main

import (
	"io"
	"strings"
	"testing"
)

// typeKeys turns a compact key script into keys: plain text is typed
// rune by rune, and <name> is the named key.
func typeKeys(script string) []key {
	var keys []key
	for script != "" {
		if strings.HasPrefix(script, "<") {
			if end := strings.IndexByte(script, '>'); end > 1 {
				keys = append(keys, key{name: script[1:end]})
				script = script[end+1:]
				continue
			}
		}
		r := []rune(script)[0]
		keys = append(keys, key{name: "rune", text: string(r)})
		script = script[len(string(r)):]
	}
	return keys
}

func TestLineEditorKeys(t *testing.T) {
	tests := []struct {
		name, keys string
		history    []string
		wantText   string
		wantCursor int
		wantSubmit bool
	}{
		{"typing", "hello", nil, "hello", 5, false},
		{"insert in the middle", "hllo<left><left><left>e", nil, "hello", 2, false},
		{"ctrl-a then typing", "ist files<ctrl-a>l", nil, "list files", 1, false},
		{"home and end", "bc<home>a<end>d", nil, "abcd", 4, false},
		{"ctrl-b and ctrl-f", "ac<ctrl-b>b<ctrl-f>d", nil, "abcd", 4, false},
		{"ctrl-e", "ab<ctrl-a><ctrl-e>c", nil, "abc", 3, false},
		{"ctrl-u cuts to the line start", "one two<left><left><ctrl-u>", nil, "wo", 0, false},
		{"ctrl-k cuts to the line end", "one two<ctrl-a><alt-f><ctrl-k>", nil, "one", 3, false},
		{"ctrl-w cuts a word", "one two<ctrl-w>", nil, "one ", 4, false},
		{"ctrl-y yanks the cut", "one two<ctrl-w><ctrl-a><ctrl-y> ", nil, "two one ", 4, false},
		{"alt-b and alt-f move by words", "one two three<alt-b><alt-b>X<alt-f>Y", nil, "one XtwoY three", 9, false},
		{"alt-backspace", "path/to/file<alt-backspace>", nil, "path/to/", 8, false},
		{"backspace and delete", "abcd<left><left><backspace><delete>", nil, "ad", 1, false},
		{"enter submits", "go<enter>", nil, "go", 2, true},
		{"alt-enter inserts a newline", "a<alt-enter>b", nil, "a\nb", 3, false},
		{"trailing backslash continues", `a\<enter>b`, nil, "a\nb", 3, false},
		{"up recalls the last input", "<up>", []string{"first", "second"}, "second", 6, false},
		{"up twice", "<up><up>", []string{"first", "second"}, "first", 5, false},
		{"down returns to the draft", "dra<up><up><down><down>", []string{"first", "second"}, "dra", 3, false},
		{"up moves within multi-line input", "ab<alt-enter>cd<up>X", nil, "abX\ncd", 3, false},
		{"wide characters", "日本<left>語", nil, "日語本", 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &lineEditor{history: tt.history}
			e.reset()
			submit := false
			for _, k := range typeKeys(tt.keys) {
				s := e.handle(k)
				submit = submit || s
			}
			if e.text() != tt.wantText || e.cursor != tt.wantCursor || submit != tt.wantSubmit {
				t.Errorf("got %q cursor %d submit %v, want %q cursor %d submit %v", e.text(), e.cursor, submit, tt.wantText, tt.wantCursor, tt.wantSubmit)
			}
		})
	}
}

func TestLineEditorPasteIsOneInsertion(t *testing.T) {
	e := &lineEditor{}
	e.handle(key{name: "paste", text: "line one\nline two\n"})
	if submit := e.handle(key{name: "enter"}); !submit || e.text() != "line one\nline two\n" {
		t.Errorf("got %q (submit %v), want the pasted block whole and Enter to send it", e.text(), submit)
	}
}

func TestDisplayWidth(t *testing.T) {
	tests := []struct {
		s    string
		want int
	}{
		{"abc", 3},
		{"日本語", 6},
		{"한국어", 6},
		{"e\u0301", 1}, // e and a combining accent
		{"👍", 2},
		{"❤️", 1},
		{"\x1b[31mred\x1b[0m", 3},
		{"ａｂ", 4}, // fullwidth letters
	}
	for _, tt := range tests {
		if got := displayWidth(tt.s); got != tt.want {
			t.Errorf("displayWidth(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestTruncateAndWrapByWidth(t *testing.T) {
	if got, want := truncateWidth("日本語テキスト", 7), "日本語…"; got != want {
		t.Errorf("truncateWidth = %q, want %q", got, want)
	}
	if got, want := truncateWidth("\x1b[2mabcdef\x1b[0m", 4), "\x1b[2mabc…\x1b[0m"; got != want {
		t.Errorf("truncateWidth = %q, want %q", got, want)
	}
	if got, want := strings.Join(wrapWidth("ab日本cd", 3), "|"), "ab|日|本c|d"; got != want {
		t.Errorf("wrapWidth = %q, want %q", got, want)
	}
}

func TestDecodeKey(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"ab", []string{"rune:a", "rune:b"}},
		{"\x01\x05\x02\x06\x15\x0b\x17\x19", []string{"ctrl-a", "ctrl-e", "ctrl-b", "ctrl-f", "ctrl-u", "ctrl-k", "ctrl-w", "ctrl-y"}},
		{"\x1b[A\x1b[B\x1b[C\x1b[D\x1bOA", []string{"up", "down", "right", "left", "up"}},
		{"\x1b[H\x1b[F\x1b[1~\x1b[4~\x1b[3~", []string{"home", "end", "home", "end", "delete"}},
		{"\x1bb\x1bf\x1b\x7f\x1b\r", []string{"alt-b", "alt-f", "alt-backspace", "alt-enter"}},
		{"\r\x7f\t\x03\x04\x0f", []string{"enter", "backspace", "tab", "ctrl-c", "ctrl-d", "ctrl-o"}},
		{"\x1b", []string{"esc"}},
		{"日", []string{"rune:日"}},
		{"\x1b[200~one\r\ntwo\x1b[201~x", []string{"paste:one\ntwo", "rune:x"}},
		{"\x1b[15~", []string{"ignored"}},
	}
	for _, tt := range tests {
		var got []string
		buf := []byte(tt.in)
		for len(buf) > 0 {
			k, n := decodeKey(buf)
			if n == 0 {
				t.Fatalf("%q: stuck at %q", tt.in, buf)
			}
			buf = buf[n:]
			switch k.name {
			case "rune":
				got = append(got, "rune:"+k.text)
			case "paste":
				got = append(got, "paste:"+k.text)
			default:
				got = append(got, k.name)
			}
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("%q: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDecodeKeyWaitsForTheRestOfASequence(t *testing.T) {
	for _, partial := range []string{"", "\x1b[", "\x1b[20", "\x1b[200~half a paste", "\xe6\x97"} {
		if _, n := decodeKey([]byte(partial)); n != 0 {
			t.Errorf("%q: decoded %d bytes, want to wait for more", partial, n)
		}
	}
}

func TestKeysDuringATurn(t *testing.T) {
	for _, stop := range []string{"<ctrl-c>", "<esc>"} {
		u := plainTUI(t, io.Discard)
		cancelled := false
		u.cancel = func() { cancelled = true }
		for _, k := range typeKeys("next task<enter>half" + stop) {
			u.handleKey(k)
		}
		if !cancelled {
			t.Errorf("%s did not cancel the running turn", stop)
		}
		// The task sent during the turn does not start after it: it comes back into the box, before what was typed since.
		if len(u.queued) != 0 || u.editor.text() != "next task\nhalf" {
			t.Errorf("%s: queued %q, input %q; want nothing queued and the sent task back in the box", stop, u.queued, u.editor.text())
		}
	}
}

func TestKeysThatLeave(t *testing.T) {
	tests := []struct {
		keys     string
		wantQuit bool
		wantText string
	}{
		{"<ctrl-d>", true, ""},
		{"ab<left><ctrl-d>", false, "a"},
		{"<ctrl-c>", false, ""},
		{"<ctrl-c><ctrl-c>", true, ""},
		{"typed<ctrl-c>", false, ""},
		{"typed<ctrl-c><ctrl-c>", false, ""},
	}
	for _, tt := range tests {
		u := plainTUI(t, io.Discard)
		for _, k := range typeKeys(tt.keys) {
			u.handleKey(k)
		}
		quit := false
		select {
		case <-u.quit:
			quit = true
		default:
		}
		if quit != tt.wantQuit || u.editor.text() != tt.wantText {
			t.Errorf("%s: quit %v, input %q; want quit %v, input %q", tt.keys, quit, u.editor.text(), tt.wantQuit, tt.wantText)
		}
	}
}

func TestUpAndDownMoveByRowsOfAWrappedLine(t *testing.T) {
	e := &lineEditor{history: []string{"earlier"}, columns: 10}
	e.reset()
	e.insert(strings.Repeat("x", 25)) // three rows: 10, 10 and 5 columns
	for i, want := range []int{15, 5} {
		e.handle(key{name: "up"})
		if e.cursor != want || e.text() != strings.Repeat("x", 25) {
			t.Fatalf("up %d: cursor %d in %q, want %d in the draft", i+1, e.cursor, e.text(), want)
		}
	}
	e.handle(key{name: "down"})
	if e.cursor != 15 {
		t.Errorf("down: cursor %d, want 15", e.cursor)
	}
	e.handle(key{name: "up"})
	e.handle(key{name: "up"})
	if e.text() != "earlier" {
		t.Errorf("up from the first row shows %q, want the history's %q", e.text(), "earlier")
	}
}

func TestHistorySearch(t *testing.T) {
	u := plainTUI(t, io.Discard)
	for _, input := range []string{"ȺȺȺx", "run the tests", "read main.go", "run go vet"} {
		if err := u.hist.Add(input); err != nil {
			t.Fatal(err)
		}
	}
	other := &InputHistory{path: u.hist.path, workspace: "/elsewhere"}
	if err := other.Add("run a script elsewhere"); err != nil {
		t.Fatal(err)
	}
	u.hist, u.editor.history = openHistory(u.app.Home, u.app.Workspace)
	tests := []struct {
		keys, wantText string
		wantSent       bool
	}{
		{"draft<ctrl-r>run", "run go vet", false},                                     // the newest match first
		{"draft<ctrl-r>run<ctrl-r>", "run the tests", false},                          // then older ones
		{"draft<ctrl-r>run<ctrl-r><ctrl-r>", "run a script elsewhere", false},         // then other workspaces'
		{"draft<ctrl-r>run<ctrl-r><ctrl-r><ctrl-r>", "run a script elsewhere", false}, // no older match: it stays
		{"draft<ctrl-r>MAIN", "read main.go", false},                                  // case does not matter
		{"draft<ctrl-r>run<esc>", "draft", false},                                     // Esc puts the draft back
		{"draft<ctrl-r>read<enter>", "", true},                                        // Enter runs the match
		{"draft<ctrl-r>reax<backspace>d<end>!", "read main.go!", false},               // another key edits it
		{"draft<ctrl-r>x<ctrl-b>!", "ȺȺ!Ⱥx", false},                                   // the cursor on the match, in runes
		{"draft<ctrl-r>ⱥⱥx<ctrl-b>!", "!ȺȺȺx", false},                                 // Ⱥ is longer in lower case
	}
	for _, tt := range tests {
		u.editor.reset()
		u.queued = nil
		for _, k := range typeKeys(tt.keys) {
			u.handleKey(k)
		}
		sent := len(u.queued) == 1 && u.queued[0] == "read main.go"
		if u.editor.text() != tt.wantText || sent != tt.wantSent || sent && u.search != nil {
			t.Errorf("%s: input %q, sent %q; want input %q, the match sent %v", tt.keys, u.editor.text(), u.queued, tt.wantText, tt.wantSent)
		}
		u.search = nil
	}
}
