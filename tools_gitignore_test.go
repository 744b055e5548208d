package main

import "testing"

func TestGitignoreRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		base    string
		content string
		path    string
		isDir   bool
		want    bool
	}{
		{"name at any depth", "", "*.log", "a/b/debug.log", false, true},
		{"name not matching", "", "*.log", "a/b/debug.txt", false, false},
		{"dir-only rule skips files", "", "build/", "build", false, false},
		{"dir-only rule matches folders", "", "build/", "sub/build", true, true},
		{"anchored with leading slash", "", "/vendor", "vendor", true, true},
		{"anchored does not match deeper", "", "/vendor", "x/vendor", true, false},
		{"inner slash anchors", "", "docs/gen", "docs/gen", true, true},
		{"inner slash anchors, deeper", "", "docs/gen", "x/docs/gen", true, false},
		{"leading double star", "", "**/cache", "a/b/cache", true, true},
		{"leading double star at root", "", "**/cache", "cache", true, true},
		{"inner double star", "", "a/**/z.txt", "a/b/c/z.txt", false, true},
		{"inner double star zero folders", "", "a/**/z.txt", "a/z.txt", false, true},
		{"trailing double star", "", "out/**", "out/x/y", false, true},
		{"trailing double star not the folder", "", "out/**", "out", true, false},
		{"negation re-includes", "", "*.log\n!keep.log", "keep.log", false, false},
		{"negation order matters", "", "!keep.log\n*.log", "keep.log", false, true},
		{"comments and blanks", "", "# *.go\n\n", "main.go", false, false},
		{"escaped hash", "", `\#notes`, "#notes", false, true},
		{"character class", "", "file[0-9].txt", "file7.txt", false, true},
		{"question mark", "", "?.tmp", "ab.tmp", false, false},
		{"nested gitignore applies below", "sub", "*.gen", "sub/x/y.gen", false, true},
		{"nested gitignore not above", "sub", "*.gen", "other/y.gen", false, false},
		{"nested anchored", "sub", "/only", "sub/only", false, true},
		{"nested anchored deeper", "sub", "/only", "sub/x/only", false, false},
		{"crlf lines", "", "*.o\r\n", "a.o", false, true},
		{"trailing spaces", "", "*.o   ", "a.o", false, true},
		{"bad pattern matches nothing", "", "[", "[", false, false},
	}
	for _, tc := range tests {
		set := ignoreSet(parseGitignore(tc.base, tc.content))
		if got := set.ignored(tc.path, tc.isDir); got != tc.want {
			t.Errorf("%s: rules %q (in %q) ignore %q = %v, want %v", tc.name, tc.content, tc.base, tc.path, got, tc.want)
		}
	}
}

func TestMatchSegments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"*.go", "a/b.go", false},
		{"src/**", "src/a/b", true},
		{"src/**/test/*.go", "src/test/x.go", true},
		{"src/**/test/*.go", "src/a/b/test/x.go", true},
		{"src/**/test/*.go", "src/a/b/test/y/x.go", false},
	}
	for _, tc := range tests {
		if got := matchGlob(tc.pattern, tc.path); got != tc.want {
			t.Errorf("matchSegments(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}
