package main

import (
	"bytes"
	"cmp"
	"strings"
	"unicode/utf8"
)

// key is one keypress or pasted block decoded from the terminal's input:
// name is "rune" for a typed character (in r), "paste" for a bracketed
// paste (in text), otherwise a name such as "enter", "left" or "ctrl-a".
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

// keyNames maps the control characters and escape sequences the UI uses
// to key names.
var keyNames = map[string]string{
	"\r": "enter", "\n": "enter", "\t": "tab", "\x7f": "backspace", "\b": "backspace",
	"\x01": "ctrl-a", "\x02": "ctrl-b", "\x03": "ctrl-c", "\x04": "ctrl-d", "\x05": "ctrl-e",
	"\x06": "ctrl-f", "\x0b": "ctrl-k", "\x0e": "down", "\x0f": "ctrl-o", "\x10": "up",
	"\x15": "ctrl-u", "\x17": "ctrl-w", "\x19": "ctrl-y",
	"\x1b[A": "up", "\x1b[B": "down", "\x1b[C": "right", "\x1b[D": "left",
	"\x1bOA": "up", "\x1bOB": "down", "\x1bOC": "right", "\x1bOD": "left",
	"\x1b[H": "home", "\x1b[F": "end", "\x1bOH": "home", "\x1bOF": "end",
	"\x1b[1~": "home", "\x1b[4~": "end", "\x1b[7~": "home", "\x1b[8~": "end",
	"\x1b[3~": "delete", "\x1b[1;5C": "alt-f", "\x1b[1;5D": "alt-b",
	"\x1b[1;3C": "alt-f", "\x1b[1;3D": "alt-b", "\x1b[Z": "shift-tab",
	"\x1b\r": "alt-enter", "\x1b\n": "alt-enter", "\x1b\x7f": "alt-backspace", "\x1b\b": "alt-backspace",
	"\x1bb": "alt-b", "\x1bf": "alt-f",
}

// decodeKey reads the first key of buf and returns it with the number of
// bytes it used, or n = 0 when buf holds only the start of a sequence. A
// lone ESC is the Esc key when final is set (nothing more arrived with it).
func decodeKey(buf []byte, final bool) (k key, n int) {
	if bytes.HasPrefix(buf, []byte(pasteStart)) {
		end := bytes.Index(buf, []byte(pasteEnd))
		if end < 0 {
			return key{}, 0
		}
		text := strings.ReplaceAll(string(buf[len(pasteStart):end]), "\r\n", "\n")
		return key{name: "paste", text: strings.ReplaceAll(text, "\r", "\n")}, end + len(pasteEnd)
	}
	s := string(buf[:min(len(buf), 32)])
	switch {
	case s[0] == 0x1b:
		return decodeEscape(s, final)
	case keyNames[s[:1]] != "":
		return key{name: keyNames[s[:1]]}, 1
	case s[0] < 0x20:
		return key{name: "ignored"}, 1
	case !utf8.FullRuneInString(s):
		return key{}, 0
	}
	r, size := utf8.DecodeRuneInString(s)
	return key{name: "rune", r: r}, size
}

// decodeEscape decodes a sequence starting with ESC.
func decodeEscape(s string, final bool) (key, int) {
	switch {
	case len(s) == 1 && final:
		return key{name: "esc"}, 1
	case len(s) == 1 || strings.HasPrefix(pasteStart, s):
		return key{}, 0
	case s[1] == '[' || s[1] == 'O': // CSI and SS3: parameters, then a final byte
		if i := strings.IndexFunc(s[2:], isFinalByte); i >= 0 {
			return key{name: cmp.Or(keyNames[s[:i+3]], "ignored")}, i + 3
		}
		if final && len(s) >= 32 {
			return key{name: "ignored"}, len(s)
		}
		return key{}, 0
	case keyNames[s[:2]] != "":
		return key{name: keyNames[s[:2]]}, 2
	}
	return key{name: "esc"}, 1
}

// isFinalByte reports whether r ends a CSI escape sequence.
func isFinalByte(r rune) bool { return r >= 0x40 && r <= 0x7e }
