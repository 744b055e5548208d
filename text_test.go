package main

import "testing"

// TestVisibleControls checks that no control character of a line reaches the terminal: C0 ones and DEL
// in caret notation, the C1 ones some terminals obey (U+009B is CSI, U+009D OSC) as the ESC pair they mean.
func TestVisibleControls(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain\ttext, é 世界", "plain\ttext, é 世界"},
		{"a\x1b[2Jb\x07\x7f", "a^[[2Jb^G^?"},
		{"\u009b2J\u009d0;title\u009c", "^[[2J^[]0;title^[\\"},
		{"\u0080\u009f\u00a0\u00e9", "^[@^[_\u00a0\u00e9"},
		{"cut \xc2", "cut \xc2"},
	} {
		if got := visibleControls(c.in); got != c.want {
			t.Errorf("visibleControls(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
