package main

import (
	"testing"
)

// TestToolInput checks how streamed arguments become a tool input.
func TestToolInput(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, want string }{
		{"", `{}`},
		{"  \n", `{}`},
		{`{"a": 1}`, `{"a": 1}`},
		{` {"a":1} `, `{"a":1}`},
		{`{"a": `, `"{\"a\": "`},
	}
	for _, tt := range tests {
		if got := string(toolInput(tt.raw)); got != tt.want {
			t.Errorf("toolInput(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
}
