package main

import (
	"bytes"
	"cmp"
	"strings"
	"unicode/utf8"
)

// key is one keypress (or one pasted block) decoded from the terminal's
// input bytes. name says which key: "rune" for a typed character (in r),
// "paste" for a bracketed paste (in text), otherwise a name such as
// "enter", "left", "ctrl-a" or "alt-b".
type key struct {
	name string
	r    rune
	text string
}

// The markers a terminal puts around pasted text in bracketed paste mode.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// escapeKeys maps the escape sequences terminals send to key names.
var escapeKeys = map[string]string{
	"\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left",
	"\x1bOA": "up", "\x1bOB": "down", "\x1bOC": "right", "\x1bOD": "left",
	"\x1b[H": "home", "\x1b[F": "end", "\x1bOH": "home", "\x1bOF": "end",
	"\x1b[1~": "home", "\x1b[4~": "end", "\x1b[7~": "home", "\x1b[8~": "end",
	"\x1b[3~": "delete", "\x1b[1;5C": "alt-f", "\x1b[1;5D": "alt-b",
	"\x1b[1;3C": "alt-f", "\x1b[1;3D": "alt-b", "\x1b[Z": "shift-tab",
	"\x1b\r": "alt-enter", "\x1b\n": "alt-enter", "\x1b\x7f": "alt-backspace", "\x1b\b": "alt-backspace",
	"\x1bb": "alt-b", "\x1bf": "alt-f",
}

// controlKeys names the control characters the UI uses.
var controlKeys = map[byte]string{
	'\r': "enter", '\n': "enter", '\t': "tab", 0x7f: "backspace", 0x08: "backspace",
	0x01: "ctrl-a", 0x02: "ctrl-b", 0x03: "ctrl-c", 0x04: "ctrl-d", 0x05: "ctrl-e",
	0x06: "ctrl-f", 0x0b: "ctrl-k", 0x0c: "ctrl-l", 0x0e: "down", 0x0f: "ctrl-o",
	0x10: "up", 0x15: "ctrl-u", 0x17: "ctrl-w", 0x19: "ctrl-y",
}

// decodeKey reads the first key of buf. It returns the key and the number
// of bytes it used; n is 0 when buf holds only the start of a sequence and
// more bytes are needed. A lone ESC at the end of buf is the Esc key when
// final is set (nothing more arrived with it).
func decodeKey(buf []byte, final bool) (k key, n int) {
	if bytes.HasPrefix(buf, []byte(pasteStart)) {
		end := bytes.Index(buf, []byte(pasteEnd))
		if end < 0 {
			return key{}, 0
		}
		text := strings.ReplaceAll(string(buf[len(pasteStart):end]), "\r\n", "\n")
		return key{name: "paste", text: strings.ReplaceAll(text, "\r", "\n")}, end + len(pasteEnd)
	}
	if buf[0] == 0x1b {
		return decodeEscape(string(buf[:min(len(buf), 32)]), final)
	}
	if name, ok := controlKeys[buf[0]]; ok {
		return key{name: name}, 1
	}
	if buf[0] < 0x20 {
		return key{name: "ignored"}, 1
	}
	if !utf8.FullRune(buf) {
		return key{}, 0
	}
	r, size := utf8.DecodeRune(buf)
	return key{name: "rune", r: r}, size
}

// decodeEscape decodes a sequence starting with ESC.
func decodeEscape(s string, final bool) (key, int) {
	if len(s) == 1 {
		if final {
			return key{name: "esc"}, 1
		}
		return key{}, 0
	}
	if strings.HasPrefix(pasteStart, s) {
		return key{}, 0
	}
	if s[1] == '[' || s[1] == 'O' {
		// CSI and SS3: parameters, then a final byte in @..~.
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return key{name: cmp.Or(escapeKeys[s[:i+1]], "ignored")}, i + 1
			}
		}
		if final && len(s) >= 32 {
			return key{name: "ignored"}, len(s)
		}
		return key{}, 0
	}
	if name, ok := escapeKeys[s[:2]]; ok {
		return key{name: name}, 2
	}
	return key{name: "esc"}, 1
}
