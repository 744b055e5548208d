package main

import (
	"cmp"
	"strings"
	"testing"
)

func TestBoundedOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   string
	}{
		{"empty", nil, "(empty)"},
		{"fits", []string{"ab", "cd"}, "abcd"},
		{"exactly the budget", []string{"abcdefgh"}, "abcdefgh"},
		{"a letter across head and tail", []string{"abc\u00e9de"}, "abc\u00e9de"},
		{"middle dropped", []string{"abcdefghij"}, "abcd\n[... 2 bytes of output omitted ...]\nghij"},
		{"many small writes", strings.Split("abcdefghijklmnop", ""), "abcd\n[... 8 bytes of output omitted ...]\nmnop"},
		{"one huge write", []string{"abcd" + strings.Repeat("x", 1000) + "wxyz"}, "abcd\n[... 1000 bytes of output omitted ...]\nwxyz"},
	}
	for _, tc := range tests {
		o := newBoundedOutput(8)
		for _, w := range tc.writes {
			o.Write([]byte(w))
		}
		if got := cmp.Or(o.take(), "(empty)"); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
