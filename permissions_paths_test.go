package main

import (
	"testing"
)

// TestMatchGlob checks * within one element, ** across elements, and
// escaped glob characters.
func TestMatchGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		glob, name string
		want       bool
	}{
		{"/w/src/**", "/w/src/a.go", true},
		{"/w/src/**", "/w/src/x/y/z.go", true},
		{"/w/src/**", "/w/src", false},
		{"/w/src/**", "/w/srcx/a.go", false},
		{"/w/src/*", "/w/src/x/y.go", false},
		{"/w/**/*_test.go", "/w/a/b/c_test.go", true},
		{"/w/**/*_test.go", "/w/c_test.go", true},
		{"/w/**/*_test.go", "/w/c.go", false},
		{"/etc/*", "/etc/hosts", true},
		{"/w/**/**/**/**/**/**/**/**/z", "/w/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y", false},
		{"/w/" + globQuoter.Replace("a[1]*.go"), "/w/a[1]*.go", true},
		{"/w/" + globQuoter.Replace("a[1]*.go"), "/w/a1x.go", false},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.glob, tt.name); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tt.glob, tt.name, got, tt.want)
		}
	}
}
