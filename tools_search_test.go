package main

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
)

// listingTree is a workspace with ignored and skipped parts, shared by the
// search tool tests.
var listingTree = map[string]string{
	".gitignore":                "*.log\n/build/\n!keep.log\n",
	"README.md":                 "# demo\n",
	"main.go":                   "package main\n\nfunc main() {}\n",
	"debug.log":                 "noise\n",
	"keep.log":                  "kept\n",
	"build/out.bin":             "built\n",
	"src/app.go":                "package src\n\nfunc App() {}\n",
	"src/.gitignore":            "gen/\n",
	"src/gen/code.go":           "package gen\n",
	"src/sub/deep.go":           "package sub\n\nfunc Deep() {}\n",
	"src/sub/trace.log":         "noise\n",
	".git/HEAD":                 "ref: refs/heads/main\n",
	"node_modules/pkg/index.js": "module.exports = 1\n",
}

func TestListFiles(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, listingTree)
	tests := []struct {
		name    string
		input   string
		wantErr bool
		want    string
	}{
		{"top level", `{}`, false, "./: 5 entries\n.gitignore\nREADME.md\nkeep.log\nmain.go\nsrc/\n"},
		{"recursive", `{"recursive":true}`, false, "./: 9 entries\n.gitignore\nREADME.md\nkeep.log\nmain.go\nsrc/\nsrc/.gitignore\nsrc/app.go\nsrc/sub/\nsrc/sub/deep.go\n"},
		{"subfolder uses parent rules", `{"path":"src/sub"}`, false, "src/sub/: 1 entry\ndeep.go\n"},
		{"limit with note", `{"limit":2}`, false, "./: 5 entries\n.gitignore\nREADME.md\n[... 3 more not shown; raise limit or list a subfolder ...]\n"},
		{"ignored folder listed directly", `{"path":"build"}`, false, "build/: 1 entry\nout.bin\n"},
		{"a file", `{"path":"main.go"}`, true, "list_files main.go: is a file, not a folder; use read_file to read it"},
		{"missing", `{"path":"nope"}`, true, "list_files nope: no such folder"},
		{"negative limit", `{"limit":-3}`, true, `invalid input: field "limit" must be at least 1`},
		{"wrong type", `{"recursive":"yes"}`, true, `invalid input: field "recursive" must be a boolean, got string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := callTool(t, env, listFilesTool(), tc.input)
			if out.IsError != tc.wantErr || out.Text != tc.want {
				t.Errorf("list_files %s = %q (error %v), want %q (error %v)", tc.input, out.Text, out.IsError, tc.want, tc.wantErr)
			}
		})
	}
}

// TestListFilesInDotFolderKeepsAnchoredRules lists a folder whose name
// starts with a dot: the workspace's anchored rules still apply inside it.
func TestListFilesInDotFolderKeepsAnchoredRules(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{".gitignore": "/.cfg/secret.txt\n", ".cfg/secret.txt": "s\n", ".cfg/ok.txt": "ok\n"})
	want := ".cfg/: 1 entry\nok.txt\n"
	if out := callTool(t, env, listFilesTool(), `{"path":".cfg"}`); out.Text != want {
		t.Errorf("list_files .cfg = %q, want %q", out.Text, want)
	}
}

func TestListFilesEmptyAndOutside(t *testing.T) {
	t.Parallel()
	env := newTestEnv(t, map[string]string{"only.log": "x\n", ".gitignore": "*.log\n"})
	out := callTool(t, env, listFilesTool(), `{"path":"."}`)
	if out.IsError || out.Text != "./: 1 entry\n.gitignore\n" {
		t.Errorf("got %q", out.Text)
	}
	outside := t.TempDir()
	writeTree(t, outside, map[string]string{"x.txt": "x\n"})
	perms := &recordingPerms{}
	env.Perms = perms
	out = callTool(t, env, listFilesTool(), fmt.Sprintf(`{"path":%q}`, outside))
	if out.IsError || !strings.HasSuffix(out.Text, ": 1 entry\nx.txt\n") {
		t.Errorf("listing outside the workspace = %q", out.Text)
	}
	if len(perms.reqs) != 1 || perms.reqs[0].Access != AccessRead {
		t.Errorf("permission requests = %+v, want one read", perms.reqs)
	}
}

// TestFirstNStaysBounded adds many items in an order far from sorted:
// only about twice the limit may be held at a time, and the first must
// come out.
func TestFirstNStaysBounded(t *testing.T) {
	t.Parallel()
	const limit, files = 3, 10_000
	found := firstN[globHit]{n: limit, cmp: func(a, b globHit) int { return cmp.Compare(b.modTime, a.modTime) }}
	for i := range files {
		n := (i * 7919) % files
		found.add(globHit{path: fmt.Sprintf("f%05d", n), modTime: int64(n)})
		if len(found.items) > 2*limit {
			t.Fatalf("after %d hits %d are held, want at most %d", i+1, len(found.items), 2*limit)
		}
	}
	found.trim()
	var got []string
	for _, h := range found.items {
		got = append(got, h.path)
	}
	if want := "f09999 f09998 f09997"; strings.Join(got, " ") != want {
		t.Errorf("hits = %q, want %q", got, want)
	}
}

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
